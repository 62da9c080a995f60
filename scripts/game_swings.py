#!/usr/bin/env python3
"""Where a player's games were won and lost, by Stockfish's judgement of every position:
game_swings.py PLAYER GAMES.pgn [NODES]

Each position of each game (of `gambit match --pgn`) is scored by a fresh search of
full-strength Stockfish (selfplay_data.Engine: one thread, 16 MB, NODES nodes, 25,000 unless
told), so a rerun gives the same scores, from PLAYER's side (PLAYER names the White or Black
tag, e.g. level12). Printed: the games by result and by the best score PLAYER reached in them
past the 8-ply opening (a loss after +200 is a win thrown away, a draw after +200 one not
converted), and PLAYER's moves that dropped its score by 150 centipawns or more from a
position still undecided (within 300 of even), by the game's phase, with the worst of them
(game index from 0, ply, move, score before and after). Mates count 3,000. Two Stockfish
processes share the games. Needs python-chess (`pip install chess`). docs/bots.md ("Where the
games against the anchor are lost") reads one such run.
"""
import collections
import io
import multiprocessing as mp
import sys

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("needs python-chess (pip install chess)")

from selfplay_data import Engine

OPENING = 8
DROP = 150
UNDECIDED = 300


def games(path):
    with open(path) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            yield game


def trajectory(job):
    """(index, PLAYER's score of the game, PLAYER's score of the position before each ply, the
    plies' SAN, the plies that were PLAYER's moves)."""
    index, player, pgn, nodes = job
    game = chess.pgn.read_game(io.StringIO(pgn))
    me = chess.WHITE if game.headers["White"] == player else chess.BLACK
    result = game.headers["Result"]
    score = 0.5 if result == "1/2-1/2" else 1.0 if (result == "1-0") == (me == chess.WHITE) else 0.0
    board = game.board()
    evals, sans, mine = [], [], []
    for ply, move in enumerate(game.mainline_moves()):
        _, cp = judge.analyse(board.fen(), f"go nodes {nodes}")
        if cp is None:
            raise RuntimeError(f"Stockfish gave no score for {board.fen()}")
        evals.append(cp if board.turn == me else -cp)
        if board.turn == me:
            mine.append(ply)
        sans.append(board.san(move))
        board.push(move)
    return index, score, evals, sans, mine


judge = None


def start_judge():
    global judge
    judge = Engine()


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: game_swings.py PLAYER GAMES.pgn [NODES]")
    player, path = sys.argv[1], sys.argv[2]
    try:
        nodes = int(sys.argv[3]) if len(sys.argv) == 4 else 25_000
    except ValueError:
        sys.exit(f"NODES must be a number, not {sys.argv[3]!r}")
    if nodes <= 0:
        sys.exit("NODES must be positive")
    jobs = []
    for i, game in enumerate(games(path)):
        if player not in (game.headers["White"], game.headers["Black"]):
            sys.exit(f"game {i}: {player} plays neither side")
        jobs.append((i, player, str(game), nodes))
    if not jobs:
        sys.exit(f"{path}: no games")
    with mp.Pool(2, initializer=start_judge) as pool:
        rows = pool.map(trajectory, jobs, chunksize=4)
    results = collections.Counter(score for _, score, _, _, _ in rows)
    print(f"{len(rows)} games, W/D/L {results[1.0]}/{results[0.5]}/{results[0.0]}")
    kinds = collections.Counter()
    drops = []
    for index, score, evals, sans, mine in rows:
        best = max(evals[OPENING:], default=0)
        name = {1.0: "won", 0.5: "drawn", 0.0: "lost"}[score]
        reached = "+200 or more" if best >= 200 else "+50 to +199" if best >= 50 else "never +50"
        kinds[(name, reached)] += 1
        for k in mine:
            if k >= OPENING and k + 1 < len(evals) and abs(evals[k]) < UNDECIDED and evals[k] - evals[k + 1] >= DROP:
                drops.append((evals[k] - evals[k + 1], index, k, evals[k], evals[k + 1], sans[k]))
    for (name, reached), n in sorted(kinds.items()):
        print(f"{name}, best score {reached}: {n}")
    phases = collections.Counter("plies 8-29" if d[2] < 30 else "plies 30-79" if d[2] < 80 else "plies 80+" for d in drops)
    print(f"{player}'s moves dropping {DROP} or more from within {UNDECIDED} of even: {len(drops)}, {dict(sorted(phases.items()))}")
    for drop, index, ply, before, after, san in sorted(drops, reverse=True)[:20]:
        print(f"  game {index} ply {ply}: {san}, {before} -> {after}")


if __name__ == "__main__":
    main()
