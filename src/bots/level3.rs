//! Level 3: prefers captures and checks, and avoids being captured. The preferred moves are
//! (a) moves that give check; (b) non-captures after which the moved piece is not attacked;
//! (c) captures after which the capturing piece is not attacked; (d) captures of a piece worth
//! at least as much as the capturing one. A uniformly random preferred move, else any legal move.

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

use super::values::{value, MoveFacts};
use super::{Bot, Limits};
use crate::chess::{Game, Move};

pub struct Level3 {
    rng: SmallRng,
}

impl Level3 {
    pub fn new(seed: Option<u64>) -> Level3 {
        Level3 { rng: super::rng(seed) }
    }

    /// True if level 3 prefers the move.
    pub fn prefers(facts: &MoveFacts) -> bool {
        let check = facts.gives_check;
        let safe = !facts.lands_attacked;
        let worth_it = facts.captured.is_some_and(|c| value(c) >= value(facts.mover));
        check || safe || worth_it
    }

    /// The moves level 3 prefers.
    pub fn preferred(game: &Game) -> Vec<Move> {
        let pos = game.position();
        game.legal_moves().iter().map(|&m| MoveFacts::of(pos, m)).filter(Level3::prefers).map(|f| f.mv).collect()
    }
}

impl Bot for Level3 {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        let preferred = Level3::preferred(game);
        match preferred.choose(&mut self.rng) {
            Some(&m) => Some(m),
            None => game.legal_moves().choose(&mut self.rng).copied(),
        }
    }
}
