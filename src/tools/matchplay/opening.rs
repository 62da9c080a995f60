//! The short random openings that make a match's games differ: a few random legal moves,
//! kept only if the game goes on and neither side is clearly lost.

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use crate::bots::search::Score;
use crate::bots::{AlphaBeta, Bot, Limits};
use crate::chess::{Game, StartPosition, Variant};

/// An opening is kept if the engine, searching 4 plies, scores it within this many centipawns.
pub const BALANCE_CP: i32 = 150;
/// Depth of that check.
const CHECK_DEPTH: u32 = 4;
/// Random tries before settling for the most balanced one seen.
const ATTEMPTS: usize = 200;

/// How many random plies an opening has: 8 in standard chess; 4 to 6 on the smaller 7x7 board,
/// where pieces meet sooner.
fn opening_plies(variant: Variant, rng: &mut SmallRng) -> usize {
    match variant {
        Variant::Standard => 8,
        // A shuffled start is an opening already: a few plies on top of it.
        Variant::Chess960 => 4,
        Variant::Minichess7 => rng.random_range(4..=6),
    }
}

/// Picks openings, reusing one engine for the balance checks.
pub struct Openings {
    checker: AlphaBeta,
}

impl Openings {
    pub fn new() -> Openings {
        Openings { checker: AlphaBeta::new(Some(0)) }
    }

    /// The opening for one seed, as the game it leaves: the same seed always gives the same
    /// game. Tries random move sequences (in Chess960 from a random one of its starts) until
    /// one leaves the game running with |score| ≤ 150 cp at depth 4 (no mate in sight); after
    /// 200 tries, takes the most balanced one seen (or no opening at all).
    pub fn pick(&mut self, variant: Variant, seed: u64) -> Game {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut fallback: Option<(i32, Game)> = None;
        for _ in 0..ATTEMPTS {
            let plies = opening_plies(variant, &mut rng);
            let mut game = match variant {
                Variant::Chess960 => {
                    Game::from_fen(variant, &StartPosition::random(&mut rng).fen(), Default::default())
                        .unwrap_or_else(|_| Game::new(variant))
                } // every start's FEN is valid
                _ => Game::new(variant),
            };
            while game.ply() < plies && !game.is_over() {
                let Some(&m) = game.legal_moves().choose(&mut rng) else { break };
                if game.play(m).is_err() {
                    break;
                }
            }
            if game.is_over() || game.ply() < plies {
                continue;
            }
            // A fresh table each time, so the verdict depends only on the position.
            self.checker.new_game();
            let verdict = self.checker.search(&game, &Limits::depth(CHECK_DEPTH), &mut |_| {});
            let Score::Cp(cp) = verdict.score else { continue };
            if cp.abs() <= BALANCE_CP {
                return game;
            }
            if fallback.as_ref().is_none_or(|(best, _)| cp.abs() < *best) {
                fallback = Some((cp.abs(), game));
            }
        }
        fallback.map_or_else(|| Game::new(variant), |(_, game)| game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_reproducible_balanced_and_varied() {
        let mut openings = Openings::new();
        for variant in Variant::ALL {
            let a = openings.pick(variant, 1);
            assert_eq!(a.position().fen(), openings.pick(variant, 1).position().fen());
            assert!(!a.is_over());
            let distinct: std::collections::HashSet<String> =
                (0..6).map(|s| openings.pick(variant, s).position().fen()).collect();
            assert!(distinct.len() > 1);
        }
        assert_eq!(openings.pick(Variant::Standard, 3).ply(), 8);
        assert!((4..=6).contains(&openings.pick(Variant::Minichess7, 3).ply()));
        let shuffled = openings.pick(Variant::Chess960, 3);
        assert_eq!(shuffled.ply(), 4);
        assert!(StartPosition::of_board(&shuffled.initial_position().fen()).is_some());
    }
}
