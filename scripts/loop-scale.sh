#!/usr/bin/env bash
# The loop at scale (issue 31): three rounds of 20,000 self-play games each at 1,000 nodes a
# move (every game its own start: no colour-swapped twins), from the table tuned on
# data/train.epd (reports/guards/guarded.json), tuning on every round's positions plus
# data/train.epd, gate at most 1,000 games; then 1,000 games at 1,000 nodes of the loop's
# best against the train.epd tune (and of the last round's table when no round passed).
# Summaries go to reports/loop-scale/, the runs' own files to runs/loop-scale/. Every step
# is resumable: run the script again; a finished match is not played twice.
#
#   cargo build --release && scripts/loop-scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
texel=${TEXEL:-target/release/texel}
out=reports/loop-scale
dir=runs/loop-scale
train=reports/guards/guarded.json
nodes=1000
mkdir -p "$out" runs

# A fixed-node match of NAME=PARAMS against NAME=PARAMS, summary to FILE.
match() {
  local file=$1 a=$2 b=$3
  [ -s "$out/$file" ] && return 0
  "$texel" match --engine "$a" --engine "$b" --games "${MATCH_GAMES:-1000}" --concurrency 2 \
    --openings data/openings.epd --random-plies 2 --resign 1000,6 --draw 10,12,80 \
    --each "nodes=$nodes" --pgn "runs/loop-scale-${file%.txt}.pgn" > "$out/$file.part"
  mv "$out/$file.part" "$out/$file"
}

"$texel" loop --resume --dir "$dir" --rounds 3 --games 20000 --nodes "$nodes" --gate-games 1000 \
  --epd data/train.epd --params "$train" | tee -a "$out/loop.txt"
cp "$dir/loop.jsonl" "$out/loop.jsonl"
cp "$dir/best.json" "$out/best.json"
"$texel" report --loop "$dir" --out "$out/loop.html"
if cmp -s "$dir/best.json" "$train"; then
  cp "$dir/round-03/tuned.json" "$out/round3-tuned.json"
  match round3-vs-train.txt "name=round3,params=$dir/round-03/tuned.json" "name=train,params=$train"
else
  match best-vs-train.txt "name=loop,params=$dir/best.json" "name=train,params=$train"
fi
