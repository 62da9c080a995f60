"""Tiny independent minichess7 move generator (pure Python), used only to
cross-check Fairy-Stockfish's counts and to classify positions.

Rules: 7x7 board (files a-g, ranks 1-7).  K, Q, R, B, N as in chess;
C = chancellor/empress (rook + knight), A = archbishop/princess
(bishop + knight), F = ferz (one step diagonally).  Pawns step one square
forward (no double step, hence no en passant) and capture one square
diagonally forward; a pawn reaching the last rank stays a pawn (no
promotion) and can never move again.  No castling.  A move is legal if it
does not leave the mover's king attacked.
"""

N = 7
FILES = "abcdefg"
ORTHO = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
KING = ORTHO + DIAG

SLIDES = {"q": ORTHO + DIAG, "r": ORTHO, "b": DIAG, "c": ORTHO, "a": DIAG}
LEAPS = {"n": KNIGHT, "c": KNIGHT, "a": KNIGHT, "k": KING, "f": DIAG}


def sq_name(f, r):
    return "%s%d" % (FILES[f], r + 1)


class Pos:
    def __init__(self, fen):
        parts = fen.split()
        rows = parts[0].split("/")
        assert len(rows) == N, fen
        self.b = {}
        for i, row in enumerate(rows):
            r = N - 1 - i
            f = 0
            num = ""
            for ch in row + " ":
                if ch.isdigit():
                    num += ch
                    continue
                if num:
                    f += int(num)
                    num = ""
                if ch == " ":
                    break
                self.b[(f, r)] = ch
                f += 1
            assert f == N, fen
        self.white = parts[1] == "w"
        self.rest = parts[2:]

    def fen(self):
        rows = []
        for r in range(N - 1, -1, -1):
            s, e = "", 0
            for f in range(N):
                p = self.b.get((f, r))
                if p is None:
                    e += 1
                else:
                    if e:
                        s += str(e)
                        e = 0
                    s += p
            if e:
                s += str(e)
            rows.append(s)
        return " ".join(["/".join(rows), "w" if self.white else "b"] + self.rest)

    @staticmethod
    def is_white(p):
        return p.isupper()

    def attacked(self, sq, by_white):
        """Is sq attacked by the side by_white?"""
        f0, r0 = sq
        for pt, dirs in LEAPS.items():
            for df, dr in dirs:
                p = self.b.get((f0 + df, r0 + dr))
                if p and p.lower() == pt and p.isupper() == by_white:
                    return True
        for dirs, kinds in ((ORTHO, "qrc"), (DIAG, "qba")):
            for df, dr in dirs:
                f, r = f0 + df, r0 + dr
                while 0 <= f < N and 0 <= r < N:
                    p = self.b.get((f, r))
                    if p:
                        if p.isupper() == by_white and p.lower() in kinds:
                            return True
                        break
                    f, r = f + df, r + dr
        # pawns: a white pawn on (f0 +- 1, r0 - 1) attacks sq
        dr = -1 if by_white else 1
        for df in (-1, 1):
            p = self.b.get((f0 + df, r0 + dr))
            if p == ("P" if by_white else "p"):
                return True
        return False

    def king(self, white):
        k = "K" if white else "k"
        return next(s for s, p in self.b.items() if p == k)

    def checkers(self):
        """Squares of pieces giving check to the side to move."""
        k = self.king(self.white)
        out = []
        for s, p in self.b.items():
            if p.isupper() != self.white and self.attacks_square(s, k):
                out.append(s)
        return out

    def attacks_square(self, s, t):
        p = self.b[s]
        pt = p.lower()
        df, dr = t[0] - s[0], t[1] - s[1]
        if pt == "p":
            fwd = 1 if p.isupper() else -1
            return dr == fwd and abs(df) == 1
        if pt in LEAPS and (df, dr) in LEAPS[pt]:
            return True
        for d in SLIDES.get(pt, ()):
            f, r = s[0] + d[0], s[1] + d[1]
            while 0 <= f < N and 0 <= r < N:
                if (f, r) == t:
                    return True
                if (f, r) in self.b:
                    break
                f, r = f + d[0], r + d[1]
        return False

    def pseudo(self):
        w = self.white
        for s, p in list(self.b.items()):
            if p.isupper() != w:
                continue
            pt = p.lower()
            f0, r0 = s
            if pt == "p":
                fwd = 1 if w else -1
                t = (f0, r0 + fwd)
                if 0 <= t[1] < N and t not in self.b:
                    yield s, t
                for df in (-1, 1):
                    t = (f0 + df, r0 + fwd)
                    q = self.b.get(t)
                    if q and q.isupper() != w:
                        yield s, t
                continue
            for df, dr in LEAPS.get(pt, ()):
                t = (f0 + df, r0 + dr)
                if 0 <= t[0] < N and 0 <= t[1] < N:
                    q = self.b.get(t)
                    if q is None or q.isupper() != w:
                        yield s, t
            for df, dr in SLIDES.get(pt, ()):
                f, r = f0 + df, r0 + dr
                while 0 <= f < N and 0 <= r < N:
                    q = self.b.get((f, r))
                    if q is None:
                        yield s, (f, r)
                    else:
                        if q.isupper() != w:
                            yield s, (f, r)
                        break
                    f, r = f + df, r + dr

    def make(self, mv):
        s, t = mv
        cap = self.b.get(t)
        self.b[t] = self.b.pop(s)
        self.white = not self.white
        return cap

    def unmake(self, mv, cap):
        s, t = mv
        self.b[s] = self.b.pop(t)
        if cap is not None:
            self.b[t] = cap
        self.white = not self.white

    def legal(self):
        out = []
        for mv in list(self.pseudo()):
            cap = self.make(mv)
            ok = not self.attacked(self.king(not self.white), self.white)
            self.unmake(mv, cap)
            if ok:
                out.append(mv)
        return out

    def pinned(self):
        """Pieces of the side to move pinned against their own king."""
        w = self.white
        k = self.king(w)
        out = []
        for dirs, kinds in ((ORTHO, "qrc"), (DIAG, "qba")):
            for df, dr in dirs:
                f, r = k[0] + df, k[1] + dr
                own = None
                while 0 <= f < N and 0 <= r < N:
                    p = self.b.get((f, r))
                    if p:
                        if p.isupper() == w:
                            if own:
                                break
                            own = (f, r)
                        else:
                            if own and p.lower() in kinds:
                                out.append(own)
                            break
                    f, r = f + df, r + dr
        return out


def move_str(mv):
    (f0, r0), (f1, r1) = mv
    return sq_name(f0, r0) + sq_name(f1, r1)


def perft(pos, depth):
    moves = pos.legal()
    if depth == 1:
        return len(moves)
    n = 0
    for mv in moves:
        cap = pos.make(mv)
        n += perft(pos, depth - 1)
        pos.unmake(mv, cap)
    return n


if __name__ == "__main__":
    import sys
    fen = sys.argv[1] if len(sys.argv) > 1 else "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1"
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    p = Pos(fen)
    for d in range(1, depth + 1):
        print(d, perft(p, d))
