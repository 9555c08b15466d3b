#!/usr/bin/env bash
# The loop's proof (issue 12): three rounds of the Slow Chess loop from the table tuned on
# data/train.epd (reports/guards/guarded.json), three from material alone, and fixed-node
# matches: the loop's best against the train.epd tune and against the seed defaults, and
# (when no round passed its gate, so that the best is still the start) the last round's
# tuned table against the train.epd tune. Summaries go to reports/loop/, the runs' own files
# to runs/ (kept out of git). Every step is resumable: run the script again; a finished
# match is not played twice.
#
#   cargo build --release && scripts/loop-proof.sh
set -euo pipefail
cd "$(dirname "$0")/.."
texel=target/release/texel
out=reports/loop
train=reports/guards/guarded.json
mkdir -p "$out" runs

# A fixed-node match of NAME=PARAMS against NAME=PARAMS (or the defaults), summary to FILE.
match() {
  local file=$1 a=$2 b=$3
  [ -s "$out/$file" ] && return 0
  "$texel" match --engine "$a" --engine "$b" --games "${MATCH_GAMES:-1000}" --concurrency 2 \
    --openings data/openings.epd --random-plies 2 --resign 1000,6 --draw 10,12,80 \
    --each nodes=5000 --pgn "runs/${file%.txt}.pgn" > "$out/$file.part"
  mv "$out/$file.part" "$out/$file"
}

# Three rounds of the loop in DIR with the extra options given, its files copied to NAME.*.
run_loop() {
  local dir=$1 name=$2
  shift 2
  "$texel" loop --resume --dir "$dir" --rounds 3 --games 400 --gate-games 600 --epd data/train.epd "$@" \
    | tee -a "$out/$name.txt"
  cp "$dir/loop.jsonl" "$out/$name.jsonl"
  cp "$dir/best.json" "$out/$name-best.json"
  "$texel" report --loop "$dir" --out "$out/$name.html"
}

run_loop runs/loop loop --params "$train"
if cmp -s runs/loop/best.json "$train"; then
  cp runs/loop/round-03/tuned.json "$out/loop-round3-tuned.json"
  match round3-vs-train.txt name=round3,params=runs/loop/round-03/tuned.json "name=train,params=$train"
else
  match best-vs-train.txt name=loop,params=runs/loop/best.json "name=train,params=$train"
fi
match best-vs-defaults.txt name=loop,params=runs/loop/best.json name=defaults

run_loop runs/loop-zero loop-zero --from-zero
match zero-vs-train.txt name=zero,params=runs/loop-zero/best.json "name=train,params=$train"
