//! Correction history: how far the static evaluation has turned out to be off, by pawn
//! formation. The evaluation misjudges some formations the same way in position after position
//! (a blocked centre, a pawn storm it does not see), and the search finds that out: where a
//! node's search score differs from its static evaluation, the difference is averaged into a
//! slot for the formation (and the side to move), and later static evaluations of positions with
//! those pawns are moved by it. Pruning decisions, which lean on the static evaluation, get
//! better; the scores the search returns still come from searching.

use crate::bots::eval::formation_hash;
use crate::chess::Position;

/// Slots per side to move.
const SLOTS: usize = 16_384;
/// Corrections are kept in 1/GRAIN centipawns, so that small steps of the average add up.
const GRAIN: i32 = 64;
/// The largest correction, in centipawns.
const LIMIT: i32 = 96;
/// A slot moves by weight/SCALE of the way to each new difference, the weight growing with the
/// depth the difference was found at (a deeper search is the better witness).
const SCALE: i32 = 256;

pub struct Correction {
    /// [side to move][slot], in 1/GRAIN centipawns. Empty until [`Correction::allocate`].
    slots: Vec<i16>,
}

impl Correction {
    pub fn new() -> Correction {
        Correction { slots: Vec::new() }
    }

    /// Takes the table's memory (64 KiB) if it does not have it.
    pub fn allocate(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![0; 2 * SLOTS];
        }
    }

    /// Frees the memory, forgetting what was learnt.
    pub fn release(&mut self) {
        self.slots = Vec::new();
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = 0);
    }

    /// The correction for `pos`'s static evaluation, in centipawns for the side to move.
    pub fn get(&self, pos: &Position) -> i32 {
        self.slots.get(index(pos)).map_or(0, |&s| i32::from(s) / GRAIN)
    }

    /// A search of `pos` to `depth` scored it `searched` where the evaluation said `static_eval`
    /// (uncorrected; both for the side to move).
    pub fn learn(&mut self, pos: &Position, depth: i32, searched: i32, static_eval: i32) {
        let Some(slot) = self.slots.get_mut(index(pos)) else { return };
        let target = (searched - static_eval).clamp(-LIMIT, LIMIT) * GRAIN;
        let weight = (depth + 1).min(16);
        let moved = (i32::from(*slot) * (SCALE - weight) + target * weight) / SCALE;
        // Within ±LIMIT·GRAIN (6,144), which fits an i16.
        *slot = moved.clamp(-LIMIT * GRAIN, LIMIT * GRAIN) as i16;
    }
}

impl Default for Correction {
    fn default() -> Correction {
        Correction::new()
    }
}

/// `pos`'s slot: its side to move and its pawn formation.
fn index(pos: &Position) -> usize {
    pos.turn().index() * SLOTS + (formation_hash(pos) >> 50) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;

    #[test]
    fn differences_found_by_search_move_later_evaluations_of_the_same_pawns() {
        let pos = Position::new(Variant::Standard);
        let same_pawns = pos.after(pos.parse_uci("g1f3").unwrap());
        let other_pawns = pos.after(pos.parse_uci("e2e4").unwrap());
        let mut correction = Correction::new();
        correction.learn(&pos, 10, 100, 0);
        assert_eq!(correction.get(&pos), 0, "without memory nothing is learnt");

        correction.allocate();
        for _ in 0..200 {
            correction.learn(&pos, 10, 40, 0);
        }
        // The average closes in on the difference from below.
        assert!((35..=40).contains(&correction.get(&pos)), "{}", correction.get(&pos));
        // After Nf3 the pawns are the same, but it is the other side's move: a slot of its own.
        assert_eq!(correction.get(&same_pawns), 0);
        assert_eq!(correction.get(&other_pawns), 0);
        let after_reply = same_pawns.after(same_pawns.parse_uci("g8f6").unwrap());
        assert_eq!(correction.get(&after_reply), correction.get(&pos));

        // Differences beyond the limit count as the limit.
        for _ in 0..400 {
            correction.learn(&pos, 20, -5_000, 0);
        }
        assert!((-LIMIT..=-LIMIT + 2).contains(&correction.get(&pos)), "{}", correction.get(&pos));
        correction.clear();
        assert_eq!(correction.get(&pos), 0);
    }
}
