#!/usr/bin/env bash
# `texel tune --stream` on the race trace and on it repeated twenty times (make-20M.py), the
# L2 pull off so that both have the same objective (the 20M one twenty times over), and the
# in-memory tune of the race trace for comparison; the 20M run under a 2 GiB address-space
# cap (below the 3.6 GB file and the 4.5 GiB its in-memory tune peaks at).
#
#   WORK=/work/race bash reports/race/big/stream.sh OUT     # after a release build
set -eu
OUT=${1:?give an output folder}
TEXEL=${TEXEL:-$PWD/target/release/texel}
W=${WORK:?the race work folder}/trace
mkdir -p "$OUT" && cd "$OUT"
[ -f "$W/train300.gedas.bin" ] || python3 "$(dirname "$0")/make-20M.py" \
  "$W/train15.gedas.bin" "$W/train300.gedas.bin"
common=(--params "$W/train15.gedas.jsonl.zero.json" --k 1.1725951011387798 --threads 2 --l2 0)
/usr/bin/time -v "$TEXEL" tune --traces "$W/train15.gedas.bin" "${common[@]}" \
  --out mem-1M.json --fresh > mem-1M.txt 2> mem-1M.time
/usr/bin/time -v "$TEXEL" tune --traces "$W/train15.gedas.bin" "${common[@]}" --stream \
  --out stream-1M.json --fresh > stream-1M.txt 2> stream-1M.time
(ulimit -v 2000000
 /usr/bin/time -v "$TEXEL" tune --traces "$W/train300.gedas.bin" "${common[@]}" --stream \
   --out stream-20M.json --fresh > stream-20M.txt 2> stream-20M.time)
