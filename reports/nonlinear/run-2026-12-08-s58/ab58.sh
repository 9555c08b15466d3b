#!/bin/bash
# A/B: this stop's Hessian in pairs (s58j) against its start (s58base = 16c5f6e), alternated.
set -u
KIT=/work/main/reports/nonlinear/kit
R=/work/scratch/nl/r58
K=0.65601652738615923
cd /work/scratch/nl
echo "texel: texel 0.1.0 (s58j = this stop's Hessian in pairs; s58base = 16c5f6e, the stop's start)" > $R/setup.txt
echo "K (texel's base 10): $K" >> $R/setup.txt
nproc >> $R/setup.txt; uptime >> $R/setup.txt
for round in 1 2 3; do
  for b in s58j s58base; do
    T=/work/scratch/texel-$b
    /usr/bin/time -f "wall %e peak %M" $T bench newton > $R/bench-$b-$round.txt 2>&1
    python3 $KIT/timed.py --kind texel --out $R/same-$b-$round -- $T tune --traces stash.bin --k $K --threads 2 --fresh --l2 0 --min-support 0 --out $R/same-$b-$round/tuned.json
    $T error --traces stash.bin --k $K --params $R/same-$b-$round/tuned.json > $R/same-$b-$round/final-error.txt 2>&1
    python3 $KIT/timed.py --kind texel --out $R/default-$b-$round -- $T tune --traces stash.bin --k $K --threads 2 --fresh --out $R/default-$b-$round/tuned.json
    $T error --traces stash.bin --k $K --params $R/default-$b-$round/tuned.json > $R/default-$b-$round/final-error.txt 2>&1
  done
done
for round in 1; do
  for b in s58j s58base; do
    T=/work/scratch/texel-$b
    /usr/bin/time -f "wall %e peak %M" $T tune --traces /work/scratch/race/trace/train15.gedas.bin --params /work/scratch/race/trace/train15.gedas.jsonl.zero.json --k 1.1725951011387798 --threads 2 --out $R/race-$b-$round.json --fresh > $R/race-$b-$round.txt 2>&1
    /usr/bin/time -f "wall %e peak %M" $T tune --epd /work/scratch/s53/every.epd --threads 2 --out $R/texel-$b-$round.json > $R/texel-$b-$round.txt 2>&1
  done
done
echo done > $R/done
