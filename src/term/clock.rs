//! Clocks in the terminal: the `--time 5+3` option and how remaining times are written.

use std::time::Duration;

use thiserror::Error;

use crate::chess::Color;
use crate::protocol::{ClockSpec, ClockView};

/// A `--time` value that is not `MINUTES+SECONDS`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TimeControlError {
    #[error("expected MINUTES+INCREMENT_SECONDS, such as 5+3, not {0:?}")]
    Shape(String),
    #[error("minutes must be a number above 0 (such as 5 or 0.5), not {0:?}")]
    Minutes(String),
    #[error("the increment must be a whole number of seconds, not {0:?}")]
    Increment(String),
}

/// Reads `5+3` (5 minutes, 3 seconds added per move) into a clock setting. The server checks
/// the range; this only checks the shape.
pub fn parse_time_control(text: &str) -> Result<ClockSpec, TimeControlError> {
    let (minutes, increment) = text.trim().split_once('+').ok_or_else(|| TimeControlError::Shape(text.into()))?;
    let minutes: f64 = minutes.trim().parse().map_err(|_| TimeControlError::Minutes(minutes.into()))?;
    if !minutes.is_finite() || minutes <= 0.0 || minutes > 1e6 {
        return Err(TimeControlError::Minutes(text.into()));
    }
    let increment: u64 = increment.trim().parse().map_err(|_| TimeControlError::Increment(increment.into()))?;
    Ok(ClockSpec {
        // Bounded above, so the product fits easily.
        initial_ms: (minutes * 60_000.0).round() as u64,
        increment_ms: increment.saturating_mul(1000),
    })
}

/// `5+3` for a setting, as people name time controls.
pub fn time_control_name(spec: ClockSpec) -> String {
    let minutes = spec.initial_ms as f64 / 60_000.0;
    format!("{}+{}", minutes, spec.increment_ms / 1000)
}

/// `4:58`, `1:02:03`, or `0:09.4` under ten seconds, when the tenths matter.
pub fn format_time(left: Duration) -> String {
    let ms = left.as_millis();
    let secs = ms / 1000;
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else if secs < 10 {
        format!("{m}:{s:02}.{}", (ms % 1000) / 100)
    } else {
        format!("{m}:{s:02}")
    }
}

/// A side's time left, `elapsed` after the clock was sent.
pub fn remaining(clock: &ClockView, side: Color, elapsed: Duration) -> Duration {
    let left = Duration::from_millis(match side {
        Color::White => clock.white_ms,
        Color::Black => clock.black_ms,
    });
    if clock.running == Some(side) {
        left.saturating_sub(elapsed)
    } else {
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse() {
        assert_eq!(parse_time_control("5+3"), Ok(ClockSpec { initial_ms: 300_000, increment_ms: 3_000 }));
        assert_eq!(parse_time_control("0.5+0"), Ok(ClockSpec { initial_ms: 30_000, increment_ms: 0 }));
        assert!(matches!(parse_time_control("5"), Err(TimeControlError::Shape(_))));
        assert!(matches!(parse_time_control("x+3"), Err(TimeControlError::Minutes(_))));
        assert!(matches!(parse_time_control("0+3"), Err(TimeControlError::Minutes(_))));
        assert!(matches!(parse_time_control("NaN+3"), Err(TimeControlError::Minutes(_))));
        assert!(matches!(parse_time_control("5+-1"), Err(TimeControlError::Increment(_))));
        assert_eq!(time_control_name(ClockSpec { initial_ms: 300_000, increment_ms: 3_000 }), "5+3");
    }

    #[test]
    fn times_are_written_like_a_clock() {
        assert_eq!(format_time(Duration::from_millis(298_400)), "4:58");
        assert_eq!(format_time(Duration::from_millis(9_450)), "0:09.4");
        assert_eq!(format_time(Duration::ZERO), "0:00.0");
        assert_eq!(format_time(Duration::from_secs(3723)), "1:02:03");
        let view = ClockView {
            initial_ms: 1,
            increment_ms: 0,
            white_ms: 5_000,
            black_ms: 4_000,
            running: Some(Color::White),
            first_move_ms: None,
            days: None,
            berserkable: false,
        };
        assert_eq!(remaining(&view, Color::White, Duration::from_secs(1)), Duration::from_secs(4));
        assert_eq!(remaining(&view, Color::Black, Duration::from_secs(1)), Duration::from_secs(4));
        assert_eq!(remaining(&view, Color::White, Duration::from_secs(9)), Duration::ZERO);
    }
}
