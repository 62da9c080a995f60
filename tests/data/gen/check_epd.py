#!/usr/bin/env python3
"""Validate the perft .epd files in tests/data/.

Checks the line format (`<6-field FEN> ;D1 n ;D2 n ...`, exactly one space
before each `;`, depths 1..N in order), duplicate positions, FEN validity
(python-chess for standard chess, gen/mc7.py for minichess7) and prints the
total of the deepest counts per file.  With --engines every count is
recomputed with Stockfish / Fairy-Stockfish.

    python3 tests/data/gen/check_epd.py [--engines]
"""

import os
import re
import sys

import chess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engines import DATA_DIR, fairy_minichess7, stockfish  # noqa: E402
import mc7  # noqa: E402

LINE_RE = re.compile(r"^(\S+ [wb] \S+ \S+ \d+ \d+)((?: ;D\d+ \d+)+)$")


def parse(path):
    rows = []
    for i, line in enumerate(open(path), start=1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = LINE_RE.match(line)
        if not m:
            raise SystemExit("%s:%d bad format: %r" % (path, i, line))
        fen = m.group(1)
        items = re.findall(r";D(\d+) (\d+)", m.group(2))
        depths = [int(d) for d, _ in items]
        if depths != list(range(1, len(depths) + 1)):
            raise SystemExit("%s:%d depths not 1..N" % (path, i))
        rows.append((i, fen, [int(c) for _, c in items]))
    return rows


def main():
    engines = "--engines" in sys.argv
    ok = True
    for name in ("perft_wiki.epd", "perft_standard.epd", "perft_minichess7.epd"):
        path = os.path.join(DATA_DIR, name)
        rows = parse(path)
        mini = "minichess7" in name
        keys = set()
        eng = None
        if engines:
            eng = fairy_minichess7() if mini else stockfish()
        for i, fen, counts in rows:
            k = " ".join(fen.split()[:4])
            if k in keys:
                print("%s:%d duplicate position" % (name, i))
                ok = False
            keys.add(k)
            if mini:
                p = mc7.Pos(fen)
                if p.fen() != fen or fen.split()[2:4] != ["-", "-"]:
                    print("%s:%d FEN not canonical" % (name, i))
                    ok = False
            else:
                b = chess.Board(fen)
                if not b.is_valid():
                    print("%s:%d invalid position" % (name, i))
                    ok = False
                if name != "perft_wiki.epd" and b.fen(en_passant="xfen") != fen:
                    print("%s:%d FEN not as written by python-chess" % (name, i))
                    ok = False
            if eng:
                got = [eng.perft(fen, d)[0] for d in range(1, len(counts) + 1)]
                if got != counts:
                    print("%s:%d counts differ: file %s engine %s"
                          % (name, i, counts, got))
                    ok = False
        if eng:
            eng.close()
        print("%-22s %4d positions, deepest counts total %d"
              % (name, len(rows), sum(c[-1] for _, _, c in rows)))
    if not ok:
        sys.exit(1)
    print("all checks passed" + (" (counts re-verified with engines)" if engines else ""))


if __name__ == "__main__":
    main()
