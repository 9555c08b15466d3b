#!/usr/bin/env bash
# The proof on a real engine: texel's DEFAULT command (no pull, hold-out or filter given) on
# Stash's problem with game ids (stash-trace.sh), its table built into Stash by Stash's own
# printer (../../nonlinear/kit) and matched at fixed nodes, colours swapped, against Stash's
# own tuner's table and against Stash as released.
#   STASH_GIT=<git dir> WORK=<stash-trace.sh's WORK> STASH=<stash as released> \
#     bash proof.sh R [GAMES] [NODES]
# Env: STASH_TUNED, the tables Stash's tuner printed (default: its run on the 7,000-game
# problem of ../../nonlinear/run-2026-11-27-selfplay/stash/printed.txt).
# Writes R/default/ (the tune's output, table, report page, time) and R/match-*.txt/.pgn.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
NONLINEAR=$PROJECT/reports/nonlinear/kit
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
STASH=${STASH:?set STASH to Stash as released}
WORK=${WORK:?set WORK}
STASH_TUNED=${STASH_TUNED:-$PROJECT/reports/nonlinear/run-2026-11-27-selfplay/stash/printed.txt}
export STASH_GIT WORK TEXEL
R=$1
GAMES=${2:-1000}
NODES=${3:-5000}
mkdir -p "$R/default"
/usr/bin/time -v "$TEXEL" tune --traces "$WORK/stash.bin" --k "$(cat "$WORK/stash.trace.k")" \
  --threads 2 --fresh --out "$R/default/tuned.json" --report "$R/default/report.html" \
  > "$R/default/output.txt" 2> "$R/default/time-v.txt"
ours=$(bash "$KIT/engine-of.sh" "$R/default" texel-default)
theirs=$(bash "$NONLINEAR/build-engine.sh" "$STASH_TUNED" stash-tuned | tail -1)
play() {
  "$TEXEL" match --engine "name=texel-default,cmd=$ours" --engine "name=$1,cmd=$2" \
    --each "nodes=$NODES" --games "$GAMES" --openings "$PROJECT/data/openings.epd" \
    --concurrency 2 --pgn "$R/match-$1.pgn" > "$R/match-$1.txt" 2> /dev/null
  tail -4 "$R/match-$1.txt"
}
play stash-tuned "$theirs"
play stash-release "$STASH"
