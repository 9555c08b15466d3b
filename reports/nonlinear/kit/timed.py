#!/usr/bin/env python3
"""Runs one tuner under /usr/bin/time -v, stamps every output line with the seconds since
process start, and writes DIR/log.txt (stamped), DIR/output.txt (as printed), DIR/time-v.txt
and DIR/summary.json: the reported
errors over time, peak memory, wall time.

  timed.py --kind {texel,stash} --out DIR [--max-seconds S] -- CMD ...

texel's reports: `pass N: error E (Newton iteration; real values R)` (R counts) and the polish's
`pass N: error E`; Stash's: `Iteration [N], Loss [E]`. Stash has no stop rule of its own (it
runs its configured iterations): a run is stopped (SIGTERM) once its loss fell by less than
--rate (1e-7) of itself per iteration over the last --window (200) iterations, or after
--max-seconds, at its next display of the tables (every 25 iterations), which are its result.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("--kind", required=True, choices=["texel", "stash"])
ap.add_argument("--out", required=True)
ap.add_argument("--max-seconds", type=float, default=3600.0)
ap.add_argument("--window", type=int, default=200)
ap.add_argument("--rate", type=float, default=1e-7)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
os.makedirs(a.out, exist_ok=True)

PATTERNS = {
    "texel": re.compile(r"^pass (\d+): error ([0-9.]+)(?: \(Newton iteration; real values ([0-9.]+)\))?"),
    "stash": re.compile(r"^Iteration \[(\d+)\], Loss \[([0-9.]+)\]"),
}
pattern = PATTERNS[a.kind]
timing = os.path.join(a.out, "time-v.txt")
start = time.monotonic()
proc = subprocess.Popen(["/usr/bin/time", "-v", "-o", timing] + cmd, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, bufsize=1)
points, stopped = [], None
with open(os.path.join(a.out, "log.txt"), "w") as log, \
        open(os.path.join(a.out, "output.txt"), "w") as raw:
    for line in proc.stdout:
        t = time.monotonic() - start
        log.write(f"{t:10.3f} {line}")
        raw.write(line)
        m = pattern.match(line)
        if not m:
            continue
        number = int(m.group(1))
        if a.kind == "stash" and stopped and number % 25 == 0:
            # The display after iteration number - 1 is complete: its tables are the last.
            # Only the tuner is stopped: /usr/bin/time still reports its peak memory.
            tuner = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
            for pid in tuner.stdout.split():
                os.kill(int(pid), signal.SIGTERM)
            break
        error = float(m.group(3) or m.group(2)) if a.kind == "texel" else float(m.group(2))
        points.append([round(t, 3), number, error])
        if stopped is None and a.kind == "stash" and len(points) > a.window:
            before = points[-1 - a.window][2]
            if abs(before - error) / before < a.window * a.rate:
                stopped = f"converged at iteration {number}"
        if stopped is None and t > a.max_seconds:
            stopped = f"stopped at {a.max_seconds:.0f} s"
    proc.wait()
wall = time.monotonic() - start
peak = None
with open(timing) as f:
    for line in f:
        if "Maximum resident set size" in line:
            peak = int(line.split()[-1])
summary = {"kind": a.kind, "cmd": cmd, "wall_seconds": round(wall, 3), "peak_kb": peak,
           "stopped": stopped, "points": points}
with open(os.path.join(a.out, "summary.json"), "w") as f:
    json.dump(summary, f)
print(json.dumps({k: v for k, v in summary.items() if k != "points"}))
