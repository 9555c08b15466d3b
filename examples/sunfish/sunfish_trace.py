#!/usr/bin/env python3
"""Writes a texel trace of sunfish's evaluation for labelled EPD positions.

sunfish (PyPI, GPL; not copied here: this script imports the installed package) scores a
position as the sum of its piece-square tables, the piece values folded in, White's pieces
minus Black's on the board turned round. The king reads its middlegame table while both
queens are on the board and a fixed centralising table otherwise. So its evaluation is
linear in six tables of 64 plain values, which this script traces:

    python3 sunfish_trace.py data/train.epd sunfish.trace --values runs/sunfish

also writes `original.json` (sunfish's own tables) and `material.json` (every square of a
table at the piece's value, the king's at zero) as start values for `texel tune --params`.

    python3 sunfish_trace.py --check data/train.epd

Lines with sunfish's own search score (`ce N;`, the side to move's centipawns, as
`texel import` and `texel loop` keep it) get the trace's `score`: the win probability
σ(K · score) from White's view, K the one at which the file's scores best predict its
results (printed), for `--lambda`.

checks that the trace's evaluation, with sunfish's own tables, is the score sunfish itself
gives every position (its UCI front's FEN reader), and says how many were compared.
"""

import json
import math
import sys

import sunfish

ROLES = "PNBRQK"
KING = sunfish.piece["K"]


def squares(table):
    """The 64 playable entries of a padded 120-entry table, rank 8 first."""
    return [table[21 + 10 * row + col] for row in range(8) for col in range(8)]


def own_tables():
    """sunfish's tables as values: piece value plus square bonus; the king's without its
    (cancelling) king value."""
    values = {r: squares(sunfish.pst[r]) for r in "PNBRQ"}
    values["K"] = [v - KING for v in squares(sunfish.K_MID)]
    return values


def header(values):
    params = [
        {"name": f"{r}_TABLE", "len": 64, "tapered": False, "default": values[r],
         "group": "king" if r == "K" else "pieces"}
        for r in ROLES
    ]
    return {"format": "texel-trace", "version": 1, "params": params}


def placement(board):
    """The pieces of a FEN board field: (letter, row from rank 8, column from file a)."""
    for row, rank in enumerate(board.split("/")):
        col = 0
        for c in rank:
            if c.isdigit():
                col += int(c)
            else:
                yield c, row, col
                col += 1


def win_chance(k, centipawns):
    """texel's base-10 sigmoid σ(K · q) = 1 / (1 + 10^(−K · q / 400))."""
    return 1 / (1 + 10 ** max(-50.0, min(50.0, -k * centipawns / 400)))


def search_score(fen):
    """The line's `ce` from White's view, or None; the FEN part without it."""
    if " ce " not in fen:
        return None, fen
    fen, ce = fen.split(" ce ", 1)
    mover = int(ce.strip().rstrip(";"))
    return (mover if fen.split()[1] == "w" else -mover), fen


def fitted_k(pairs):
    """The K whose σ(K · score) has the least squared error against the results
    (golden-section search from 0.01 to 10)."""
    def error(k):
        return sum((r - win_chance(k, q)) ** 2 for q, r in pairs)
    lo, hi, g = 0.01, 10.0, (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        lo, hi = (lo, b) if error(a) < error(b) else (a, hi)
    return (lo + hi) / 2


def position(line):
    """The trace of one EPD line `FEN [ce N;] [result]`, and its `ce` from White's view
    (None without one)."""
    fen, label = line.rsplit(" [", 1)
    score, fen = search_score(fen)
    pieces = list(placement(fen.split()[0]))
    both_queens = {"Q", "q"} <= {c for c, _, _ in pieces}
    coeffs, offset = {}, 0
    for c, row, col in pieces:
        white = c.isupper()
        # Black's pieces read the tables with the board turned round.
        square = 8 * row + col if white else 8 * (7 - row) + (7 - col)
        sign = 1 if white else -1
        if c.upper() == "K" and not both_queens:
            offset += sign * (sunfish.K_END[21 + 10 * (square // 8) + square % 8] - KING)
            continue
        entry = 64 * ROLES.index(c.upper()) + square
        coeffs[entry] = coeffs.get(entry, 0) + sign
    record = {"result": float(label.strip().rstrip("]")), "phase": 1,
              "coeffs": [[i, n] for i, n in sorted(coeffs.items()) if n]}
    if offset:
        record["offset"] = offset
    return record, score


def check(epd):
    """Compares every position's traced evaluation with sunfish's own score of it."""
    import sunfish_ui.uci as uci
    uci.sunfish = sunfish  # the FEN reader finds the engine module here
    values = own_tables()
    flat = [v for r in ROLES for v in values[r]]
    compared = 0
    with open(epd) as lines:
        for line in filter(str.strip, lines):
            board = line.split()[0]
            both_queens = "Q" in board and "q" in board
            sunfish.pst["K"] = sunfish.K_MID if both_queens else sunfish.K_END
            own = uci.from_fen(board, "w", "-", "-", 0, 0).score
            record, _ = position(line.strip())
            traced = record.get("offset", 0) + sum(n * flat[i] for i, n in record["coeffs"])
            if traced != own:
                sys.exit(f"{epd}:{compared + 1}: traced {traced}, sunfish scores {own}")
            compared += 1
    print(f"{compared} positions: the trace gives sunfish's own score")


def main():
    if sys.argv[1] == "--check":
        return check(sys.argv[2])
    epd, out = sys.argv[1], sys.argv[2]
    values = own_tables()
    with open(epd) as f:
        lines = [line.strip() for line in f if line.strip()]
    traced = [position(line) for line in lines]
    pairs = [(q, record["result"]) for record, q in traced if q is not None]
    if pairs:
        k = fitted_k(pairs)
        print(f"{len(pairs)} search scores, K {k:.4f}")
        for record, q in traced:
            if q is not None:
                record["score"] = round(win_chance(k, q), 6)
    with open(out, "w") as trace:
        trace.write(json.dumps(header(values)) + "\n")
        for record, _ in traced:
            trace.write(json.dumps(record) + "\n")
    if len(sys.argv) > 4 and sys.argv[3] == "--values":
        folder = sys.argv[4]
        material = {f"{r}_TABLE": [sunfish.piece[r] if r != "K" else 0] * 64 for r in ROLES}
        with open(f"{folder}/original.json", "w") as f:
            json.dump({f"{r}_TABLE": values[r] for r in ROLES}, f)
        with open(f"{folder}/material.json", "w") as f:
            json.dump(material, f)


if __name__ == "__main__":
    main()
