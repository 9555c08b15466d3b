#!/usr/bin/env bash
# Issue "Stronger than the release" item 3: the positions of Stash's 40,000 games
# (reports/generalise/games), imported by texel's default command (5 a game, 10 plies
# apart, no result filter, each line naming its game) and scored by Debian's Stockfish at
# each node count given, one engine per thread. Every `texel label` run resumes where a
# killed one stopped: run this again with the same arguments to go on.
#   WORK=<scratch> bash label-stash.sh NODES...        (e.g. 5000 20000 1000)
# Makes WORK/games.pgn, WORK/positions.epd and WORK/sf-NODES.epd for each NODES.
# Env: TEXEL (the binary), ENGINE (stockfish), THREADS (2).
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
WORK=${WORK:?set WORK to a scratch folder}
ENGINE=${ENGINE:-$(command -v stockfish || echo /usr/games/stockfish)}
mkdir -p "$WORK"
if [ ! -s "$WORK/positions.epd" ]; then
  zstd -dcq "$PROJECT"/reports/generalise/games/piece-0*.pgn.zst > "$WORK/games.pgn"
  "$TEXEL" import --pgn "$WORK/games.pgn" --out "$WORK/positions.epd" 2> "$WORK/import.txt"
fi
for nodes in "$@"; do
  [ -s "$WORK/sf-$nodes.epd" ] && continue
  /usr/bin/time -f "%e s wall, %U s user, %M KB" -o "$WORK/sf-$nodes.time" \
    "$TEXEL" label --epd "$WORK/positions.epd" --engine "$ENGINE" --nodes "$nodes" \
    --threads "${THREADS:-2}" --out "$WORK/sf-$nodes.epd" 2> "$WORK/sf-$nodes.txt"
done
