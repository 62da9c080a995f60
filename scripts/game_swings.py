#!/usr/bin/env python3
"""Where a player's games were won and lost, by Stockfish's judgement of every position:
game_swings.py PLAYER GAMES.pgn [NODES]

Each position of each game (of `gambit match --pgn`) is scored by full-strength Stockfish
(/usr/games/stockfish, one thread, NODES nodes, 25,000 unless told) from PLAYER's side (PLAYER
names the White or Black tag, e.g. level12). Printed: the games by result and by the best score
PLAYER reached in them past the 8-ply opening (a loss after +200 is a win thrown away, a draw
after +200 one not converted), and PLAYER's moves that dropped its score by 150 centipawns or
more from a position still undecided (within 300 of even), by the game's phase, with the worst of them
(game index from 0, ply, score before, score after, move). Mates count 3,000. Two Stockfish
processes share the games. Needs python-chess (`pip install chess`). docs/bots.md ("Where the
games against the anchor are lost") reads one such run.
"""
import collections
import io
import multiprocessing as mp
import sys

try:
    import chess
    import chess.engine
    import chess.pgn
except ImportError:
    sys.exit("needs python-chess (pip install chess)")

OPENING = 8
DROP = 150
UNDECIDED = 300


def games(path):
    with open(path) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            yield game


def trajectory(job):
    """(index, PLAYER's score of the game, [score before each ply from PLAYER's side], [SAN])."""
    index, player, pgn, nodes = job
    game = chess.pgn.read_game(io.StringIO(pgn))
    me = chess.WHITE if game.headers["White"] == player else chess.BLACK
    result = game.headers["Result"]
    score = 0.5 if result == "1/2-1/2" else 1.0 if (result == "1-0") == (me == chess.WHITE) else 0.0
    board = game.board()
    evals, sans = [], []
    for move in game.mainline_moves():
        info = ENGINE.analyse(board, chess.engine.Limit(nodes=nodes))
        evals.append(info["score"].pov(me).score(mate_score=3000))
        sans.append(board.san(move))
        board.push(move)
    mine = [k for k in range(len(evals)) if (k % 2 == 0) == (me == chess.WHITE)]
    return index, score, evals, sans, mine


def start_engine():
    global ENGINE
    ENGINE = chess.engine.SimpleEngine.popen_uci("/usr/games/stockfish")
    ENGINE.configure({"Threads": 1, "Hash": 32})


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
    with mp.Pool(2, initializer=start_engine) as pool:
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
