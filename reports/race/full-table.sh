#!/usr/bin/env bash
# texel's own 1,103-value table (configs/full.json: 10 % validation, patience 2, material
# frozen): `--method cd` against the default (`newton`), each under /usr/bin/time -v, then
# a fixed-node match of the two tables (colours swapped, distinct openings).
#
#   bash reports/race/full-table.sh OUT        # from the project root, after a release build
#
# Env: GAMES (1000), NODES (2000), TEXEL (target/release/texel).
set -euo pipefail
OUT=${1:?give an output folder}
TEXEL=${TEXEL:-target/release/texel}
mkdir -p "$OUT"
for method in cd newton; do
  /usr/bin/time -v "$TEXEL" tune --config configs/full.json --method "$method" \
    --out "$OUT/$method.json" --log "$OUT/$method-log.jsonl" --rust "$OUT/$method.rs" \
    --report "$OUT/$method.html" --fresh > "$OUT/$method.txt" 2>&1
done
"$TEXEL" match --engine name=newton,params="$OUT/newton.json" \
  --engine name=cd,params="$OUT/cd.json" --each nodes="${NODES:-2000}" \
  --games "${GAMES:-1000}" --concurrency 2 --openings data/openings.epd \
  --random-plies 2 --resign 1000,6 --draw 10,12,80 \
  --pgn "$OUT/match.pgn" > "$OUT/match.txt" 2>&1
