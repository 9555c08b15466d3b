#!/bin/sh
# The sunfish proof (issue "Tune any engine"): sunfish's piece-square tables traced on the
# shipped positions, tuned by texel from sunfish's own tables and from material alone, and
# each tuned copy played against its start at fixed nodes. Writes runs/sunfish/ and
# reports/sunfish/. Needs python3 and pypy3 (Debian `pypy3`); sunfish comes from PyPI.
#
#   sh examples/sunfish/run.sh            # 400 games a match at 2,000 nodes a move
#   GAMES=40 sh examples/sunfish/run.sh   # a quick look
set -eu
GAMES=${GAMES:-400}
NODES=${NODES:-2000}
TEXEL=${TEXEL:-target/release/texel}
RUN=runs/sunfish
REPORT=reports/sunfish
mkdir -p "$RUN" "$REPORT"
[ -d "$RUN/site" ] || python3 -m pip install -q --target "$RUN/site" sunfish==2026.1
export PYTHONPATH="$RUN/site"

python3 examples/sunfish/sunfish_trace.py data/train.epd "$RUN/sunfish.trace" --values "$RUN"
for start in original material; do
    "$TEXEL" tune --traces "$RUN/sunfish.trace" --params "$RUN/$start.json" --validate 10 \
        --passes 100 --patience 3 --out "$RUN/tuned-$start.json" --log "$RUN/$start.jsonl" \
        --fresh > "$REPORT/tune-$start.txt"
done
engine() { echo "name=$1,cmd=pypy3,arg=examples/sunfish/sunfish_with.py,arg=$RUN/$2.json"; }
for start in original material; do
    "$TEXEL" match --engine "$(engine tuned "tuned-$start")" --engine "$(engine "$start" "$start")" \
        --each "nodes=$NODES" --games "$GAMES" --openings data/openings.epd --concurrency 2 \
        --resign 800,6 --max-plies 300 > "$REPORT/match-$start.txt"
done
