#!/usr/bin/env bash
# Regenerates what the README and its guides show from runs of the shipped configurations:
#  - the figures the README and docs/*.md state (main job, configs/full.json guarded and unguarded),
#    written in by the same test that checks them (crates/cli/tests/docs.rs);
#  - docs/tune-report.html, the configs/full.json run's report page, and docs/tune-report.png,
#    a headless-Chromium screenshot of it (the two from the same run).
# Needs Debian's chromium (apt-get install chromium). Takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
UPDATE_DOCS=1 cargo test --release -q -p texel-cli --test docs
cargo test --release -q -p texel-cli --test docs
target/release/texel tune --config configs/full.json --fresh >/dev/null
cp runs/full/report.html docs/tune-report.html
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --window-size=900,3500 \
  --screenshot="$PWD/docs/tune-report.png" "file://$PWD/runs/full/report.html" 2>/dev/null
echo "updated the figures of README.md and docs/*.md, docs/tune-report.html and docs/tune-report.png"
