#!/usr/bin/env python3
"""A teacher's scores as win probabilities for Stash's trace writer.

Reads the lines `texel label` wrote (`FEN game N; ce CP; wdl W D L; [R]`: ce and wdl the side
to move's, the result White's) and writes, for each line, `GAME pP` (White's win probability P,
the form texel_dump.c takes as it is) to the side file. MODE `cp`: P = 1/(1 + exp(-K cp)) with
White's centipawns and the K at which the teacher's scores best predict these positions'
results (least squares, as texel fits K); MODE `wdl`: P = (W + D/2)/1000, the teacher's own
expectation. Prints K and each form's mean squared error against the results.
  python3 teacher.py LABELLED.epd SIDE MODE
"""
import math
import sys


def read(path):
    rows = []
    for line in open(path):
        words = line.split()
        black = words[1] == "b"
        game = cp = wdl = None
        for i, w in enumerate(words):
            if w == "game":
                game = int(words[i + 1].rstrip(";"))
            elif w == "ce":
                cp = int(words[i + 1].rstrip(";"))
            elif w == "wdl":
                wdl = [int(words[i + k].rstrip(";")) for k in (1, 2, 3)]
        result = float(words[-1].strip("[]"))
        white_cp = None if cp is None else (-cp if black else cp)
        expectation = None
        if wdl is not None:
            e = (wdl[0] + wdl[1] / 2) / 1000
            expectation = 1 - e if black else e
        rows.append((game or 0, white_cp, expectation, result))
    return rows


def sigmoid(k, cp):
    x = max(-500.0, min(500.0, k * cp))
    return 1 / (1 + math.exp(-x))


def mse(rows, p):
    scored = [(p(r), r[3]) for r in rows if r[1] is not None]
    return sum((a - b) ** 2 for a, b in scored) / max(1, len(scored))


def fit_k(rows):
    """Golden-section search of the mean squared error over log K."""
    lo, hi = math.log(1e-4), math.log(1e-1)
    g = (math.sqrt(5) - 1) / 2
    f = lambda lk: mse(rows, lambda r: sigmoid(math.exp(lk), r[1]))
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = f(a), f(b)
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = f(b)
    return math.exp((lo + hi) / 2)


def main():
    labelled, side, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = read(labelled)
    k = fit_k(rows)
    print(f"teacher K {k:.6g} (natural log, per centipawn)")
    print(f"mean squared error against the results: cp by K {mse(rows, lambda r: sigmoid(k, r[1])):.8f}", end="")
    with_wdl = [r for r in rows if r[1] is not None and r[2] is not None]
    if with_wdl:
        print(f", wdl expectation {mse(with_wdl, lambda r: r[2]):.8f} ({len(with_wdl)} with wdl)", end="")
    print(f" ({len(rows)} positions)")
    with open(side, "w") as out:
        for game, cp, expectation, _ in rows:
            if cp is None:
                out.write(f"{game} nan\n")
            elif mode == "wdl" and expectation is not None:
                out.write(f"{game} p{expectation:.9f}\n")
            else:
                out.write(f"{game} p{sigmoid(k, cp):.9f}\n")


if __name__ == "__main__":
    main()
