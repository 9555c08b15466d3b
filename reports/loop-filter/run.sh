#!/usr/bin/env bash
# The loop's result filter measured in play on texel's own engine (issue 68, item 4): two
# loops from the shipped table, the same command and seed (so the same self-play games),
# one keeping the Slow Chess write-up's result filter, one keeping every sampled position;
# then the two rounds' tuned tables against each other, colours swapped. Resumable: run it
# again; a finished match is not played twice.
#
#   bash reports/loop-filter/run.sh        # from the project root, after a release build
#
# Env: DIR (runs/loop-filter), ROUNDS (1), GAMES (3000), NODES (1000), GATE_GAMES (600),
# FINAL_GAMES (1000), TEXEL (target/release/texel). The match plays the last round's tuned
# tables; when both are the same table (both rounds kept their start) it is not played.
set -euo pipefail
TEXEL=${TEXEL:-target/release/texel}
DIR=${DIR:-runs/loop-filter}
NODES=${NODES:-1000}
mkdir -p "$DIR"
for filter in write-up none; do
  "$TEXEL" loop --resume --dir "$DIR/$filter" --rounds "${ROUNDS:-1}" --games "${GAMES:-3000}" \
    --nodes "$NODES" --gate-games "${GATE_GAMES:-600}" --result-filter "$filter" \
    | grep -v '^  ' | tee -a "$DIR/loop-$filter.txt"
done
cmp "$DIR/write-up/round-01/games.pgn" "$DIR/none/round-01/games.pgn" \
  && echo "both loops played the same first round's games" | tee "$DIR/same-games.txt"
[ -s "$DIR/final.txt" ] && exit 0
last=$(printf 'round-%02d' "${ROUNDS:-1}")
if cmp -s "$DIR/none/$last/tuned.json" "$DIR/write-up/$last/tuned.json"; then
  echo "both loops' last tuned tables are the same table: no match" | tee "$DIR/final.txt"
  exit 0
fi
"$TEXEL" match --engine "name=none,params=$DIR/none/$last/tuned.json" \
  --engine "name=write-up,params=$DIR/write-up/$last/tuned.json" \
  --games "${FINAL_GAMES:-1000}" --concurrency 2 --openings data/openings.epd \
  --random-plies 2 --resign 1000,6 --draw 10,12,80 --each "nodes=$NODES" \
  --pgn "$DIR/final.pgn" > "$DIR/final.txt.part"
mv "$DIR/final.txt.part" "$DIR/final.txt"
