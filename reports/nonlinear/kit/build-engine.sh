#!/usr/bin/env bash
# Builds Stash (the engine, not its tuner) with the tables of PRINTED written into its
# sources: PRINTED is Stash's tuner output (its last printed tables) or texel's values
# printed by the same code (TEXEL_VALUES=... stash-tune, see texel_dump.c).
#   STASH_GIT=<git dir> WORK=<scratch> bash build-engine.sh PRINTED NAME  -> WORK/engines/NAME
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
PRINTED=$(realpath "$1")
NAME=$2
STASH_GIT=${STASH_GIT:?set STASH_GIT}
WORK=${WORK:?set WORK}
COMMIT=${STASH_COMMIT:-e1381ca}
DIR=$WORK/engine-src-$NAME
rm -rf "$DIR"
mkdir -p "$DIR" "$WORK/engines"
git -C "$STASH_GIT" archive "$COMMIT" | tar -x -C "$DIR"
python3 "$KIT/stash_values.py" apply "$PRINTED" "$DIR/src"
make -s -C "$DIR/src" -j2 EXE=stash >/dev/null
cp "$DIR/src/stash" "$WORK/engines/$NAME"
rm -rf "$DIR"
echo "$WORK/engines/$NAME"
