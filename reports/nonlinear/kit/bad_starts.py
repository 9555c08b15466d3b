#!/usr/bin/env python3
"""Bad starts of Stash's king safety, as texel values files, from a texel trace's header.

usage: bad_starts.py TRACE OUTDIR

Writes OUTDIR/{stash,zero-ks,all-zero,neg-ks,x4-ks}.json: the header's defaults (Stash's
values), its king-safety group set to 0, every value 0, the king-safety group's signs
flipped, the king-safety group times 4.
"""
import json
import sys


def mapped(value, f):
    """`value` (a number, a pair or a list of them) with `f` applied to every number."""
    if isinstance(value, list):
        return [mapped(v, f) for v in value]
    return f(value)


def main(trace, outdir):
    with open(trace) as t:
        header = json.loads(t.readline())
    base = {p["name"]: (p["default"][0] if p["len"] == 1 else p["default"]) for p in header["params"]}
    king = {p["name"] for p in header["params"] if p.get("group") == "king_safety"}

    def king_safety(f):
        return {k: (mapped(v, f) if k in king else v) for k, v in base.items()}

    starts = {
        "stash": base,
        "zero-ks": king_safety(lambda v: 0),
        "all-zero": {k: mapped(v, lambda v: 0) for k, v in base.items()},
        "neg-ks": king_safety(lambda v: -v),
        "x4-ks": king_safety(lambda v: 4 * v),
    }
    for name, values in starts.items():
        with open(f"{outdir}/{name}.json", "w") as out:
            json.dump(values, out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
