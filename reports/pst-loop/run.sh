#!/usr/bin/env bash
# The loop for a Rust engine (issue 42): examples/pst (material and piece-square tables,
# tapered, with a small alpha-beta search) from material alone, through its description
# examples/pst/engine.json: each round its games against itself at fixed nodes, imported,
# traced by pst-trace, tuned, gated by an SPRT; then the loop's best (or the last round's
# table when none passed) against material alone, colours swapped. Resumable.
#
#   bash reports/pst-loop/run.sh          # from the project root
#
# Env: DIR (runs/pst-loop), ROUNDS (3), GAMES (2000), NODES (2000), GATE_GAMES (600),
# FINAL_GAMES (1000), TEXEL (target/release/texel).
set -euo pipefail
TEXEL=${TEXEL:-target/release/texel}
DIR=${DIR:-runs/pst-loop}
NODES=${NODES:-2000}
cargo build --release -q -p texel-example-pst
"$TEXEL" loop --engine examples/pst/engine.json --dir "$DIR" --resume \
  --rounds "${ROUNDS:-3}" --games "${GAMES:-2000}" --nodes "$NODES" \
  --gate-games "${GATE_GAMES:-600}" --sprt 0,10 | tee -a "$DIR.txt"
[ -s "$DIR/final.txt" ] && exit 0
final=$DIR/best.json
if cmp -s "$final" examples/pst/start.json; then
  final=$(ls -d "$DIR"/round-*/ | tail -1)tuned.json
fi
echo "final: $final" > "$DIR/final-table.txt"
"$TEXEL" match --engine "name=loop,cmd=target/release/pst-uci,arg=$PWD/$final" \
  --engine "name=material,cmd=target/release/pst-uci,arg=$PWD/examples/pst/start.json" \
  --each "nodes=$NODES" --games "${FINAL_GAMES:-1000}" --concurrency 2 \
  --openings data/openings.epd --random-plies 2 --resign 1000,6 --pgn "$DIR/final.pgn" \
  > "$DIR/final.txt.part"
mv "$DIR/final.txt.part" "$DIR/final.txt"
