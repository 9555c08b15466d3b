#!/usr/bin/env bash
# Stash as released against itself at fixed nodes, played in pieces that resume: piece i is
# PIECE games with seed SEED0+i, written to OUT/piece-i.pgn.part and renamed to
# OUT/piece-i.pgn when it is whole; a rerun skips the whole pieces and replays a torn one.
#   STASH=<stash binary> bash stash-games.sh OUT PIECES [PIECE] [NODES]
# Env: SEED0 (1000; the 8,000 games of reports/nonlinear used seed 1), CONCURRENCY (2).
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
STASH=${STASH:?set STASH to the Stash binary}
OUT=$1
PIECES=$2
PIECE=${3:-2000}
NODES=${4:-5000}
SEED0=${SEED0:-1000}
mkdir -p "$OUT"
for ((i = 0; i < PIECES; i++)); do
  name=$(printf 'piece-%03d' "$i")
  [ -f "$OUT/$name.pgn" ] && continue
  rm -f "$OUT/$name.pgn.part"
  # Every game gets two seeded random plies, so no start repeats within or across pieces.
  "$TEXEL" match --engine "name=stash-a,cmd=$STASH" --engine "name=stash-b,cmd=$STASH" \
    --each "nodes=$NODES" --games "$PIECE" --openings "$PROJECT/data/openings.epd" \
    --random-plies 2 --seed $((SEED0 + i)) --concurrency "${CONCURRENCY:-2}" \
    --pgn "$OUT/$name.pgn.part" > "$OUT/$name.txt"
  mv "$OUT/$name.pgn.part" "$OUT/$name.pgn"
done
echo "$PIECES pieces of $PIECE games in $OUT"
