#!/usr/bin/env python3
"""Trains the evaluation network of the full search (levels 11 and 12): train_network.py [--minichess7] OUT.bin EPOCHS HELD.bin DATA.bin...

The network is the usual first one of engines that moved from a written evaluation to a learnt
one: each side's view of the board (768 inputs: the side's own and the other side's six kinds of
piece on 64 squares, the board turned for Black) goes through the same layer to HIDDEN numbers,
clipped to 0..1; the side to move's and the other side's are joined and weighed into one
number, the evaluation in units of 400 centipawns. The data are the records of
examples/net_features (from `FEN;result;score` lines such as scripts/eval_labels.py writes);
the network learns to predict the score's winning chance (the logistic of score / 400), blended
with the game's result if LAMBDA (in the environment, 1.0 unless told) is below 1.

Written for src/bots/eval/network.rs (which reads the file in network/file.rs): little-endian
i16s, the first layer's weights (input by input) and biases scaled by 255, then the output
weights scaled by 64, then the output bias (one i32, scaled by 255 * 64). numpy and scipy only: the inputs are sparse (at most 32 pieces
of 768), so a batch is a sparse matrix product, fast enough on two cores (about 20 s an epoch
of 4.3 million positions here).

HELD.bin must come from other games than the DATA files: the loss printed after each epoch is
on it. Positions of one game are much alike, and a held-out share of the same games flatters
(docs/bots.md, "The learnt evaluation, continued"). Weight decay on the first layer
(WEIGHT_DECAY in the environment, 0.1 unless told) keeps the network from learning the games
by heart; at 1.0, as the first networks had it, it held the first layer's weights so small that
a network taught twice the positions played 100 Elo worse (docs/bots.md, "Twice the positions,
a tenth of the weight decay"). A position without castling rights is learnt with its files
turned over half the time: the rules cannot tell the king's side from the queen's.

The first network (docs/bots.md, "A learnt evaluation that plays"), trained before the
defaults changed:
    gambit match --white level8 --black skill:4,4,40 --nodes 2000 --games 60000 --seed 1001 \
        --pgn a.pgn --concurrency 2
    (the last 2,000 games held out, the rest in two files; then for each file)
    scripts/eval_labels.py part.csv part.pgn
    cargo run --release --example net_features -- part.csv part.bin
    WEIGHT_DECAY=1.0 OUTPUT_CLIP=127 scripts/train_network.py network.bin 12 held.bin part0.bin part1.bin

Network D, which levels 11 and 12 played with from 2026-12-02 to 2026-12-03 (docs/bots.md,
"Twice the positions, a tenth of the weight decay" and "Network D built in"):
    gambit match --white level12 --black skill:4,4,40 --nodes 600 --games 115605 --seed 1005 \
        --pgn train.pgn --concurrency 2
    gambit match --white level12 --black skill:4,4,40 --nodes 2000 --games 2879 --seed 1004 \
        --pgn held.pgn --concurrency 2           (the held-out games)
    scripts/eval_labels.py train.csv train.pgn                  (and held)
    cargo run --release --example net_features -- train.csv train.bin   (and held)
    scripts/train_network.py netD.bin 12 held.bin train.bin

Network G, which they played with on 2026-12-03 (docs/bots.md, "Output buckets and squared
units"): the same commands run with network D built in (its games, not the ones
before), the training games' seed 1006, and eight output buckets of squared units:
    gambit match --white level12 --black skill:4,4,40 --nodes 600 --games 115605 --seed 1006 \
        --pgn train.pgn --concurrency 2
    (held.pgn, labels and records as for D)
    BUCKETS=8 ACTIVATION=squared scripts/train_network.py netG.bin 12 held.bin train.bin

The network they play with, built in since 2026-12-03 (docs/bots.md, "Mirrored views and more
positions"): G's positions and 4.8 million more from games with G built in, mirrored views:
    gambit match --white level12 --black skill:4,4,40 --nodes 600 --games 70000 --seed 1008 \
        --pgn train2.pgn --concurrency 2
    (labels and records as above)
    MIRROR=1 BUCKETS=8 ACTIVATION=squared scripts/train_network.py netM.bin 12 held.bin \
        train.bin train2.bin

With --minichess7 the network is minichess7's (network_minichess7.bin): nine kinds of piece,
so 1,152 inputs, and seven files to turn over (every position: the variant has no castling).
The records are examples/net_features's with --minichess7, from positions labelled by
scripts/eval_labels.py --minichess7. minichess7's network was trained before the weight decay
and the output weights' bound changed: WEIGHT_DECAY=1.0 OUTPUT_CLIP=127 train as it was.

BUCKETS (1 to 16, 1 unless told) gives the network that many sets of output weights, one
chosen by the number of pieces on the board (the same share of the pieces from 2 to 32 each);
ACTIVATION=squared squares each clipped unit before it is weighed (clipped unless told). A
network with either is written with a trailer that says so (src/bots/eval/network/file.rs reads
both kinds of file); docs/bots.md ("Output buckets and squared units") measures them.

MIRROR=1 (standard chess) turns each view a-file for h-file where its own king stands on the e-
to h-file, so that every view the first layer sees has its king on the a- to d-file, and writes
the file with a trailer that says so (docs/bots.md, "Mirrored views").

HIDDEN (a multiple of 16 up to 2048, 256 unless told) is the first layer's width. A file of
another width than 256 ends with the trailer GNN4 (buckets, activation, mirror, width), and
network.rs plays a variant with the width of its built-in network: GAMBIT_NET must name a file
of that width (docs/bots.md, "M taught 8.6 million more positions, and a wider first layer").

INIT (in the environment) names a network file to go on from instead of random weights (one of
INIT_HIDDEN units, HIDDEN unless told, widened to HIDDEN where it is narrower), e.g.
the built-in src/bots/eval/network.bin; RATE sets the first epochs' learning rate (1e-3 unless
told), lower when going on from a trained network (docs/bots.md, "Search labels for the
network").
"""
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

# The hidden units of each view (HIDDEN in the environment, 256 unless told): network.rs
# reads a file of its own build's width only.
HIDDEN = os.environ.get("HIDDEN", "256")
HIDDEN = int(HIDDEN) if HIDDEN.isdigit() else 0
SCALE = 400.0
QA, QB = 255, 64
LAMBDA = float(os.environ.get("LAMBDA", "1.0"))
BATCH = 4096
RATE = float(os.environ.get("RATE", "1e-3"))
# Decoupled (AdamW) weight decay on the first layer's weights, per unit of the rate.
WEIGHT_DECAY = float(os.environ.get("WEIGHT_DECAY", "0.1"))
# The largest quantized output weight (OUTPUT_CLIP in the environment, 1023 unless told).
OUTPUT_CLIP = int(os.environ.get("OUTPUT_CLIP", "1023"))
# Output buckets by the number of pieces (BUCKETS, 1 unless told; at most 16), and how the hidden
# units are activated (ACTIVATION: clipped, the first networks', or squared: clipped, then squared).
BUCKETS = int(os.environ.get("BUCKETS", "1"))
ACTIVATION = os.environ.get("ACTIVATION", "clipped")
# MIRROR=1: each view turned a-file for h-file where its own king is on the e- to h-file
# (standard chess only), as network.rs mirrors a network whose file says so.
MIRROR = os.environ.get("MIRROR", "0") == "1"
if not 1 <= BUCKETS <= 16 or ACTIVATION not in ("clipped", "squared"):
    sys.exit("BUCKETS must be 1 to 16, ACTIVATION clipped or squared")
# What ends a file with buckets or squared units (src/bots/eval/network/file.rs reads it), and one
# whose views are mirrored.
TRAILER = b"GNN2"
MIRRORED_TRAILER = b"GNN3"
# What ends a file whose first layer is not 256 units wide.
WIDE_TRAILER = b"GNN4"
if not 16 <= HIDDEN <= 2048 or HIDDEN % 16:
    sys.exit("HIDDEN must be a multiple of 16 from 16 to 2048")
# The output weights' scale in the file: network.rs takes a squared unit's v (0..255) as
# v * v >> 8, 255/256 of its square in the layer's units, so those weights are stored 256/255
# larger to make up for it.
OUTPUT_SCALE = QB * 256 / 255 if ACTIVATION == "squared" else QB


def trailer(hidden=None):
    """What ends this run's network file: nothing for one bucket of clipped units (the first
    networks' files), else TRAILER, the bucket count and the activation (u16s); mirrored,
    MIRRORED_TRAILER, those two and 1; of another width than 256, WIDE_TRAILER, the two, the
    inputs (1 mirrored, else 0) and the width."""
    hidden = HIDDEN if hidden is None else hidden
    if hidden != 256:
        return WIDE_TRAILER + np.array([BUCKETS, ACTIVATION == "squared", MIRROR, hidden], dtype="<u2").tobytes()
    if MIRROR:
        return MIRRORED_TRAILER + np.array([BUCKETS, ACTIVATION == "squared", 1], dtype="<u2").tobytes()
    if (BUCKETS, ACTIVATION) == (1, "clipped"):
        return b""
    return TRAILER + np.array([BUCKETS, ACTIVATION == "squared"], dtype="<u2").tobytes()


RECORD = np.dtype([("own", "<u2", 32), ("other", "<u2", 32), ("score", "<i2"), ("result", "u1"),
                   ("no_castling", "u1")])


def load(paths):
    """The records of examples/net_features (one file or several, concatenated)."""
    return np.concatenate([np.fromfile(path, dtype=RECORD) for path in paths])


def buckets_of(records):
    """Each position's output bucket: the same share of the pieces (kings included) from 2 to 32
    each, as network.rs's `bucket` chooses them."""
    pieces = (records["own"] != 0xFFFF).sum(axis=1)
    return np.minimum(np.maximum(pieces - 2, 0) * BUCKETS // 31, BUCKETS - 1).astype(np.int64)


def targets(records):
    """What the network learns to predict: a blend of the score's winning chance and the result."""
    chance = 1 / (1 + np.exp(-records["score"].astype(np.float32) / SCALE))
    return (LAMBDA * chance + (1 - LAMBDA) * records["result"].astype(np.float32) / 2).astype(np.float32)


# The variant's inputs (two colours of each kind of piece on 64 squares) and files, set by main.
INPUTS, FILES = 768, 8


# The inputs of a view's own king: the sixth kind of piece, of the view's own colour.
OWN_KING = range(5 * 64, 6 * 64)


def inputs(indices, mirror):
    """A batch's active inputs (rows of 32, unused ones 0xFFFF) as a sparse matrix; the rows
    where `mirror` is set with their files turned over (a file is the input's low three bits).
    With MIRROR, instead, the rows whose own king is on the e- to h-file: turning the files of
    a position without castling rights then changes nothing, as the king's side decides."""
    indices = indices.astype(np.int32)
    used = indices < INPUTS
    if MIRROR:
        king = np.where((indices >= OWN_KING.start) & (indices < OWN_KING.stop), indices, 0).max(axis=1)
        mirror = (king & 7) >= 4
    files = indices[mirror] & 7
    indices[mirror] += FILES - 1 - 2 * files
    ptr = np.concatenate([[0], np.cumsum(used.sum(axis=1))])
    data = np.ones(int(ptr[-1]), dtype=np.float32)
    return sp.csr_matrix((data, indices[used], ptr), shape=(len(indices), INPUTS))


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
        # Decay on the first layer's weights alone.
        params[0] -= self.lr * WEIGHT_DECAY * params[0]


def activate(h):
    c = np.clip(h, 0, 1)
    return c * c if ACTIVATION == "squared" else c


def slope(h):
    """The activation's derivative at `h`."""
    inside = (h > 0) & (h < 1)
    return 2 * h * inside if ACTIVATION == "squared" else inside


def forward(params, own, other, bucket):
    w1, b1, w2, b2 = params
    h_own = own @ w1 + b1
    h_other = other @ w1 + b1
    a = np.concatenate([activate(h_own), activate(h_other)], axis=1)
    return h_own, h_other, a, np.einsum("ij,ij->i", a, w2[bucket]) + b2[bucket]


def batch_inputs(records, idx, rng=None):
    """The sparse inputs of the records at `idx`; with `rng`, each position without castling
    rights turned a-file for h-file at random (the rules cannot tell the two apart)."""
    batch = records[idx]
    mirror = np.zeros(len(idx), dtype=bool)
    if rng is not None:
        mirror = (batch["no_castling"] == 1) & (rng.random(len(idx)) < 0.5)
    return inputs(batch["own"], mirror), inputs(batch["other"], mirror)


def loss_of(params, records, target):
    total = 0.0
    bucket = buckets_of(records)
    for start in range(0, len(records), 65536):
        idx = np.arange(start, min(start + 65536, len(records)))
        own, other = batch_inputs(records, idx)
        out = forward(params, own, other, bucket[idx])[3]
        total += float(np.sum((1 / (1 + np.exp(-out)) - target[idx]) ** 2))
    return total / len(records)


def from_file(path, rng):
    """The weights of a network file, as written below, back in the trainer's units; its buckets,
    activation and mirror must be those this run trains, and its width INIT_HIDDEN (HIDDEN
    unless told). A narrower network is widened to HIDDEN: the new units' first-layer weights
    drawn as fresh ones are, their output weights near 0 (so that the network starts close to
    the file's, and the new units have a gradient to learn from: all-zero ones would stay 0)."""
    width = os.environ.get("INIT_HIDDEN", str(HIDDEN))
    width = int(width) if width.isdigit() else 0
    if not 16 <= width <= HIDDEN or width % 16:
        sys.exit(f"INIT_HIDDEN must be a multiple of 16 from 16 to HIDDEN ({HIDDEN})")
    count = INPUTS * width + width + BUCKETS * 2 * width
    tail = trailer(width)
    size = 2 * count + 4 * BUCKETS + len(tail)
    if not os.path.isfile(path) or os.path.getsize(path) != size or \
            (tail and open(path, "rb").read()[-len(tail):] != tail):
        sys.exit(f"{path} is not a network of this shape (BUCKETS={BUCKETS}, ACTIVATION={ACTIVATION}, "
                 f"MIRROR={int(MIRROR)}, width {width})")
    words = np.fromfile(path, dtype="<i2", count=count).astype(np.float32)
    w1 = (words[:INPUTS * width] / QA).reshape(INPUTS, width)
    b1 = words[INPUTS * width:INPUTS * width + width] / QA
    w2 = (words[INPUTS * width + width:] / OUTPUT_SCALE).reshape(BUCKETS, 2, width)
    b2 = np.fromfile(path, dtype="<i4", offset=2 * count, count=BUCKETS).astype(np.float32) / (QA * QB)
    more = HIDDEN - width
    w1 = np.concatenate([w1, rng.standard_normal((INPUTS, more)) * 0.1], axis=1).astype(np.float32)
    b1 = np.concatenate([b1, np.full(more, 0.1)]).astype(np.float32)
    w2 = np.concatenate([w2, rng.standard_normal((BUCKETS, 2, more)) * 0.01], axis=2).astype(np.float32)
    return [w1, b1, w2.reshape(BUCKETS, 2 * HIDDEN), b2]


def main():
    global INPUTS, FILES
    args = sys.argv[1:]
    if args[:1] == ["--minichess7"]:
        args = args[1:]
        INPUTS, FILES = 2 * 9 * 64, 7
        if MIRROR:
            sys.exit("MIRROR is for standard chess's board of eight files")
    if len(args) < 4 or not args[1].isdigit() or int(args[1]) < 1:
        sys.exit("usage: train_network.py [--minichess7] OUT.bin EPOCHS HELD.bin DATA.bin...")
    out_path, epochs = args[0], int(args[1])
    t0 = time.time()
    records = load(args[3:])
    held = load([args[2]])
    target, held_target = targets(records), targets(held)
    bucket = buckets_of(records)
    n = len(records)
    if n == 0 or len(held) == 0:
        sys.exit("no positions to learn from, or none held out")
    rng = np.random.default_rng(1)
    train = rng.permutation(n)
    print(f"{n} positions, {len(held)} held out, loaded in {time.time() - t0:.0f} s", flush=True)
    w1 = (rng.standard_normal((INPUTS, HIDDEN)) * 0.1).astype(np.float32)
    b1 = np.full(HIDDEN, 0.1, dtype=np.float32)
    w2 = np.tile(rng.standard_normal(2 * HIDDEN) * 0.1, (BUCKETS, 1)).astype(np.float32)
    b2 = np.zeros(BUCKETS, dtype=np.float32)
    params = [w1, b1, w2, b2]
    if os.environ.get("INIT"):
        # Go on from a trained network (e.g. the built-in one) rather than from random weights.
        params = from_file(os.environ["INIT"], rng)
        print(f"starting from {os.environ['INIT']}: held-out loss {loss_of(params, held, held_target):.6f}", flush=True)
    w1, b1, w2, b2 = params
    opt = Adam(params, RATE)
    for epoch in range(epochs):
        # The rate falls in steps, as most engines' trainers do.
        opt.lr = RATE * (0.3 ** (epoch * 3 // epochs))
        rng.shuffle(train)
        for start in range(0, len(train), BATCH):
            idx = np.sort(train[start:start + BATCH])
            xo, xt = batch_inputs(records, idx, rng)
            t, b = target[idx], bucket[idx]
            h_own, h_other, a, out = forward(params, xo, xt, b)
            s = 1 / (1 + np.exp(-out))
            d_out = (2 * (s - t) * s * (1 - s) / len(idx)).astype(np.float32)
            g_w2 = np.zeros_like(w2)
            g_b2 = np.zeros_like(b2)
            for k in range(BUCKETS):
                here = b == k
                g_w2[k] = d_out[here] @ a[here]
                g_b2[k] = d_out[here].sum()
            d_a = d_out[:, None] * w2[b]
            d_own = d_a[:, :HIDDEN] * slope(h_own)
            d_other = d_a[:, HIDDEN:] * slope(h_other)
            g_w1 = xo.T @ d_own + xt.T @ d_other
            g_b1 = d_own.sum(0) + d_other.sum(0)
            opt.step(params, [np.asarray(g_w1, dtype=np.float32), g_b1.astype(np.float32), g_w2, g_b2])
            # The quantized output weights are i16s summed as i32 products with the clipped
            # layer (0..255): at most 2 * HIDDEN * 255 * OUTPUT_CLIP, far from overflowing.
            np.clip(w2, -OUTPUT_CLIP / OUTPUT_SCALE, OUTPUT_CLIP / OUTPUT_SCALE, out=w2)
            np.clip(w1, -32000 / QA / 32, 32000 / QA / 32, out=w1)
        print(f"epoch {epoch + 1}/{epochs}: held-out loss {loss_of(params, held, held_target):.6f}"
              f"  ({time.time() - t0:.0f} s)", flush=True)
    with open(out_path, "wb") as fh:
        fh.write(np.round(w1 * QA).astype("<i2").tobytes())
        fh.write(np.round(b1 * QA).astype("<i2").tobytes())
        fh.write(np.round(w2 * OUTPUT_SCALE).astype("<i2").tobytes())
        fh.write(np.round(b2 * QA * QB).astype("<i4").tobytes())
        fh.write(trailer())
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
