#!/usr/bin/env bash
# texel's own engine: the term lab judging on held-out games, its adopted table against its
# base in 1,000 games (issue "Tables that win games", item 5).
#   TEXEL=<texel binary> OUT=<folder> bash reports/generalise/kit/lab-proof.sh
# From the repository root. The games are ../shared/data/stockfish-2000n.pgn.gz, imported as
# data/train.epd is (data/README.md) but with each position's game (`game N;`), so that the
# lab holds out 10 % of the games (its default) and judges every family on games it never saw.
set -euo pipefail
TEXEL=${TEXEL:-texel}
OUT=${OUT:-runs/lab-proof}
GAMES=${GAMES:-../shared/data/stockfish-2000n.pgn.gz}
mkdir -p "$OUT"
zcat "$GAMES" > "$OUT/sf.pgn"
"$TEXEL" import --pgn "$OUT/sf.pgn" --out "$OUT/train-games.epd" \
    --per-game 25 --gap 3 --skip-plies 8 --score-from-pgn --win-min 100 --draw-max 150 \
    --seed 1 2>&1 | tee "$OUT/import.txt"
rm "$OUT/sf.pgn"
# The lab from the committed base (configs/full.json --no-candidates), its defaults.
"$TEXEL" lab --epd "$OUT/train-games.epd" --params reports/lab/base.json --out "$OUT/lab" \
    --apply "$OUT/adopted.json" --fresh 2>&1 | tee "$OUT/lab.txt"
"$TEXEL" match --engine name=adopted,params="$OUT/adopted.json" \
    --engine name=base,params=reports/lab/base.json --each nodes=2000 --games 1000 \
    --openings data/openings.epd --random-plies 2 --concurrency 2 \
    --pgn "$OUT/match-adopted.pgn" 2>&1 | tee "$OUT/match-adopted.txt"
# 1,000 more games on other starts.
"$TEXEL" match --engine name=adopted,params="$OUT/adopted.json" \
    --engine name=base,params=reports/lab/base.json --each nodes=2000 --games 1000 \
    --openings data/openings.epd --random-plies 2 --seed 7 --concurrency 2 \
    --pgn "$OUT/match-adopted-2.pgn" 2>&1 | tee "$OUT/match-adopted-2.txt"
# The contrast: the same positions without their games, the lab holding out 10 % of the
# positions one by one (as it did before game ids), its adopted table in the same matches.
sed -E 's/ game [0-9]+;//' "$OUT/train-games.epd" > "$OUT/train-positions.epd"
"$TEXEL" lab --epd "$OUT/train-positions.epd" --validate 10 --params reports/lab/base.json \
    --out "$OUT/lab-positions" --apply "$OUT/adopted-positions.json" --fresh 2>&1 \
    | tee "$OUT/lab-positions.txt"
for seed in 1 7; do
  "$TEXEL" match --engine name=adopted-positions,params="$OUT/adopted-positions.json" \
      --engine name=base,params=reports/lab/base.json --each nodes=2000 --games 1000 \
      --openings data/openings.epd --random-plies 2 --seed $seed --concurrency 2 \
      --pgn "$OUT/match-positions-$seed.pgn" 2>&1 | tee "$OUT/match-positions-$seed.txt"
done
