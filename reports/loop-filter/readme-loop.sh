#!/usr/bin/env bash
# The README's loop line on its defaults (3 rounds of 3,000 games at 1,000 nodes, every
# sampled position kept), from the table the engine plays, with the shipped Stockfish
# positions; then its best (or, when no round passed, the last round's table) against that
# table at 1,000 and 5,000 nodes, colours swapped. Resumable.
#
#   bash reports/loop-filter/readme-loop.sh     # from the project root, after a release build
#
# Env: DIR (runs/readme-loop), FINAL_GAMES (1000), TEXEL (target/release/texel).
set -euo pipefail
TEXEL=${TEXEL:-target/release/texel}
DIR=${DIR:-runs/readme-loop}
mkdir -p "$DIR"
start=$(date +%s)
"$TEXEL" loop --resume --dir "$DIR/loop" --rounds 3 --params preset:tuned --epd data/train.epd \
  | grep -v '^  ' | tee -a "$DIR/loop.txt"
echo "loop wall: $(( $(date +%s) - start )) s" | tee -a "$DIR/loop.txt"
final=$DIR/loop/best.json
if [ "$("$TEXEL" params --params "$final" --json 2>/dev/null | md5sum)" = "$("$TEXEL" params --params preset:tuned --json 2>/dev/null | md5sum)" ]; then
  final=$(ls -d "$DIR"/loop/round-*/ | tail -1)tuned.json
fi
echo "final: $final" > "$DIR/final-table.txt"
for nodes in 1000 5000; do
  [ -s "$DIR/final-$nodes.txt" ] && continue
  "$TEXEL" match --engine "name=loop,params=$final" --engine "name=shipped,params=preset:tuned" \
    --games "${FINAL_GAMES:-1000}" --concurrency 2 --openings data/openings.epd \
    --random-plies 2 --resign 1000,6 --draw 10,12,80 --each "nodes=$nodes" \
    --pgn "$DIR/final-$nodes.pgn" > "$DIR/final-$nodes.txt.part"
  mv "$DIR/final-$nodes.txt.part" "$DIR/final-$nodes.txt"
done
