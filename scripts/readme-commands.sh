#!/usr/bin/env bash
# Runs the README's two commands exactly as written: the command block under "## Main job"
# (`main`) or under "## Test" (`test`). `.ci/run` calls both on its fresh clone, so a
# README command that no longer works as typed fails CI.
#
#   scripts/readme-commands.sh main   # the main job; checks its outputs, then removes runs/
#   scripts/readme-commands.sh test   # the test command
#   scripts/readme-commands.sh print main|test   # only print the command
set -euo pipefail
cd "$(dirname "$0")/.."

# The one command of the first ```sh block after the heading "## $1" (continuations joined).
command_under() {
  awk -v heading="## $1" '
    $0 == heading { found = 1; next }
    found && /^## / { exit }
    found && /^```sh$/ { inside = 1; next }
    inside && /^```$/ { exit }
    inside { print }
  ' README.md | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | grep -v '^[[:space:]]*\(#\|$\)'
}

one_command() {
  local found
  found=$(command_under "$1")
  if [ "$(wc -l <<<"$found")" -ne 1 ] || [ -z "$found" ]; then
    echo "README.md: the block under \"## $1\" must hold exactly one command, it holds:" >&2
    echo "$found" >&2
    exit 1
  fi
  echo "$found"
}

case "${1:-}" in
  print)
    one_command "$([ "${2:-}" = main ] && echo 'Main job: tune on the shipped data' || echo Test)"
    ;;
  main)
    cmd=$(one_command 'Main job: tune on the shipped data')
    fresh=0; [ -e runs ] || fresh=1
    echo "+ $cmd"
    bash -euo pipefail -c "$cmd"
    for f in runs/quick/tuned.json runs/quick/tuned_table.rs runs/quick/report.html; do
      [ -s "$f" ] || { echo "the main job did not write $f" >&2; exit 1; }
    done
    echo "the main job wrote runs/quick/tuned.json, tuned_table.rs and report.html"
    # A fresh clone has no runs/: leave none behind.
    [ "$fresh" = 1 ] && rm -rf runs
    ;;
  test)
    cmd=$(one_command Test)
    echo "+ $cmd"
    bash -euo pipefail -c "$cmd"
    ;;
  *)
    echo "usage: $0 main|test|print main|test" >&2
    exit 2
    ;;
esac
