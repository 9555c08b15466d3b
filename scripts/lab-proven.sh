#!/usr/bin/env bash
# Lab verdicts proven in games (issue 31): the term lab over every candidate family on the
# loop's positions (round 1 of runs/loop-scale) plus data/train.epd, from the train.epd tune
# (reports/guards/guarded.json); every kept family played against the base at 1,000 nodes as
# an SPRT on game pairs (0/5 Elo, at most 3,000 games); the families the games accepted
# adopted together (--apply) and played against the base without them, 1,000 games at 1,000
# nodes. Pages and results go to reports/lab-proven/, the runs' files to runs/lab-proven/.
# Resumable: run the script again.
#
#   cargo build --release && scripts/lab-proven.sh
set -euo pipefail
cd "$(dirname "$0")/.."
texel=${TEXEL:-target/release/texel}
out=reports/lab-proven
dir=runs/lab-proven
nodes=1000
mkdir -p "$out" "$dir"
"$texel" lab --resume --epd data/train.epd --epd runs/loop-scale/round-01/positions.epd \
  --validate 10 --params reports/guards/guarded.json --out "$dir" \
  --prove --prove-sprt 0,5 --prove-games "${PROVE_GAMES:-3000}" --prove-nodes "$nodes" \
  --apply "$dir/adopted.json" | tee -a "$out/lab.txt"
cp "$dir/lab.md" "$dir/lab.json" "$dir/adopted.json" "$out/"
"$texel" report --lab "$dir" --out "$out/lab.html"
# The base: the train.epd tune with every candidate at 0 (as the lab judged against).
base=$(ls "$dir"/prove/*-opponent.json | head -1)
cp "$base" "$out/base.json"
# (a rerun with more proof games plays the adoption match again)
rm -f "$out/match-adopted.txt" "$dir/match-adopted.pgn"
if [ ! -s "$out/match-adopted.txt" ]; then
  "$texel" match --engine "name=adopted,params=$dir/adopted.json" --engine "name=base,params=$base" \
    --games 1000 --concurrency 2 --openings data/openings.epd --random-plies 2 \
    --resign 1000,6 --draw 10,12,80 --each "nodes=$nodes" --pgn "$dir/match-adopted.pgn" \
    > "$out/match-adopted.txt.part"
  mv "$out/match-adopted.txt.part" "$out/match-adopted.txt"
fi
