"""Small UCI helpers shared by the perft data generators.

Talks to /usr/games/stockfish and /usr/games/fairy-stockfish (Debian packages
`stockfish` and `fairy-stockfish`) over stdin/stdout and parses the output of
`go perft N` ("<move>: <count>" lines followed by "Nodes searched: <N>") and
of `d` ("Fen: ..." and "Checkers: ..." lines).
"""

import os
import subprocess

STOCKFISH = os.environ.get("STOCKFISH", "/usr/games/stockfish")
FAIRY = os.environ.get("FAIRY_STOCKFISH", "/usr/games/fairy-stockfish")
DATA_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MINICHESS7_INI = os.path.join(DATA_DIR, "minichess7.ini")


class Engine:
    def __init__(self, path, variant_path=None, variant=None):
        self.p = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.send("uci")
        lines = self.read_until(lambda l: l == "uciok")
        self.name = next((l[len("id name "):] for l in lines
                          if l.startswith("id name ")), "?")
        if variant_path:
            self.send("setoption name VariantPath value " + variant_path)
        if variant:
            self.send("setoption name UCI_Variant value " + variant)
        self.send("isready")
        self.read_until(lambda l: l == "readyok")

    def send(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()

    def read_until(self, pred):
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine died; output so far: %r" % out)
            line = line.rstrip("\n")
            out.append(line)
            if pred(line):
                return out

    def sync(self):
        self.send("isready")
        self.read_until(lambda l: l == "readyok")

    def set_position(self, fen, moves=()):
        cmd = "position fen " + fen
        if moves:
            cmd += " moves " + " ".join(moves)
        self.send(cmd)

    def perft(self, fen, depth, moves=()):
        """Return (total, {move: count}) for `go perft depth`."""
        self.set_position(fen, moves)
        self.send("go perft %d" % depth)
        lines = self.read_until(lambda l: l.startswith("Nodes searched"))
        total = int(lines[-1].split(":")[1])
        divide = {}
        for l in lines[:-1]:
            if ": " in l:
                mv, _, cnt = l.partition(": ")
                mv = mv.strip()
                if cnt.strip().isdigit() and " " not in mv:
                    divide[mv] = int(cnt)
        self.sync()
        return total, divide

    def display(self, fen, moves=()):
        """Return (fen_line, checkers_list) from the `d` command."""
        self.set_position(fen, moves)
        self.send("d")
        lines = self.read_until(lambda l: l.startswith("Checkers:"))
        fen_out = next(l[len("Fen: "):].strip() for l in lines
                       if l.startswith("Fen: "))
        checkers = lines[-1][len("Checkers:"):].split()
        self.sync()
        return fen_out, checkers

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()


def stockfish():
    return Engine(STOCKFISH)


def fairy_minichess7():
    return Engine(FAIRY, variant_path=MINICHESS7_INI, variant="minichess7")


def epd_line(fen, counts):
    return fen + "".join(" ;D%d %d" % (i + 1, c) for i, c in enumerate(counts))


def counts_to_window(eng, fen, lo, hi, max_depth=12):
    """Perft depth 1, 2, ... and stop at the first depth whose count is >= lo.

    If that count exceeds hi, drop back one depth (the previous count is then
    < lo); the caller decides whether that is acceptable.  Returns the list of
    counts for depths 1..d.
    """
    counts = []
    for d in range(1, max_depth + 1):
        n, _ = eng.perft(fen, d)
        counts.append(n)
        if n == 0:
            break
        if n >= lo:
            if n > hi:
                counts.pop()
            break
    return counts


def python_perft(b, depth):
    """A plain perft by python-chess, the independent count the generators check against."""
    if depth == 1:
        return b.legal_moves.count()
    n = 0
    for m in b.legal_moves:
        b.push(m)
        n += python_perft(b, depth - 1)
        b.pop()
    return n
