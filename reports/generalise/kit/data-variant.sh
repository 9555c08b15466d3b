#!/usr/bin/env bash
# One data choice of issue "Tables that win games" item 4, judged twice: the DEFAULT tune
# (plus the flags given) of a trace made by stash-trace.sh with SCORES=1, its table scored
# on the held-out games of a common yardstick trace (every position of the same games, result
# labels: the same games are held out of every variant, their ids being the games'), and
# built into Stash and played against Stash as released.
#   STASH_GIT=<git dir> STASH=<stash as released> YARD=<yardstick WORK> \
#     bash data-variant.sh R NAME TRACE_WORK [tune flags...]
# Env: GAMES (1000), NODES (5000). Writes R/NAME/: output.txt, tuned.json, yardstick.txt,
# match.txt, match.pgn.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
STASH=${STASH:?set STASH to Stash as released}
YARD=${YARD:?set YARD to the yardstick trace WORK}
R=$1/$2
NAME=texel-$2
TRACE=$3
shift 3
mkdir -p "$R"
/usr/bin/time -f "%e s, %M KB" -o "$R/time.txt" "$TEXEL" tune --traces "$TRACE/stash.bin" \
  --k "$(cat "$TRACE/stash.trace.k")" --threads 2 --fresh --out "$R/tuned.json" "$@" \
  > "$R/output.txt" 2>&1
"$TEXEL" error --traces "$YARD/stash.bin" --k "$(cat "$YARD/stash.trace.k")" --lambda 1 \
  --params "$R/tuned.json" > "$R/yardstick.txt" 2>&1
export TEXEL STASH_GIT
ours=$(WORK=$TRACE bash "$KIT/engine-of.sh" "$R" "$NAME")
"$TEXEL" match --engine "name=$NAME,cmd=$ours" --engine "name=stash-release,cmd=$STASH" \
  --each "nodes=${NODES:-5000}" --games "${GAMES:-1000}" --openings "$PROJECT/data/openings.epd" \
  --concurrency 2 --pgn "$R/match.pgn" > "$R/match.txt" 2> /dev/null
tail -1 "$R/yardstick.txt"
grep -m1 "stash-release" "$R/match.txt"
