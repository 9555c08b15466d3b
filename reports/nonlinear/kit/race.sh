#!/usr/bin/env bash
# The race on a real engine's own problem (issue 54): Stash's tuner (Adam through its king
# safety's clamped square) against texel on Stash's full evaluation, the same positions,
# start (Stash's values), K (Stash's own fit) and objective, 2 threads each, timed from
# process start. Stash is built in a scratch folder with texel's trace writer; nothing of
# it enters the project.
#   STASH_GIT=<git dir of mhouppin/stash-bot> WORK=/some/scratch bash race.sh RESULTS
# Env: TEXEL (target/release/texel), GAMES (../shared/data/stockfish-2000n.pgn.gz),
# STASH_SECONDS (3600: Stash's cap; it also stops when its loss no longer falls, timed.py).
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
GAMES=${GAMES:-$PROJECT/../shared/data/stockfish-2000n.pgn.gz}
WORK=${WORK:?set WORK to a scratch folder}
RESULTS=$(mkdir -p "$1" && cd "$1" && pwd)
export STASH_GIT WORK

# 1. Positions: every position of the games from ply 8, quiesced by texel's importer, in
# Stash's own form (FEN, White's result, a search score Stash blends only at lambda < 1).
if [ ! -s "$WORK/positions.stash" ]; then
  "$TEXEL" import --pgn "$GAMES" --per-game 1000 --gap 1 --skip-plies 8 \
    --win-min -100000 --draw-max 100000 --out "$WORK/positions.epd"
  awk '{l=$NF; gsub(/[][]/, "", l); print $1" "$2" "$3" "$4" "$5" "$6" "l" 0"}' \
    "$WORK/positions.epd" > "$WORK/positions.stash"
fi
# 2. Stash's tuner, its own settings but 2 threads and no iteration limit of its own.
TUNER=$(ITERATIONS=1000000 THREADS=2 bash "$KIT/build-stash.sh" | tail -1)
# 3. The trace Stash's tuner writes of what it loaded, and its K.
TEXEL_TRACE_OUT="$WORK/stash.trace" "$TUNER" "$WORK/positions.stash" >/dev/null
"$TEXEL" traces convert --input "$WORK/stash.trace" --out "$WORK/stash.bin" >/dev/null
K=$(cat "$WORK/stash.trace.k")
{ echo "texel: $("$TEXEL" --version) ($(git -C "$PROJECT" rev-parse --short HEAD))"
  echo "stash: $(cat "$WORK/stash/COMMIT")"; echo "K (texel's base 10): $K"; nproc; uptime
} > "$RESULTS/setup.txt"
# 4. The runs.
python3 "$KIT/timed.py" --kind stash --out "$RESULTS/stash" --max-seconds "${STASH_SECONDS:-3600}" \
  -- "$TUNER" "$WORK/positions.stash"
python3 "$KIT/stash_values.py" json "$WORK/stash.trace" "$RESULTS/stash/output.txt" \
  > "$RESULTS/stash/tuned.json"
texel_run() {
  local name=$1; shift
  python3 "$KIT/timed.py" --kind texel --out "$RESULTS/$name" -- \
    "$TEXEL" tune --traces "$WORK/stash.bin" --k "$K" --threads 2 --fresh \
    --out "$RESULTS/$name/tuned.json" "$@"
}
texel_run texel-same-objective --l2 0 --min-support 0
texel_run texel-default
# 5. Every table's error by one evaluator, then the table.
for run in stash texel-same-objective texel-default; do
  "$TEXEL" error --traces "$WORK/stash.bin" --k "$K" --params "$RESULTS/$run/tuned.json" \
    | tail -1 > "$RESULTS/$run/final-error.txt"
done
python3 "$KIT/summary.py" "$RESULTS" stash texel-same-objective texel-default | tee "$RESULTS/table.md"
