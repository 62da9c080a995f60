#!/usr/bin/env python3
"""Outside acceptance cross-check of `gambit perft` against trusted references.

    python3 tests/data/gen/xcheck.py --seed 1 [--gambit PATH] [--out DIR]
                                  [--n-uniform N] [--skip-minichess] ...

References
  * Stockfish (`/usr/games/stockfish`, `go perft D`) for standard chess,
  * python-chess (`board.legal_moves`, `board.is_valid()`) for depth-1 move
    sets and FEN validity,
  * Fairy-Stockfish (`/usr/games/fairy-stockfish`, minichess7 from
    tests/data/minichess7.ini) for minichess7,
  * mc7.py (beside this script) as an extra depth-1 check
    of minichess7 move sets.

Parts
  1. standard chess: (a) uniform random playouts of length 0..150,
     (b) random legal placements (promoted pieces, pawns on 7th/2nd,
     real castling rights, ep after a real double step), (c) biased playouts
     (promotions / checks / en passant).  Each position is written with
     board.fen() and, if an ep square is set, with board.fen(en_passant="fen")
     (and "xfen" when that differs).  gambit --divide vs Stockfish at depths
     1..3 (4 where the D3 count is small enough), depth 1 also vs python-chess.
  2. FEN acceptance: every python-chess-valid FEN must be accepted (exit 0);
     plus an extra acceptance sweep (random valid boards, varied clocks).
  3. minichess7 playouts (moves from fairy `go perft 1`, FEN from `d`).
  4. bad input: each case must give exactly one stderr line, empty stdout,
     exit code 2, no panic.

Positions that occur in the repo's tests/data/*.epd are skipped.  Results are
written to OUT/report.json and a human-readable OUT/report.txt.  Exit code 0
if nothing disagrees, 1 otherwise.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

import chess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mc7  # noqa: E402
from engines import Engine  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
DATA = os.path.join(REPO, "tests", "data")
STOCKFISH = os.environ.get("STOCKFISH", "/usr/games/stockfish")
FAIRY = os.environ.get("FAIRY_STOCKFISH", "/usr/games/fairy-stockfish")
MC7_INI = os.path.join(DATA, "minichess7.ini")
MC7_START = "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1"


# --------------------------------------------------------------------------
# gambit wrapper

class Gambit:
    def __init__(self, path):
        self.path = path
        self.calls = 0

    def run(self, args, timeout=300):
        self.calls += 1
        env = dict(os.environ, RUST_BACKTRACE="1")
        p = subprocess.run([self.path] + args, capture_output=True, text=True,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr

    def perft(self, fen, depth, variant="standard", divide=True):
        """Return dict(ok, rc, stderr, total, divide, format_errors)."""
        args = ["perft", "--variant", variant, "--fen", fen, "--depth", str(depth)]
        if divide:
            args.append("--divide")
        rc, out, err = self.run(args)
        res = {"rc": rc, "stderr": err.strip(), "ok": rc == 0, "total": None,
               "divide": {}, "format_errors": []}
        if rc != 0:
            return res
        lines = out.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        else:
            res["format_errors"].append("stdout does not end with a newline")
        if not lines or not lines[-1].startswith("Nodes searched: "):
            res["format_errors"].append("last line is not 'Nodes searched: N': %r"
                                        % (lines[-1:] or ""))
            res["ok"] = False
            return res
        try:
            res["total"] = int(lines[-1][len("Nodes searched: "):])
        except ValueError:
            res["format_errors"].append("bad total line %r" % lines[-1])
            res["ok"] = False
            return res
        body = lines[:-1]
        if not divide and body:
            res["format_errors"].append("extra lines without --divide: %r" % body[:3])
        if divide:
            for l in body:
                mv, sep, cnt = l.partition(": ")
                if not sep or not cnt.isdigit() or " " in mv or not mv:
                    res["format_errors"].append("bad divide line %r" % l)
                    continue
                if mv in res["divide"]:
                    res["format_errors"].append("duplicate move %r" % mv)
                res["divide"][mv] = int(cnt)
            if sum(res["divide"].values()) != res["total"]:
                res["format_errors"].append(
                    "divide sum %d != total %d" % (sum(res["divide"].values()), res["total"]))
        if err.strip():
            res["format_errors"].append("stderr not empty on success: %r" % err[:200])
        return res


def diff_divide(g, r):
    """Lines that differ between gambit divide g and reference r."""
    out = []
    for mv in sorted(set(g) | set(r)):
        gv, rv = g.get(mv), r.get(mv)
        if gv != rv:
            out.append("%s: gambit=%s reference=%s" % (mv, gv, rv))
    return out


# --------------------------------------------------------------------------
# Standard chess position generators

def repo_keys():
    keys = set()
    for fn in os.listdir(DATA):
        if fn.endswith(".epd"):
            with open(os.path.join(DATA, fn)) as fh:
                for line in fh:
                    line = line.strip()
                    if line and not line.startswith("#"):
                        keys.add(" ".join(line.split(";")[0].split()[:4]))
    return keys


def uniform_playout(rng):
    b = chess.Board()
    for _ in range(rng.randint(0, 150)):
        moves = list(b.legal_moves)
        if not moves:
            break
        b.push(rng.choice(moves))
    return b


def biased_weight(b, m, goal):
    w = 1.0
    pt = b.piece_type_at(m.from_square)
    if pt == chess.PAWN:
        rel = chess.square_rank(m.to_square)
        if b.turn == chess.BLACK:
            rel = 7 - rel
        w *= 1.5 + rel * (1.0 if goal == "promo" else 0.4)
        if abs(m.to_square - m.from_square) == 16:
            adj = chess.BB_SQUARES[m.to_square]
            adj = ((adj << 1) & ~chess.BB_FILE_A) | ((adj >> 1) & ~chess.BB_FILE_H)
            if adj & b.pieces_mask(chess.PAWN, not b.turn):
                w *= 12.0 if goal == "ep" else 3.0
    if b.is_en_passant(m):
        w *= 20.0
    if m.promotion:
        w *= 10.0 if goal == "promo" else 3.0
    if b.is_capture(m):
        w *= 2.0
    if b.gives_check(m):
        w *= 6.0 if goal == "check" else 2.0
    return w


def interesting(b, goal):
    legal = list(b.legal_moves)
    if not legal:
        return True
    has_ep = any(b.is_en_passant(m) for m in legal)
    has_promo = any(m.promotion for m in legal)
    pseudo_ep = b.ep_square is not None and any(
        b.is_en_passant(m) for m in b.pseudo_legal_moves)
    if goal == "ep":
        return has_ep or pseudo_ep
    if goal == "promo":
        return has_promo
    if goal == "check":
        return b.is_check()
    return has_ep or has_promo or b.is_check()


def biased_playout(rng):
    goal = rng.choice(["ep", "promo", "check", "any"])
    b = chess.Board()
    max_ply = rng.randint(10, 160)
    last_interesting = None
    for ply in range(max_ply):
        moves = list(b.legal_moves)
        if not moves:
            break
        ws = [biased_weight(b, m, goal) for m in moves]
        b.push(rng.choices(moves, ws)[0])
        if interesting(b, goal):
            last_interesting = b.copy(stack=False)
            if rng.random() < 0.35:
                break
    return last_interesting or b, goal


def set_random_clocks(rng, b):
    b.halfmove_clock = rng.choice([0, 0, 0, rng.randint(0, 99)])
    b.fullmove_number = rng.randint(1, 200)
    if b.ep_square is not None:
        b.halfmove_clock = 0


def random_placement(rng, kind):
    """Random legal placement; kind in general / promo / castle / ep / crowd."""
    b = chess.Board(None)
    occupied = set()

    def free(squares):
        squares = [s for s in squares if s not in occupied]
        return rng.choice(squares) if squares else None

    def put(s, pt, color):
        if s is None:
            return
        occupied.add(s)
        b.set_piece_at(s, chess.Piece(pt, color))

    all_sq = list(range(64))
    mid = [s for s in all_sq if 1 <= chess.square_rank(s) <= 6]
    if kind == "castle":
        for color, r in ((chess.WHITE, 0), (chess.BLACK, 7)):
            if rng.random() < 0.85:
                put(chess.square(4, r), chess.KING, color)
                for f in (0, 7):
                    if rng.random() < 0.75:
                        put(chess.square(f, r), chess.ROOK, color)
            else:
                put(free(all_sq), chess.KING, color)
    else:
        put(free(all_sq), chess.KING, chess.WHITE)
        put(free(all_sq), chess.KING, chess.BLACK)

    if kind == "promo":
        for color, r7 in ((chess.WHITE, 6), (chess.BLACK, 1)):
            for _ in range(rng.randint(1 if color == chess.WHITE else 0, 6)):
                put(free([chess.square(f, r7) for f in range(8)]), chess.PAWN, color)
        # pieces on the back ranks to capture while promoting
        for _ in range(rng.randint(0, 6)):
            color = rng.random() < 0.5
            back = 7 if color == chess.BLACK else 0
            put(free([chess.square(f, back) for f in range(8)]),
                rng.choice([chess.ROOK, chess.KNIGHT, chess.BISHOP, chess.QUEEN]), color)

    n_extra = {"general": rng.choice([0, 1, 2, 3, 4, 6, 8, 12, 16, 20]),
               "promo": rng.randint(0, 6),
               "castle": rng.randint(0, 10),
               "ep": rng.randint(0, 10),
               "crowd": rng.randint(18, 28),
               "check": rng.randint(0, 8),
               "fullpawns": 0}[kind]
    # extra queens / rooks / knights as if promoted are common here
    pool = "QQQRRRBBNNNPPPPPP"
    for _ in range(n_extra):
        color = rng.random() < 0.5
        pt = chess.Piece.from_symbol(rng.choice(pool)).piece_type
        if pt == chess.PAWN:
            if rng.random() < 0.3:
                r7 = 6 if color == chess.WHITE else 1
                put(free([chess.square(f, r7) for f in range(8)]), pt, color)
            else:
                put(free(mid), pt, color)
        else:
            put(free(all_sq), pt, color)

    if kind == "fullpawns":
        # 8 pawns a side plus promoted-looking extra queens/rooks/knights
        # (materially impossible, but python-chess calls it valid)
        for color in (chess.WHITE, chess.BLACK):
            for _ in range(rng.randint(6, 8)):
                put(free([s for s in mid if (chess.square_rank(s) != (1 if color else 6))
                          or rng.random() < 0.5]), chess.PAWN, color)
            for _ in range(rng.randint(2, 7)):
                put(free(all_sq), chess.Piece.from_symbol(rng.choice("QQQRRNNB")).piece_type, color)

    b.turn = rng.random() < 0.5
    if kind == "check":
        # put one or two enemy pieces that attack the side to move's king
        ksq = b.king(b.turn)
        for _ in range(rng.choice([1, 1, 2])):
            for _ in range(60):
                s = rng.choice(all_sq)
                if s in occupied:
                    continue
                pt = rng.choice([chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN])
                if pt == chess.PAWN and chess.square_rank(s) in (0, 7):
                    continue
                b.set_piece_at(s, chess.Piece(pt, not b.turn))
                if s in b.attackers(not b.turn, ksq):
                    occupied.add(s)
                    break
                b.remove_piece_at(s)
    rights = 0
    for color, r in ((chess.WHITE, 0), (chess.BLACK, 7)):
        if b.piece_at(chess.square(4, r)) == chess.Piece(chess.KING, color):
            for f in (0, 7):
                if b.piece_at(chess.square(f, r)) == chess.Piece(chess.ROOK, color):
                    if rng.random() < (0.9 if kind == "castle" else 0.6):
                        rights |= chess.BB_SQUARES[chess.square(f, r)]
    b.castling_rights = rights

    if kind == "ep" or (kind != "promo" and rng.random() < 0.3):
        # a real double step: place a pawn of the side to move on its 2nd
        # rank (often next to an enemy pawn's target), push it two squares.
        mover = b.turn
        r2 = 1 if mover == chess.WHITE else 6
        r4 = 3 if mover == chess.WHITE else 4
        r3 = 2 if mover == chess.WHITE else 5
        files = list(range(8))
        rng.shuffle(files)
        for f in files:
            s2, s3, s4 = (chess.square(f, r2), chess.square(f, r3), chess.square(f, r4))
            if any(s in occupied for s in (s2, s3, s4)):
                continue
            put(s2, chess.PAWN, mover)
            if rng.random() < 0.8:
                for df in rng.sample([-1, 1], rng.choice([1, 1, 2])):
                    if 0 <= f + df <= 7:
                        s = chess.square(f + df, r4)
                        if s not in occupied:
                            put(s, chess.PAWN, not mover)
            break
        else:
            return None
        mv = chess.Move(s2, s4)
        if not b.is_valid() or mv not in b.legal_moves:
            return None
        b.push(mv)
        b = b.copy(stack=False)
        b.fullmove_number = rng.randint(1, 200)
        b.halfmove_clock = 0
    else:
        set_random_clocks(rng, b)
    if not b.is_valid():
        return None
    return b


def ep_pin_placement(rng):
    """Double step next to an enemy pawn, with the capturer's king and an
    enemy slider on one line through the capturing pawn (or the pushed pawn
    for horizontal pins), so the ep capture is often illegal."""
    b = chess.Board(None)
    mover = rng.random() < 0.5
    r2, r4 = (1, 3) if mover == chess.WHITE else (6, 4)
    f = rng.randint(0, 7)
    df = rng.choice([-1, 1])
    if not 0 <= f + df <= 7:
        df = -df
    s2, s4, cap = chess.square(f, r2), chess.square(f, r4), chess.square(f + df, r4)
    b.set_piece_at(s2, chess.Piece(chess.PAWN, mover))
    b.set_piece_at(cap, chess.Piece(chess.PAWN, not mover))
    if rng.random() < 0.5:
        line = [chess.square(x, r4) for x in range(8) if x not in (f, f + df)]
        slider = rng.choice([chess.ROOK, chess.QUEEN])
    else:
        line = [s for s in chess.SQUARES if chess.BB_DIAG_ATTACKS[cap][0] & chess.BB_SQUARES[s]]
        slider = rng.choice([chess.BISHOP, chess.QUEEN])
    ksq = rng.choice(line)
    b.set_piece_at(ksq, chess.Piece(chess.KING, not mover))
    ray = [s for s in chess.SquareSet(chess.BB_RAYS[ksq][cap])
           if not b.piece_at(s) and s not in (chess.square(f, (r2 + r4) // 2),)]
    if not ray:
        return None
    b.set_piece_at(rng.choice(ray), chess.Piece(slider, mover))
    empty = [s for s in chess.SQUARES if not b.piece_at(s)
             and s not in (chess.square(f, (r2 + r4) // 2), s4)]
    rng.shuffle(empty)
    b.set_piece_at(empty.pop(), chess.Piece(chess.KING, mover))
    for _ in range(rng.randint(0, 6)):
        s = empty.pop()
        pt = chess.Piece.from_symbol(rng.choice("QRBNPP")).piece_type
        if pt == chess.PAWN and chess.square_rank(s) in (0, 7):
            continue
        b.set_piece_at(s, chess.Piece(pt, rng.random() < 0.5))
    b.turn = mover
    mv = chess.Move(s2, s4)
    if not b.is_valid() or mv not in b.legal_moves:
        return None
    b.push(mv)
    b = b.copy(stack=False)
    b.fullmove_number = rng.randint(1, 200)
    if not b.is_valid():
        return None
    return b


def fen_variants(b):
    out = [("fen", b.fen())]
    if b.ep_square is not None:
        for mode in ("fen", "xfen"):
            f = b.fen(en_passant=mode)
            if f not in [x[1] for x in out]:
                out.append(("ep=" + mode, f))
    return out


# --------------------------------------------------------------------------
# Standard chess checks

def localize_standard(sf, g, fen, depth):
    """Walk down the first differing move until depth 1; return a path."""
    path = []
    b = chess.Board(fen)
    cur = fen
    for d in range(depth, 0, -1):
        gr = g.perft(cur, d)
        st, sd = sf.perft(cur, d)
        if not gr["ok"]:
            path.append({"fen": cur, "depth": d, "gambit_error": gr["stderr"]})
            break
        diff = diff_divide(gr["divide"], sd)
        if not diff:
            path.append({"fen": cur, "depth": d, "note": "no difference here"})
            break
        path.append({"fen": cur, "depth": d, "diff": diff})
        bad = [mv for mv in sorted(set(gr["divide"]) | set(sd))
               if gr["divide"].get(mv) != sd.get(mv)]
        mv = next((m for m in bad if m in gr["divide"] and m in sd), None)
        if mv is None or d == 1:
            break
        b.push(chess.Move.from_uci(mv))
        cur = b.fen(en_passant="fen")
    return path


def features(b):
    legal = list(b.legal_moves)
    f = set()
    if b.ep_square is not None:
        f.add("ep_field")
    if any(b.is_en_passant(m) for m in legal):
        f.add("ep_legal")
    elif any(b.is_en_passant(m) for m in b.pseudo_legal_moves):
        f.add("ep_pseudo_only(illegal)")
    if any(m.promotion for m in legal):
        f.add("promotion")
    if any(m.promotion and m.promotion != chess.QUEEN for m in legal):
        f.add("underpromotion")
    if b.castling_rights:
        f.add("castling_rights")
    if any(b.is_castling(m) for m in legal):
        f.add("castling_legal")
    if b.is_check():
        f.add("check")
    if len(b.checkers()) > 1:
        f.add("double_check")
    if not legal:
        f.add("checkmate" if b.is_check() else "stalemate")
    return f


def check_standard_position(ctx, cat, b, max_depth_full=3):
    sf, g, res = ctx["sf"], ctx["g"], ctx["res"]
    for label, fen in fen_variants(b):
        if fen in ctx["seen_fens"]:
            continue
        ctx["seen_fens"].add(fen)
        res["std_fens"][cat] = res["std_fens"].get(cat, 0) + 1
        assert chess.Board(fen).is_valid()
        for f in features(chess.Board(fen)):
            res["std_features"][f] = res["std_features"].get(f, 0) + 1
        d3_total = None
        depth_limit = max_depth_full
        d = 1
        while d <= depth_limit:
            gr = g.perft(fen, d)
            if not gr["ok"]:
                if gr["rc"] != 0:
                    res["rejections"].append({"fen": fen, "category": cat, "form": label,
                                              "rc": gr["rc"], "stderr": gr["stderr"]})
                else:
                    res["format_errors"].append({"fen": fen, "depth": d,
                                                 "errors": gr["format_errors"]})
                break
            if gr["format_errors"]:
                res["format_errors"].append({"fen": fen, "depth": d,
                                             "errors": gr["format_errors"]})
            st, sd = sf.perft(fen, d)
            res["std_comparisons"][d] = res["std_comparisons"].get(d, 0) + 1
            diff = diff_divide(gr["divide"], sd)
            if diff or st != gr["total"]:
                res["mismatches"].append({
                    "variant": "standard", "category": cat, "form": label,
                    "fen": fen, "depth": d, "gambit_total": gr["total"],
                    "reference_total": st, "reference": "stockfish",
                    "diff": diff, "localized": localize_standard(sf, g, fen, d)})
                break
            if d == 1:
                pc = {m.uci() for m in chess.Board(fen).legal_moves}
                if pc != set(gr["divide"]):
                    res["mismatches"].append({
                        "variant": "standard", "category": cat, "form": label,
                        "fen": fen, "depth": 1, "reference": "python-chess",
                        "gambit_only": sorted(set(gr["divide"]) - pc),
                        "python_chess_only": sorted(pc - set(gr["divide"]))})
                res["pychess_d1"] += 1
                # non-divide output must be the bare total
                nd = g.perft(fen, 2, divide=False)
                if nd["format_errors"] or not nd["ok"]:
                    res["format_errors"].append({"fen": fen, "depth": 2, "mode": "no-divide",
                                                 "errors": nd["format_errors"] or [nd["stderr"]]})
                else:
                    st2, _ = sf.perft(fen, 2)
                    if nd["total"] != st2:
                        res["mismatches"].append({
                            "variant": "standard", "category": cat, "form": label,
                            "fen": fen, "depth": 2, "mode": "no-divide",
                            "gambit_total": nd["total"], "reference_total": st2,
                            "reference": "stockfish", "diff": []})
            if d == 3:
                d3_total = st
                if d3_total <= ctx["d4_limit"]:
                    depth_limit = 4
            if d == 4:
                res["std_d4_positions"] += 1
            d += 1


def acceptance_sweep(ctx, rng, n):
    """Extra FEN-acceptance sweep: random valid boards with varied clocks.
    Each accepted FEN is also checked at depth 1 vs python-chess and at depth
    2 vs Stockfish."""
    sf, g, res = ctx["sf"], ctx["g"], ctx["res"]
    kinds = ["general", "promo", "castle", "ep", "crowd", "check", "fullpawns"]
    done = 0
    tries = 0
    while done < n and tries < n * 50:
        tries += 1
        if rng.random() < 0.3:
            b = uniform_playout(rng)
        elif rng.random() < 0.15:
            b = ep_pin_placement(rng)
        else:
            b = random_placement(rng, rng.choice(kinds))
        if b is None:
            continue
        # varied / extreme clocks (python-chess accepts any non-negative
        # halfmove clock and positive fullmove number)
        r = rng.random()
        if r < 0.25:
            b.halfmove_clock = rng.choice([99, 100, 101, 150, 255, 1000])
        elif r < 0.5:
            b.fullmove_number = rng.choice([1, 255, 256, 999, 1000, 9999, 65535, 65536])
        if not b.is_valid():
            continue
        for label, fen in fen_variants(b):
            if fen in ctx["seen_fens"] or fen in ctx["accept_seen"]:
                continue
            ctx["accept_seen"].add(fen)
            gr = g.perft(fen, 1)
            res["accept_sweep"] += 1
            if gr["rc"] != 0:
                res["rejections"].append({"fen": fen, "category": "acceptance-sweep",
                                          "form": label, "rc": gr["rc"],
                                          "stderr": gr["stderr"]})
                continue
            if gr["format_errors"]:
                res["format_errors"].append({"fen": fen, "depth": 1,
                                             "errors": gr["format_errors"]})
            pc = {m.uci() for m in chess.Board(fen).legal_moves}
            if pc != set(gr["divide"]) or any(v != 1 for v in gr["divide"].values()):
                res["mismatches"].append({
                    "variant": "standard", "category": "acceptance-sweep", "form": label,
                    "fen": fen, "depth": 1, "reference": "python-chess",
                    "gambit_only": sorted(set(gr["divide"]) - pc),
                    "python_chess_only": sorted(pc - set(gr["divide"]))})
            g2 = g.perft(fen, 2)
            st, sd = sf.perft(fen, 2)
            diff = diff_divide(g2["divide"], sd)
            if diff or st != g2["total"]:
                res["mismatches"].append({
                    "variant": "standard", "category": "acceptance-sweep", "form": label,
                    "fen": fen, "depth": 2, "gambit_total": g2["total"],
                    "reference_total": st, "reference": "stockfish", "diff": diff,
                    "localized": localize_standard(sf, g, fen, 2)})
        done += 1


def informational_forms(ctx):
    """FEN spellings python-chess also accepts (not required by the brief).
    Reported separately, never counted as failures."""
    g = ctx["g"]
    cases = [
        ("4 fields (no clocks)", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - "),
        ("castling letters out of order", "r3k2r/8/8/8/8/8/8/R3K2R w kqKQ - 0 1"),
        ("leading/trailing spaces", "  4k3/8/8/8/8/8/8/4K3 w - - 0 1  "),
        ("double spaces between fields", "4k3/8/8/8/8/8/8/4K3  w  -  -  0  1"),
        ("ep square set without capturer (written as-is)",
         "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"),
        ("halfmove clock nonzero with ep square",
         "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 5 3"),
        ("fullmove 0", "4k3/8/8/8/8/8/8/4K3 w - - 0 0"),
    ]
    out = []
    for desc, fen in cases:
        try:
            b = chess.Board(fen)
            pc_ok = b.is_valid()
        except ValueError as e:
            pc_ok = "ValueError: %s" % e
        rc, so, se = g.run(["perft", "--fen", fen, "--depth", "1"])
        out.append({"case": desc, "fen": fen, "python_chess_valid": pc_ok,
                    "gambit_rc": rc, "gambit_stderr": se.strip(),
                    "gambit_stdout": so.strip()})
    return out


# --------------------------------------------------------------------------
# minichess7

def mc7_weights(fen, moves, style):
    if style == "uniform":
        return [1.0] * len(moves)
    pos = mc7.Pos(fen)
    ws = []
    for m in moves:
        s = (mc7.FILES.index(m[0]), int(m[1]) - 1)
        t = (mc7.FILES.index(m[2]), int(m[3:]) - 1)
        w = 1.0
        if t in pos.b:
            w *= 4.0
        if pos.b.get(s, "").lower() == "p":
            w *= 3.0
        ws.append(w)
    return ws


def localize_mc7(fsf, g, fen, depth):
    path = []
    moves = []
    cur = fen
    for d in range(depth, 0, -1):
        gr = g.perft(cur, d, variant="minichess7")
        st, sd = fsf.perft(cur, d)
        if not gr["ok"]:
            path.append({"fen": cur, "depth": d, "gambit_error": gr["stderr"]})
            break
        diff = diff_divide(gr["divide"], sd)
        if not diff:
            path.append({"fen": cur, "depth": d, "note": "no difference here"})
            break
        path.append({"fen": cur, "depth": d, "diff": diff})
        bad = [mv for mv in sorted(set(gr["divide"]) | set(sd))
               if gr["divide"].get(mv) != sd.get(mv)]
        mv = next((m for m in bad if m in gr["divide"] and m in sd), None)
        if mv is None or d == 1:
            break
        cur = fsf.display(cur, [mv])[0]
    return path


def run_minichess(ctx, rng, n, n_d4_min):
    fsf, g, res = ctx["fsf"], ctx["g"], ctx["res"]
    # sanity: start position counts
    for d, want in enumerate([12, 144, 2531, 43162], start=1):
        st, _ = fsf.perft(MC7_START, d)
        assert st == want, ("fairy-stockfish does not reproduce start counts", d, st)
    known = set()
    with open(os.path.join(DATA, "perft_minichess7.epd")) as fh:
        for line in fh:
            if line.strip() and not line.startswith("#"):
                known.add(" ".join(line.split(";")[0].split()[:2]))
    seen = set()
    tries = 0
    while res["mc7_positions"] < n and tries < n * 20:
        tries += 1
        style = rng.choice(["uniform", "uniform", "biased"])
        fen = MC7_START
        for _ in range(rng.randint(0, 120)):
            _, divide = fsf.perft(fen, 1)
            if not divide:
                break
            moves = sorted(divide)
            m = rng.choices(moves, mc7_weights(fen, moves, style))[0]
            fen = fsf.display(fen, [m])[0]
        k = " ".join(fen.split()[:2])
        if k in seen or k in known:
            continue
        seen.add(k)
        res["mc7_positions"] += 1
        depth_limit = 3
        d = 1
        while d <= depth_limit:
            gr = g.perft(fen, d, variant="minichess7")
            if not gr["ok"]:
                if gr["rc"] != 0:
                    res["rejections"].append({"fen": fen, "category": "minichess7",
                                              "form": "fairy d", "rc": gr["rc"],
                                              "stderr": gr["stderr"]})
                else:
                    res["format_errors"].append({"fen": fen, "depth": d,
                                                 "errors": gr["format_errors"]})
                break
            if gr["format_errors"]:
                res["format_errors"].append({"fen": fen, "depth": d,
                                             "errors": gr["format_errors"]})
            st, sd = fsf.perft(fen, d)
            res["mc7_comparisons"][d] = res["mc7_comparisons"].get(d, 0) + 1
            diff = diff_divide(gr["divide"], sd)
            if diff or st != gr["total"]:
                res["mismatches"].append({
                    "variant": "minichess7", "category": "minichess7", "fen": fen,
                    "depth": d, "gambit_total": gr["total"], "reference_total": st,
                    "reference": "fairy-stockfish", "diff": diff,
                    "localized": localize_mc7(fsf, g, fen, d)})
                break
            if d == 1:
                ref = {mc7.move_str(mv) for mv in mc7.Pos(fen).legal()}
                if ref != set(gr["divide"]):
                    res["mismatches"].append({
                        "variant": "minichess7", "category": "minichess7", "fen": fen,
                        "depth": 1, "reference": "mc7.py",
                        "gambit_only": sorted(set(gr["divide"]) - ref),
                        "mc7_only": sorted(ref - set(gr["divide"]))})
            if d == 3 and (st <= ctx["mc7_d4_limit"] or res["mc7_d4_positions"] < n_d4_min):
                depth_limit = 4
            if d == 4:
                res["mc7_d4_positions"] += 1
            d += 1


# --------------------------------------------------------------------------
# bad input

STD_START = chess.STARTING_FEN


def bad_input_cases():
    P = ["perft"]
    F = lambda fen, *extra: P + ["--fen", fen, "--depth", "1"] + list(extra)  # noqa: E731
    return [
        ("no arguments at all", []),
        ("perft --fen without value", P + ["--depth", "1", "--fen"]),
        ("missing --depth", P),
        ("missing --depth with --fen", P + ["--fen", STD_START]),
        ("--depth -1", P + ["--depth", "-1"]),
        ("--depth abc", P + ["--depth", "abc"]),
        ("--depth empty", P + ["--depth", ""]),
        ("--depth 1.5", P + ["--depth", "1.5"]),
        ("--depth 21 (help says 0..20)", P + ["--depth", "21"]),
        ("--depth huge", P + ["--depth", "99999999999999999999999"]),
        ("--depth without value", P + ["--depth"]),
        ("--depth given twice", P + ["--depth", "1", "--depth", "2"]),
        ("--variant chess960", P + ["--variant", "chess960", "--depth", "1"]),
        ("--variant empty", P + ["--variant", "", "--depth", "1"]),
        ("unknown flag", P + ["--depth", "1", "--foo"]),
        ("unknown subcommand", ["perfx", "--depth", "1"]),
        ("stray positional", P + ["--depth", "1", "extra"]),
        ("8x8 start FEN with --variant minichess7",
         P + ["--variant", "minichess7", "--fen", STD_START, "--depth", "1"]),
        ("minichess7 start FEN with --variant standard", F(MC7_START)),
        ("garbage FEN", F("hello world")),
        ("empty FEN", F("")),
        ("only board field", F("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")),
        ("7 ranks", F("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")),
        ("9 ranks", F("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")),
        ("rank with 9 squares", F("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")),
        ("rank with 7 squares", F("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")),
        ("invalid piece letter X", F("rnbqkbnr/pppppppp/8/3X4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")),
        ("minichess letter C in standard", F("rnbqkbnr/pppppppp/8/3C4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")),
        ("side to move x", F("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1")),
        ("bad castling letter", F("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkZ - 0 1")),
        ("castling right without rook", F("4k3/8/8/8/8/8/8/4K3 w K - 0 1")),
        ("castling right with king off e1", F("4k3/8/8/8/8/8/8/3K3R w K - 0 1")),
        ("ep square e9", F("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e9 0 1")),
        ("ep square z3", F("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq z3 0 1")),
        ("ep square on wrong rank", F("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1")),
        ("two white kings", F("4k3/8/8/8/8/8/8/3KK3 w - - 0 1")),
        ("no black king", F("8/8/8/8/8/8/8/4K3 w - - 0 1")),
        ("white pawn on rank 8", F("P3k3/8/8/8/8/8/8/4K3 w - - 0 1")),
        ("black pawn on rank 1", F("4k3/8/8/8/8/8/8/p3K3 w - - 0 1")),
        ("side not to move in check", F("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1")),
        ("halfmove abc", F("4k3/8/8/8/8/8/8/4K3 w - - abc 1")),
        ("fullmove -1", F("4k3/8/8/8/8/8/8/4K3 w - - 0 -1")),
        ("7 fields", F("4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra")),
        ("standard FEN with 7-wide ranks (minichess shape) --variant standard",
         F("3k3/7/7/7/7/7/3K3 w - - 0 1")),
        ("minichess7 FEN with 8 ranks", P + ["--variant", "minichess7", "--fen",
                                             "3k3/7/7/7/7/7/7/3K3 w - - 0 1", "--depth", "1"]),
        ("minichess7 FEN with castling rights", P + ["--variant", "minichess7", "--fen",
                                                     "r2k2r/7/7/7/7/7/R2K2R w KQkq - 0 1", "--depth", "1"]),
        ("minichess7 garbage", P + ["--variant", "minichess7", "--fen", "nonsense", "--depth", "1"]),
    ]


def run_bad_input(ctx):
    g, res = ctx["g"], ctx["res"]
    for desc, args in bad_input_cases():
        rc, out, err = g.run(args)
        problems = []
        if rc != 2:
            problems.append("exit code %d" % rc)
        lines = err.split("\n")
        if not (len(lines) == 2 and lines[0].strip() and lines[1] == ""):
            problems.append("stderr is not exactly one line (%d newline(s))" % err.count("\n"))
        if out:
            problems.append("stdout not empty")
        low = (out + err).lower()
        if "panicked" in low or "backtrace" in low or "thread 'main'" in low:
            problems.append("panic")
        entry = {"case": desc, "args": args, "rc": rc, "stderr": err, "stdout": out[:300],
                 "problems": problems}
        res["bad_input"].append(entry)


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--gambit", default=os.path.join(REPO, "target/release/gambit"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--n-uniform", type=int, default=200)
    ap.add_argument("--n-placement", type=int, default=220)
    ap.add_argument("--n-biased", type=int, default=180)
    ap.add_argument("--n-accept", type=int, default=1500)
    ap.add_argument("--n-mc7", type=int, default=320)
    ap.add_argument("--n-mc7-d4", type=int, default=60)
    ap.add_argument("--d4-limit", type=int, default=400000,
                    help="standard: run depth 4 when the D3 count is <= this")
    ap.add_argument("--mc7-d4-limit", type=int, default=100000)
    ap.add_argument("--skip-standard", action="store_true")
    ap.add_argument("--skip-minichess", action="store_true")
    ap.add_argument("--skip-bad", action="store_true")
    args = ap.parse_args()
    out_dir = args.out or os.path.join(HERE, "run-seed%d" % args.seed)
    os.makedirs(out_dir, exist_ok=True)

    t0 = time.time()
    rng = random.Random(args.seed)
    res = {"seed": args.seed, "gambit": args.gambit, "std_fens": {}, "std_positions": {},
           "std_comparisons": {}, "std_d4_positions": 0, "std_features": {}, "pychess_d1": 0,
           "accept_sweep": 0, "mc7_positions": 0, "mc7_comparisons": {},
           "mc7_d4_positions": 0, "mismatches": [], "rejections": [],
           "format_errors": [], "bad_input": [], "informational": []}
    g = Gambit(args.gambit)
    ctx = {"g": g, "res": res, "seen_fens": set(), "accept_seen": set(),
           "d4_limit": args.d4_limit, "mc7_d4_limit": args.mc7_d4_limit}

    def log(msg):
        print("[%6.0fs] %s" % (time.time() - t0, msg), flush=True)

    if not args.skip_standard:
        sf = Engine(STOCKFISH)
        ctx["sf"] = sf
        res["stockfish"] = sf.name
        known = repo_keys()
        seen_pos = set()

        def take(cat, b):
            if b is None:
                return False
            k = " ".join(b.fen().split()[:4])
            kx = " ".join(b.fen(en_passant="xfen").split()[:4])
            if k in known or kx in known or k in seen_pos:
                return False
            if not b.is_valid():
                return False
            seen_pos.add(k)
            res["std_positions"][cat] = res["std_positions"].get(cat, 0) + 1
            check_standard_position(ctx, cat, b)
            return True

        n = 0
        while n < args.n_uniform:
            n += take("a-uniform-playout", uniform_playout(rng))
        log("standard (a) done: %s" % res["std_positions"])
        kinds = ["general", "general", "promo", "promo", "castle", "castle", "ep", "ep",
                 "crowd", "check", "check", "fullpawns", "eppin", "eppin"]
        n = 0
        while n < args.n_placement:
            kind = rng.choice(kinds)
            if kind == "eppin":
                n += take("b-placement-eppin", ep_pin_placement(rng))
            else:
                n += take("b-placement-" + kind, random_placement(rng, kind))
        log("standard (b) done: %s" % res["std_positions"])
        n = 0
        while n < args.n_biased:
            b, goal = biased_playout(rng)
            n += take("c-biased-playout-" + goal, b)
        log("standard (c) done: %s" % res["std_positions"])
        acceptance_sweep(ctx, rng, args.n_accept)
        log("acceptance sweep done: %d FENs" % res["accept_sweep"])
        res["informational"] = informational_forms(ctx)
        sf.close()

    if not args.skip_minichess:
        fsf = Engine(FAIRY, variant_path=MC7_INI, variant="minichess7")
        ctx["fsf"] = fsf
        res["fairy"] = fsf.name
        run_minichess(ctx, rng, args.n_mc7, args.n_mc7_d4)
        log("minichess7 done: %d positions" % res["mc7_positions"])
        fsf.close()

    if not args.skip_bad:
        run_bad_input(ctx)
        log("bad input done: %d cases" % len(res["bad_input"]))

    res["gambit_calls"] = g.calls
    res["seconds"] = round(time.time() - t0, 1)
    with open(os.path.join(out_dir, "report.json"), "w") as fh:
        json.dump(res, fh, indent=1, default=str)

    bad_fail = [b for b in res["bad_input"] if b["problems"]]
    L = []
    L.append("gambit: %s   seed %d   %.0fs, %d gambit runs"
             % (args.gambit, args.seed, res["seconds"], g.calls))
    L.append("standard positions per category: %s (total %d)"
             % (json.dumps(res["std_positions"], sort_keys=True), sum(res["std_positions"].values())))
    L.append("standard FENs (incl. ep spellings) per category: %s (total %d)"
             % (json.dumps(res["std_fens"], sort_keys=True), sum(res["std_fens"].values())))
    L.append("standard divide comparisons vs Stockfish per depth: %s; FENs checked at depth 4: %d"
             % (json.dumps(res["std_comparisons"], sort_keys=True), res["std_d4_positions"]))
    L.append("features of the standard FENs (python-chess): %s"
             % json.dumps(res["std_features"], sort_keys=True))
    L.append("depth-1 move sets vs python-chess: %d FENs (+%d in the acceptance sweep)"
             % (res["pychess_d1"], res["accept_sweep"]))
    L.append("acceptance sweep: %d extra valid FENs (depth 1 vs python-chess, depth 2 vs Stockfish)"
             % res["accept_sweep"])
    L.append("minichess7 positions: %d; comparisons vs Fairy-Stockfish per depth: %s; depth 4: %d"
             % (res["mc7_positions"], json.dumps(res["mc7_comparisons"], sort_keys=True),
                res["mc7_d4_positions"]))
    L.append("bad-input cases: %d, failing: %d" % (len(res["bad_input"]), len(bad_fail)))
    L.append("")
    L.append("MISMATCHES: %d" % len(res["mismatches"]))
    for m in res["mismatches"]:
        L.append(json.dumps(m))
    L.append("VALID-FEN REJECTIONS: %d" % len(res["rejections"]))
    for m in res["rejections"]:
        L.append(json.dumps(m))
    L.append("OUTPUT FORMAT ERRORS: %d" % len(res["format_errors"]))
    for m in res["format_errors"]:
        L.append(json.dumps(m))
    L.append("BAD-INPUT FAILURES: %d" % len(bad_fail))
    for b in bad_fail:
        L.append(json.dumps(b))
    L.append("")
    L.append("bad-input cases (all):")
    for b in res["bad_input"]:
        L.append("  [%s] %-45s rc=%d stderr=%r" % ("FAIL" if b["problems"] else "ok",
                                                  b["case"], b["rc"], b["stderr"]))
    L.append("")
    L.append("informational (other FEN spellings python-chess parses; not required):")
    for i in res["informational"]:
        L.append("  %s" % json.dumps(i))
    text = "\n".join(L) + "\n"
    with open(os.path.join(out_dir, "report.txt"), "w") as fh:
        fh.write(text)
    print(text)
    failed = res["mismatches"] or res["rejections"] or res["format_errors"] or bad_fail
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
