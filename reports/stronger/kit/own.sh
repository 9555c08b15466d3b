#!/usr/bin/env bash
# Issue "Stronger than the release", texel's own engine: `preset:tuned` re-tuned on
# teacher-scored positions (`texel label` output) and played against `preset:tuned` at
# NODES nodes from data/openings.epd with random plies, colours swapped.
#   bash own.sh R NAME LABELS GAMES SEED [TUNE FLAGS...]
# e.g. NAME default (no flag), teacher (--lambda 0 --validate 0 --l2 100). The tune runs
# once per NAME (a second SEED plays the same table). Env: NODES (5000), TEXEL. Writes
# R/NAME/: output.txt, time.txt, tuned.json, report.html, match-SEED.txt, match-SEED.pgn.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
R=$1/$2
NAME=texel-$2
LABELS=$3
GAMES=$4
SEED=$5
shift 5
mkdir -p "$R"
if [ ! -s "$R/tuned.json" ]; then
  /usr/bin/time -f "%e s wall, %M KB" -o "$R/time.txt" "$TEXEL" tune \
    --epd "$LABELS" --params preset:tuned --threads 2 --fresh --checkpoint "$R/run.ckpt" \
    --out "$R/tuned.json" --report "$R/report.html" "$@" > "$R/output.txt" 2>&1
fi
"$TEXEL" match --engine "name=$NAME,params=$R/tuned.json" --engine "name=preset-tuned,params=preset:tuned" \
  --each "nodes=${NODES:-5000}" --games "$GAMES" --openings "$PROJECT/data/openings.epd" \
  --random-plies 2 --seed "$SEED" --concurrency 2 --pgn "$R/match-$SEED.pgn" \
  > "$R/match-$SEED.txt" 2> /dev/null
grep -m1 "preset-tuned" "$R/match-$SEED.txt"
