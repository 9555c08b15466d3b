#!/usr/bin/env bash
# The race on one problem (issue 39): texel's default (`newton`), texel `--method cd` and
# texel-tuner's defaults (Adam, 5,000 epochs) on texel-tuner's own evaluation, the same
# 1,026,585 positions, the same all-zero start and K, 2 threads each, timed from process
# start by the shared race kit (../shared/race: timed_run.py, race_summary.py, the peer build
# and the trace texel-tuner writes itself).
#
#   GEDAS_GIT=<git dir of GediminasMasaitis/texel-tuner> WORK=/some/scratch \
#     bash reports/race/run.sh            # from the project root, after cargo build --release
#
# Env: KIT (../shared/race), TEXEL (target/release/texel), MAX_LOAD (1.0), MAX_WAIT (900),
# MAX_SECONDS (600), RESULTS (WORK/results/<date-time>), RUNS ("newton cd gedas").
set -euo pipefail
PROJECT=$(cd "$(dirname "$0")/../.." && pwd)
KIT=${KIT:-$PROJECT/../shared/race}
TEXEL=${TEXEL:-$PROJECT/target/release/texel}
WORK=${WORK:?set WORK to a scratch folder}
GEDAS_GIT=${GEDAS_GIT:?set GEDAS_GIT to the git dir of the texel-tuner snapshot}
RESULTS=${RESULTS:-$WORK/results/$(date +%Y%m%d-%H%M%S)}
RUNS=${RUNS:-newton cd gedas}
K_TEXEL=1.1725951011387798    # texel-tuner's K = 2.7 (base e) in texel's base-10 sigmoid
TIMED=(python3 "$KIT/timed_run.py" --max-load "${MAX_LOAD:-1.0}" --max-wait "${MAX_WAIT:-900}"
       --max-seconds "${MAX_SECONDS:-600}")
# Data, peer build and trace: the kit's race.sh with no rounds builds what is missing.
TEXEL=$TEXEL PROJECT=$PROJECT GEDAS_GIT=$GEDAS_GIT WORK=$WORK ROUNDS=0 \
  bash "$KIT/race.sh" >/dev/null 2>&1 || true
TRACE=$WORK/trace/train15.gedas.bin
ZERO=$WORK/trace/train15.gedas.jsonl.zero.json
test -s "$TRACE" && test -x "$WORK/gedas/src/tuner"
mkdir -p "$RESULTS"
{ echo "texel: $("$TEXEL" --version) ($(git -C "$PROJECT" rev-parse --short HEAD))"
  echo "texel-tuner: $(cat "$WORK/gedas/COMMIT")"; nproc; uptime; } > "$RESULTS/setup.txt"
for run in $RUNS; do
  d=$RESULTS/round1/$run
  case $run in
    gedas) name=gedas ;;
    *) name=texel-$run ;;
  esac
  d=$RESULTS/round1/$name
  mkdir -p "$d"
  if [ "$run" = gedas ]; then
    (cd "$WORK/gedas" && "${TIMED[@]}" --kind gedas --out "$d" --stop-rate 0 -- \
      "$WORK/gedas/src/tuner" "$WORK/gedas/sources.csv")
  else
    method=()
    [ "$run" = newton ] || method=(--method "$run")
    (cd "$d" && "${TIMED[@]}" --kind texel --out "$d" -- \
      "$TEXEL" tune --traces "$TRACE" --params "$ZERO" --k "$K_TEXEL" --threads 2 \
      --out "$d/tuned.json" --log "$d/passes.jsonl" --checkpoint "$d/run.ckpt" --fresh \
      "${method[@]}")
  fi
done
python3 "$KIT/race_summary.py" "$RESULTS" "$WORK/trace/header.jsonl"
