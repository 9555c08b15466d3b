#!/usr/bin/env bash
# Plays training games with engines from Debian and writes PGN for `texel import`, the way
# the Slow Chess author made his: gauntlets where one side is always strong, plus texel
# against a strong engine. Every move carries the mover's score ({+0.35/12}, white's view).
#
#   apt-get install -y stockfish glaurung
#   scripts/gen-games.sh games.pgn [GAMES_PER_MATCH] [STOCKFISH_NODES]
set -euo pipefail
out=${1:?usage: scripts/gen-games.sh OUT.pgn [GAMES_PER_MATCH] [STOCKFISH_NODES]}
games=${2:-100}
nodes=${3:-5000}
cd "$(dirname "$0")/.."
for engine in stockfish glaurung; do
  if [ ! -x "/usr/games/$engine" ]; then
    echo "missing /usr/games/$engine: apt-get install -y $engine" >&2
    exit 2
  fi
done
texel=${TEXEL:-target/release/texel}
[ -x "$texel" ] || cargo build --release --quiet
common=(--games "$games" --concurrency 2 --openings data/openings.epd --random-plies 2
        --resign 1000,8 --draw 8,12,100 --pgn "$out")
sf="cmd=/usr/games/stockfish,nodes=$nodes"
# Stockfish honours `go nodes` exactly; glaurung gets a fixed time per move.
"$texel" match --engine "name=stockfish-a,$sf" --engine "name=stockfish-b,$sf" "${common[@]}" --seed 1
"$texel" match --engine "name=stockfish,$sf" --engine "name=glaurung,cmd=/usr/games/glaurung,st=0.1" "${common[@]}" --seed 2
"$texel" match --engine "name=stockfish,$sf" --engine "name=texel,nodes=$((nodes * 4))" "${common[@]}" --seed 3
echo "games appended to $out"
