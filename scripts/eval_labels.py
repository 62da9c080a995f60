#!/usr/bin/env python3
"""Positions labelled by Stockfish's static evaluation or a short search: eval_labels.py [--minichess7] [--depth N] OUT.csv GAMES.pgn...

The positions are those of `gambit match --pgn` games (e.g. `gambit match --white level8
--black skill:4,4,40 --nodes 2000 --games 60000 --seed 1001 --pgn GAMES.pgn --concurrency 2`:
about 40 games a second here). Kept: every position after the 8-ply opening that is not in
check and whose move in the game is neither a capture nor a promotion (a position where a
capture is due is one a static evaluation cannot judge), each once. Each is labelled with
Stockfish's `eval` ("Final evaluation", for White, in centipawns): the judgement at a glance
that an evaluation is for, about 7,000 positions a second per Stockfish process, where a search
of 1,500 nodes (scripts/selfplay_data.py) labels some 90.

Written as scripts/selfplay_data.py writes them, `FEN;result;score`: the game's result for
White (1, 0.5 or 0) and the score for White. scripts/train_network.py reads them.

With --depth N (standard chess) the label is instead the score of Stockfish's search to depth N
(`go depth N`, 16 MB of hash, one thread), the labels engines' networks are trained on: the
evaluation a few plies on, where tactics the position holds are played out. Depth 6 labels
about 1,500 positions a second per process here. Positions whose search finds a mate are left
out (a winning chance of 1 says nothing an evaluation can learn from).
The positions are read by examples/pgn_positions (built on the first run), 25 times faster than
python-chess read them before. Needs /usr/games/stockfish; two Stockfish processes.

With --minichess7 the games are minichess7's (the same choice, after the match's openings of up
to 6 plies), and the labels from Fairy-Stockfish 11.1's `eval` ("Total evaluation", the classical evaluation: it
has no network for this variant) with tests/data/minichess7.ini, about 6,000 positions a second.
"""
import multiprocessing as mp
import os
import subprocess
import sys
import threading

# The plies of the match's random openings, which are left out: 8 in standard chess, up to 6 in minichess7.
OPENING = {"standard": 8, "minichess7": 6}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The engine and its setup for each variant, and the line of `eval`'s answer that holds the score.
ENGINES = {
    "standard": (["/usr/games/stockfish"], "", "Final evaluation"),
    "minichess7": (["/usr/games/fairy-stockfish"],
                   f"setoption name VariantPath value {ROOT}/tests/data/minichess7.ini\n"
                   "setoption name UCI_Variant value minichess7\n", "Total evaluation"),
}


def positions(variant, paths):
    """(FEN, result for White) of the kept positions of the games, by examples/pgn_positions:
    Rust's PGN reader, some 25 times faster than python-chess's (34 s for 2,879 games here)."""
    subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "pgn_positions"], cwd=ROOT, check=True)
    tool = os.path.join(ROOT, "target", "release", "examples", "pgn_positions")
    out = subprocess.run([tool, str(OPENING[variant]), *paths], stdout=subprocess.PIPE, text=True, check=True).stdout
    for line in out.splitlines():
        fen, result = line.split(";")
        yield fen, float(result)


def label(job):
    """Each FEN's static evaluation, for White, in centipawns (None in check); with a depth, the
    score of a search to that depth (None for a mate)."""
    variant, batch, depth = job
    command, setup, answer = ENGINES[variant]
    if depth:
        setup += "setoption name Threads value 1\nsetoption name Hash value 16\n"
    ask = f"go depth {depth}" if depth else "eval"
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1 << 16)
    answered = threading.Event()

    def feed():
        p.stdin.write(setup)
        for fen in batch:
            p.stdin.write(f"position fen {fen}\n{ask}\n")
        p.stdin.flush()
        if depth:
            # `quit` would stop a search still running: it goes once the last one has answered.
            answered.wait()
        p.stdin.write("quit\n")
        p.stdin.close()

    threading.Thread(target=feed, daemon=True).start()
    scores, searched = [], None
    for line in p.stdout:
        if not depth and line.startswith(answer):
            # "Final evaluation       +0.16 (white side) [...]" (Stockfish), "Total evaluation:
            # -0.19 (white side)" (Fairy-Stockfish), or "none (in check)".
            word = line.split()[2]
            scores.append(None if word == "none" else round(float(word) * 100))
        elif depth and line.startswith("info depth") and " score " in line:
            # The last score before `bestmove` is the deepest; it is the side to move's.
            words = line.split()
            at = words.index("score")
            searched = int(words[at + 2]) if words[at + 1] == "cp" else None
        elif depth and line.startswith("bestmove"):
            white = batch[len(scores)].split(" ")[1] == "w"
            scores.append(None if searched is None else (searched if white else -searched))
            searched = None
            if len(scores) == len(batch):
                answered.set()
    p.wait()
    if len(scores) != len(batch):
        raise RuntimeError(f"{command[0]} answered {len(scores)} of {len(batch)} positions")
    return scores


def main():
    args = sys.argv[1:]
    variant = "minichess7" if args[:1] == ["--minichess7"] else "standard"
    args = args[1:] if variant == "minichess7" else args
    depth = 0
    if args[:1] == ["--depth"]:
        if len(args) < 2 or not args[1].isdigit() or not 1 <= int(args[1]) <= 30 or variant != "standard":
            sys.exit("--depth takes a depth from 1 to 30, in standard chess")
        depth, args = int(args[1]), args[2:]
    if len(args) < 2:
        sys.exit("usage: eval_labels.py [--minichess7] [--depth N] OUT.csv GAMES.pgn...")
    out_path, paths = args[0], args[1:]
    # examples/pgn_positions keeps each placement once (the move counters do not change the evaluation).
    kept = list(positions(variant, paths))
    print(f"{len(kept)} positions", file=sys.stderr, flush=True)
    chunk = 50_000
    batches = [(variant, [fen for fen, _ in kept[i:i + chunk]], depth) for i in range(0, len(kept), chunk)]
    with mp.Pool(2) as pool, open(out_path, "w") as out:
        at = 0
        for scores in pool.imap(label, batches):
            for score in scores:
                fen, result = kept[at]
                at += 1
                if score is not None:
                    out.write(f"{fen};{result:g};{score}\n")
    print(f"wrote {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
