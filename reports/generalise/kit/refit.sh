#!/usr/bin/env bash
# Whether to refit: the pull the default run of proof.sh chose, tuned again on every
# position (nothing held out), its table played against the default run's table.
#   STASH_GIT=<git dir> WORK=<stash-trace.sh's WORK> bash refit.sh R [GAMES] [NODES]
# Needs R/default/ and WORK/engines/texel-default (proof.sh); writes R/refit/ and
# R/match-refit.txt/.pgn.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
WORK=${WORK:?set WORK}
export STASH_GIT WORK TEXEL
R=$1
GAMES=${2:-1000}
NODES=${3:-5000}
l2=$(sed -n 's/^--l2 auto chose pull \([^ ]*\) .*/\1/p' "$R/default/output.txt")
mkdir -p "$R/refit"
/usr/bin/time -v "$TEXEL" tune --traces "$WORK/stash.bin" --k "$(cat "$WORK/stash.trace.k")" \
  --threads 2 --fresh --validate 0 --l2 "$l2" --out "$R/refit/tuned.json" \
  > "$R/refit/output.txt" 2> "$R/refit/time-v.txt"
refit=$(bash "$KIT/engine-of.sh" "$R/refit" texel-refit)
"$TEXEL" match --engine "name=texel-refit,cmd=$refit" \
  --engine "name=texel-default,cmd=$WORK/engines/texel-default" \
  --each "nodes=$NODES" --games "$GAMES" --openings "$PROJECT/data/openings.epd" \
  --concurrency 2 --pgn "$R/match-refit.pgn" > "$R/match-refit.txt" 2> /dev/null
tail -4 "$R/match-refit.txt"
