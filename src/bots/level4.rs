//! Level 4, "global defensive": score each legal move by the total value of our pieces that are
//! attacked after it, minus the value of the piece it captured, minus 4 if it gives check, and
//! play a lowest-scoring move (uniformly random among ties).

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

use super::values::{value, MoveFacts};
use super::{Bot, Limits};
use crate::chess::{Game, Move};

pub struct Level4 {
    rng: SmallRng,
}

impl Level4 {
    pub fn new(seed: Option<u64>) -> Level4 {
        Level4 { rng: super::rng(seed) }
    }

    /// Level 4's score of a move: lower is better.
    pub fn score(facts: &MoveFacts) -> i32 {
        facts.attacked_value - facts.captured.map_or(0, value) - if facts.gives_check { 4 } else { 0 }
    }

    /// The legal moves with the lowest score.
    pub fn best(game: &Game) -> Vec<Move> {
        let pos = game.position();
        let scored: Vec<(i32, Move)> =
            game.legal_moves().iter().map(|&m| (Level4::score(&MoveFacts::of(pos, m)), m)).collect();
        let Some(min) = scored.iter().map(|s| s.0).min() else {
            return Vec::new();
        };
        scored.into_iter().filter(|s| s.0 == min).map(|s| s.1).collect()
    }
}

impl Bot for Level4 {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        Level4::best(game).choose(&mut self.rng).copied()
    }
}
