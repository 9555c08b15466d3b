#!/usr/bin/env bash
# The Slow Chess loop on sunfish's own games (issue 42): sunfish (PyPI, under pypy3) from its
# own tables, each round its games against itself at fixed nodes, imported, traced by
# sunfish's own trace writer, tuned, and gated by an SPRT at fixed nodes; then the loop's
# best against sunfish's own tables, colours swapped. Resumable: run it again to go on.
#
#   bash reports/sunfish-loop/run.sh        # from the project root, after a release build
#
# Env: DIR (runs/sunfish-loop), ROUNDS (3), GAMES (1000), NODES (1000), GATE_GAMES (600),
# FINAL_GAMES (2000), LAMBDA (1: game results alone; below 1 mixes in sunfish's own search
# scores, which its trace writer carries), TEXEL (target/release/texel).
set -euo pipefail
TEXEL=${TEXEL:-target/release/texel}
DIR=${DIR:-runs/sunfish-loop}
NODES=${NODES:-1000}
[ -d runs/sunfish/site ] || python3 -m pip install -q --target runs/sunfish/site sunfish==2026.1
[ -f runs/sunfish/original.json ] || PYTHONPATH=runs/sunfish/site python3 \
  examples/sunfish/sunfish_trace.py data/train.epd /dev/null --values runs/sunfish
"$TEXEL" loop --engine examples/sunfish/engine.json --dir "$DIR" --resume \
  --rounds "${ROUNDS:-3}" --games "${GAMES:-1000}" --nodes "$NODES" \
  --gate-games "${GATE_GAMES:-600}" --sprt 0,10 --lambda "${LAMBDA:-1}"
engine() {
  echo "name=$1,cmd=env,arg=PYTHONPATH=runs/sunfish/site,arg=pypy3,arg=examples/sunfish/sunfish_with.py,arg=$2"
}
[ -s "$DIR/final.txt" ] && exit 0
rm -f "$DIR/final.pgn"
# When no round passed its gate the best is sunfish's own tables: the final match then plays
# the last round's tuned values (tuned on every round's positions), as the texel loop's
# report at scale does.
final=$DIR/best.json
if cmp -s "$DIR/best.json" runs/sunfish/original.json; then
  final=$(ls -d "$DIR"/round-*/ | tail -1)tuned.json
fi
echo "final: $final" > "$DIR/final-table.txt"
"$TEXEL" match --engine "$(engine best "$PWD/$final")" \
  --engine "$(engine sunfish "$PWD/runs/sunfish/original.json")" --each "nodes=$NODES" \
  --games "${FINAL_GAMES:-2000}" --concurrency 2 --openings data/openings.epd \
  --random-plies 2 --resign 1000,6 --pgn "$DIR/final.pgn" > "$DIR/final.txt.part"
mv "$DIR/final.txt.part" "$DIR/final.txt"
