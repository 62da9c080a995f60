#!/usr/bin/env python3
"""Labels positions for examples/texel.rs: texel_label.py OUT.csv GAMES.pgn [MORE.pgn...]

Every other quiet position of the games (past the 8-ply random opening `gambit match` plays;
not in check, and the move played from it neither a capture nor a promotion) is written as
`FEN;result;score`: its game's result for White, and Stockfish's score for White after a
search of NODES nodes (mates as +-3000). Two Stockfish processes share the work.
Needs python-chess (`pip install chess`) and /usr/games/stockfish.
"""
import sys, multiprocessing as mp
import chess, chess.pgn

from selfplay_data import Engine  # the Stockfish process and its score parsing, shared

NODES = 6000
def positions(files):
    for f in files:
        with open(f) as fh:
            while True:
                g = chess.pgn.read_game(fh)
                if g is None: break
                res = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(g.headers.get("Result"))
                if res is None: continue
                b = g.board()
                for ply, mv in enumerate(g.mainline_moves()):
                    # Every other ply: neighbouring positions of a game say nearly the same.
                    if ply >= 8 and ply % 2 == 0 and not b.is_check() and not b.is_capture(mv) and mv.promotion is None:
                        yield b.fen(), res
                    b.push(mv)

def work(args):
    chunk, = args
    engine = Engine()
    out = []
    for fen, res in chunk:
        _, score = engine.search(fen, [], NODES)
        if score is None: continue
        if " b " in fen: score = -score
        out.append(f"{fen};{res};{score}")
    engine.close()
    return out

if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: texel_label.py OUT.csv GAMES.pgn [MORE.pgn...]")
    out, files = sys.argv[1], sys.argv[2:]
    pos = list(positions(files))
    print(len(pos), "positions", flush=True)
    chunks = [pos[i:i+2000] for i in range(0, len(pos), 2000)]
    with mp.Pool(2) as pool, open(out, "w") as fh:
        for n, lines in enumerate(pool.imap(work, [(c,) for c in chunks])):
            fh.write("\n".join(lines) + "\n"); fh.flush()
            print(f"chunk {n+1}/{len(chunks)}", flush=True)
