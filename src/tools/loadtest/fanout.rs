//! `gambit loadtest fanout`: one game, many spectators. Two scripted players move at a set
//! rate; the figure that matters is the time from a move's send to each spectator's receipt.

use std::time::Duration;

use clap::Args;

use super::play::Plan;
use super::{CommonArgs, RunArgs};

/// Highest move rate accepted. Each player sends every other move, and the server lets one
/// connection send 10 messages a second after a burst of 20, so rates above 20 draw
/// `rate_limited` errors (which the report counts).
const MAX_RATE: f64 = 1000.0;

#[derive(Args, Debug, Clone)]
pub struct FanoutArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// Spectators watching the one game
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub spectators: u32,
    /// Moves per second in the game (both players together)
    #[arg(long, default_value_t = 1.0, value_parser = parse_rate)]
    pub rate: f64,
}

fn parse_rate(text: &str) -> Result<f64, String> {
    let rate: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
    if rate.is_finite() && rate > 0.0 && rate <= MAX_RATE {
        Ok(rate)
    } else {
        Err(format!("the rate must be above 0 and at most {MAX_RATE} moves a second"))
    }
}

impl FanoutArgs {
    /// The play plan: one slot with every spectator.
    pub fn plan(&self) -> Plan {
        Plan {
            games: 1,
            spectators: self.spectators as usize,
            interval: Duration::from_secs_f64(1.0 / self.rate),
            duration: self.run.duration(),
            seed: self.run.seed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_checked() {
        assert_eq!(parse_rate("2.5"), Ok(2.5));
        for bad in ["0", "-1", "nan", "inf", "1001", "fast"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
    }
}
