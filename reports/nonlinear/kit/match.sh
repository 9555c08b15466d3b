#!/usr/bin/env bash
# Plays two tuned tables of the race inside Stash: each table written into Stash's sources
# (build-engine.sh) and the two engines matched at fixed nodes, colours swapped.
#   STASH_GIT=<git dir> WORK=<scratch> bash match.sh RESULTS TEXEL_RUN [GAMES] [NODES]
# RESULTS is race.sh's folder; TEXEL_RUN one of its texel runs (texel-same-objective,
# texel-default). Writes RESULTS/match-TEXEL_RUN.txt and .pgn.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
RESULTS=$(cd "$1" && pwd)
RUN=$2
GAMES=${3:-1000}
NODES=${4:-5000}
WORK=${WORK:?set WORK}
export STASH_GIT WORK
TUNER=$(ls "$WORK"/stash/src/stash-tune-* | head -1)
# texel's values printed by Stash's own printer, then both tables built into the engine.
"$TEXEL" export --space "$WORK/stash.trace" --params "$RESULTS/$RUN/tuned.json" \
  --template "$WORK/stash.trace.template" --out "$RESULTS/$RUN/values.txt" >/dev/null
# Stash reaches the printer after fitting its K: on a few positions (one may be one it skips).
head -100 "$WORK/positions.stash" > "$WORK/few.stash"
TEXEL_VALUES="$RESULTS/$RUN/values.txt" "$TUNER" "$WORK/few.stash" > "$RESULTS/$RUN/printed.txt"
ours=$(bash "$KIT/build-engine.sh" "$RESULTS/$RUN/printed.txt" "$RUN" | tail -1)
theirs=$(bash "$KIT/build-engine.sh" "$RESULTS/stash/output.txt" stash | tail -1)
"$TEXEL" match --engine "name=$RUN,cmd=$ours" --engine "name=stash-tuned,cmd=$theirs" \
  --each "nodes=$NODES" --games "$GAMES" --openings "$PROJECT/data/openings.epd" \
  --concurrency 2 --pgn "$RESULTS/match-$RUN.pgn" | tee "$RESULTS/match-$RUN.txt"
