//! Level 1: a uniformly random legal move.

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

use super::{Bot, Limits};
use crate::chess::{Game, Move};

pub struct Level1 {
    rng: SmallRng,
}

impl Level1 {
    pub fn new(seed: Option<u64>) -> Level1 {
        Level1 { rng: super::rng(seed) }
    }
}

impl Bot for Level1 {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        game.legal_moves().choose(&mut self.rng).copied()
    }
}
