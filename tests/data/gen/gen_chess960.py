#!/usr/bin/env python3
"""Generate tests/data/perft_chess960.epd.

Two sets of positions:
  * the published Chess960 perft positions: the chessprogramming wiki's
    "Chess960 Perft Results" page, as collected in python-chess's
    examples/perft/chess960.perft (pass that file as the argument). Their
    published counts are kept down to the deepest depth of at most MAX_NODES;
  * positions of our own: hand-made castling edge cases (the rook shielding
    the king's path, the king not moving, king and rook swapping, a far rook,
    a blocked rook path) and positions from random playouts from random
    starts that keep some castling rights.

Every kept count is recounted twice: by python-chess in Chess960 mode (a
plain perft, for depths up to PY_DEPTH; the generator aborts on any
mismatch) and by Stockfish with UCI_Chess960 (every depth).

    python3 tests/data/gen/gen_chess960.py /path/to/python-chess/examples/perft/chess960.perft
"""

import os
import random
import sys

import chess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engines import DATA_DIR, STOCKFISH, Engine, python_perft  # noqa: E402

SEED = 20261202
MAX_NODES = 200000
OWN_MAX_NODES = 600000
PY_DEPTH = 3
PY_MAX_NODES = 60000

HAND = [
    ("the rook shields c1 from the queen on a1: O-O-O is illegal",
     "4k3/8/8/8/8/8/8/qR1K4 w B - 0 1"),
    ("king g1, rook h1: the king stays, the rook goes to f1",
     "4k3/8/8/8/8/8/8/6KR w H - 0 1"),
    ("king f1, rook g1: they swap squares",
     "4k3/8/8/8/8/8/8/5KR1 w G - 0 1"),
    ("king b1, rook a1: O-O-O takes the king away from the rook",
     "4k3/8/8/8/8/8/8/RK6 w A - 0 1"),
    ("king b1, rook c1: O-O needs d1-g1 empty, a bishop on e1 blocks it",
     "4k3/8/8/8/8/8/8/1KR1B3 w C - 0 1"),
    ("king b1, rook c1, nothing between: O-O to g1/f1",
     "r3k2r/8/8/8/8/8/8/1KR5 w Cq - 0 1"),
    ("two rooks on one side: only the inner one keeps the right (X-FEN letter)",
     "1r2k1rr/8/8/8/8/8/8/RR2K2R w BHgb - 0 1"),
    ("O-O-O with the king's destination attacked by a rook through the castling rook",
     "1k6/8/8/8/8/8/8/r1RK4 w C - 0 1"),
    ("Black castles both ways from d8 with rooks on a8 and h8",
     "r2k3r/8/8/8/8/8/8/3K4 b ha - 0 1"),
    ("king d1 in check: no castling",
     "3rk3/8/8/8/8/8/8/R2K3R w HA - 0 1"),
]


def published(path):
    cases, fen = [], None
    for line in open(path):
        line = line.strip()
        if line.startswith("epd "):
            fen = line[4:]
            cases.append([fen, []])
        elif line.startswith("perft "):
            _, depth, nodes = line.split()
            assert int(depth) == len(cases[-1][1]) + 1
            cases[-1][1].append(int(nodes))
    return cases


def deepest(counts, limit):
    kept = [c for c in counts if c <= limit]
    return counts[:max(2, len(kept))]


def own_positions(rng, n):
    out = []
    while len(out) < n:
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        for _ in range(rng.randrange(6, 40)):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            castles = [m for m in moves if board.is_castling(m)]
            quiet = [m for m in moves if not board.is_capture(m)]
            pick = castles if castles and rng.random() < 0.3 else (quiet if quiet and rng.random() < 0.7 else moves)
            board.push(rng.choice(pick))
        board = chess.Board(board.fen(), chess960=True)
        if board.is_game_over() or not board.is_valid():
            continue
        has_castle = any(board.is_castling(m) for m in board.legal_moves)
        if board.castling_rights and (has_castle or rng.random() < 0.3):
            out.append(("random playout, castling rights %s" % board.castling_shredder_fen(), board.fen()))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rng = random.Random(SEED)
    sf = Engine(STOCKFISH)
    sf.send("setoption name UCI_Chess960 value true")
    sf.sync()
    lines = ["# Chess960 perft reference positions; see tests/data/README.md.",
             "# Counts recounted by python-chess %s (chess960=True, depth <= %d) and Stockfish (UCI_Chess960)."
             % (chess.__version__, PY_DEPTH)]
    # The published FENs are Shredder-FEN (HFhf); the file holds them as python-chess writes
    # them (X-FEN, KQkq), and the test reads both.
    cases = [("published", chess.Board(fen, chess960=True).fen(), deepest(counts, MAX_NODES))
             for fen, counts in published(sys.argv[1])]
    for comment, fen in HAND + own_positions(rng, 60):
        board = chess.Board(fen, chess960=True)
        assert board.is_valid(), (comment, fen, board.status())
        counts = []
        for depth in range(1, 8):
            total, _ = sf.perft(board.fen(), depth)
            counts.append(total)
            if total > OWN_MAX_NODES or len(counts) >= 6:
                break
        cases.append((comment, board.fen(), deepest(counts, OWN_MAX_NODES)))
    for comment, fen, counts in cases:
        board = chess.Board(fen, chess960=True)
        for depth, expected in enumerate(counts, 1):
            if depth <= PY_DEPTH and (expected <= PY_MAX_NODES or depth <= 2):
                got = python_perft(board, depth)
                assert got == expected, ("python-chess", fen, depth, got, expected)
            total, _ = sf.perft(board.fen(), depth)
            assert total == expected, ("stockfish", fen, depth, total, expected)
        if comment != "published":
            lines.append("# " + comment)
        fields = fen.split()
        if len(fields) == 4:
            fields += ["0", "1"]
        lines.append(" ".join(fields) + "".join(" ;D%d %d" % (d, c) for d, c in enumerate(counts, 1)))
    with open(os.path.join(DATA_DIR, "perft_chess960.epd"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d positions" % len(cases))


if __name__ == "__main__":
    main()
