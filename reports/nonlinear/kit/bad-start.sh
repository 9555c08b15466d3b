#!/bin/bash
# The bad starts of Stash's king safety (bad_starts.py), each tuned two ways: in one run
# (texel's default), and the linear part first (the `linear` group, Newton and a few polish
# rounds) then all; each table's error on the held-out games' trace.
#
# usage: WORK=W TEXEL=texel bash bad-start.sh R
#   W: the race's work folder (W/stash.bin, W/stash.trace, W/stash.trace.k, W/heldout/stash.bin)
#   R: where the runs go (R/START-STRATEGY/)
set -euo pipefail
R=$1; mkdir -p "$R"
KIT=$(cd "$(dirname "$0")" && pwd)
TEXEL=${TEXEL:-texel}
K=$(cat "$WORK/stash.trace.k")
python3 "$KIT/bad_starts.py" "$WORK/stash.trace" "$R"
tune() { "$TEXEL" tune --traces "$WORK/stash.bin" --k "$K" --threads 2 --fresh "$@"; }
for start in zero-ks all-zero neg-ks x4-ks; do
  for strategy in default linear-first; do
    D="$R/$start-$strategy"; mkdir -p "$D"
    begin=$(date +%s.%N)
    if [ "$strategy" = linear-first ]; then
      tune --passes 8 --params "$R/$start.json" --group linear --out "$D/stage1.json" > "$D/stage1.txt"
      tune --passes 40 --params "$D/stage1.json" --out "$D/tuned.json" > "$D/output.txt"
    else
      tune --passes 40 --params "$R/$start.json" --out "$D/tuned.json" > "$D/output.txt"
    fi
    echo "$(date +%s.%N) - $begin" | bc > "$D/time.txt"
    "$TEXEL" error --traces "$WORK/heldout/stash.bin" --params "$D/tuned.json" --k "$K" > "$D/heldout.txt"
  done
done
