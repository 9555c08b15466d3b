#!/usr/bin/env bash
# Stash's problem labelled by a teacher: the lines `texel label` wrote (label-stash.sh), each
# written in Stash's form with its line number (mod 2^15) where Stash reads a search score,
# the teacher's score beside as White's win probability (teacher.py: MODE cp, by the K at
# which the teacher's centipawns best predict these positions' results, or wdl, its own
# expectation), traced by Stash's own tuner (../../nonlinear/kit, with texel's trace writer)
# with each position's game and score.
#   STASH_GIT=<git dir of stash-bot> WORK=<scratch> bash stash-trace.sh LABELLED.epd [MODE]
# Makes WORK/positions.epd, positions.side, positions.stash, teacher.txt, stash.trace (+ .k)
# and stash.bin.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
NONLINEAR=$PROJECT/reports/nonlinear/kit
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
WORK=${WORK:?set WORK to a scratch folder}
export STASH_GIT WORK
mkdir -p "$WORK"
cp "$1" "$WORK/positions.epd"
python3 "$KIT/teacher.py" "$WORK/positions.epd" "$WORK/positions.side" "${2:-cp}" \
  > "$WORK/teacher.txt"
awk '{l=$NF; gsub(/[][]/, "", l); print $1" "$2" "$3" "$4" "$5" "$6" "l" "((NR - 1) % 32768)}' \
  "$WORK/positions.epd" > "$WORK/positions.stash"
TUNER=$(ITERATIONS=1000000 THREADS=2 bash "$NONLINEAR/build-stash.sh" | tail -1)
TEXEL_SIDE="$WORK/positions.side" TEXEL_TRACE_OUT="$WORK/stash.trace" "$TUNER" \
  "$WORK/positions.stash" > /dev/null
"$TEXEL" traces convert --input "$WORK/stash.trace" --out "$WORK/stash.bin" > /dev/null
echo "$WORK/stash.bin: K $(cat "$WORK/stash.trace.k"); $(head -1 "$WORK/teacher.txt")"
