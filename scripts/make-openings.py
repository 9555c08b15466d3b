#!/usr/bin/env python3
"""Opening positions for matches: the position after 8 plies of each of the first N games
(the games themselves start from varied ECO lines).

    pip install chess
    python3 scripts/make-openings.py ../shared/data/stockfish-2000n.pgn.gz 400 > data/openings.epd
"""
import gzip
import sys

import chess.pgn


def main():
    path, wanted = sys.argv[1], int(sys.argv[2])
    opener = gzip.open if path.endswith(".gz") else open
    seen = set()
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        while len(seen) < wanted:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            for i, move in enumerate(game.mainline_moves()):
                if i == 8:
                    break
                board.push(move)
            epd = board.epd()
            if epd not in seen and not board.is_check():
                seen.add(epd)
                print(epd)


if __name__ == "__main__":
    main()
