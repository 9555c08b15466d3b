#!/usr/bin/env bash
# The loop's proof (issue 12): three rounds of the Slow Chess loop from the table tuned on
# data/train.epd, three from material alone, then fixed-node matches of the loop's best
# against the train.epd tune and against the seed defaults. Summaries go to reports/loop/,
# the runs' own files to runs/ (kept out of git). Each step is resumable: run it again.
#
#   cargo build --release && scripts/loop-proof.sh
set -euo pipefail
cd "$(dirname "$0")/.."
texel=target/release/texel
out=reports/loop
mkdir -p "$out" runs
match=(--games "${MATCH_GAMES:-1000}" --concurrency 2 --openings data/openings.epd
  --random-plies 2 --resign 1000,6 --draw 10,12,80 --each nodes=5000)

"$texel" loop --dir runs/loop --rounds 3 --games 400 --gate-games 600 \
  --params reports/guards/guarded.json --epd data/train.epd | tee "$out/loop.txt"
cp runs/loop/loop.jsonl "$out/loop.jsonl"
cp runs/loop/best.json "$out/best.json"

"$texel" match --engine name=loop,params=runs/loop/best.json \
  --engine name=train,params=reports/guards/guarded.json "${match[@]}" \
  | tee "$out/match-vs-train.txt"
"$texel" match --engine name=loop,params=runs/loop/best.json --engine name=defaults \
  "${match[@]}" | tee "$out/match-vs-defaults.txt"

"$texel" loop --dir runs/loop-zero --rounds 3 --games 400 --gate-games 600 --from-zero \
  --epd data/train.epd | tee "$out/loop-zero.txt"
cp runs/loop-zero/loop.jsonl "$out/loop-zero.jsonl"
cp runs/loop-zero/best.json "$out/best-zero.json"
