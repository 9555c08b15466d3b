#!/usr/bin/env python3
"""Sample varied positions from a PGN file into a FEN list (one FEN per line).

Used to build the eval crate's test and bench positions:
    pip install chess
    python3 scripts/sample-fens.py ../shared/data/stockfish-2000n.pgn.gz 2000 \
        > data/positions.fen
Positions are taken at seeded random plies of each game, so the set covers openings,
middlegames and endgames. The output is deterministic for a given input and count.
"""
import gzip
import random
import sys

import chess.pgn


def main():
    path, wanted = sys.argv[1], int(sys.argv[2])
    rng = random.Random(20261122)
    opener = gzip.open if path.endswith(".gz") else open
    seen = set()
    out = []
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        while len(out) < wanted:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            moves = list(game.mainline_moves())
            if len(moves) < 2:
                continue
            board = game.board()
            picks = sorted(rng.sample(range(len(moves)), min(2, len(moves))))
            for i, move in enumerate(moves):
                board.push(move)
                if i in picks:
                    fen = board.fen()
                    if fen not in seen:
                        seen.add(fen)
                        out.append(fen)
    for fen in out[:wanted]:
        print(fen)


if __name__ == "__main__":
    main()
