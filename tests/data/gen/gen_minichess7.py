#!/usr/bin/env python3
"""Generate tests/data/perft_minichess7.epd with Fairy-Stockfish.

1. Verifies that tests/data/minichess7.ini gives perft 12, 144, 2531, 43162,
   881322 for the initial position (depths 1..5).
2. Random playouts: at each ply the legal moves are taken from fairy-stockfish
   `go perft 1` (divide output), one is picked at random (biased), and the
   next FEN is read from the `Fen:` line of `d`.
3. Positions are classified (check / double check / checking piece type,
   pawns on the last rank, pins, material) with gen/mc7.py and a selection
   is made; counts come from fairy-stockfish `go perft d`, d = 1.. until the
   count reaches ~5k (deepest count kept between ~5k and ~500k).
4. Every FEN is normalised (6 fields, 7-square ranks, `-` castling and ep),
   fed back to fairy-stockfish (its `d` must print the same FEN) and the
   counts are computed from the normalised FEN.  Every count of every line is
   reproduced with the independent pure-Python generator gen/mc7.py.

    python3 tests/data/gen/gen_minichess7.py
"""

import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engines import DATA_DIR, epd_line, fairy_minichess7  # noqa: E402
import mc7  # noqa: E402

SEED = 7777
START = "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1"
START_COUNTS = [12, 144, 2531, 43162, 881322]
LO, HI = 5000, 500000
N_OTHER = 50

QUOTAS = {
    "check": 14,
    "check_by_c": 4,
    "check_by_a": 4,
    "check_by_f": 6,
    "double_check": 3,
    "pawn_last_rank": 10,
    "pinned": 12,
    "endgame": 10,
    "fewish": 6,
    "many": 6,
    "has_c": 10,
    "has_a": 10,
    "has_f": 10,
}

# Hand-crafted positions (comment, FEN); counts use the same depth rule but the
# window is not enforced.
HAND = [
    ("white pawn about to reach the last rank (it will stay a pawn)",
     "3k3/1P5/7/7/7/7/3K3 w - - 0 1"),
    ("pawn stuck on the last rank next to the enemy king",
     "1P1k3/7/7/7/7/7/3K3 b - - 0 1"),
    ("empress gives knight check",
     "3k3/7/4C2/7/7/7/3K3 b - - 0 1"),
    ("princess gives knight check, black rook pinned by white rook",
     "3k3/3r3/4A2/7/3R3/7/3K3 b - - 0 1"),
    ("ferz gives check; black pawn stuck on rank 1",
     "k6/7/7/7/7/3f3/1pK4 w - - 0 1"),
    ("princess pinned on diagonal by bishop, empress pinned on file by rook a7",
     "R6/7/c6/7/k6/1a5/2B1K2 b - - 0 1"),
]

FEN_RE = re.compile(r"^[1-7KQRBNCAFPkqrbncafp/]+ [wb] - - \d+ \d+$")


def normalise(fen):
    parts = fen.split()
    board, stm = parts[0], parts[1]
    half = parts[4] if len(parts) > 4 and parts[4].isdigit() else "0"
    full = parts[5] if len(parts) > 5 and parts[5].isdigit() else "1"
    board = board.replace("~", "")  # promoted-piece markers, if any
    out = " ".join([board, stm, "-", "-", half, full])
    rows = board.split("/")
    assert len(rows) == 7, fen
    for row in rows:
        assert sum(int(c) if c.isdigit() else 1 for c in row) == 7, fen
    assert FEN_RE.match(out), fen
    return out


def classify(fen, fsf_checkers):
    p = mc7.Pos(fen)
    f = set()
    chk = p.checkers()
    names = sorted(mc7.sq_name(*s) for s in chk)
    if names != sorted(fsf_checkers):
        raise SystemExit("checkers differ for %s: mc7 %s fsf %s"
                         % (fen, names, fsf_checkers))
    if chk:
        f.add("check")
        if len(chk) >= 2:
            f.add("double_check")
        for s in chk:
            f.add("check_by_" + p.b[s].lower())
    if any(pc == "P" and s[1] == 6 for s, pc in p.b.items()) or \
            any(pc == "p" and s[1] == 0 for s, pc in p.b.items()):
        f.add("pawn_last_rank")
    if p.pinned():
        f.add("pinned")
    n = len(p.b)
    if n <= 6:
        f.add("endgame")
    elif n <= 10:
        f.add("fewish")
    elif n >= 20:
        f.add("many")
    for x in "caf":
        if any(pc.lower() == x for pc in p.b.values()):
            f.add("has_" + x)
    return f


def counts_for(eng, fen):
    counts = []
    for d in range(1, 12):
        n, _ = eng.perft(fen, d)
        if n == 0:
            counts.append(n)
            break
        if n > HI and counts and counts[-1] >= LO // 3:
            break
        counts.append(n)
        if n >= LO:
            break
    return counts


def playouts(eng, rng, n_games, pool):
    for g in range(n_games):
        style = rng.choice(["quiet", "normal", "bloody", "bloody"])
        fen = START
        for ply in range(rng.randint(10, 90)):
            total, divide = eng.perft(fen, 1)
            if not divide:
                break
            pos = mc7.Pos(fen)
            moves = sorted(divide)
            ws = []
            for m in moves:
                w = 1.0
                t = (mc7.FILES.index(m[2]), int(m[3:]) - 1)
                s = (mc7.FILES.index(m[0]), int(m[1]) - 1)
                if t in pos.b:
                    w *= {"quiet": 0.2, "normal": 1.5, "bloody": 5.0}[style]
                if pos.b[s].lower() == "p":
                    w *= 3.0
                ws.append(w)
            m = rng.choices(moves, ws)[0]
            fen_raw, checkers = eng.display(fen, [m])
            fen = normalise(fen_raw)
            if int(fen.split()[4]) >= 60:
                break
            if ply >= 3 and rng.random() < 0.5:
                k = " ".join(fen.split()[:2])
                if k not in pool:
                    pool[k] = (fen, classify(fen, checkers))


def main():
    t0 = time.time()
    rng = random.Random(SEED)
    eng = fairy_minichess7()

    fen_d, _ = eng.display(START)
    assert fen_d == START, fen_d
    for d, want in enumerate(START_COUNTS, start=1):
        got, _ = eng.perft(START, d)
        print("start D%d %d (expected %d)" % (d, got, want), flush=True)
        if got != want:
            sys.exit("minichess7.ini does not reproduce the expected start counts")

    pool = {}
    playouts(eng, rng, 1500, pool)
    print("pool %d (%.0fs)" % (len(pool), time.time() - t0), flush=True)
    stats = {}
    for fen, f in pool.values():
        for x in f:
            stats[x] = stats.get(x, 0) + 1
    print("pool features:", sorted(stats.items()), flush=True)

    cands = list(pool.values())
    rng.shuffle(cands)
    selected = []
    seen = {" ".join(fen.split()[:2]) for fen in [START] + [h[1] for h in HAND]}
    cover = {k: 0 for k in QUOTAS}

    def try_add(fen, f, why):
        k = " ".join(fen.split()[:2])
        if k in seen:
            return False
        counts = counts_for(eng, fen)
        if not (LO <= counts[-1] <= HI):
            return False
        seen.add(k)
        selected.append((fen, f, counts, why))
        for x in f:
            if x in cover:
                cover[x] += 1
        return True

    for feat in sorted(QUOTAS, key=lambda x: stats.get(x, 0)):
        for fen, f in cands:
            if cover[feat] >= QUOTAS[feat]:
                break
            if feat in f:
                try_add(fen, f, feat)
    rich = sorted(cands, key=lambda c: -len(c[1]))
    for fen, f in rich:
        if len(selected) >= N_OTHER:
            break
        try_add(fen, f, "mixed")
    print("selected %d, coverage %s" % (len(selected), cover), flush=True)

    # feed every normalised FEN back and cross-check with mc7
    rows = [("initial position", START, set(), START_COUNTS)]
    for comment, fen in HAND:
        back, checkers = eng.display(fen)
        if back != fen:
            sys.exit("fairy-stockfish rewrote hand FEN %s as %s" % (fen, back))
        rows.append(("hand: " + comment, fen, classify(fen, checkers),
                     counts_for(eng, fen)))
    for fen, f, counts, why in selected:
        back, _ = eng.display(fen)
        if back != fen:
            sys.exit("fairy-stockfish rewrote %s as %s" % (fen, back))
        again = [eng.perft(fen, d)[0] for d in range(1, len(counts) + 1)]
        if again != counts:
            sys.exit("recount differs for %s" % fen)
        rows.append(("random playout (%s)" % why, fen, f, counts))
    # independent cross-check of every count at every depth
    for comment, fen, f, counts in rows:
        for d in range(1, len(counts) + 1):
            n = mc7.perft(mc7.Pos(fen), d)
            if n != counts[d - 1]:
                sys.exit("mc7 disagrees at D%d for %s: %d vs %d"
                         % (d, fen, n, counts[d - 1]))
    print("mc7 cross-check ok for all %d lines, all depths (%.0fs)"
          % (len(rows), time.time() - t0), flush=True)

    lines = [
        "# minichess7 perft reference positions (variant defined in tests/data/minichess7.ini).",
        "# 7x7 board; C/c empress (chancellor R+N), A/a princess (archbishop B+N), F/f ferz;",
        "# pawns: single step, no ep, no promotion (a pawn on the last rank stays and is stuck).",
        "# Counts: %s, `go perft d`, d = 1..N, with" % eng.name,
        "#   setoption name VariantPath value <abs path>/minichess7.ini",
        "#   setoption name UCI_Variant value minichess7",
        "# Positions: a few hand-crafted ones, then random playouts (moves from",
        "# `go perft 1`, FEN from `d`).",
        "# Every count (all depths) also reproduced by tests/data/gen/mc7.py (independent pure Python).",
        "# Regenerate: python3 tests/data/gen/gen_minichess7.py",
    ]
    total = 0
    for comment, fen, f, counts in rows:
        tags = " ".join(sorted(f))
        lines.append("# %s%s" % (comment, (" [" + tags + "]") if tags else ""))
        lines.append(epd_line(fen, counts))
        total += counts[-1]
    eng.close()
    out = os.path.join(DATA_DIR, "perft_minichess7.epd")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote %s: %d positions, total deepest %d (%.0fs)"
          % (out, len(rows), total, time.time() - t0))


if __name__ == "__main__":
    main()
