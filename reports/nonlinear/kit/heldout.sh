#!/usr/bin/env bash
# The held-out error of a race's tables: the positions of games the race did not see,
# traced by Stash's own tuner (as race.sh traces its positions), each table scored by
# `texel error` with the race's K; also Stash's values as the race started from them.
#   STASH_GIT=<git dir> WORK=<race.sh's scratch> bash heldout.sh RESULTS GAMES
# Writes RESULTS/RUN/heldout-error.txt for every run and RESULTS/heldout-start.txt.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
RESULTS=$(cd "$1" && pwd)
GAMES=$2
WORK=${WORK:?set WORK to the scratch folder of race.sh}
HELD=$WORK/heldout
mkdir -p "$HELD"
"$TEXEL" import --pgn "$GAMES" --per-game 1000 --gap 1 --skip-plies 8 \
  --win-min -100000 --draw-max 100000 --out "$HELD/positions.epd"
awk '{l=$NF; gsub(/[][]/, "", l); print $1" "$2" "$3" "$4" "$5" "$6" "l" 0"}' \
  "$HELD/positions.epd" > "$HELD/positions.stash"
TUNER=$(ls "$WORK"/stash/src/stash-tune-* | head -1)
TEXEL_TRACE_OUT="$HELD/stash.trace" "$TUNER" "$HELD/positions.stash" >/dev/null
"$TEXEL" traces convert --input "$HELD/stash.trace" --out "$HELD/stash.bin" >/dev/null
K=$(cat "$WORK/stash.trace.k")
for run in stash texel-same-objective texel-default; do
  "$TEXEL" error --traces "$HELD/stash.bin" --k "$K" --params "$RESULTS/$run/tuned.json" \
    | tail -1 > "$RESULTS/$run/heldout-error.txt"
done
"$TEXEL" error --traces "$HELD/stash.bin" --k "$K" | tail -1 > "$RESULTS/heldout-start.txt"
