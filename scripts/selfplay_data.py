#!/usr/bin/env python3
"""Labelled positions from Stockfish playing itself: selfplay_data.py OUT.csv GAMES SEED [NODES]

Each game starts from 8 random plies (seeded by SEED and the game's number), then Stockfish plays
both sides with NODES nodes a move (default 6000). The score of the search that chose a move
labels the position it was chosen in, so no second search is needed, and every quiet position
is kept rather than every other one (scripts/texel-data plays games at 8 ms a move, then
searches every other quiet position again). Measured on two cores shared with a match: 800
games, about 69,000 positions, in 26 minutes.

Written, as scripts/texel_label.py writes them, as `FEN;result;score`: every quiet position
(not in check; the move played from it neither a capture nor a promotion), its game's result
for White, and the score for White in centipawns (mates as +-3000). A game ends by the rules,
at 300 plies (a draw), or once both sides' searches put one side 1,000 centipawns ahead for
8 plies running (a win for it). Two Stockfish processes play games side by side.
Needs python-chess (`pip install chess`) and /usr/games/stockfish.
"""
import multiprocessing as mp
import os
import random
import subprocess
import sys

try:
    import chess
except ImportError:
    sys.exit("needs python-chess (pip install chess)")

NODES = 6000
OPENING = 8
MAX_PLIES = 300
ADJUDICATE_CP, ADJUDICATE_PLIES = 1000, 8


class Engine:
    def __init__(self, command=("/usr/games/stockfish",),
                 setup=("setoption name Threads value 1", "setoption name Hash value 16")):
        """A UCI engine: Stockfish with one thread and 16 MB of hash unless told otherwise."""
        self.name = command[0]
        self.p = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send("uci", *setup, "isready")
        self.wait("readyok")

    def send(self, *lines):
        self.p.stdin.write("\n".join(lines) + "\n")
        self.p.stdin.flush()

    def line(self):
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name} exited")
        return line

    def wait(self, prefix):
        while not (line := self.line()).startswith(prefix):
            pass
        return line

    def search(self, start_fen, moves, nodes):
        """The best move and its score for the side to move (cp; mates as +-3000)."""
        self.send(f"position fen {start_fen} moves {' '.join(moves)}" if moves else f"position fen {start_fen}")
        return self.go(f"go nodes {nodes}")

    def analyse(self, fen, go):
        """The best move and score of a fresh search (`go`, a UCI go command) of one position,
        with nothing remembered from earlier searches, so that the same question always gets
        the same answer."""
        self.send("ucinewgame", f"position fen {fen}")
        return self.go(go)

    def go(self, go):
        self.send(go)
        score = None
        while True:
            line = self.line()
            if line.startswith("bestmove"):
                return line.split()[1], score
            # A bound (a search that failed high or low and was searched again) is not the score.
            if line.startswith("info") and " score " in line and "bound" not in line:
                t = line.split()
                i = t.index("score")
                if t[i + 1] == "cp":
                    score = int(t[i + 2])
                elif t[i + 1] == "mate":
                    score = 3000 if int(t[i + 2]) > 0 else -3000

    def close(self):
        self.send("quit")
        self.p.wait()


def play(engine, rng, nodes):
    """One game: its quiet positions with White's scores, and its result for White."""
    board = chess.Board()
    for _ in range(OPENING):
        moves = list(board.legal_moves)
        if not moves:
            return [], None
        board.push(rng.choice(moves))
    if board.is_game_over():
        return [], None
    start = board.fen()
    board = chess.Board(start)
    played, rows, result, lopsided, ahead = [], [], None, 0, True
    engine.send("ucinewgame")
    while result is None:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = {chess.WHITE: 1.0, chess.BLACK: 0.0, None: 0.5}[outcome.winner]
            break
        if len(played) >= MAX_PLIES:
            result = 0.5
            break
        best, score = engine.search(start, played, nodes)
        if score is None or best == "(none)":
            raise RuntimeError(f"no score or move from {board.fen()}")
        move = chess.Move.from_uci(best)
        white = score if board.turn == chess.WHITE else -score
        if not board.is_check() and not board.is_capture(move) and move.promotion is None:
            rows.append((board.fen(), white))
        if abs(white) >= ADJUDICATE_CP:
            lopsided = lopsided + 1 if lopsided and (white > 0) == ahead else 1
            ahead = white > 0
        else:
            lopsided = 0
        if lopsided >= ADJUDICATE_PLIES:
            result = 1.0 if white > 0 else 0.0
        board.push(move)
        played.append(best)
    return rows, result


def work(args):
    seed, games, nodes = args
    engine = Engine()
    out = []
    for g in games:
        rows, result = play(engine, random.Random(seed * 1_000_003 + g), nodes)
        if result is not None:
            out.extend(f"{fen};{result};{score}" for fen, score in rows)
    engine.close()
    return out


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: selfplay_data.py OUT.csv GAMES SEED [NODES]")
    out = sys.argv[1]
    try:
        games, seed = int(sys.argv[2]), int(sys.argv[3])
        nodes = int(sys.argv[4]) if len(sys.argv) == 5 else NODES
    except ValueError:
        sys.exit("GAMES, SEED and NODES must be whole numbers")
    if games < 1 or seed < 0 or nodes < 1:
        sys.exit("GAMES and NODES must be positive and SEED not negative")
    if not os.access("/usr/games/stockfish", os.X_OK):
        sys.exit("needs /usr/games/stockfish (apt-get install stockfish)")
    chunks = [range(i, min(i + 20, games)) for i in range(0, games, 20)]
    total = 0
    with mp.Pool(2) as pool, open(out, "w") as fh:
        for n, lines in enumerate(pool.imap(work, [(seed, c, nodes) for c in chunks])):
            if lines:
                fh.write("\n".join(lines) + "\n")
                fh.flush()
            total += len(lines)
            print(f"games {min((n + 1) * 20, games)}/{games}: {total} positions", flush=True)


if __name__ == "__main__":
    main()
