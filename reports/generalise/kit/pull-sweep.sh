#!/usr/bin/env bash
# The pull chosen on held-out games, by hand for now: texel tunes Stash's problem (the trace
# of stash-trace.sh, each position with its game) with 10 % of the games held out and each
# pull of PULLS, and reports the training and the held-out-games error of every table.
#   WORK=<stash-trace.sh's scratch> bash pull-sweep.sh RESULTS [PULLS...]
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
WORK=${WORK:?set WORK to the scratch folder of stash-trace.sh}
RESULTS=$(mkdir -p "$1" && cd "$1" && pwd)
shift
PULLS=${*:-0.1 1 10 30 100 300 1000}
K=$(cat "$WORK/stash.trace.k")
"$TEXEL" error --traces "$WORK/stash.bin" --k "$K" --validate 10 > "$RESULTS/start.txt"
for pull in $PULLS; do
  out="$RESULTS/l2-$pull"
  mkdir -p "$out"
  /usr/bin/time -f "%e s wall, %M KiB peak" -o "$out/time.txt" \
    "$TEXEL" tune --traces "$WORK/stash.bin" --k "$K" --threads 2 --fresh --validate 10 \
    --l2 "$pull" --out "$out/tuned.json" > "$out/output.txt"
  "$TEXEL" error --traces "$WORK/stash.bin" --k "$K" --validate 10 --params "$out/tuned.json" \
    | tail -1 > "$out/error.txt"
  echo "l2 $pull: $(cat "$out/error.txt") ($(cat "$out/time.txt"))"
done | tee "$RESULTS/sweep.txt"
