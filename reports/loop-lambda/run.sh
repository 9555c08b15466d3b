#!/usr/bin/env bash
# texel's own loop with labels that use the search (issue 42): from the table tuned on
# data/train.epd (reports/guards/guarded.json), each round self-play at fixed nodes, the
# positions tuned toward LAMBDA · result + (1 − LAMBDA) · σ(K · score) (the games' own
# search scores), together with the shipped Stockfish games imported with their scores
# (reports/lambda's scored.epd); gated by a fixed-node SPRT. Then the loop's best (or,
# when no round passed, the last round's table) against the train.epd tune, colours
# swapped. Resumable: run it again; a finished match is not played twice.
#
#   bash reports/loop-lambda/run.sh        # from the project root, after a release build
#
# Env: DIR (runs/loop-lambda), ROUNDS (2), GAMES (5000), NODES (1000), GATE_GAMES (1000),
# FINAL_GAMES (1000), LAMBDA (0.25), TEXEL (target/release/texel).
set -euo pipefail
TEXEL=${TEXEL:-target/release/texel}
DIR=${DIR:-runs/loop-lambda}
NODES=${NODES:-1000}
train=reports/guards/guarded.json
mkdir -p "$DIR"
if [ ! -s "$DIR/scored.epd" ]; then
  zcat ../shared/data/stockfish-2000n.pgn.gz > "$DIR/sf.pgn"
  "$TEXEL" import --pgn "$DIR/sf.pgn" --out "$DIR/scored.epd" \
    --per-game 25 --gap 3 --skip-plies 8 --score-from-pgn --seed 1 > "$DIR/import.txt" 2>&1
  rm "$DIR/sf.pgn"
fi
"$TEXEL" loop --resume --dir "$DIR/loop" --rounds "${ROUNDS:-2}" --games "${GAMES:-5000}" \
  --nodes "$NODES" --gate-games "${GATE_GAMES:-1000}" --epd "$DIR/scored.epd" \
  --params "$train" --lambda "${LAMBDA:-0.25}" | tee -a "$DIR/loop.txt"
[ -s "$DIR/final.txt" ] && exit 0
final=$DIR/loop/best.json
if cmp -s "$final" "$train"; then
  final=$(ls -d "$DIR"/loop/round-*/ | tail -1)tuned.json
fi
echo "final: $final" > "$DIR/final-table.txt"
"$TEXEL" match --engine "name=loop,params=$final" --engine "name=train,params=$train" \
  --games "${FINAL_GAMES:-1000}" --concurrency 2 --openings data/openings.epd \
  --random-plies 2 --resign 1000,6 --draw 10,12,80 --each "nodes=$NODES" \
  --pgn "$DIR/final.pgn" > "$DIR/final.txt.part"
mv "$DIR/final.txt.part" "$DIR/final.txt"
