#!/usr/bin/env python3
"""The race table: per run its final error (texel's rounded error of the tables it ended
with, the same evaluator for all), the times (from process start) at which its reports first
came within 1 % and 0.1 % of the lowest final error, its wall time and peak memory.

  summary.py RESULTS RUN...    (each RUN a folder timed.py wrote, with final-error.txt)
"""
import json
import os
import sys

results, runs = sys.argv[1], sys.argv[2:]
rows = []
for run in runs:
    with open(os.path.join(results, run, "summary.json")) as f:
        s = json.load(f)
    with open(os.path.join(results, run, "final-error.txt")) as f:
        final = float(f.read().split("error")[-1].split()[0])
    rows.append((run, s, final))
best = min(final for _, _, final in rows)


def reached(points, level):
    return next((f"{t:.1f}" for t, _, e in points if e <= level), "never")


lines = ["| run | final error | to 1 % | to 0.1 % | wall (s) | peak (MiB) | stopped |",
         "|---|---|---|---|---|---|---|"]
for run, s, final in rows:
    lines.append(
        f"| {run} | {final:.8f} | {reached(s['points'], best * 1.01)} | "
        f"{reached(s['points'], best * 1.001)} | {s['wall_seconds']:.1f} | "
        f"{(s['peak_kb'] or 0) / 1024:.0f} | {s['stopped'] or 'by itself'} |")
print(f"lowest final error {best:.8f}; times in seconds from process start\n")
print("\n".join(lines))
