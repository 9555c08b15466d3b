#!/usr/bin/env bash
# Builds Stash with a table texel tuned on Stash's trace: the values printed by Stash's own
# printer (which runs once Stash has fitted its K), written into Stash's sources by
# ../../nonlinear/kit/build-engine.sh.
#   STASH_GIT=<git dir> WORK=<stash-trace.sh's WORK> bash engine-of.sh RUN_DIR NAME
# RUN_DIR holds tuned.json; writes RUN_DIR/values.txt and printed.txt; prints the engine.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$KIT/../../.." && pwd)
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
WORK=${WORK:?set WORK}
RUN=$1
"$TEXEL" export --space "$WORK/stash.trace" --params "$RUN/tuned.json" \
  --template "$WORK/stash.trace.template" --out "$RUN/values.txt" > /dev/null
head -100 "$WORK/positions.stash" > "$WORK/few.stash"
TUNER=$(ls "$WORK"/stash/src/stash-tune-* | head -1)
TEXEL_VALUES="$RUN/values.txt" "$TUNER" "$WORK/few.stash" > "$RUN/printed.txt"
bash "$PROJECT/reports/nonlinear/kit/build-engine.sh" "$RUN/printed.txt" "$2" | tail -1
