#!/usr/bin/env bash
# Proves what docs/architecture.md ("Adding a term") says a term costs: three files edited
# by hand and one command. In a scratch clone of this repository's HEAD it adds a term to
# texel's own evaluation the way the guide says (KNIGHT_ON_RIM: a knight on the a- or
# h-file), commits the hand edits, runs scripts/refresh-derived.sh, and then every test of
# the workspace. It prints the files edited by hand, the files the command made again, and
# the tests' result; it leaves the clone in WORK (a temporary folder unless given).
#   scripts/add-term-proof.sh                 # about 25 minutes on two cores
#   WORK=/tmp/proof scripts/add-term-proof.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$(mktemp -d)}
rm -rf "$WORK/texel"
git clone -q "$ROOT" "$WORK/texel"
cd "$WORK/texel"
git config user.email proof@texel.invalid && git config user.name "add-term proof"

# 1. The declaration, in its group (crates/eval/src/table.rs).
python3 - <<'PY'
p = "crates/eval/src/table.rs"
s = open(p).read()
at = "        KNIGHT_AWOL: S = S(-5, -7);\n"
assert at in s
s = s.replace(at, at + "        /// Knight on the a- or h-file (the rim), where it reaches at most four squares.\n"
                       "        KNIGHT_ON_RIM: S = S(-8, -6);\n", 1)
open(p, "w").write(s)
PY
# 2. Its code: count x param through the accumulator (crates/eval/src/terms/pieces.rs).
python3 - <<'PY'
p = "crates/eval/src/terms/pieces.rs"
s = open(p).read()
at = "    acc.add_if(us, KNIGHT_AWOL, distance(p.sq, info.king[i]) >= 5);\n"
assert at in s
rim = "    let rim = matches!(p.sq.file(), shakmaty::File::A | shakmaty::File::H);\n" \
      "    acc.add_if(us, KNIGHT_ON_RIM, rim);\n"
s = s.replace(at, at + rim, 1)
open(p, "w").write(s)
PY
# 3. Its fixture lines: a position where it fires, one where it does not.
cat >> crates/eval/tests/terms.txt <<'TXT'
KNIGHT_ON_RIM fires 4k3/8/8/8/8/8/8/N3K3 w - - 0 1
KNIGHT_ON_RIM quiet 4k3/8/8/8/8/8/8/1N2K3 w - - 0 1
TXT
git commit -qam "KNIGHT_ON_RIM, by hand"
echo "== edited by hand:"
git diff --stat HEAD~1 HEAD

# The one command: every figure the term moves, made again.
scripts/refresh-derived.sh
git add -A
echo "== made again by scripts/refresh-derived.sh:"
git diff --cached --stat
git commit -qm "KNIGHT_ON_RIM: derived figures"

# Every test of the workspace, as the README runs them.
if cargo test --profile tests --workspace > "$WORK/tests.log" 2>&1; then
  echo "== every test passes with KNIGHT_ON_RIM in: $(grep -c '^test result: ok' "$WORK/tests.log") test binaries ($WORK/texel)"
else
  grep -E "^test .* FAILED$|panicked at" "$WORK/tests.log"
  echo "== tests failed with KNIGHT_ON_RIM in: $WORK/tests.log"
  exit 1
fi
