#!/usr/bin/env bash
# Plays training games with engines from Debian and writes PGN for `texel import`, the way
# the Slow Chess author made his: gauntlets where one side is always strong, plus texel
# against a strong engine. Every move carries the mover's score ({+0.35/12}, white's view).
#
#   apt-get install -y stockfish glaurung
#   scripts/gen-games.sh games.pgn [GAMES_PER_MATCH] [STOCKFISH_NODES]
#
# SET=others plays a round of engines other than Stockfish instead (glaurung, toga2,
# ethereal-chess at MOVETIME seconds a move, default 0.05; SEED, default 11): data the tuner has never seen,
# from other evaluations, for checking a tuned table on positions of another origin.
#
#   apt-get install -y glaurung toga2 ethereal-chess
#   SET=others scripts/gen-games.sh others.pgn 100
set -euo pipefail
out=${1:?usage: [SET=others] scripts/gen-games.sh OUT.pgn [GAMES_PER_MATCH] [STOCKFISH_NODES]}
games=${2:-100}
nodes=${3:-5000}
set=${SET:-stockfish}
movetime=${MOVETIME:-0.05}
concurrency=${CONCURRENCY:-2}
cd "$(dirname "$0")/.."
case "$set" in
  stockfish) needed=(stockfish glaurung) ;;
  others) needed=(glaurung toga2 ethereal-chess) ;;
  *) echo "SET must be stockfish or others, not $set" >&2; exit 2 ;;
esac
for engine in "${needed[@]}"; do
  if [ ! -x "/usr/games/$engine" ]; then
    echo "missing /usr/games/$engine: apt-get install -y $engine" >&2
    exit 2
  fi
done
texel=${TEXEL:-target/release/texel}
[ -x "$texel" ] || cargo build --release --quiet
common=(--games "$games" --concurrency "$concurrency" --openings data/openings.epd
        --random-plies 2 --resign 1000,8 --draw 8,12,100 --pgn "$out")
if [ "$set" = others ]; then
  st="st=$movetime"
  "$texel" match --round-robin --engine "name=glaurung,cmd=/usr/games/glaurung,$st" \
    --engine "name=toga2,cmd=/usr/games/toga2,$st" \
    --engine "name=ethereal,cmd=/usr/games/ethereal-chess,$st" "${common[@]}" --seed "${SEED:-11}"
  echo "games appended to $out"
  exit 0
fi
sf="cmd=/usr/games/stockfish,nodes=$nodes"
# Stockfish honours `go nodes` exactly; glaurung gets a fixed time per move.
"$texel" match --engine "name=stockfish-a,$sf" --engine "name=stockfish-b,$sf" "${common[@]}" --seed 1
"$texel" match --engine "name=stockfish,$sf" --engine "name=glaurung,cmd=/usr/games/glaurung,st=0.1" "${common[@]}" --seed 2
"$texel" match --engine "name=stockfish,$sf" --engine "name=texel,nodes=$((nodes * 4))" "${common[@]}" --seed 3
echo "games appended to $out"
