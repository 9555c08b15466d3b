#!/usr/bin/env bash
# Stash's own problem with game ids: the games of stash-games.sh imported by texel (every
# position from ply 8, quiesced, each line naming its game: `game N;`), written in Stash's
# form with the game (mod 2^16) in the search score Stash reads and never uses at its lambda
# of 1, traced by Stash's own tuner (reports/nonlinear/kit) with each position's game.
#   STASH_GIT=<git dir> WORK=<scratch> bash stash-trace.sh GAMES.pgn[.zst]...
# Env: IMPORT, the importer's sampling and filter flags (default: every position from ply 8,
# no filter); SCORES=1 gives each position of the trace its search score too (Stash's score
# comment in the games, as a win probability by Stash's K: what `--lambda` blends): the
# positions file then carries each line's number (mod 2^15) where Stash reads a score, and
# the trace writer finds the line's game and score in WORK/positions.side.
# Makes WORK/positions.epd, WORK/positions.stash, WORK/stash.trace (+ .k) and WORK/stash.bin.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
NONLINEAR=$PROJECT/reports/nonlinear/kit
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
WORK=${WORK:?set WORK to a scratch folder}
export STASH_GIT WORK
mkdir -p "$WORK"
# One stream of games, so that game numbers run on across the pieces.
zstd -dcfq "$@" > "$WORK/games.pgn"   # plain or .zst pieces
IMPORT=${IMPORT:---per-game 1000 --gap 1 --skip-plies 8 --win-min -100000 --draw-max 100000}
# shellcheck disable=SC2086
"$TEXEL" import --pgn "$WORK/games.pgn" $IMPORT --out "$WORK/positions.epd"
# FEN, White's result, then the game as Stash's "score" (16 bits); with SCORES=1 the line's
# number instead, and the game and White's centipawns (EPD's ce is the mover's) beside.
awk -v scores="${SCORES:-0}" -v side="$WORK/positions.side" '
     {l=$NF; gsub(/[][]/, "", l); g=0; ce="nan"
      for (i = 7; i < NF; i++) {
        if ($i == "game") { g = $(i + 1); sub(/;/, "", g) }
        if ($i == "ce") { ce = $(i + 1); sub(/;/, "", ce); if ($2 == "b") ce = -ce }
      }
      if (scores == 1) { print g" "ce > side; key = (NR - 1) % 32768 } else key = g % 32768
      print $1" "$2" "$3" "$4" "$5" "$6" "l" "key}' \
  "$WORK/positions.epd" > "$WORK/positions.stash"
TUNER=$(ITERATIONS=1000000 THREADS=2 bash "$NONLINEAR/build-stash.sh" | tail -1)
if [ "${SCORES:-0}" = 1 ]; then
  TEXEL_SIDE="$WORK/positions.side" TEXEL_TRACE_OUT="$WORK/stash.trace" "$TUNER" "$WORK/positions.stash" >/dev/null
else
  TEXEL_GAME_IN_SCORE=1 TEXEL_TRACE_OUT="$WORK/stash.trace" "$TUNER" "$WORK/positions.stash" >/dev/null
fi
"$TEXEL" traces convert --input "$WORK/stash.trace" --out "$WORK/stash.bin" >/dev/null
echo "$WORK/stash.bin: K $(cat "$WORK/stash.trace.k")"
