//! Computer players. Every level implements [`Bot`]: given a game, choose a move within the
//! [`Limits`]. Synchronous and free of I/O; a seed makes a bot's choices reproducible.
//!
//! Levels 1–4 follow fixed, simple rules (docs/bots.md); levels 5–8 search with alpha-beta,
//! 5–7 below full strength (a [`Skill`]: a shallow search and a pick among the best few moves).

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

/// How long a bot may think. Levels 1–4 answer at once and ignore these; levels 5–8 stop at the
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

/// A bot level, 1 to 8.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Level(u8);

/// A level outside 1–8.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("level must be 1 to 8, not {0}")]
pub struct LevelError(pub String);

/// Each level's rating, on the scale of Stockfish 15.1's `UCI_Elo`: levels 5–8 measured against
/// Stockfish, levels 1–4 down a chain of matches from level 5 (docs/bots.md has the table, its
/// intervals and the commands; `scripts/calibrate` measures them again). Rounded to 50 from the
/// measurement with the level settings below and the second evaluation fit
/// (`CONCURRENCY=2 scripts/calibrate 100 11`: 247, 339, 516, 558, 1223, 1521, 1783, 2021), since
/// the intervals are ±65 at best. Level 8's is the learnt evaluation's, 2226 from 200 games
/// against `UCI_Elo 2200` (seeds 55 and 57, docs/bots.md "Ratings").
const RATINGS: [u16; 8] = [250, 350, 500, 550, 1200, 1500, 1800, 2250];

impl Level {
    pub const ALL: [Level; 8] = [Level(1), Level(2), Level(3), Level(4), Level(5), Level(6), Level(7), Level(8)];
    /// The strongest level: the engine at full strength.
    pub const FULL: Level = Level(8);

    pub fn new(level: u8) -> Result<Level, LevelError> {
        if (1..=8).contains(&level) {
            Ok(Level(level))
        } else {
            Err(LevelError(level.to_string()))
        }
    }

    pub fn get(self) -> u8 {
        self.0
    }

    /// True for the levels that search (5–8) and so think for the time they are given.
    pub fn searches(self) -> bool {
        self.0 >= 5
    }

    /// How a searching level below full strength plays; None for level 8 and for levels 1–4.
    pub fn skill(self) -> Option<Skill> {
        let (depth, weakness) = match self.0 {
            5 => (1, 90),
            6 => (3, 85),
            7 => (5, 70),
            _ => return None,
        };
        Some(Skill { depth, lines: 4, weakness })
    }

    /// The level's estimated rating (Stockfish `UCI_Elo` scale).
    pub fn rating(self) -> u16 {
        RATINGS[usize::from(self.0 - 1)]
    }

    /// The strongest level rated at most `elo`, or level 1 below every rating.
    pub fn for_rating(elo: u32) -> Level {
        Level::ALL.into_iter().rev().find(|l| u32::from(l.rating()) <= elo).unwrap_or(Level(1))
    }

    /// "Level 6 · ~1500", as the lobby, the terminal client and the API show it.
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

    /// `engine` set up to play at this level (levels 5–8).
    pub fn engine(self, engine: AlphaBeta) -> AlphaBeta {
        engine.with_skill(self.skill())
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
