#!/usr/bin/env bash
# Issue "Tables that win games" item 4: the data choices of the Slow Chess write-up measured
# on Stash's 40,000 self-play games, each judged on the same held-out games (the yardstick:
# every position, result labels) and in 1,000 games against Stash as released
# (data-variant.sh). Takes about 70 minutes on 2 cores.
#   STASH_GIT=<git dir> STASH=<stash as released> bash data-sweep.sh GAMES.pgn WORK R
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
GAMES=$1 D=$2 R=$3
export YARD=$D/all
trace() { SCORES=1 WORK=$D/$1 IMPORT="$2" bash "$KIT/stash-trace.sh" "$GAMES"; }
variant() { bash "$KIT/data-variant.sh" "$R" "$@"; }
every="--per-game 1000 --gap 1 --skip-plies 8"
trace all "$every --win-min -100000 --draw-max 100000"
variant all-result "$D/all" --lambda 1                  # every position, results alone
variant all-auto "$D/all"                               # lambda auto: 0.25 (every position scored)
variant all-0.75 "$D/all" --lambda 0.75
trace seed "--per-game 5 --gap 10 --skip-plies 10 --win-min 100 --draw-max 150"
variant seed-result "$D/seed" --lambda 1                # the write-up: sampled, texel's eval filter
trace seednf "--per-game 5 --gap 10 --skip-plies 10 --win-min -100000 --draw-max 100000"
variant seednf-result "$D/seednf" --lambda 1            # sampled, no result filter
trace allown "$every --score-from-pgn --win-min 100 --draw-max 150"
variant allown-result "$D/allown" --lambda 1            # every position, Stash's own scores filter
