#!/usr/bin/env python3
"""Copies what a race run shows into a folder to commit: the setup and table, each run's
summary (reports thinned to at most 2,000), time -v output, final tables and final error;
texel's stamped logs; Stash's last printed tables and every 100th loss line (its whole log,
a printout of every table each 25 iterations, runs to tens of megabytes).

  keep.py RESULTS DEST
"""
import json
import os
import shutil
import sys

results, dest = sys.argv[1], sys.argv[2]
os.makedirs(dest, exist_ok=True)
for name in ["setup.txt", "table.md", "heldout-start.txt"] + [f for f in os.listdir(results) if f.startswith("match-") and f.endswith(".txt")]:
    if os.path.exists(os.path.join(results, name)):
        shutil.copy(os.path.join(results, name), dest)
for run in sorted(os.listdir(results)):
    src = os.path.join(results, run)
    if not os.path.isdir(src):
        continue
    out = os.path.join(dest, run)
    os.makedirs(out, exist_ok=True)
    for name in ["time-v.txt", "tuned.json", "final-error.txt", "heldout-error.txt"]:
        if os.path.exists(os.path.join(src, name)):
            shutil.copy(os.path.join(src, name), out)
    if not os.path.exists(os.path.join(src, "summary.json")):
        # A run outside the race's timing (a pull chosen on held-out games): its printout.
        shutil.copy(os.path.join(src, "output.txt"), out)
        continue
    with open(os.path.join(src, "summary.json")) as f:
        summary = json.load(f)
    points = summary["points"]
    step = max(1, len(points) // 2000)
    summary["points"] = points[::step] + ([points[-1]] if points and (len(points) - 1) % step else [])
    summary["points_kept_every"] = step
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f)
    if summary["kind"] == "texel":
        shutil.copy(os.path.join(src, "log.txt"), out)
        continue
    with open(os.path.join(src, "output.txt")) as f:
        text = f.read()
    with open(os.path.join(out, "printed.txt"), "w") as f:
        f.write(text[text.rfind("[psq_table.h]"):])
    with open(os.path.join(src, "log.txt")) as f:
        losses = [l for l in f if "Iteration [" in l]
    with open(os.path.join(out, "losses.txt"), "w") as f:
        f.writelines(losses[::100] + losses[-1:])
