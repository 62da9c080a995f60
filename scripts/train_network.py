#!/usr/bin/env python3
"""Fits the evaluation network's correction (src/bots/eval/network.rs) to labelled positions.

Usage: scripts/train_network.py OUT.bin POSITIONS.csv [MORE.csv ...]
       [--hidden 32] [--epochs 30] [--decay 1e-3] [--seed 1]

The files are examples/texel.rs's: each line `FEN;result;score` (a quiet position, its game's
result for White, a Stockfish score for White in centipawns; scripts/selfplay_data.py and
scripts/texel-data write them). A position's target is texel.rs's too: 3/4 Stockfish's score and
1/4 the result, each as an expected score, and the same block of positions in ten is held out.

The network is fitted beside the hand-made evaluation, not instead of it: the prediction is
1 / (1 + 10^(-K * (evaluation + correction) / 400)), where the evaluation is the fitted
weights' (`cargo run --release --example hce_eval`, which this script runs) and K is fitted to
it first. So the network learns only what the weights leave unexplained, and a few hundred
thousand positions are enough for it to help. Refit the weights, and this must run again.

Training is Adam on minibatches with an L2 penalty (--decay) on the first layer; the epoch
that predicts the held-out positions best is kept, quantized to integers as network.rs reads
them, and written to OUT.bin. The errors printed at the end (hand-made evaluation alone; with
the network in floating point; with the quantized network, computed exactly as network.rs
computes it) say what it gained; the last lines are the quantized corrections of a few
positions, for network.rs's test.

Needs numpy and scipy (pip install numpy scipy).
"""
import argparse
import os
import struct
import subprocess
import sys
import time

try:
    import numpy as np
    import scipy.sparse as sp
except ImportError:
    sys.exit("train_network.py needs numpy and scipy: pip install numpy scipy")

BLOCK = 200          # lines per block; one block in ten is held out (as texel.rs)
SCORE_SHARE = 0.75   # the target's share from Stockfish's score (as texel.rs)
INPUTS = 768
SCALE = 400.0        # the output's unit, in centipawns
QA = 1024            # first layer scale (network.rs)
QO = 64              # output scale per centipawn (network.rs)
ROLES = {c: i for i, c in enumerate("pnbrqk")}
LN10_400 = np.log(10) / 400
# Positions whose corrections network.rs's test checks.
CHECK_FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 1 8",
    "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1",
]


def features(fen):
    """The active inputs from the side to move's and the other side's point of view."""
    fields = fen.split()
    if len(fields) < 2 or fields[1] not in ("w", "b"):
        raise ValueError(f"not a FEN: {fen!r}")
    white, black = [], []
    rank, file = 7, 0
    for ch in fields[0]:
        if ch == "/":
            rank, file = rank - 1, 0
        elif ch.isdigit():
            file += int(ch)
        elif ch.lower() in ROLES:
            sq, role = rank * 8 + file, ROLES[ch.lower()]
            is_white = ch.isupper()
            white.append((0 if is_white else 384) + role * 64 + sq)
            black.append((384 if is_white else 0) + role * 64 + (sq ^ 56))
            file += 1
        else:
            raise ValueError(f"not a standard piece: {ch!r} in {fen!r}")
    return (white, black) if fields[1] == "w" else (black, white)


def hce_evals(files):
    """The hand-made evaluation of every line of the files, for White (nan where none)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cmd = ["cargo", "run", "--release", "--quiet", "--example", "hce_eval", "--"] + files
    run = subprocess.run(cmd, cwd=root, stdout=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"hce_eval failed (exit {run.returncode})")
    return [float(x) for x in run.stdout.split()]


def load(files):
    """(fitted, held out), each (side-to-move features, other side's, target, evaluation)."""
    evals = iter(hce_evals(files))
    sets = {False: ([], [], [], []), True: ([], [], [], [])}
    for path in files:
        with open(path) as fh:
            for n, line in enumerate(fh):
                evaluation = next(evals)
                parts = line.rstrip("\n").split(";")
                if len(parts) != 3 or evaluation != evaluation:
                    continue
                fen, result, score = parts[0], float(parts[1]), float(parts[2])
                stm, other = features(fen)
                if fen.split()[1] == "b":
                    score, result, evaluation = -score, 1 - result, -evaluation
                target = SCORE_SHARE / (1 + 10 ** (-score / 400)) + (1 - SCORE_SHARE) * result
                into = sets[(n // BLOCK) % 10 == 9]
                for column, value in zip(into, (stm, other, target, evaluation)):
                    column.append(value)
    return sets[False], sets[True]


def matrix(rows):
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    idx = np.fromiter((i for r in rows for i in r), dtype=np.int32, count=int(indptr[-1]))
    return sp.csr_matrix((np.ones(len(idx), dtype=np.float32), idx, indptr), shape=(len(rows), INPUTS))


def prepare(data):
    stm, other, target, evaluation = data
    return matrix(stm), matrix(other), np.array(target, np.float32), np.array(evaluation, np.float32)


def expected(eval_cp, k):
    return 1 / (1 + np.exp(-eval_cp * k * LN10_400))


def fit_k(evaluation, target):
    """texel.rs's K: a scan, then a finer one."""
    err = lambda k: float(((expected(evaluation, k) - target) ** 2).mean())
    coarse = min((err(i / 10), i / 10) for i in range(1, 41))[1]
    return min((err(coarse + i / 100), coarse + i / 100) for i in range(-10, 11))[1]


class Net:
    def __init__(self, hidden, rng):
        self.params = [
            (rng.standard_normal((INPUTS, hidden)) * 0.05).astype(np.float32),
            np.zeros(hidden, np.float32),
            (rng.standard_normal(2 * hidden) * 0.005).astype(np.float32),
            np.zeros(1, np.float32),
        ]
        self.hidden = hidden

    def forward(self, xs, xn):
        w1, b1, w2, b2 = self.params
        a_s, a_n = xs @ w1 + b1, xn @ w1 + b1
        h = np.concatenate([np.clip(a_s, 0, 1), np.clip(a_n, 0, 1)], axis=1)
        return a_s, a_n, h, (h @ w2 + b2[0]) * SCALE

    def error(self, data, k):
        xs, xn, t, e = data
        total = 0.0
        for i in range(0, xs.shape[0], 65536):
            cp = self.forward(xs[i:i + 65536], xn[i:i + 65536])[3]
            total += float(((expected(e[i:i + 65536] + cp, k) - t[i:i + 65536]) ** 2).sum())
        return total / xs.shape[0]


def train(net, fitted, held, k, epochs, decay, rng):
    xs_all, xn_all, t_all, e_all = fitted
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in net.params]
    lr, beta1, beta2, eps, step, batch = 1e-3, 0.9, 0.999, 1e-8, 0, 4096
    best = (net.error(held, k), [p.copy() for p in net.params])
    started = time.time()
    for epoch in range(epochs):
        order = rng.permutation(len(t_all))
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            xs, xn, t, e = xs_all[idx], xn_all[idx], t_all[idx], e_all[idx]
            a_s, a_n, h, cp = net.forward(xs, xn)
            p = expected(e + cp, k)
            g_out = 2 * (p - t) * p * (1 - p) * SCALE * k * LN10_400 / len(idx)
            w2 = net.params[2]
            g_h = np.outer(g_out, w2)
            h_ = net.hidden
            g_s = g_h[:, :h_] * ((a_s > 0) & (a_s < 1))
            g_n = g_h[:, h_:] * ((a_n > 0) & (a_n < 1))
            grads = [
                np.asarray(xs.T @ g_s + xn.T @ g_n, np.float32) + decay * net.params[0],
                g_s.sum(0) + g_n.sum(0),
                h.T @ g_out,
                np.array([g_out.sum()], np.float32),
            ]
            step += 1
            for param, grad, (m, v) in zip(net.params, grads, moments):
                m *= beta1
                m += (1 - beta1) * grad
                v *= beta2
                v += (1 - beta2) * grad * grad
                param -= (lr * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + eps)).astype(np.float32)
        if epoch + 1 in (epochs * 6 // 10, epochs * 8 // 10):
            lr *= 0.3
        held_error = net.error(held, k)
        print(f"epoch {epoch + 1}: held out {held_error:.6f} ({time.time() - started:.0f} s)", flush=True)
        if held_error < best[0]:
            best = (held_error, [p.copy() for p in net.params])
    net.params = best[1]
    return best[0]


def quantize(net):
    w1, b1, w2, b2 = net.params
    q = lambda a, scale: np.round(a * scale).astype(np.int64)
    w1q, b1q, w2q, b2q = q(w1, QA), q(b1, QA), q(w2, SCALE * QO), q(b2, SCALE)
    for name, a in (("first layer", w1q), ("biases", b1q), ("output", w2q), ("output bias", b2q)):
        if np.abs(a).max() > 32767:
            sys.exit(f"the {name}'s weights do not fit in i16: {np.abs(a).max()}")
    # network.rs sums a unit in i16: 64 pieces of the largest weight and the largest bias must fit.
    if 64 * np.abs(w1q).max() + np.abs(b1q).max() > 32767:
        sys.exit("the first layer's weights are too large for network.rs's i16 units")
    return w1q, b1q, w2q, b2q


def quantized_correction(q, stm, other):
    """network.rs's `correction`, in the same integers."""
    w1q, b1q, w2q, b2q = q
    hidden = len(b1q)
    acc_s = b1q + w1q[stm].sum(0)
    acc_n = b1q + w1q[other].sum(0)
    total = int(np.clip(acc_s, 0, QA) @ w2q[:hidden] + np.clip(acc_n, 0, QA) @ w2q[hidden:])
    quotient = abs(total) // (QA * QO)  # Rust's integer division truncates toward zero
    return (quotient if total >= 0 else -quotient) + int(b2q[0])


def write(path, q):
    w1q, b1q, w2q, b2q = q
    with open(path, "wb") as fh:
        fh.write(b"GNN1" + struct.pack("<H", len(b1q)))
        for a in (w1q.reshape(-1), b1q, w2q, b2q):
            fh.write(a.astype("<i2").tobytes())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--decay", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.hidden < 1 or args.epochs < 1 or args.decay < 0:
        sys.exit("--hidden and --epochs must be positive, --decay not negative")
    for path in args.files:
        if not os.path.isfile(path):
            sys.exit(f"{path}: no such file")

    fitted_raw, held_raw = load(args.files)
    fitted, held = prepare(fitted_raw), prepare(held_raw)
    print(f"{len(fitted[2])} positions to fit, {len(held[2])} held out", flush=True)
    k = fit_k(fitted[3], fitted[2])
    hce_error = float(((expected(held[3], k) - held[2]) ** 2).mean())
    print(f"K = {k:.2f}; the evaluation alone, held out: {hce_error:.6f}", flush=True)

    rng = np.random.default_rng(args.seed)
    net = Net(args.hidden, rng)
    float_error = train(net, fitted, held, k, args.epochs, args.decay, rng)
    q = quantize(net)
    corrections = np.array([quantized_correction(q, s, o) for s, o in zip(*held_raw[:2])], np.float32)
    quantized_error = float(((expected(held[3] + corrections, k) - held[2]) ** 2).mean())
    write(args.out, q)
    print(f"held out: evaluation {hce_error:.6f}; with the network {float_error:.6f}, "
          f"quantized {quantized_error:.6f}; written to {args.out}")
    for fen in CHECK_FENS:
        print(f"correction {quantized_correction(q, *features(fen))} for {fen}")


if __name__ == "__main__":
    main()
