#!/usr/bin/env python3
"""Trains level 8's evaluation network: train_network.py OUT.bin EPOCHS HELD.csv DATA.csv...

The network is the usual first one of engines that moved from a written evaluation to a learnt
one: each side's view of the board (768 inputs: the side's own and the other side's six kinds of
piece on 64 squares, the board turned for Black) goes through the same layer to HIDDEN numbers,
clipped to 0..1; the side to move's and the other side's are joined and weighed into one
number, the evaluation in units of 400 centipawns. The data are `FEN;result;score` lines (the
result and the score for White) as scripts/selfplay_data.py writes them; the network learns to
predict a blend of the score and the game's result, in winning-chance space.

Written for src/bots/eval/network.rs: little-endian i16s, the first layer's weights (input by
input) and biases scaled by 255, then the output weights scaled by 64, then the output bias
(one i32, scaled by 255 * 64). numpy and scipy only: the inputs are sparse (at most 32 pieces
of 768), so a batch is a sparse matrix product, fast enough on two cores.

HELD.csv must come from other games than the DATA files (e.g. another seed of
selfplay_data.py): the loss printed after each epoch is on it. Positions of one game are much
alike, and a position without castling rights is learnt together with its mirror image, so a
held-out share of the same games flatters: on it the loss kept falling for 16 epochs while on
other games' positions it rose after the third (docs/bots.md, "The learnt evaluation,
continued"). Weight decay on the first layer and a few epochs keep the network from learning
the games by heart (WEIGHT_DECAY in the environment sets the decay; 1.0 unless told).
"""
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

HIDDEN = 256
SCALE = 400.0
QA, QB = 255, 64
LAMBDA = 0.7
BATCH = 4096
RATE = 1e-3
# Decoupled (AdamW) weight decay on the first layer's weights, per unit of the rate.
WEIGHT_DECAY = float(os.environ.get("WEIGHT_DECAY", "1.0"))
ROLES = "pnbrqk"


def features(fen, mirror=False):
    """The active inputs of the side to move's view and of the other side's (of the position
    with its files turned a-h to h-a if `mirror`)."""
    board, turn = fen.split(" ")[:2]
    own, other = [], []
    rank, file = 7, 0
    for ch in board:
        if ch == "/":
            rank, file = rank - 1, 0
        elif ch.isdigit():
            file += int(ch)
        else:
            sq = rank * 8 + (7 - file if mirror else file)
            white = ch.isupper()
            role = ROLES.index(ch.lower())
            # White's view: White's pieces first, squares as they are; Black's: turned over.
            w = ((0 if white else 1) * 6 + role) * 64 + sq
            b = ((1 if white else 0) * 6 + role) * 64 + (sq ^ 56)
            if turn == "w":
                own.append(w)
                other.append(b)
            else:
                own.append(b)
                other.append(w)
            file += 1
    return own, other


def load(paths):
    own_idx, other_idx, ptr, targets = [], [], [0], []
    for path in paths:
        with open(path) as fh:
            for line in fh:
                parts = line.strip().split(";")
                if len(parts) != 3:
                    continue
                fen, result, score = parts[0], float(parts[1]), int(parts[2])
                if abs(score) >= 2000:
                    continue
                white = fen.split(" ")[1] == "w"
                if not white:
                    score, result = -score, 1.0 - result
                target = LAMBDA / (1 + np.exp(-score / SCALE)) + (1 - LAMBDA) * result
                # Without castling rights the rules do not tell the king's side from the
                # queen's, so the position with its files turned over is as good an example.
                for mirror in (False, True) if fen.split(" ")[2] == "-" else (False,):
                    own, other = features(fen, mirror)
                    own_idx.extend(own)
                    other_idx.extend(other)
                    ptr.append(len(own_idx))
                    targets.append(target)
    n = len(targets)
    ones = np.ones(len(own_idx), dtype=np.float32)
    ptr = np.array(ptr)
    own = sp.csr_matrix((ones, np.array(own_idx), ptr), shape=(n, 768))
    other = sp.csr_matrix((ones, np.array(other_idx), ptr), shape=(n, 768))
    return own, other, np.array(targets, dtype=np.float32)


class Adam:
    def __init__(self, params, lr):
        self.lr, self.t = lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, params, grads):
        self.t += 1
        b1, b2 = 0.9, 0.999
        for p, g, m, v in zip(params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            mh = m / (1 - b1**self.t)
            vh = v / (1 - b2**self.t)
            p -= self.lr * mh / (np.sqrt(vh) + 1e-8)
            if p.ndim == 2:
                p -= self.lr * WEIGHT_DECAY * p


def forward(params, own, other):
    w1, b1, w2, b2 = params
    h_own = own @ w1 + b1
    h_other = other @ w1 + b1
    a = np.concatenate([np.clip(h_own, 0, 1), np.clip(h_other, 0, 1)], axis=1)
    return h_own, h_other, a, a @ w2 + b2


def loss_of(params, own, other, target):
    out = forward(params, own, other)[3]
    return float(np.mean((1 / (1 + np.exp(-out)) - target) ** 2))


def main():
    if len(sys.argv) < 5 or not sys.argv[2].isdigit() or int(sys.argv[2]) < 1:
        sys.exit("usage: train_network.py OUT.bin EPOCHS HELD.csv DATA.csv...")
    out_path, epochs = sys.argv[1], int(sys.argv[2])
    t0 = time.time()
    own, other, target = load(sys.argv[4:])
    held_own, held_other, held_target = load([sys.argv[3]])
    n = len(target)
    if n == 0 or len(held_target) == 0:
        sys.exit("no positions to learn from, or none held out")
    rng = np.random.default_rng(1)
    train = rng.permutation(n)
    print(f"{n} positions, {len(held_target)} held out, loaded in {time.time() - t0:.0f} s", flush=True)
    w1 = (rng.standard_normal((768, HIDDEN)) * 0.1).astype(np.float32)
    b1 = np.full(HIDDEN, 0.1, dtype=np.float32)
    w2 = (rng.standard_normal(2 * HIDDEN) * 0.1).astype(np.float32)
    b2 = np.zeros(1, dtype=np.float32)
    params = [w1, b1, w2, b2]
    opt = Adam(params, RATE)
    for epoch in range(epochs):
        # The rate falls in steps, as most engines' trainers do.
        opt.lr = RATE * (0.3 ** (epoch * 3 // epochs))
        rng.shuffle(train)
        for start in range(0, len(train), BATCH):
            idx = train[start:start + BATCH]
            xo, xt, t = own[idx], other[idx], target[idx]
            h_own, h_other, a, out = forward(params, xo, xt)
            s = 1 / (1 + np.exp(-out))
            d_out = (2 * (s - t) * s * (1 - s) / len(idx)).astype(np.float32)
            g_w2 = a.T @ d_out
            g_b2 = np.array([d_out.sum()], dtype=np.float32)
            d_a = np.outer(d_out, w2)
            d_own = d_a[:, :HIDDEN] * ((h_own > 0) & (h_own < 1))
            d_other = d_a[:, HIDDEN:] * ((h_other > 0) & (h_other < 1))
            g_w1 = xo.T @ d_own + xt.T @ d_other
            g_b1 = d_own.sum(0) + d_other.sum(0)
            opt.step(params, [np.asarray(g_w1, dtype=np.float32), g_b1.astype(np.float32), g_w2, g_b2])
            # The output weights must fit the quantized network's i16 products.
            np.clip(w2, -127 / QB, 127 / QB, out=w2)
            np.clip(w1, -32000 / QA / 32, 32000 / QA / 32, out=w1)
        print(f"epoch {epoch + 1}/{epochs}: held-out loss {loss_of(params, held_own, held_other, held_target):.6f}"
              f"  ({time.time() - t0:.0f} s)", flush=True)
    with open(out_path, "wb") as fh:
        fh.write(np.round(w1 * QA).astype("<i2").tobytes())
        fh.write(np.round(b1 * QA).astype("<i2").tobytes())
        fh.write(np.round(w2 * QB).astype("<i2").tobytes())
        fh.write(np.round(b2 * QA * QB).astype("<i4").tobytes())
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
