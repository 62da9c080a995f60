//! A small network's correction to the hand-made evaluation, in standard chess.
//!
//! The hand-made terms know material, squares, mobility, pawns and king safety one at a time;
//! the network learns what they miss from where the pieces stand together. It was fitted to the
//! same labelled positions as the weights (`scripts/train_network.py`), to the part of each
//! target the fitted evaluation leaves unexplained, so it is only right beside the weights it was
//! fitted with: refit the weights, and fit the network again after them.
//!
//! Its shape is the one engines use for their evaluation networks, kept small so that it can be
//! computed from scratch at every evaluation, at about half the hand-made terms' cost: each
//! piece on its square switches on one of 768 inputs (colour from the point of view of the side
//! looking, kind, square seen from that side), which feed 32 clipped-linear units, once from
//! each side's point of view; the two sets of units, the side to move's first, feed the output.
//!
//! The weights are integers (`network.bin`, written by the trainer): the first layer's scaled by
//! [`QA`], so a unit's activation is clipped to `0..=QA`; the output layer's are centipawns scaled
//! by [`QO`].

use crate::chess::{Color, Position, Role};

/// Units per side's point of view.
const HIDDEN: usize = 32;
/// One input per (own or enemy, kind of standard piece, square).
const INPUTS: usize = 2 * 6 * 64;
/// The first layer's scale: a unit's activation of 1.0 is `QA`.
const QA: i32 = 1024;
/// The output layer's scale, per centipawn.
const QO: i32 = 64;

const MAGIC: &[u8; 4] = b"GNN1";

pub struct Network {
    inputs: [[i16; HIDDEN]; INPUTS],
    biases: [i16; HIDDEN],
    /// The side to move's units' weights, then the other side's.
    outputs: [i16; 2 * HIDDEN],
    /// In centipawns.
    output_bias: i16,
}

pub static NETWORK: Network = Network::parse(include_bytes!("network.bin"));

const fn max(a: i32, b: i32) -> i32 {
    if a > b {
        a
    } else {
        b
    }
}

/// The little-endian i16 at `bytes[at..]`.
const fn read_i16(bytes: &[u8], at: usize) -> i16 {
    i16::from_le_bytes([bytes[at], bytes[at + 1]])
}

impl Network {
    /// The network `network.bin` holds: the magic `GNN1`, the number of units (u16), then the
    /// first layer's weights input by input, its biases, the output weights and the output bias,
    /// every one an i16, little-endian. Evaluated at compile time, so a file of the wrong shape
    /// stops the build.
    const fn parse(bytes: &[u8]) -> Network {
        const LEN: usize = 6 + 2 * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN + 1);
        assert!(bytes.len() == LEN, "network.bin: wrong length");
        assert!(
            bytes[0] == MAGIC[0] && bytes[1] == MAGIC[1] && bytes[2] == MAGIC[2] && bytes[3] == MAGIC[3],
            "network.bin: not a GNN1 file"
        );
        assert!(read_i16(bytes, 4) as usize == HIDDEN, "network.bin: wrong number of units");
        let mut net =
            Network { inputs: [[0; HIDDEN]; INPUTS], biases: [0; HIDDEN], outputs: [0; 2 * HIDDEN], output_bias: 0 };
        let mut at = 6;
        let mut i = 0;
        while i < INPUTS {
            let mut j = 0;
            while j < HIDDEN {
                net.inputs[i][j] = read_i16(bytes, at);
                at += 2;
                j += 1;
            }
            i += 1;
        }
        let mut j = 0;
        while j < HIDDEN {
            net.biases[j] = read_i16(bytes, at);
            at += 2;
            j += 1;
        }
        let mut j = 0;
        while j < 2 * HIDDEN {
            net.outputs[j] = read_i16(bytes, at);
            at += 2;
            j += 1;
        }
        net.output_bias = read_i16(bytes, at);
        assert!(net.accumulator_bound() <= i16::MAX as i32, "network.bin: a unit could overflow i16");
        net
    }

    /// The largest magnitude a unit's accumulator can reach: its bias and 64 pieces' weights,
    /// each the largest there is. Within i16 (checked when the file is read), so the units
    /// can be summed in i16, eight or sixteen at a time, and no position can overflow them.
    const fn accumulator_bound(&self) -> i32 {
        let (mut weight, mut bias) = (0, 0);
        let mut i = 0;
        while i < INPUTS * HIDDEN {
            let w = self.inputs[i / HIDDEN][i % HIDDEN] as i32;
            weight = max(weight, w.abs());
            i += 1;
        }
        let mut j = 0;
        while j < HIDDEN {
            let b = self.biases[j] as i32;
            bias = max(bias, b.abs());
            j += 1;
        }
        64 * weight + bias
    }

    /// The correction to the evaluation of `pos` (standard chess), in centipawns for the side to
    /// move. Pieces other than the six standard ones are not seen.
    pub fn correction(&self, pos: &Position) -> i32 {
        // One accumulator per point of view: White's, then Black's (i16 cannot overflow: see
        // `accumulator_bound`).
        let mut acc = [self.biases; 2];
        for color in Color::ALL {
            for (r, role) in
                [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King].into_iter().enumerate()
            {
                for sq in pos.pieces(color, role) {
                    for (view, acc) in acc.iter_mut().enumerate() {
                        let own = usize::from(color.index() != view);
                        // Black sees the board from its side: rank mirrored.
                        let square = if view == 0 { sq.index() } else { sq.index() ^ 56 };
                        let weights = &self.inputs[own * 384 + r * 64 + square];
                        for (a, &w) in acc.iter_mut().zip(weights) {
                            *a += w;
                        }
                    }
                }
            }
        }
        let us = pos.turn().index();
        let ordered = [&acc[us], &acc[1 - us]];
        // i64: 64 products of up to QA × i16::MAX each would overflow an i32.
        let mut sum = 0i64;
        for (view, units) in ordered.into_iter().enumerate() {
            let weights = &self.outputs[view * HIDDEN..(view + 1) * HIDDEN];
            for (&a, &w) in units.iter().zip(weights) {
                sum += i64::from(i32::from(a).clamp(0, QA) * i32::from(w));
            }
        }
        (sum / i64::from(QA * QO)) as i32 + i32::from(self.output_bias)
    }
}

#[cfg(test)]
mod tests {
    use super::NETWORK;
    use crate::chess::{Position, Variant};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, Variant::Standard).expect("valid FEN")
    }

    /// The corrections `scripts/train_network.py` printed for these positions when it wrote
    /// network.bin, computed its own way from the same integers: the inputs, their order and the
    /// arithmetic agree. (Written anew with every new network.)
    #[test]
    fn the_corrections_are_the_trainers() {
        let expected = [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 28),
            ("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 1 8", 63),
            ("8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1", 27),
        ];
        for (fen, correction) in expected {
            assert_eq!(NETWORK.correction(&pos(fen)), correction, "{fen}");
        }
    }

    /// A position and its mirror (ranks flipped, colours swapped, the other side to move) are
    /// the same position to the side to move, and the network sees them so.
    #[test]
    fn a_mirrored_position_gets_the_same_correction() {
        let pairs = [
            (
                "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 1 8",
                "r2qkb1r/pp1b1ppp/2n1pn2/2pp4/3P4/2N1PN2/PP2BPPP/R1BQ1RK1 b kq - 1 8",
            ),
            ("8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1", "8/8/p4p1k/Pp2pP1p/1P1pP2P/3P4/5K2/8 w - - 0 1"),
        ];
        for (a, b) in pairs {
            assert_eq!(NETWORK.correction(&pos(a)), NETWORK.correction(&pos(b)), "{a} against {b}");
        }
    }
}
