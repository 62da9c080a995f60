//! Level 3: prefers captures and checks, and avoids being captured. Its moves fall in three
//! tiers, and it plays a uniformly random move of the best tier there is:
//! (1) captures and checks after which the moved piece is not attacked, and captures of a piece
//! worth at least as much as the capturing one; (2) quiet moves (neither) after which the moved
//! piece is not attacked; (3) the rest. Captures and checks come first, as for level 2, but only
//! where they do not give the piece away (docs/bots.md, "Level 3").

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

    /// The move's tier: 0 for a safe or favourable capture or check, 1 for a safe quiet move,
    /// 2 for the rest.
    pub fn tier(facts: &MoveFacts) -> u8 {
        let safe = !facts.lands_attacked;
        let favourable = facts.captured.is_some_and(|c| value(c) >= value(facts.mover));
        let tactical = facts.gives_check || facts.captured.is_some();
        match (tactical, safe || favourable) {
            (true, true) => 0,
            (false, true) => 1,
            _ => 2,
        }
    }

    /// The moves level 3 chooses among: those of the best tier there is.
    pub fn preferred(game: &Game) -> Vec<Move> {
        let pos = game.position();
        let facts: Vec<MoveFacts> = game.legal_moves().iter().map(|&m| MoveFacts::of(pos, m)).collect();
        let Some(best) = facts.iter().map(Level3::tier).min() else { return Vec::new() };
        facts.iter().filter(|f| Level3::tier(f) == best).map(|f| f.mv).collect()
    }
}

impl Bot for Level3 {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        Level3::preferred(game).choose(&mut self.rng).copied()
    }
}
