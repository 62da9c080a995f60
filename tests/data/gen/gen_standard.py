#!/usr/bin/env python3
"""Generate tests/data/perft_standard.epd.

Positions come from three sources:
  * hand-crafted edge positions (HAND below),
  * biased random playouts from the initial position (python-chess),
  * random legal piece placements (for rare things such as double check and
    en-passant captures that are illegal because of a pin).
A candidate pool is classified by rule features (gen/features.py) and a
selection is made so that every feature appears in good numbers.  Counts are
computed with Stockfish `go perft d` for d = 1.. until the count reaches ~20k
(deepest count kept between ~20k and ~600k).  A random sample of lines is
cross-checked against a plain python-chess perft at depth <= 3.

FENs are written by python-chess `board.fen(en_passant="xfen")`: the ep field
is written whenever an en-passant capture is pseudo-legal, even if that
capture is illegal (pinned pawn), so those pin cases are visible at the root.

    python3 tests/data/gen/gen_standard.py   # deterministic for a given
                                             # python-chess / Stockfish version
"""

import os
import random
import sys
import time

import chess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engines import DATA_DIR, epd_line, python_perft, stockfish  # noqa: E402
from features import features  # noqa: E402

SEED = 20240601
LO, HI = 20000, 600000
TOTAL_CAP = 40000000
N_SAMPLE_CHECK = 20

# Hand-crafted edge positions (comment, FEN). FENs are normalised through
# python-chess before use.
HAND = [
    ("ep capture illegal: horizontal pin (Ka5, pawns b5/c5, rook h5)",
     "8/8/3p4/KPp4r/8/8/8/4k3 w - c6 0 2"),
    ("ep capture removes the checking pawn (legal)",
     "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1"),
    ("ep capture of checking pawn is illegal: uncovers bishop b2 diagonal",
     "8/8/8/4k3/3Pp3/8/1B6/4K3 b - d3 0 1"),
    ("ep capture illegal: horizontal pin by queen h4",
     "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1"),
    ("ep capture illegal: capturing pawn pinned on diagonal (Kc6-Bg2)",
     "8/8/2k5/8/3Pp3/8/6B1/4K3 b - d3 0 1"),
    ("ep capture legal: pawn pinned on diagonal but moves along the pin line",
     "8/8/6k1/8/3Pp3/8/2B5/4K3 b - d3 0 1"),
    ("ep capture illegal: horizontal pin, king on the right",
     "8/8/8/r1pP3K/8/8/8/4k3 w - c6 0 2"),
    ("ep with two capturers; d5 pinned on a8-f3 diagonal but captures along it",
     "b7/8/8/1PpP4/8/5K2/8/4k3 w - c6 0 2"),
    ("ep with two capturers; d5 pinned on a2-f7 diagonal, dxc6 illegal",
     "8/5K2/8/1PpP4/8/8/b7/4k3 w - c6 0 2"),
    ("avoid illegal ep move #1", "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1"),
    ("avoid illegal ep move #2", "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1"),
    ("ep capture checks opponent", "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1"),
    ("short castling gives check", "5k2/8/8/8/8/8/8/4K2R w K - 0 1"),
    ("long castling gives check", "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1"),
    ("castling rights, bishops on long diagonals",
     "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1"),
    ("castling prevented by attacked squares",
     "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1"),
    ("long castling legal although b1 is attacked",
     "4k3/8/8/8/8/8/b7/R3K2R w KQ - 0 1"),
    ("castling legal although the rook a1 is attacked",
     "r3k3/8/8/8/8/8/8/R3K2R w KQq - 0 1"),
    ("kingside castling blocked: f1 attacked",
     "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1"),
    ("kingside castling blocked: g1 attacked, queenside d1 attacked",
     "3rk1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1"),
    ("queenside castling blocked: c1 attacked only",
     "2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"),
    ("castling impossible: king in check",
     "4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1"),
    ("rook attacked, castling through unattacked squares, black to move",
     "r3k2r/8/8/8/8/8/8/R2K3R b kq - 0 1"),
    ("promote out of check", "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1"),
    ("discovered check", "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1"),
    ("promote to give check", "4k3/1P6/8/8/8/8/K7/8 w - - 0 1"),
    ("underpromote to check", "8/P1k5/K7/8/8/8/8/8 w - - 0 1"),
    ("self stalemate", "K1k5/8/P7/8/8/8/8/8 w - - 0 1"),
    ("stalemate and checkmate", "8/k1P5/8/1K6/8/8/8/8 w - - 0 1"),
    ("stalemate and checkmate 2", "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1"),
    ("promotions and capture-promotions galore",
     "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"),
    ("promotions and capture-promotions galore (white)",
     "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1"),
    ("many promotions", "8/PPP4k/8/8/8/8/4Kppp/8 w - - 0 1"),
    ("capture-promotion with check, promotion blocked by check",
     "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1"),
    ("double check: rook + knight", "4r1k1/8/8/8/8/3n4/8/4K3 w - - 0 1"),
    ("double check: bishop + rook, only king moves",
     "4k3/8/8/8/8/2b5/8/r3K2R w K - 0 1"),
    ("pinned pieces on rank, file and diagonal",
     "4r2k/8/8/8/1b6/8/3NR3/r2QK3 w - - 0 1"),
    ("position 4 mirrored (chessprogramming wiki)",
     "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1"),
    ("en passant and castling at the same time",
     "r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 0 1"),
]

# Features the selection must cover, with minimum counts (including HAND).
QUOTAS = {
    "castle_legal": 25,
    "castle_transit_attacked": 20,
    "castle_in_check": 6,
    "castle_long_b_attacked": 6,
    "castle_rook_attacked": 6,
    "ep_legal": 20,
    "ep_evasion": 5,
    "ep_illegal_in_check": 3,
    "ep_pin_rank": 10,
    "ep_pin_other": 7,
    "promo": 20,
    "underpromo": 20,
    "promo_capture": 12,
    "promo_check": 8,
    "check": 25,
    "double_check": 10,
    "pinned": 35,
    "endgame": 20,
    "fewish": 15,
    "many": 20,
}
N_POSITIONS = 150  # including HAND


def xfen(b):
    return b.fen(en_passant="xfen")


def key(fen):
    return " ".join(fen.split()[:4])


# --------------------------------------------------------------------------
# Biased random playouts.

def move_weight(b, m, style):
    w = 1.0
    pt = b.piece_type_at(m.from_square)
    if b.is_capture(m):
        w *= {"quiet": 0.15, "normal": 1.5, "bloody": 5.0}[style]
    if pt == chess.PAWN:
        rel = chess.square_rank(m.to_square)
        if b.turn == chess.BLACK:
            rel = 7 - rel
        w *= 2.0 + rel * 0.7
        if abs(m.to_square - m.from_square) == 16:
            # double push next to an enemy pawn -> en passant chances
            adj = chess.BB_SQUARES[m.to_square]
            adj = ((adj << 1) & ~chess.BB_FILE_A) | ((adj >> 1) & ~chess.BB_FILE_H)
            if adj & b.pieces_mask(chess.PAWN, not b.turn):
                w *= 8.0
    if b.is_en_passant(m):
        w *= 10.0
    if m.promotion:
        w *= 8.0
    if b.is_castling(m):
        w *= 4.0
    elif pt == chess.KING and b.has_castling_rights(b.turn):
        w *= 0.15
    elif pt == chess.ROOK and b.has_castling_rights(b.turn):
        w *= 0.3
    if b.gives_check(m):
        w *= 2.5
    return w


def playouts(rng, n_games, pool):
    for g in range(n_games):
        style = rng.choice(["quiet", "normal", "normal", "bloody"])
        b = chess.Board()
        max_ply = rng.randint(20, 160)
        for ply in range(max_ply):
            moves = list(b.legal_moves)
            if not moves:
                break
            ws = [move_weight(b, m, style) for m in moves]
            b.push(rng.choices(moves, ws)[0])
            if b.halfmove_clock >= 80 or b.is_insufficient_material():
                break
            if ply >= 6 and rng.random() < 0.25:
                add_candidate(b, pool, "playout")


# --------------------------------------------------------------------------
# Random legal placements.

PIECES = "QRRBBNNPPPPPPPP"


def random_placement(rng):
    b = chess.Board(None)
    squares = list(range(64))
    rng.shuffle(squares)
    sq = iter(squares)
    b.set_piece_at(next(sq), chess.Piece(chess.KING, chess.WHITE))
    b.set_piece_at(next(sq), chess.Piece(chess.KING, chess.BLACK))
    n = rng.choice([1, 2, 3, 4, 5, 6, 8, 10, 14, 20])
    for _ in range(n):
        s = next(sq)
        color = rng.random() < 0.5
        sym = rng.choice(PIECES)
        pt = chess.Piece.from_symbol(sym).piece_type
        if pt == chess.PAWN and chess.square_rank(s) in (0, 7):
            continue
        b.set_piece_at(s, chess.Piece(pt, color))
    b.turn = rng.random() < 0.5
    # castling rights where king and rook are at home
    rights = 0
    for color, r in ((chess.WHITE, 0), (chess.BLACK, 7)):
        if b.piece_at(chess.square(4, r)) == chess.Piece(chess.KING, color):
            for f in (0, 7):
                if b.piece_at(chess.square(f, r)) == chess.Piece(chess.ROOK, color):
                    if rng.random() < 0.85:
                        rights |= chess.BB_SQUARES[chess.square(f, r)]
    b.castling_rights = rights
    # en-passant square if some enemy pawn could just have double-pushed
    them = not b.turn
    cands = []
    for s in chess.scan_forward(b.pieces_mask(chess.PAWN, them)):
        r = chess.square_rank(s)
        if (them == chess.WHITE and r == 3) or (them == chess.BLACK and r == 4):
            step = -8 if them == chess.WHITE else 8
            if not b.piece_at(s + step) and not b.piece_at(s + 2 * step):
                cands.append(s + step)
    if cands and rng.random() < 0.9:
        b.ep_square = rng.choice(cands)
    b.fullmove_number = rng.randint(1, 60)
    return b


def ep_pin_placement(rng):
    """Position where our pawn on the 5th rank may capture en passant next to
    an enemy pawn that just double-pushed, with a king and slider placed to
    make that capture (usually) illegal; plus random extra pieces."""
    b = chess.Board(None)
    us = rng.random() < 0.5
    them = not us
    r5 = 4 if us == chess.WHITE else 3
    f = rng.randint(0, 7)
    df = rng.choice([-1, 1])
    if not 0 <= f + df <= 7:
        df = -df
    our_pawn = chess.square(f, r5)
    their_pawn = chess.square(f + df, r5)
    b.set_piece_at(our_pawn, chess.Piece(chess.PAWN, us))
    b.set_piece_at(their_pawn, chess.Piece(chess.PAWN, them))
    free = [s for s in range(64) if not b.piece_at(s)]
    if rng.random() < 0.6:
        # horizontal: king and slider on the 5th rank, one on each side
        lo_f, hi_f = min(f, f + df), max(f, f + df)
        left = [chess.square(x, r5) for x in range(0, lo_f)]
        right = [chess.square(x, r5) for x in range(hi_f + 1, 8)]
        if not left or not right:
            return None
        a, c = rng.choice(left), rng.choice(right)
        if rng.random() < 0.5:
            a, c = c, a
        b.set_piece_at(a, chess.Piece(chess.KING, us))
        b.set_piece_at(c, chess.Piece(rng.choice([chess.ROOK, chess.QUEEN]), them))
    else:
        # diagonal through one of the two pawns
        b.set_piece_at(rng.choice(free), chess.Piece(chess.KING, us))
        free = [s for s in range(64) if not b.piece_at(s)]
        b.set_piece_at(rng.choice(free),
                       chess.Piece(rng.choice([chess.BISHOP, chess.QUEEN]), them))
    free = [s for s in range(64) if not b.piece_at(s)]
    b.set_piece_at(rng.choice(free), chess.Piece(chess.KING, them))
    for _ in range(rng.randint(0, 8)):
        free = [s for s in range(64) if not b.piece_at(s)]
        s = rng.choice(free)
        pt = chess.Piece.from_symbol(rng.choice(PIECES)).piece_type
        if pt == chess.PAWN and chess.square_rank(s) in (0, 7):
            continue
        b.set_piece_at(s, chess.Piece(pt, rng.random() < 0.5))
    b.turn = us
    step = 8 if us == chess.WHITE else -8
    ep = their_pawn + step
    if b.piece_at(ep) or b.piece_at(ep + step):
        return None
    b.ep_square = ep
    b.castling_rights = 0
    b.fullmove_number = rng.randint(2, 60)
    return b


def add_candidate(b, pool, source):
    if not b.is_valid():
        return
    fen = xfen(b)
    k = key(fen)
    if k in pool:
        return
    f = features(b)
    if "no_moves" in f:
        return
    pool[k] = (fen, f, source)


# --------------------------------------------------------------------------


def main():
    rng = random.Random(SEED)
    t0 = time.time()
    eng = stockfish()

    selected = []   # (comment, fen, features, counts)
    seen = set()
    cover = {k: 0 for k in QUOTAS}
    total = 0

    def try_add(comment, fen, f, strict=True):
        nonlocal total
        k = key(fen)
        if k in seen:
            return False
        counts = None
        for attempt in range(1):
            counts = [c for c in _counts(eng, fen)]
        deepest = counts[-1] if counts else 0
        if strict and not (LO <= deepest <= HI):
            return False
        if not strict and deepest == 0:
            pass
        seen.add(k)
        selected.append((comment, fen, f, counts))
        total += deepest
        for x in f:
            if x in cover:
                cover[x] += 1
        return True

    # 1. hand-crafted
    for comment, raw in HAND:
        b = chess.Board(raw)
        assert b.is_valid(), (raw, b.status())
        fen = xfen(b)
        ok = try_add("hand: " + comment, fen, features(b), strict=False)
        print("hand %-5s %s" % (ok, fen), flush=True)

    # 2. candidate pool
    pool = {}
    playouts(rng, 2500, pool)
    print("playout pool %d (%.0fs)" % (len(pool), time.time() - t0), flush=True)
    n_play = len(pool)
    for _ in range(60000):
        b = random_placement(rng)
        add_candidate(b, pool, "placement")
    for _ in range(20000):
        b = ep_pin_placement(rng)
        if b is not None:
            add_candidate(b, pool, "ep-placement")
    print("total pool %d (placements %d) (%.0fs)"
          % (len(pool), len(pool) - n_play, time.time() - t0), flush=True)
    stats = {}
    for fen, f, src in pool.values():
        for x in f:
            stats[x] = stats.get(x, 0) + 1
    print("pool feature counts:", sorted(stats.items()), flush=True)

    cands = list(pool.values())
    rng.shuffle(cands)
    # prefer natural playout positions: try them first for each quota
    cands.sort(key=lambda c: 0 if c[2] == "playout" else 1)

    # 3. fill quotas, rarest feature first
    for feat in sorted(QUOTAS, key=lambda x: stats.get(x, 0)):
        for fen, f, src in cands:
            if cover[feat] >= QUOTAS[feat]:
                break
            if feat in f and key(fen) not in seen:
                try_add("%s (%s)" % (src, feat), fen, f)
    # 4. top up with positions carrying several features
    rich = sorted(cands, key=lambda c: -len(c[1] & set(QUOTAS)))
    for fen, f, src in rich:
        if len(selected) >= N_POSITIONS:
            break
        if key(fen) not in seen:
            try_add("%s (mixed)" % src, fen, f)

    print("selected %d positions, total deepest %d" % (len(selected), total))
    print("coverage:", cover)
    if total > TOTAL_CAP:
        sys.exit("total too large")

    # 5. cross-check a sample with python-chess perft (depth <= 3)
    sample = rng.sample(selected, min(N_SAMPLE_CHECK, len(selected)))
    for comment, fen, f, counts in sample:
        d = min(3, len(counts))
        n = python_perft(chess.Board(fen), d)
        status = "ok" if n == counts[d - 1] else "MISMATCH"
        print("python-chess D%d %s %d %s" % (d, status, n, fen), flush=True)
        if n != counts[d - 1]:
            sys.exit("python-chess disagrees with Stockfish")

    # 6. write
    lines = [
        "# Standard-chess perft reference positions (%d positions)." % len(selected),
        "# Sources: hand-crafted edge cases, biased random playouts and random legal",
        "# placements (python-chess %s), selected for castling / en passant (also" % chess.__version__,
        "# pinned ep) / promotions / checks / double checks / pins / endgames.",
        "# FENs written by python-chess board.fen(en_passant=\"xfen\"): the ep field is",
        "# present whenever an ep capture is pseudo-legal (it may be illegal).",
        "# Counts: %s `go perft d`, d = 1..N; %d lines cross-checked with a" % (eng.name, len(sample)),
        "# python-chess perft at depth <= 3.  Regenerate: python3 tests/data/gen/gen_standard.py",
    ]
    for comment, fen, f, counts in selected:
        tags = " ".join(sorted(x for x in f if x in QUOTAS or x.startswith(("castle", "ep"))))
        lines.append("# %s%s" % (comment, (" [" + tags + "]") if tags else ""))
        lines.append(epd_line(fen, counts))
    eng.close()
    out = os.path.join(DATA_DIR, "perft_standard.epd")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote %s (%.0fs)" % (out, time.time() - t0))


_cache = {}


def _counts(eng, fen):
    if fen not in _cache:
        counts = []
        for d in range(1, 12):
            n, _ = eng.perft(fen, d)
            if n == 0:
                counts.append(n)
                break
            if n > HI and counts and counts[-1] >= LO // 4:
                break
            counts.append(n)
            if n >= LO:
                break
        _cache[fen] = counts
    return _cache[fen]


if __name__ == "__main__":
    main()
