#!/usr/bin/env bash
# Makes the term lab's evidence again (reports/lab, reports/lab-terms, reports/lab-ablate-gnu)
# with the commands reports/README.md lists: the base (the established table tuned alone),
# the candidate families with the kept ones adopted, every candidate term on its own, the GNU
# terms by the error their removal adds, each lab's page, and the adopted table against the
# base in games (1,000 at 2,000 nodes: the longest step, some minutes on two cores).
# The lab figures of docs/term-lab.md are checked against these files by crates/cli/tests/docs.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
texel=target/release/texel
$texel tune --config configs/full.json --no-candidates --out reports/lab/base.json \
  --fresh >/dev/null
lab() { $texel lab --epd data/train.epd --validate 10 --params reports/lab/base.json --fresh "$@"; }
lab --out reports/lab --apply reports/lab/applied.json >/dev/null
lab --each-term --out reports/lab-terms >/dev/null
lab --ablate GnuV --out reports/lab-ablate-gnu >/dev/null
for dir in lab lab-terms lab-ablate-gnu; do
  $texel report --lab reports/$dir --out reports/$dir/lab.html >/dev/null
done
$texel match --engine name=applied,params=reports/lab/applied.json \
  --engine name=base,params=reports/lab/base.json --each nodes=2000 --games 1000 \
  --concurrency 2 --openings data/openings.epd --random-plies 2 --resign 1000,6 \
  --draw 10,12,80 >reports/lab/match-adopted.txt
echo "made the lab reports again: reports/lab, reports/lab-terms, reports/lab-ablate-gnu"
