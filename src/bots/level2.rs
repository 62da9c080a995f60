//! Level 2: prefers captures and checks — a uniformly random one of them if there are any,
//! else a uniformly random legal move.

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

use super::{Bot, Limits};
use crate::chess::{Game, Move};

pub struct Level2 {
    rng: SmallRng,
}

impl Level2 {
    pub fn new(seed: Option<u64>) -> Level2 {
        Level2 { rng: super::rng(seed) }
    }

    /// The moves level 2 prefers: those that capture or give check.
    pub fn preferred(game: &Game) -> Vec<Move> {
        let pos = game.position();
        game.legal_moves().iter().copied().filter(|&m| pos.capture(m).is_some() || pos.after(m).is_check()).collect()
    }
}

impl Bot for Level2 {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        let preferred = Level2::preferred(game);
        match preferred.choose(&mut self.rng) {
            Some(&m) => Some(m),
            None => game.legal_moves().choose(&mut self.rng).copied(),
        }
    }
}
