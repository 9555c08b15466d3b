#!/usr/bin/env bash
# `texel tune --stream` on the race trace and on it repeated twenty times (make-20M.py), the
# L2 pull off so that both have the same objective (the 20M one twenty times over), and the
# in-memory tunes of both for comparison; the streamed 20M run under a 2 GiB address-space
# cap (below the 3.6 GB file and the 4.5 GiB its in-memory tune peaks at). Also the size
# of the tuner form a streamed run reads back in every pass (the scratch file beside its
# checkpoint, sampled while it runs) and the machine's copy bandwidth, for the bound.
#
#   WORK=/work/race bash reports/race/big/stream.sh OUT     # after a release build
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?give an output folder}
TEXEL=${TEXEL:-$PWD/target/release/texel}
W=${WORK:?the race work folder}/trace
mkdir -p "$OUT" && cd "$OUT"
[ -f "$W/train300.gedas.bin" ] || python3 "$HERE/make-20M.py" \
  "$W/train15.gedas.bin" "$W/train300.gedas.bin"
common=(--params "$W/train15.gedas.jsonl.zero.json" --k 1.1725951011387798 --threads 2 --l2 0)
# The largest size of the file $1 while process $2 runs, every second.
largest() {
  local most=0 size
  while kill -0 "$2" 2>/dev/null; do
    size=$(stat -c %s "$1" 2>/dev/null || echo 0)
    [ "$size" -gt "$most" ] && most=$size
    sleep 1
  done
  echo "$most"
}
for n in 1M 20M; do
  trace=$W/train15.gedas.bin; [ $n = 20M ] && trace=$W/train300.gedas.bin
  /usr/bin/time -v "$TEXEL" tune --traces "$trace" "${common[@]}" --memory 64G \
    --out mem-$n.json --fresh > mem-$n.txt 2> mem-$n.time
  (ulimit -v 2000000
   /usr/bin/time -v "$TEXEL" tune --traces "$trace" "${common[@]}" --stream \
     --out stream-$n.json --fresh > stream-$n.txt 2> stream-$n.time) &
  largest "stream-$n.json.ckpt.form" $! > stream-$n.form-bytes
  wait
done
python3 -c "
import time
b = bytearray(1 << 30); c = bytearray(1 << 30); c[:] = b
t = time.perf_counter()
for _ in range(8):
    c[:] = b
print(f'{8 / (time.perf_counter() - t):.2f} GiB/s copy bandwidth (python: a 1 GiB bytearray copied into another, 8 times)')
" > copy-bandwidth.txt
rm -f mem-*.json stream-*.json
