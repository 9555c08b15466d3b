#!/usr/bin/env python3
"""Build a labelled position set from PGN games (the shipped `data/train.epd`).

    pip install chess
    python3 scripts/make-dataset.py ../shared/data/stockfish-2000n.pgn.gz > data/train.epd

Per game: up to 5 positions, at least 10 plies apart, none in the first 10 plies, none
with the side to move in check, none in the last 4 plies; labelled with the game result
in Ethereal's `[1.0]` / `[0.5]` / `[0.0]` format (white's point of view). Unfinished
games are skipped. Sampling is seeded, so the output is the same on every run.

This is the stopgap until `texel import` quiesces positions with texel's own qsearch.
"""
import gzip
import random
import sys

import chess.pgn

PER_GAME = 5
GAP = 10
SKIP_OPENING = 10
SKIP_END = 4
LABELS = {"1-0": "[1.0]", "0-1": "[0.0]", "1/2-1/2": "[0.5]"}


def main():
    path = sys.argv[1]
    rng = random.Random(20261122)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            label = LABELS.get(game.headers.get("Result", "*"))
            if label is None:
                continue
            board = game.board()
            fens = []
            for move in game.mainline_moves():
                board.push(move)
                fens.append(None if board.is_check() else board.fen())
            candidates = list(range(SKIP_OPENING, len(fens) - SKIP_END))
            rng.shuffle(candidates)
            chosen = []
            for ply in candidates:
                if fens[ply] and all(abs(ply - c) >= GAP for c in chosen):
                    chosen.append(ply)
                if len(chosen) == PER_GAME:
                    break
            for ply in sorted(chosen):
                print(f"{fens[ply]} {label}")


if __name__ == "__main__":
    main()
