//! Computer players. Every level implements [`Bot`]: given a game, choose a move within the
//! [`Limits`]. Synchronous and free of I/O; a seed makes a bot's choices reproducible.
//!
//! Levels 1–4 follow fixed, simple rules (docs/bots.md); levels 5–12 search with alpha-beta,
//! 5–11 below full strength (a [`Skill`]: a shallow search and a pick among the best few
//! moves; or a node budget).

pub mod agents;
pub mod analysis;
pub mod eval;
mod level1;
mod level2;
mod level3;
mod level4;
pub mod search;
pub mod values;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use thiserror::Error;

use crate::chess::{Game, Move};

pub use level1::Level1;
pub use level2::Level2;
pub use level3::Level3;
pub use level4::Level4;
pub use search::{AlphaBeta, Skill};

/// How long a bot may think. Levels 1–4 answer at once and ignore these; levels 5–12 stop at the
/// first limit reached and, without any, searches to a default depth.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub movetime: Option<Duration>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// The movetime is an allowance, not a time to fill: stop after an iteration that ends past
    /// half of it, as the next would seldom finish. For a clock's share (what is not spent is
    /// kept for later moves) and for analysis (nobody should wait longer than needed). Without
    /// it the search uses the whole movetime, as UCI `go movetime` asks; a move searched
    /// exactly in the unfinished iteration is then still played if it beat the last choice.
    pub early_stop: bool,
    /// Set from another thread to make the bot answer now (UCI `stop`).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Limits {
    pub fn movetime(ms: u64) -> Limits {
        Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() }
    }

    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    /// True once someone has asked the bot to stop.
    pub fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// A computer player.
pub trait Bot: Send {
    /// A legal move in the game's current position, or `None` when there is none (or the game is over).
    fn choose(&mut self, game: &Game, limits: &Limits) -> Option<Move>;

    /// Forgets what it learned in earlier games (UCI `ucinewgame`).
    fn new_game(&mut self) {}
}

/// A bot level, 1 to 12.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Level(u8);

/// A level outside 1–12.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("level must be 1 to 12, not {0}")]
pub struct LevelError(pub String);

/// The number of today's ladder, written with every stored level (see [`Level::of_record`]).
pub const LADDER: u8 = 2;

/// How an engine level (5–12) is held back, the ways engines limit their strength: a shallow
/// search and a pick among the best few moves, or a full search stopped after a node budget.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Strength {
    /// Levels 1–4: one-move rules, no search.
    Rules,
    /// A shallow search and a pick among its best few moves.
    Skill(Skill),
    /// The full search, stopped after this many nodes a move whatever the time allows.
    Nodes(u64),
    /// Full strength.
    Full,
}

/// Each level's rating on the scale of Stockfish 15.1's `UCI_Elo` and how it plays. The
/// ratings are `scripts/calibrate`'s (docs/bots.md "Ratings" has the table with intervals,
/// games and opponents), rounded to 50. The ladder has no step above 300 from level 4 up
/// (lichess's computer levels step by about 300), and each level scores at least 55% against
/// the one below it in standard chess and in minichess7 (docs/bots.md "Head to head").
const LEVELS: [(u16, Strength); 12] = [
    (150, Strength::Rules),
    (250, Strength::Rules),
    (450, Strength::Rules),
    (500, Strength::Rules),
    (750, Strength::Skill(Skill { depth: 2, lines: 3, weakness: 128 })),
    (1000, Strength::Skill(Skill { depth: 2, lines: 2, weakness: 128 })),
    (1200, Strength::Skill(Skill { depth: 2, lines: 4, weakness: 100 })),
    (1450, Strength::Skill(Skill { depth: 3, lines: 4, weakness: 100 })),
    (1550, Strength::Skill(Skill { depth: 4, lines: 4, weakness: 100 })),
    (1750, Strength::Skill(Skill { depth: 5, lines: 4, weakness: 85 })),
    (2000, Strength::Nodes(20_000)),
    (2300, Strength::Full),
];

impl Level {
    pub const ALL: [Level; 12] = {
        let mut all = [Level(1); 12];
        let mut i = 0;
        while i < all.len() {
            all[i] = Level(i as u8 + 1);
            i += 1;
        }
        all
    };
    /// The strongest level: the engine at full strength.
    pub const FULL: Level = Level(12);

    pub fn new(level: u8) -> Result<Level, LevelError> {
        if (1..=Level::FULL.0).contains(&level) {
            Ok(Level(level))
        } else {
            Err(LevelError(level.to_string()))
        }
    }

    /// The level a game stored by a server of the first ladder (levels 1–8, before the ladder
    /// had twelve) seated as `level`: levels 1–4 are the same players; the first ladder's
    /// engine levels are today's nearest in rating to what they were then (5 ~1200, 6 ~1500,
    /// 7 ~1800, and 8, full strength, ~2250).
    pub fn of_first_ladder(level: u8) -> Result<Level, LevelError> {
        const FIRST_ENGINE_LEVELS: [u16; 4] = [1200, 1500, 1800, 2250];
        match level {
            1..=4 => Ok(Level(level)),
            5..=8 => Ok(Level::nearest(FIRST_ENGINE_LEVELS[usize::from(level - 5)])),
            _ => Err(LevelError(level.to_string())),
        }
    }

    /// The level a stored record names: `ladder` is the ladder it was written under (0, as
    /// records written before the ladder had a number read, is the first ladder; [`LADDER`]
    /// is today's), so a game that seated the first ladder's level 8 still seats full strength.
    pub fn of_record(level: u8, ladder: u8) -> Result<Level, LevelError> {
        match ladder {
            0 | 1 => Level::of_first_ladder(level),
            _ => Level::new(level),
        }
    }

    pub fn get(self) -> u8 {
        self.0
    }

    /// How this level plays.
    pub fn strength(self) -> Strength {
        LEVELS[usize::from(self.0 - 1)].1
    }

    /// True for the levels that search (5–12) and so may think for the time they are given.
    pub fn searches(self) -> bool {
        self.strength() != Strength::Rules
    }

    /// How a searching level below full strength picks its move; None for the others.
    pub fn skill(self) -> Option<Skill> {
        match self.strength() {
            Strength::Skill(skill) => Some(skill),
            _ => None,
        }
    }

    /// The level's estimated rating (Stockfish `UCI_Elo` scale).
    pub fn rating(self) -> u16 {
        LEVELS[usize::from(self.0 - 1)].0
    }

    /// The strongest level rated at most `elo`, or level 1 below every rating.
    pub fn for_rating(elo: u32) -> Level {
        Level::ALL.into_iter().rev().find(|l| u32::from(l.rating()) <= elo).unwrap_or(Level(1))
    }

    /// The level rated nearest `rating` (the weaker of two as near).
    pub fn nearest(rating: u16) -> Level {
        Level::ALL.into_iter().min_by_key(|l| l.rating().abs_diff(rating)).unwrap_or(Level::FULL)
    }

    /// "Level 6 · ~1000", as the lobby, the terminal client and the API show it.
    pub fn label(self) -> String {
        format!("Level {} · ~{}", self.0, self.rating())
    }

    /// A bot of this level; with a seed its choices are reproducible.
    pub fn bot(self, seed: Option<u64>) -> Box<dyn Bot> {
        match self.0 {
            1 => Box::new(Level1::new(seed)),
            2 => Box::new(Level2::new(seed)),
            3 => Box::new(Level3::new(seed)),
            4 => Box::new(Level4::new(seed)),
            _ => Box::new(self.engine(AlphaBeta::new(seed))),
        }
    }

    /// `engine` set up to play at this level (levels 5–12).
    pub fn engine(self, engine: AlphaBeta) -> AlphaBeta {
        let nodes = match self.strength() {
            Strength::Nodes(nodes) => Some(nodes),
            _ => None,
        };
        engine.with_skill(self.skill()).with_node_cap(nodes)
    }
}

impl FromStr for Level {
    type Err = LevelError;

    fn from_str(s: &str) -> Result<Level, LevelError> {
        s.trim().parse::<u8>().ok().and_then(|n| Level::new(n).ok()).ok_or_else(|| LevelError(s.to_string()))
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "level {}", self.0)
    }
}

/// The random source of a bot: seeded for reproducible play, else from the OS.
pub(crate) fn rng(seed: Option<u64>) -> SmallRng {
    match seed {
        Some(seed) => SmallRng::seed_from_u64(seed),
        None => SmallRng::from_os_rng(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_climbs_by_at_most_300_from_level_4() {
        let ratings: Vec<u16> = Level::ALL.iter().map(|l| l.rating()).collect();
        assert!(ratings.windows(2).all(|w| w[0] < w[1]), "{ratings:?}");
        assert!(ratings[3..].windows(2).all(|w| w[1] - w[0] <= 300), "{ratings:?}");
        assert_eq!(Level::ALL.map(Level::get), std::array::from_fn(|i| i as u8 + 1));
        assert_eq!(Level::FULL.strength(), Strength::Full);
        assert!(Level::ALL.iter().all(|l| l.searches() == (l.get() >= 5)));
    }

    #[test]
    fn levels_outside_the_ladder_are_refused() {
        for bad in ["0", "13", "-1", "", "x", "256"] {
            assert!(bad.parse::<Level>().is_err(), "{bad}");
        }
        assert_eq!(Level::new(13).unwrap_err().to_string(), "level must be 1 to 12, not 13");
        assert_eq!(" 12 ".parse::<Level>(), Ok(Level::FULL));
    }

    #[test]
    fn a_stored_level_reads_on_the_ladder_it_was_written_under() {
        let first: Vec<u8> = (1..=8).map(|l| Level::of_record(l, 0).map(Level::get).unwrap()).collect();
        assert_eq!(first, [1, 2, 3, 4, 7, 8, 10, 12]);
        assert!(Level::of_record(9, 0).is_err() && Level::of_record(0, 0).is_err());
        assert_eq!(Level::of_record(9, LADDER), Level::new(9));
        assert!(Level::of_record(13, LADDER).is_err());
    }

    #[test]
    fn a_node_capped_level_stops_at_its_nodes() {
        let Strength::Nodes(cap) = Level::new(11).unwrap().strength() else { panic!("level 11 counts nodes") };
        let game = Game::new(crate::chess::Variant::Standard);
        let mut engine = Level::new(11).unwrap().engine(AlphaBeta::new(Some(1)));
        let result = engine.search(&game, &Limits::movetime(60_000), &mut |_| {});
        assert!(result.best.is_some() && result.nodes <= cap + 2_000, "{} nodes", result.nodes);
    }
}
