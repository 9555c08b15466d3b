#!/usr/bin/env python3
"""Runs sunfish's UCI loop with its piece-square tables taken from a texel values file
(`texel tune --traces` output, or original.json / material.json of sunfish_trace.py):

    pypy3 sunfish_with.py tuned.json

The installed package is imported and its tables replaced before the loop starts; nothing
of sunfish is copied here.
"""

import json
import sys

import sunfish

ROLES = "PNBRQK"


def padded(values):
    """A 120-entry table of sunfish's board layout from 64 values, rank 8 first."""
    table = [0] * 120
    for k, v in enumerate(values):
        row, col = divmod(k, 8)
        table[21 + 10 * row + col] = v
    return tuple(table)


def main():
    with open(sys.argv[1]) as f:
        values = json.load(f)
    for r in "PNBRQ":
        sunfish.pst[r] = padded(values[f"{r}_TABLE"])
    king = sunfish.piece["K"]
    sunfish.K_MID = padded([v + king for v in values["K_TABLE"]])
    sunfish.pst["K"] = sunfish.K_MID
    sys.argv = sys.argv[:1]
    sunfish.main()


if __name__ == "__main__":
    main()
