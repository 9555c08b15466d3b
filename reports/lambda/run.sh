#!/usr/bin/env bash
# Labels that use the search, on the shipped games (issue 42): the 4,129 Stockfish games of
# ../shared/data imported as data/train.epd is, each position keeping Stockfish's own score
# of it (`ce`); texel's table tuned with --lambda 1 (results alone), 0.75, 0.5, 0.25 and 0
# (scores alone); each blended table played against the results-only one at fixed nodes.
#
#   bash reports/lambda/run.sh OUT        # from the project root, after a release build
#
# Env: GAMES (1000), NODES (2000), LAMBDAS ("0.75 0.5 0.25 0"), TEXEL (target/release/texel).
set -euo pipefail
OUT=${1:?give an output folder}
TEXEL=${TEXEL:-target/release/texel}
mkdir -p "$OUT"
zcat ../shared/data/stockfish-2000n.pgn.gz > "$OUT/sf.pgn"
"$TEXEL" import --pgn "$OUT/sf.pgn" --out "$OUT/scored.epd" \
  --per-game 25 --gap 3 --skip-plies 8 --score-from-pgn --seed 1 > "$OUT/import.txt" 2>&1
rm "$OUT/sf.pgn"
for lambda in 1 ${LAMBDAS:-0.75 0.5 0.25 0}; do
  "$TEXEL" tune --epd "$OUT/scored.epd" --validate 10 --lambda "$lambda" \
    --out "$OUT/tuned-$lambda.json" --fresh > "$OUT/tune-$lambda.txt" 2>&1
  # Every table's error against the results alone, on the same validation split.
  "$TEXEL" error --epd "$OUT/scored.epd" --validate 10 --params "$OUT/tuned-$lambda.json" \
    > "$OUT/error-$lambda.txt" 2>&1
done
for lambda in ${LAMBDAS:-0.75 0.5 0.25 0}; do
  "$TEXEL" match --engine "name=lambda-$lambda,params=$OUT/tuned-$lambda.json" \
    --engine "name=results,params=$OUT/tuned-1.json" --each "nodes=${NODES:-2000}" \
    --games "${GAMES:-1000}" --concurrency 2 --openings data/openings.epd \
    --random-plies 2 --resign 1000,6 --draw 10,12,80 > "$OUT/match-$lambda.txt" 2>&1
done
