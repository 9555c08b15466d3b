#!/usr/bin/env bash
# Issue "Stronger than the release" item 3: texel's DEFAULT command on Stash's positions
# scored by a teacher (stash-trace.sh), and the recipes beside it (results alone: --lambda 1;
# the teacher's scores alone: --lambda 0), each table built into Stash by Stash's own
# printer (../../generalise/kit/engine-of.sh) and played against Stash as released at
# NODES nodes from data/openings.epd with random plies, colours swapped.
#   STASH_GIT=<git dir> WORK=<stash-trace.sh's WORK> STASH=<stash as released> \
#     bash proof.sh R NAME GAMES SEED [TUNE FLAGS...]
# e.g. NAME default (no flag), results (--lambda 1), teacher (--lambda 0). The tune runs once
# per NAME (a second SEED plays the same table). Env: NODES (5000). Writes R/NAME/:
# output.txt, time.txt, tuned.json, report.html, match-SEED.txt, match-SEED.pgn.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
STASH=${STASH:?set STASH to Stash as released}
WORK=${WORK:?set WORK}
export STASH_GIT WORK TEXEL
R=$1/$2
NAME=texel-$2
GAMES=$3
SEED=$4
shift 4
mkdir -p "$R"
if [ ! -s "$R/tuned.json" ]; then
  /usr/bin/time -f "%e s wall, %M KB" -o "$R/time.txt" "$TEXEL" tune \
    --traces "$WORK/stash.bin" --k "$(cat "$WORK/stash.trace.k")" --threads 2 --fresh \
    --out "$R/tuned.json" --report "$R/report.html" "$@" > "$R/output.txt" 2>&1
fi
ours=$(bash "$PROJECT/reports/generalise/kit/engine-of.sh" "$R" "$NAME")
"$TEXEL" match --engine "name=$NAME,cmd=$ours" --engine "name=stash-release,cmd=$STASH" \
  --each "nodes=${NODES:-5000}" --games "$GAMES" --openings "$PROJECT/data/openings.epd" \
  --random-plies 2 --seed "$SEED" --concurrency 2 --pgn "$R/match-$SEED.pgn" \
  > "$R/match-$SEED.txt" 2> /dev/null
grep -m1 "stash-release" "$R/match-$SEED.txt"
