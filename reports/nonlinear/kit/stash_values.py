#!/usr/bin/env python3
"""Stash's tables as its tuner prints them, read and written back.

  stash_values.py json  TRACE PRINTED > values.json   the last printed tables as texel values
  stash_values.py apply PRINTED SRC_DIR               writes them into Stash's sources

PRINTED is the output of Stash's tuner (its last display counts) or of `TEXEL_VALUES=...
stash-tune` (texel's values printed by the same code); TRACE the texel trace the dump wrote
(its header names every parameter, its length and first entry in Stash's array).
"""
import json
import re
import sys

PAIR = re.compile(r"S(?:PAIR)?\(\s*(-?\d+),\s*(-?\d+)\)")
SINGLE = re.compile(r"const Scorepair (\w+)\s*=\s*SPAIR\(\s*(-?\d+),\s*(-?\d+)\);")
ARRAY = re.compile(r"const Scorepair (\w+)\[\w*\]\s*=\s*\{(.*?)\};", re.S)
PIECE = re.compile(r"(PAWN|KNIGHT|BISHOP|ROOK|QUEEN)_(MG|EG)_SCORE = (-?\d+),")
SECTION = re.compile(r"^\[([\w.]+)\]$", re.M)
PIECES = ["PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN"]


def last_display(text):
    """The tables of the last display in a tuner's output."""
    at = text.rfind("[psq_table.h]")
    if at < 0:
        sys.exit("no printed tables found")
    return text[at:]


def tables(text):
    """name -> list of (mid, end) pairs, as printed; PieceValue from the enum."""
    out = {name: [(int(m), int(e))] for name, m, e in SINGLE.findall(text)}
    for name, body in ARRAY.findall(text):
        out[name] = entries(body)
    piece = {(p, ph): int(v) for p, ph, v in PIECE.findall(text)}
    if piece:
        out["PieceValue"] = [(piece[(p, "MG")], piece[(p, "EG")]) for p in PIECES]
    return out


def entries(body):
    """An array's entries: pairs, and a bare 0 where Stash leaves an entry inactive."""
    pairs = PAIR.findall(body)
    marked = PAIR.sub("P", re.sub(r"//[^\n]*", "", body))
    out, at = [], 0
    for item in (x.strip() for x in marked.split(",")):
        if item == "P":
            out.append((int(pairs[at][0]), int(pairs[at][1])))
            at += 1
        elif item == "0":
            out.append((0, 0))
    return out


def to_json(trace, printed):
    with open(trace) as f:
        header = json.loads(f.readline())
    with open(printed) as f:
        found = tables(last_display(f.read()))
    values = {}
    for p in header["params"]:
        name, start, n = p["name"], p.get("stash_start", 0), p["len"]
        if name.startswith("Unused"):
            values[name] = p["default"][0] if n == 1 else p["default"]
            continue
        pairs = found[name][start:start + n]
        if len(pairs) != n:
            sys.exit(f"{printed}: {name} has {len(found[name])} entries, needs {start + n}")
        values[name] = list(pairs[0]) if n == 1 else [list(x) for x in pairs]
    json.dump(values, sys.stdout)
    print()


def apply(printed, src):
    with open(printed) as f:
        display = last_display(f.read())
    parts = SECTION.split(display)
    for k in range(1, len(parts), 2):
        name, body = parts[k], parts[k + 1]
        folder = "include" if name.endswith(".h") else "sources"
        path = f"{src}/{folder}/{name}"
        with open(path) as f:
            source = f.read()
        for d in SINGLE.finditer(body):
            source = replace_one(source, rf"const Scorepair {d[1]}\s*=\s*SPAIR\([^)]*\);", d[0], path)
        for d in ARRAY.finditer(body):
            source = replace_one(source, rf"const Scorepair {d[1]}\[\w*\]\s*=\s*\{{.*?\}};", d[0], path)
        for d in PIECE.finditer(body):
            source = replace_one(source, rf"{d[1]}_{d[2]}_SCORE = -?\d+,", d[0], path)
        with open(path, "w") as f:
            f.write(source)


def replace_one(source, pattern, new, path):
    found = list(re.finditer(pattern, source, re.S))
    if len(found) != 1:
        sys.exit(f"{path}: {len(found)} definitions match {pattern!r}")
    return source[: found[0].start()] + new + source[found[0].end():]


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "json":
        to_json(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "apply":
        apply(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
