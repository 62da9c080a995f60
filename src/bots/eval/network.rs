//! Full strength's evaluation: a small network for each variant that learnt an engine's
//! judgement at a glance. scripts/train_network.py writes `network.bin` (standard chess) from
//! positions of `gambit match` games labelled by Stockfish 15.1's static evaluation, and
//! `network_minichess7.bin` from minichess7's labelled by Fairy-Stockfish 11.1's
//! (scripts/eval_labels.py); docs/bots.md ("A learnt evaluation that plays", "Twice the
//! positions, a tenth of the weight decay", "Output buckets and squared units", "Mirrored
//! views and more positions" and "minichess7's network") says how, and what they gained.
//!
//! Each side's view of the board — its own and the other side's kinds of piece (six in
//! standard chess, nine in minichess7) on 64 squares, the board turned over for Black, and in
//! a mirrored network its files too where the view's own king stands on the e- to h-file —
//! goes through one shared layer to as many numbers as the file says (256 unless its trailer
//! names a width), clipped to 0..=1 (and squared, where the file says so); the side to move's
//! and the other side's are weighed into one number, by the weights of the output bucket the
//! number of pieces on the board chooses (one bucket in the first networks). All in integers,
//! as trained and quantized: the first layer scaled by [`QA`], the output weights by [`QB`].

mod file;

use std::sync::LazyLock;

use arrayvec::ArrayVec;

use self::file::{parse, read, shape_of, Activation, Form};
use crate::chess::{Color, Position, Role, Variant};

const QA: i32 = 255;
const QB: i32 = 64;
/// The network's output is in units of 400 centipawns (its training target is a winning
/// chance, the logistic of score / 400).
const SCALE: i32 = 400;

/// A network's parameters, in the order its file holds them, for a first layer of `H` units.
struct Network<const H: usize> {
    /// One row per input: [`Shape::inputs`] numbers them.
    feature_weights: Box<[[i16; H]]>,
    feature_bias: [i16; H],
    /// One pair (the side to move's units, the other side's) per output bucket: the bucket is
    /// chosen by how many pieces are on the board ([`bucket`]), so that an endgame is weighed
    /// by weights of its own.
    output_weights: Box<[[[i16; H]; 2]]>,
    output_bias: Box<[i32]>,
    activation: Activation,
    mirrored: bool,
}

const STANDARD: &[u8] = include_bytes!("network.bin");
const MINICHESS7: &[u8] = include_bytes!("network_minichess7.bin");
/// The built-in files' shapes, found as the binary is built (a file that is not a network
/// stops the build).
const STANDARD_SHAPE: Form = match shape_of(STANDARD, 6) {
    Some(shape) => shape,
    None => panic!("network.bin is not a network for six kinds of piece"),
};
const MINICHESS7_SHAPE: Form = match shape_of(MINICHESS7, 9) {
    Some(shape) => shape,
    None => panic!("network_minichess7.bin is not a network for nine kinds of piece"),
};

/// The built-in networks' widths: each variant's sums are of its own width, a constant in the
/// code compiled for it.
const STANDARD_HIDDEN: usize = STANDARD_SHAPE.hidden;
const MINICHESS7_HIDDEN: usize = MINICHESS7_SHAPE.hidden;
/// The room an accumulator has for each view's sums: the wider of the two.
const ROOM: usize = if STANDARD_HIDDEN > MINICHESS7_HIDDEN { STANDARD_HIDDEN } else { MINICHESS7_HIDDEN };

static STANDARD_NETWORK: LazyLock<Network<STANDARD_HIDDEN>> =
    LazyLock::new(|| load(STANDARD, STANDARD_SHAPE, 6, "GAMBIT_NET"));
static MINICHESS7_NETWORK: LazyLock<Network<MINICHESS7_HIDDEN>> =
    LazyLock::new(|| load(MINICHESS7, MINICHESS7_SHAPE, 9, "GAMBIT_NET_MINICHESS7"));

/// Calls `$body` with `$net` bound to `$variant`'s network and `$shape` to its board, each
/// variant in a copy of its own, so that its width and shape are constants there.
macro_rules! with_network {
    ($variant:expr, |$net:ident, $shape:ident| $body:expr) => {
        match $variant {
            Variant::Standard | Variant::Chess960 => {
                let ($net, $shape) = (&*STANDARD_NETWORK, Shape::of(Variant::Standard));
                $body
            }
            Variant::Minichess7 => {
                let ($net, $shape) = (&*MINICHESS7_NETWORK, Shape::of(Variant::Minichess7));
                $body
            }
        }
    };
}

/// The network in `built_in`, or in the file the environment variable `var` names: another
/// network for the same `kinds` of piece and width (of any bucket count, activation and
/// mirror), to measure a newly trained one without a rebuild. A file that cannot be read or is
/// not such a network is refused, and the built-in one used.
fn load<const H: usize>(built_in: &'static [u8], built_in_shape: Form, kinds: usize, var: &str) -> Network<H> {
    let chosen = std::env::var_os(var).and_then(|path| {
        let network = std::fs::read(&path).ok().and_then(|bytes| parse(&bytes, kinds));
        if network.is_none() {
            eprintln!(
                "{var}: {} is not a network of this shape ({H} units a view); using the built-in one",
                path.to_string_lossy()
            );
        }
        network
    });
    chosen.unwrap_or_else(|| read(built_in, built_in_shape, kinds))
}

impl<const H: usize> Network<H> {
    /// The evaluation in centipawns from the first layer's sums of the side to move (`own`) and
    /// of the other side, with `pieces` pieces on the board.
    #[inline(always)]
    fn output(&self, own: &[i16; H], other: &[i16; H], pieces: u32) -> i32 {
        let b = bucket(pieces, self.output_weights.len());
        let [own_weights, other_weights] = &self.output_weights[b];
        let weighed = match self.activation {
            Activation::Clipped => weigh::<false, H>(own, own_weights) + weigh::<false, H>(other, other_weights),
            Activation::Squared => weigh::<true, H>(own, own_weights) + weigh::<true, H>(other, other_weights),
        };
        (weighed + self.output_bias[b]) / QB * SCALE / QA
    }
}

/// The output bucket of a position with `pieces` pieces (kings included) for a network with
/// `buckets` of them: the same share of the pieces from two to 32 each (as train_network.py
/// chooses them), so that with eight a bucket spans four pieces.
#[inline(always)]
fn bucket(pieces: u32, buckets: usize) -> usize {
    ((pieces.saturating_sub(2) as usize) * buckets / 31).min(buckets - 1)
}

/// A variant's board as the network sees it: how many kinds of piece, and how many ranks (the
/// board is turned over for Black's view within them).
#[derive(Clone, Copy)]
pub struct Shape {
    kinds: usize,
    ranks: usize,
}

impl Shape {
    pub const fn of(variant: Variant) -> Shape {
        match variant {
            Variant::Standard | Variant::Chess960 => Shape { kinds: 6, ranks: 8 },
            Variant::Minichess7 => Shape { kinds: 9, ranks: 7 },
        }
    }

    /// How many placement groups (kinds of piece of each colour) there are.
    pub const fn groups(self) -> usize {
        2 * self.kinds
    }

    /// The inputs a piece of placement group `group` on square `sq` sets: in White's view and
    /// in Black's. Black's view of group i is the group of the same kind and the other colour,
    /// with the board turned over. The trainer's records (examples/net_features.rs) are made
    /// with the same.
    #[inline(always)]
    pub fn inputs(self, group: usize, sq: usize) -> [usize; 2] {
        let turned = (sq ^ 56) - 8 * (8 - self.ranks);
        let other_colour = if group < self.kinds { group + self.kinds } else { group - self.kinds };
        [group * 64 + sq, other_colour * 64 + turned]
    }
}

/// Where the pieces stand, as the network's inputs are grouped: [colour * kinds + kind], the
/// groups past the variant's [`Shape::groups`] empty.
pub type Placement = [u64; 18];

#[inline(always)]
pub fn placement(pos: &Position) -> Placement {
    // Each variant by a call of its own, so that the groups' kinds and colours are constants.
    match pos.variant() {
        Variant::Standard | Variant::Chess960 => placement_in(Shape::of(Variant::Standard), pos),
        Variant::Minichess7 => placement_in(Shape::of(Variant::Minichess7), pos),
    }
}

#[inline(always)]
fn placement_in(shape: Shape, pos: &Position) -> Placement {
    let kinds = shape.kinds;
    // `Role::ALL` has standard chess's six kinds first, then minichess7's fairy pieces.
    std::array::from_fn(|i| if i < 2 * kinds { pos.pieces(Color::ALL[i / kinds], Role::ALL[i % kinds]).0 } else { 0 })
}

/// The first layer's sums for one position, from White's view and from Black's (the first
/// units of each, as many as the variant's network has). A move changes two to four inputs, so
/// a child's sums are its parent's with a few rows added or taken away, far cheaper than
/// summing every piece again.
#[derive(Clone, Copy)]
pub struct Accumulator {
    views: [[i16; ROOM]; 2],
}

/// The first `H` sums of a view (`H` is a network's width, at most [`ROOM`]).
#[inline(always)]
fn units<const H: usize>(view: &[i16; ROOM]) -> &[i16; H] {
    const { assert!(H <= ROOM) };
    let Some(units) = view.first_chunk::<H>() else { unreachable!("H <= ROOM, checked as the binary is built") };
    units
}

#[inline(always)]
fn units_mut<const H: usize>(view: &mut [i16; ROOM]) -> &mut [i16; H] {
    const { assert!(H <= ROOM) };
    let Some(units) = view.first_chunk_mut::<H>() else { unreachable!("H <= ROOM, checked as the binary is built") };
    units
}

impl Accumulator {
    const EMPTY: Accumulator = Accumulator { views: [[0; ROOM]; 2] };

    /// The sums for `placement` (of `variant`), from the biases up.
    pub fn new(variant: Variant, placement: &Placement) -> Accumulator {
        with_network!(variant, |net, shape| {
            let mut biases = Accumulator::EMPTY;
            for view in &mut biases.views {
                *units_mut(view) = net.feature_bias;
            }
            let mut acc = biases;
            biases.change_into_by(net, shape, &mut acc, &[0; 18], placement);
            acc
        })
    }

    /// Writes into `out` (whatever it held) the sums for the position `to`, from these (for
    /// the position `from`). The changed inputs are listed first and the rows applied after, in
    /// one pass over the sums where a move is usual (a piece leaves one square for another, and
    /// perhaps takes a piece). Inlined where `variant` is a constant, so that the shape's
    /// numbers are too.
    #[inline(always)]
    pub fn change_into(&self, variant: Variant, out: &mut Accumulator, from: &Placement, to: &Placement) {
        with_network!(variant, |net, shape| self.change_into_by(net, shape, out, from, to))
    }

    #[inline(always)]
    fn change_into_by<const H: usize>(
        &self,
        net: &Network<H>,
        shape: Shape,
        out: &mut Accumulator,
        from: &Placement,
        to: &Placement,
    ) {
        // Each view's mirror before and after: one whose king crossed between the d- and the
        // e-file sees every piece on another square, and is summed afresh.
        let (was, now) = (mirrors(net, shape, from), mirrors(net, shape, to));
        let mut added = ArrayVec::<[usize; 2], 32>::new();
        let mut removed = ArrayVec::<[usize; 2], 32>::new();
        // A move changes one to three groups. They are found without a branch per group (a
        // jump on each mispredicts where the move's piece is), and only they are walked: a
        // loop over every group, written with iterators, took a third of the network's time
        // (by `perf annotate`).
        let mut changed = 0u32;
        for group in 0..shape.groups() {
            changed |= u32::from(from[group] != to[group]) << group;
        }
        while changed != 0 {
            let group = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            let (before, after) = (from[group], to[group]);
            list_inputs(&mut removed, shape, group, before & !after);
            list_inputs(&mut added, shape, group, after & !before);
        }
        for (view, (dst, src)) in out.views.iter_mut().zip(&self.views).enumerate() {
            let (dst, src) = (units_mut::<H>(dst), units::<H>(src));
            // An input's file is its low three bits: XOR with 7 turns it over.
            let row = |f: &[usize; 2]| &net.feature_weights[f[view] ^ now[view]];
            if was[view] != now[view] {
                let mut every = ArrayVec::<[usize; 2], 32>::new();
                for (group, &bits) in to.iter().enumerate().take(shape.groups()) {
                    list_inputs(&mut every, shape, group, bits);
                }
                *dst = net.feature_bias;
                for f in &every {
                    add(dst, row(f));
                }
                continue;
            }
            match (added.as_slice(), removed.as_slice()) {
                ([a], [r]) => apply(dst, src, row(a), row(r), None),
                ([a], [r, r2]) => apply(dst, src, row(a), row(r), Some(row(r2))),
                _ => {
                    *dst = *src;
                    for f in &added {
                        add(dst, row(f));
                    }
                    for f in &removed {
                        sub(dst, row(f));
                    }
                }
            }
        }
    }

    /// The evaluation for `turn`, the side to move, with `pieces` pieces on the board, in
    /// centipawns, by `variant`'s network.
    #[inline(always)]
    pub fn evaluate(&self, variant: Variant, turn: Color, pieces: u32) -> i32 {
        let (own, other) = (&self.views[turn.index()], &self.views[(!turn).index()]);
        with_network!(variant, |net, _shape| net.output(units(own), units(other), pieces))
    }
}

/// The evaluation of `pos` for the side to move, in centipawns.
pub fn evaluate(pos: &Position) -> i32 {
    Accumulator::new(pos.variant(), &placement(pos)).evaluate(pos.variant(), pos.turn(), pos.occupied().count())
}

/// A search's accumulators, one per ply of the current line, each brought up to date only
/// when a position at that ply is evaluated: from the nearest ply above whose sums are known,
/// by the differences between the placements on the way (every node records its placement as
/// it is entered).
pub struct Stack {
    placements: Vec<Placement>,
    accumulators: Vec<Accumulator>,
    known: Vec<bool>,
}

/// Past this many plies of changes, summing the position afresh is as cheap.
const FARTHEST: usize = 6;

impl Stack {
    pub fn new(plies: usize) -> Stack {
        Stack {
            placements: vec![[0; 18]; plies],
            accumulators: vec![Accumulator::EMPTY; plies],
            known: vec![false; plies],
        }
    }

    /// A node at `ply` is entered with `pos`.
    pub fn enter(&mut self, ply: usize, pos: &Position) {
        if let (Some(p), Some(k)) = (self.placements.get_mut(ply), self.known.get_mut(ply)) {
            *p = placement(pos);
            *k = false;
        }
    }

    /// The evaluation of `pos`, the position entered at `ply`, for the side to move. (The
    /// positions entered since it was last at ply 0 are of its variant.)
    pub fn evaluate(&mut self, ply: usize, pos: &Position) -> i32 {
        let (variant, turn, pieces) = (pos.variant(), pos.turn(), pos.occupied().count());
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.evaluate_avx2(ply, variant, turn, pieces) };
        }
        self.evaluate_here(ply, variant, turn, pieces)
    }

    /// [`Stack::evaluate`] with AVX2's 256-bit vectors: the sums and products over the units
    /// below are inlined here and so compiled for them, twice as wide as the SSE2 that every
    /// x86-64 processor has, which the build may assume. The check above (a cached flag)
    /// keeps the binary running on processors without AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn evaluate_avx2(&mut self, ply: usize, variant: Variant, turn: Color, pieces: u32) -> i32 {
        self.evaluate_here(ply, variant, turn, pieces)
    }

    #[inline(always)]
    fn evaluate_here(&mut self, ply: usize, variant: Variant, turn: Color, pieces: u32) -> i32 {
        // Each variant by a call of its own, so that its shape is a constant in each copy.
        match variant {
            Variant::Standard | Variant::Chess960 => self.evaluate_in(Variant::Standard, ply, turn, pieces),
            Variant::Minichess7 => self.evaluate_in(Variant::Minichess7, ply, turn, pieces),
        }
    }

    #[inline(always)]
    fn evaluate_in(&mut self, variant: Variant, ply: usize, turn: Color, pieces: u32) -> i32 {
        if ply >= self.known.len() {
            return 0;
        }
        let mut from = ply;
        while !self.known[from] && from > 0 && ply - from < FARTHEST {
            from -= 1;
        }
        if !self.known[from] {
            self.accumulators[from] = Accumulator::new(variant, &self.placements[from]);
            self.known[from] = true;
        }
        for p in from + 1..=ply {
            let (above, below) = self.accumulators.split_at_mut(p);
            above[p - 1].change_into(variant, &mut below[0], &self.placements[p - 1], &self.placements[p]);
            self.known[p] = true;
        }
        self.accumulators[ply].evaluate(variant, turn, pieces)
    }
}

/// What each view's inputs are XORed with under `net` for `placement`: 7 (their files turned
/// over) where the network is mirrored and the view's own king stands on the e- to h-file,
/// else 0. Black's view turns the ranks, not the files, so both read the king's file as it is.
#[inline(always)]
fn mirrors<const H: usize>(net: &Network<H>, shape: Shape, placement: &Placement) -> [usize; 2] {
    if !net.mirrored {
        return [0, 0];
    }
    let king = Role::King.index();
    [placement[king], placement[shape.kinds + king]].map(|k| if k != 0 && k.trailing_zeros() & 7 >= 4 { 7 } else { 0 })
}

/// Adds to `list` the inputs of the pieces of `group` on `squares`.
#[inline(always)]
fn list_inputs(list: &mut ArrayVec<[usize; 2], 32>, shape: Shape, group: usize, squares: u64) {
    let mut bits = squares;
    while bits != 0 {
        let sq = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        // At most 32 pieces come or go, so the list never fills.
        let _ = list.try_push(shape.inputs(group, sq));
    }
}

/// `dst` = `src` + `plus` - `minus` (- `minus2`), in one pass.
#[inline(always)]
fn apply<const H: usize>(
    dst: &mut [i16; H],
    src: &[i16; H],
    plus: &[i16; H],
    minus: &[i16; H],
    minus2: Option<&[i16; H]>,
) {
    match minus2 {
        None => {
            for i in 0..H {
                dst[i] = src[i].wrapping_add(plus[i]).wrapping_sub(minus[i]);
            }
        }
        Some(minus2) => {
            for i in 0..H {
                dst[i] = src[i].wrapping_add(plus[i]).wrapping_sub(minus[i]).wrapping_sub(minus2[i]);
            }
        }
    }
}

#[inline(always)]
fn add<const H: usize>(acc: &mut [i16; H], weights: &[i16; H]) {
    for (a, w) in acc.iter_mut().zip(weights) {
        *a = a.wrapping_add(*w);
    }
}

#[inline(always)]
fn sub<const H: usize>(acc: &mut [i16; H], weights: &[i16; H]) {
    for (a, w) in acc.iter_mut().zip(weights) {
        *a = a.wrapping_sub(*w);
    }
}

/// The clipped layer weighed by the output weights (train_network.py keeps those within ±1023:
/// at most H * 255 * 1023 in size, far from overflowing for the widths a file may name). With `SQUARED` each unit's v
/// (0..=255, for 0..=1) is first squared as v² / 256, the square in (within 0.4% of) the same
/// units, so that the products and their sum stay as small (train_network.py stores a squared
/// network's output weights 256/255 larger to make up the difference); a constant, so that each
/// activation's loop is compiled on its own.
#[inline(always)]
fn weigh<const SQUARED: bool, const H: usize>(acc: &[i16; H], weights: &[i16; H]) -> i32 {
    let mut sum = 0;
    for i in 0..H {
        let v = acc[i].clamp(0, QA as i16) as u16;
        let unit = if SQUARED { (v * v) >> 8 } else { v };
        sum += i32::from(unit) * i32::from(weights[i]);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions of one variant: the side to move well ahead, or well behind, by more than
    /// `margin`; a position and its mirror (ranks turned over, colours swapped), the same
    /// position for the other side; and the start.
    struct Case {
        variant: Variant,
        margin: i32,
        ahead: &'static [&'static str],
        behind: &'static [&'static str],
        mirrored: [&'static str; 2],
        start: &'static str,
    }

    #[test]
    fn material_counts_and_the_view_turns_with_the_side_to_move() {
        let cases = [
            // A queen up is far ahead, for whichever side has it, seen from either side (by
            // more than 400, a winning chance above 73%: network G's bucket for five pieces
            // or fewer, which learnt from few positions, puts a lone queen at about 500).
            Case {
                variant: Variant::Standard,
                margin: 400,
                ahead: &["4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "3qk3/8/8/8/8/8/8/4K3 b - - 0 1"],
                behind: &["4k3/8/8/8/8/8/8/3QK3 b - - 0 1"],
                mirrored: [
                    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                    "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3",
                ],
                start: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            },
            // An empress up likewise.
            Case {
                variant: Variant::Minichess7,
                margin: 400,
                ahead: &["nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKA1R b - - 0 1"],
                behind: &["nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKA1R w - - 0 1"],
                mirrored: [
                    "nbqk1cr/f1ppa1f/1p3p1/3p3/2P4/FP1CPPF/NBQKA1R w - - 0 4",
                    "nbqka1r/fp1cppf/2p4/3P3/1P3P1/F1PPA1F/NBQK1CR b - - 0 4",
                ],
                start: "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1",
            },
        ];
        for case in cases {
            let eval = |fen: &str| evaluate(&Position::from_fen(fen, case.variant).unwrap());
            for fen in case.ahead {
                assert!(eval(fen) > case.margin, "{fen}: {}", eval(fen));
            }
            for fen in case.behind {
                assert!(eval(fen) < -case.margin, "{fen}: {}", eval(fen));
            }
            let [a, b] = case.mirrored;
            assert_eq!(eval(a), eval(b), "{a} against its mirror");
            assert!(eval(case.start).abs() < 80, "{}: {}", case.start, eval(case.start));
        }
    }

    #[test]
    fn accumulators_brought_up_to_date_move_by_move_match_a_fresh_sum() {
        use rand::{rngs::SmallRng, Rng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(7);
        // One stack for both variants, as a server's engine searches one game and then another.
        let mut stack = Stack::new(64);
        for game in 0..20 {
            let variant = if game % 2 == 0 { Variant::Standard } else { Variant::Minichess7 };
            let mut line = vec![Position::new(variant)];
            stack.enter(0, &line[0]);
            for _ in 0..400 {
                // Walk a random line down and, now and then, back up to an earlier ply (as a
                // search does), evaluating some of the positions on the way.
                if line.len() > 1 && (line.len() >= 60 || rng.random_bool(0.3)) {
                    line.truncate(rng.random_range(1..line.len()));
                    continue;
                }
                let pos = *line.last().unwrap();
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    line.pop();
                    continue;
                }
                let child = pos.after(moves[rng.random_range(0..moves.len())]);
                stack.enter(line.len(), &child);
                line.push(child);
                if rng.random_bool(0.5) {
                    let ply = line.len() - 1;
                    assert_eq!(stack.evaluate(ply, &child), evaluate(&child));
                }
            }
        }
    }
}
