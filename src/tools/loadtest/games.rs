//! `gambit loadtest games`: many games at once, two scripted players each and a few
//! spectators; the figures that matter are move-to-ack and move-to-opponent latency, the
//! moves per second the server sustains, and that no event is lost or reordered.

use std::time::Duration;

use clap::Args;

use super::play::Plan;
use super::{CommonArgs, RunArgs};

#[derive(Args, Debug, Clone)]
pub struct GamesArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// Games played at the same time (two connections each)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub games: u32,
    /// Milliseconds between two moves of a game (each player moves every other interval)
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    pub interval_ms: u64,
    /// Spectators watching each game
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub spectators: u32,
}

impl GamesArgs {
    /// The play plan: one slot per game.
    pub fn plan(&self) -> Plan {
        Plan {
            games: self.games as usize,
            spectators: self.spectators as usize,
            interval: Duration::from_millis(self.interval_ms),
            duration: self.run.duration(),
            seed: self.run.seed,
        }
    }
}
