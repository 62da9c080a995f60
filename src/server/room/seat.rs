//! Seats: a human seat held by a secret token, or a bot of some level; and the tokens themselves.

use rand::rngs::OsRng;
use rand::{Rng, TryRngCore};

use crate::bots::{Bot, Level};
use crate::server::protocol::SeatView;

/// Who sits on one side of a room.
pub(super) enum Seat {
    /// A person. `token` is None while nobody has taken the seat; `online` counts the open
    /// connections holding it.
    Human { token: Option<String>, online: usize },
    /// A computer player. The bot itself is lent to the thinking task while it searches.
    Bot { level: Level, bot: Option<Box<dyn Bot>> },
}

impl Seat {
    /// What everyone may see of the seat.
    pub(super) fn view(&self) -> SeatView {
        match self {
            Seat::Human { token: None, .. } => SeatView::Open,
            Seat::Human { online, .. } => SeatView::Human { online: *online > 0 },
            Seat::Bot { level, .. } => SeatView::Bot { level: level.get() },
        }
    }

    pub(super) fn is_bot(&self) -> bool {
        matches!(self, Seat::Bot { .. })
    }

    pub(super) fn is_open(&self) -> bool {
        matches!(self, Seat::Human { token: None, .. })
    }

    /// True if `token` holds this seat.
    pub(super) fn held_by(&self, token: &str) -> bool {
        matches!(self, Seat::Human { token: Some(t), .. } if same_secret(t, token))
    }
}

/// A new seat token: 128 bits from the operating system's random source, as 32 hex digits.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    if OsRng.try_fill_bytes(&mut bytes).is_err() {
        // The thread RNG is a CSPRNG seeded from the OS too; only used if the OS source fails.
        rand::rng().fill(&mut bytes);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares secrets in time independent of where they differ, so timing leaks nothing.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_and_distinct() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        let seat = Seat::Human { token: Some(a.clone()), online: 1 };
        assert!(seat.held_by(&a));
        assert!(!seat.held_by(&b));
        assert!(!seat.held_by(""));
        assert_eq!(seat.view(), SeatView::Human { online: true });
        assert_eq!(Seat::Human { token: None, online: 0 }.view(), SeatView::Open);
    }
}
