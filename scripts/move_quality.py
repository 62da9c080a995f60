#!/usr/bin/env python3
"""How good an engine's moves are, by Stockfish's judgement: a measure of strength that a busy
machine cannot disturb, and a quicker one than a match.

    move_quality.py suite SUITE.fens PLAYER GAMES.pgn...
        The positions of the games where PLAYER (a name in the PGN's White/Black tags, e.g.
        level8) was to move, past the 8-ply opening `gambit match` plays, with more than one
        legal move, that Stockfish scores within 400 centipawns (the game still undecided).
    move_quality.py run SUITE.fens ENGINE NODES TAG
        ENGINE (a command that speaks UCI, e.g. "target/release/gambit uci") searches NODES nodes
        in each position, afresh (ucinewgame); each move is scored by Stockfish at depth 13 and
        its loss is how far it falls short of Stockfish's best. Prints the mean loss; keeps the
        moves as SUITE.moves-TAG.
    move_quality.py compare SUITE.fens TAG_A TAG_B
        The mean of B's loss minus A's, position by position, with its standard error.

Stockfish's scores are kept in SUITE.cache.jsonl, so a second engine is charged only for the
moves it chooses that no engine chose before. Losses count mates as 1,000 centipawns. Two
processes share each step. Needs python-chess (`pip install chess`) and /usr/games/stockfish.
"""
import json
import math
import re
import multiprocessing as mp
import os
import shlex
import sys

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("needs python-chess (pip install chess)")

from selfplay_data import Engine

OPENING = 8
DEPTH = 13
UNDECIDED = 400
CAP = 1000

judge = None


def start_judge():
    global judge
    judge = Engine()


def judge_key(key):
    """Stockfish's score for the side to move: of the position (key "FEN|") or of one move
    (key "FEN|MOVE", searched alone)."""
    fen, move = key.split("|")
    _, score = judge.analyse(fen, f"go depth {DEPTH}" + (f" searchmoves {move}" if move else ""))
    if score is None:
        raise RuntimeError(f"Stockfish gave no score for {key}")
    return key, max(-CAP, min(CAP, score))


def load_cache(path):
    if not os.path.exists(path):
        return {}
    with open(path) as fh:
        return dict(json.loads(line) for line in fh)


def judge_all(cache_path, keys):
    """Scores every key not yet in the cache, adding them to it; returns the whole cache."""
    cache = load_cache(cache_path)
    todo = sorted(set(keys) - cache.keys())
    if todo:
        with mp.Pool(2, initializer=start_judge) as pool, open(cache_path, "a") as out:
            for key, score in pool.imap_unordered(judge_key, todo, chunksize=4):
                cache[key] = score
                out.write(json.dumps([key, score]) + "\n")
    return cache


def read_fens(path):
    with open(path) as fh:
        return [line.strip() for line in fh if line.strip()]


def suite(out, player, pgns):
    fens, seen = [], set()
    for path in pgns:
        with open(path) as fh:
            while (game := chess.pgn.read_game(fh)) is not None:
                sides = [c for c, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black"))
                         if game.headers.get(tag) == player]
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    key = board.epd()
                    if ply >= OPENING and board.turn in sides and board.legal_moves.count() > 1 and key not in seen:
                        seen.add(key)
                        fens.append(board.fen())
                    board.push(move)
    if not fens:
        sys.exit(f"no positions where {player} was to move past the opening")
    cache = judge_all(out + ".cache.jsonl", [f + "|" for f in fens])
    kept = [f for f in fens if abs(cache[f + "|"]) <= UNDECIDED]
    with open(out, "w") as fh:
        fh.write("".join(f + "\n" for f in kept))
    print(f"{len(kept)} positions ({len(fens)} before leaving out the decided ones)")


def engine_moves(args):
    command, nodes, fens = args
    engine = Engine(shlex.split(command), setup=())
    moves = [engine.analyse(f, f"go nodes {nodes}")[0] for f in fens]
    engine.close()
    return moves


def losses(cache, fens, moves):
    return [max(0, cache[f + "|"] - cache[f"{f}|{m}"]) for f, m in zip(fens, moves)]


def mean_se(xs):
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / max(1, n - 1)
    return mean, math.sqrt(var / n)


def run(path, command, nodes, tag):
    fens = read_fens(path)
    halves = [fens[0::2], fens[1::2]]
    with mp.Pool(2) as pool:
        a, b = pool.map(engine_moves, [(command, nodes, h) for h in halves])
    moves = [m for pair in zip(a, b) for m in pair] + a[len(b):]
    for f, m in zip(fens, moves):
        if m not in {mv.uci() for mv in chess.Board(f).legal_moves}:
            sys.exit(f"{command} answered {m}, not a legal move, in {f}")
    cache = judge_all(path + ".cache.jsonl", [f + "|" for f in fens] + [f"{f}|{m}" for f, m in zip(fens, moves)])
    with open(f"{path}.moves-{tag}", "w") as fh:
        fh.write("".join(m + "\n" for m in moves))
    ls = losses(cache, fens, moves)
    mean, se = mean_se(ls)
    print(f"{tag}: {len(ls)} positions, mean loss {mean:.2f} cp (se {se:.2f}); "
          f"over 50: {sum(x > 50 for x in ls)}, over 100: {sum(x > 100 for x in ls)}, over 300: {sum(x > 300 for x in ls)}")


def compare(path, tag_a, tag_b):
    fens = read_fens(path)
    cache = load_cache(path + ".cache.jsonl")
    moves = {t: read_fens(f"{path}.moves-{t}") for t in (tag_a, tag_b)}
    for tag, ms in moves.items():
        if len(ms) != len(fens):
            sys.exit(f"{tag} has {len(ms)} moves for {len(fens)} positions: run it again on this suite")
    a, b = (losses(cache, fens, moves[t]) for t in (tag_a, tag_b))
    diff = [y - x for x, y in zip(a, b)]
    mean, se = mean_se(diff)
    print(f"{tag_b} - {tag_a}: {mean:+.2f} cp (se {se:.2f}); {sum(d != 0 for d in diff)} positions differ, "
          f"{tag_b} better in {sum(d < 0 for d in diff)}, worse in {sum(d > 0 for d in diff)}")


def check_tag(tag):
    if not re.fullmatch(r"[A-Za-z0-9._=+-]+", tag):
        sys.exit(f"a TAG is letters, digits and ._=+- only, not {tag!r}")
    return tag


def main():
    args = sys.argv[1:]
    if not os.access("/usr/games/stockfish", os.X_OK):
        sys.exit("needs /usr/games/stockfish (apt-get install stockfish)")
    if len(args) >= 4 and args[0] == "suite":
        suite(args[1], args[2], args[3:])
    elif len(args) == 5 and args[0] == "run":
        try:
            nodes = int(args[3])
        except ValueError:
            nodes = 0
        if nodes < 1:
            sys.exit("NODES must be a positive whole number")
        run(args[1], args[2], nodes, check_tag(args[4]))
    elif len(args) == 4 and args[0] == "compare":
        for tag in args[2:]:
            if not os.path.exists(f"{args[1]}.moves-{check_tag(tag)}"):
                sys.exit(f"no moves for {tag}: run `move_quality.py run {args[1]} ENGINE NODES {tag}` first")
        compare(args[1], args[2], args[3])
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
