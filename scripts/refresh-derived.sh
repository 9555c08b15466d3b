#!/usr/bin/env bash
# Regenerates every figure derived from texel's evaluation table, after a term is added or
# changed (docs/architecture.md, "Adding a term"):
#  - BENCH_NODES, the bench's node count (crates/search/src/bench.rs);
#  - the stored tune of the whole table (crates/tune/tests/fixtures/stored-tune.json);
#  - the term lab's reports and its match (scripts/refresh-lab.sh, a few minutes);
#  - the figures of the README and its guides (the tune's and the lab's) and docs/tune-report.png
#    (scripts/refresh-docs.sh).
# Then runs the checks of each. crates/eval/tests/counts.txt stays by hand: it is a
# hand-checked count, not a copy of the code. Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE_BENCH=1 cargo test --release -q -p texel-search --test search bench_signature
STORE_TUNE_RESULT=1 cargo test --release -q -p texel-tune --test stored
scripts/refresh-lab.sh
scripts/refresh-docs.sh
cargo test --release -q -p texel-search --test search bench_signature
cargo test --release -q -p texel-tune --test stored
echo "updated BENCH_NODES, the stored tune, the lab reports, the figures of README.md and docs/*.md and docs/tune-report.png"
