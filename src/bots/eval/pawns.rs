//! The pawns' part of the evaluation, and a cache of it. Pawns move seldom, so most positions a
//! search evaluates share their pawns with many others: the pawns' material, squares and
//! structure are computed once per pawn formation and looked up after that. What also depends on
//! other pieces (a passed pawn's blocker, the kings' distances) stays outside the cache.

use super::{adjacent_files, distance, forward_of, relative, Evaluator};
use crate::chess::{Bitboard, Color, Position, Role, Variant};

/// The pawns' score (White's minus Black's, middlegame and endgame) and each side's passed pawns.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct PawnScore {
    pub mg: i32,
    pub eg: i32,
    pub passed: [Bitboard; 2],
}

#[derive(Clone, Copy)]
struct Slot {
    pawns: [Bitboard; 2],
    /// None: the slot is empty (a board with no pawns is a formation too).
    variant: Option<Variant>,
    score: PawnScore,
}

const EMPTY: Slot = Slot {
    pawns: [Bitboard::EMPTY; 2],
    variant: None,
    score: PawnScore { mg: 0, eg: 0, passed: [Bitboard::EMPTY; 2] },
};

/// Pawn scores by formation, direct-mapped: 4096 slots (192 KiB), enough for the formations of
/// a search, and small enough to stay in the cache. A hit compares both sides' pawns exactly.
pub struct PawnCache {
    slots: Vec<Slot>,
}

const SLOTS: usize = 4096;

impl PawnCache {
    /// A cache that takes its memory on [`PawnCache::allocate`].
    pub fn new() -> PawnCache {
        PawnCache { slots: Vec::new() }
    }

    pub fn allocate(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![EMPTY; SLOTS];
        }
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = EMPTY);
    }

    /// The score of `pos`'s pawns, computed by `evaluator` unless the cache holds it.
    pub(super) fn score(&mut self, evaluator: &Evaluator, pos: &Position) -> PawnScore {
        let pawns = Color::ALL.map(|c| pos.pieces(c, Role::Pawn));
        let index = (formation_hash(pos) >> 52) as usize;
        let variant = Some(pos.variant());
        match self.slots.get_mut(index) {
            Some(slot) if slot.pawns == pawns && slot.variant == variant => slot.score,
            Some(slot) => {
                let score = evaluator.pawn_score(pos);
                *slot = Slot { pawns, variant, score };
                score
            }
            None => evaluator.pawn_score(pos), // not allocated
        }
    }
}

/// A hash of both sides' pawns, for tables kept by pawn formation (its top bits are well mixed).
pub fn formation_hash(pos: &Position) -> u64 {
    let [white, black] = Color::ALL.map(|c| pos.pieces(c, Role::Pawn).0);
    white.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}

impl Default for PawnCache {
    fn default() -> PawnCache {
        PawnCache::new()
    }
}

impl Evaluator {
    /// What the pawns alone are worth: material, squares, and structure — doubled and isolated
    /// pawns cost; connected pawns and passed pawns gain by how far they have come.
    pub(super) fn pawn_score(&self, pos: &Position) -> PawnScore {
        let w = &self.weights;
        let n = self.variant.size();
        let mut score = PawnScore::default();
        for color in Color::ALL {
            let ours = pos.pieces(color, Role::Pawn);
            let theirs = pos.pieces(!color, Role::Pawn);
            let (mut mg, mut eg) = (0, 0);
            let (material_mg, material_eg) = w.material[Role::Pawn.index()];
            let count = ours.count() as i32;
            mg += material_mg * count;
            eg += material_eg * count;
            for file in 0..n {
                let on_file = (ours & Bitboard::file(file)).count() as i32;
                if on_file > 1 {
                    mg -= w.doubled.0 * (on_file - 1);
                    eg -= w.doubled.1 * (on_file - 1);
                }
                if on_file > 0 && (ours & adjacent_files(file)).is_empty() {
                    mg -= w.isolated.0 * on_file;
                    eg -= w.isolated.1 * on_file;
                }
            }
            let guarded = Position::pawn_attacks(color, ours);
            let beside = Bitboard((ours & !Bitboard::file(7)).0 << 1) | Bitboard((ours & !Bitboard::file(0)).0 >> 1);
            for sq in ours {
                let square = relative(sq, color, n);
                let (pmg, peg) = self.tables[Role::Pawn.index()][square];
                mg += i32::from(pmg);
                eg += i32::from(peg);
                // The pawn's rank from its own side.
                let rank = square / 8;
                if (guarded | beside).contains(sq) {
                    let (cmg, ceg) = w.connected[rank.min(7)];
                    mg += cmg;
                    eg += ceg;
                }
                // Passed: no enemy pawn ahead on this or a neighbouring file.
                let span = Bitboard::file(sq.file()) | adjacent_files(sq.file());
                if (theirs & span & forward_of(color, sq.rank())).is_empty() {
                    let (pmg, peg) = w.passed[rank.min(7)];
                    mg += pmg;
                    eg += peg;
                    score.passed[color.index()] = score.passed[color.index()].with(sq);
                }
            }
            let sign = if color == Color::White { 1 } else { -1 };
            score.mg += sign * mg;
            score.eg += sign * eg;
        }
        score
    }

    /// What `color`'s passed pawns gain or lose by the rest of the board: a blocked one is worth
    /// less, and so is one the defending king is nearer to than its own.
    pub(super) fn passed_pawn_play(&self, pos: &Position, color: Color, passed: Bitboard) -> (i32, i32) {
        let w = &self.weights;
        let n = self.variant.size();
        let (mut mg, mut eg) = (0, 0);
        for sq in passed {
            let rank = relative(sq, color, n) / 8;
            let stop = if color == Color::White { sq.offset(8) } else { sq.offset(-8) };
            let Some(stop) = stop else { continue };
            if pos.occupied().contains(stop) {
                // The same rounding as scaling the whole bonus.
                let (pmg, peg) = w.passed[rank.min(7)];
                mg += pmg * w.passed_blocked / 100 - pmg;
                eg += peg * w.passed_blocked / 100 - peg;
            }
            // The nearer the defending king and the farther our own, the less it is worth.
            let scale = rank as i32 - 2;
            if let (Some(own_king), Some(their_king), true) = (pos.king(color), pos.king(!color), scale > 0) {
                let (them, us) = w.passed_king_distance;
                eg += scale * (them * distance(their_king, stop).min(5) - us * distance(own_king, stop));
            }
        }
        (mg, eg)
    }
}
