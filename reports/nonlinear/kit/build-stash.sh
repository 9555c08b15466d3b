#!/usr/bin/env bash
# Builds Stash's own tuner (mhouppin/stash-bot, GPL-3, C) in a scratch folder with texel's
# trace writer (texel_dump.c, this folder) linked in: nothing of Stash enters the project.
#   STASH_GIT=<git dir of mhouppin/stash-bot> WORK=/some/scratch bash build-stash.sh
# Env: STASH_COMMIT (e1381ca, the snapshot raced), ITERATIONS (Stash's default 100),
# THREADS (2). Makes WORK/stash/src/stash-tune-ITERATIONS and WORK/stash/COMMIT.
set -euo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
STASH_GIT=${STASH_GIT:?set STASH_GIT to the git dir of the stash-bot snapshot}
WORK=${WORK:?set WORK to a scratch folder}
COMMIT=${STASH_COMMIT:-e1381ca}
ITERATIONS=${ITERATIONS:-100}
THREADS=${THREADS:-2}
DIR=$WORK/stash
if [ ! -d "$DIR/src" ]; then
  mkdir -p "$DIR"
  git -C "$STASH_GIT" archive "$COMMIT" | tar -x -C "$DIR"
  git -C "$STASH_GIT" rev-parse "$COMMIT" > "$DIR/COMMIT"
  # The hook: after Stash fits its K, before it blends labels and tunes.
  sed -i 's|^    tuner_dataset_compute_wdl_eval_mix(tuner_dataset, k, tuner_config->lambda);|    texel_trace_dump(tuner_dataset, k);\n&|' \
    "$DIR/src/sources/tuner.c"
  sed -i 's|^f64 sigmoid(f64 k, f64 eval) {|void texel_trace_dump(const TunerDataset *dataset, f64 k);\n\n&|' \
    "$DIR/src/sources/tuner.c"
  grep -q 'texel_trace_dump(tuner_dataset, k);' "$DIR/src/sources/tuner.c"
fi
cp "$KIT/texel_dump.c" "$DIR/src/sources/texel_dump.c"
cd "$DIR/src"
sed -i -E "s/\.threads = [0-9]+,/.threads = $THREADS,/; s/\.iterations = [0-9]+,/.iterations = $ITERATIONS,/" \
  sources/tuner.c
make -s fclean >/dev/null
make -s -j2 CFLAGS="-O3 -flto=2 -DNDEBUG -DTUNE -fopenmp" LDFLAGS="-fopenmp" EXE="stash-tune-$ITERATIONS" >/dev/null
echo "$DIR/src/stash-tune-$ITERATIONS"
