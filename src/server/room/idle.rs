//! Unattended games end: a room whose seats' holders are all gone and that nobody watches for
//! the idle timeout is closed (a game still waiting for a player) or ended as `abandoned`
//! (people) or drawn by `adjudication` (bot against bot). A bot-vs-bot game pauses well before
//! that, once nobody has watched it for a while. See docs/protocol.md, "Limits".

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::RoomCommand;
use crate::chess::{ByColor, Color, EndReason, Outcome};

/// Starts the task that asks the room, every so often, whether it has been idle too long. It
/// ends with the room.
pub(super) fn start_ticker(timeout: Duration, room: mpsc::WeakSender<RoomCommand>) {
    let period = (timeout / 8).clamp(Duration::from_millis(10), Duration::from_secs(5));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval_at(Instant::now() + period, period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(room) = room.upgrade() else { return };
            if room.send(RoomCommand::IdleCheck).await.is_err() {
                return;
            }
        }
    });
}

/// Since when a room has had nobody at it.
#[derive(Debug, Default)]
pub(super) struct IdleTracker {
    since: Option<Instant>,
}

impl IdleTracker {
    /// Notes whether anyone is at the room `now`; how long nobody has been (zero if someone is).
    pub(super) fn unattended(&mut self, attended: bool, now: Instant) -> Duration {
        if attended {
            self.since = None;
            return Duration::ZERO;
        }
        let since = *self.since.get_or_insert(now);
        now.saturating_duration_since(since)
    }
}

/// How an abandoned game in progress ends. `human`: which seats are people's. Against a bot
/// the absent person loses; between people, the one to move; between bots nobody is to
/// blame: a draw by adjudication.
pub(super) fn abandoned_outcome(human: ByColor<bool>, turn: Color) -> Outcome {
    match (human.white, human.black) {
        (false, false) => Outcome::draw(EndReason::Adjudication),
        (true, false) => Outcome::win(Color::Black, EndReason::Abandoned),
        (false, true) => Outcome::win(Color::White, EndReason::Abandoned),
        (true, true) => Outcome::win(!turn, EndReason::Abandoned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_absent_lose_and_bots_draw() {
        let mut human = ByColor { white: false, black: false };
        assert_eq!(abandoned_outcome(human, Color::White), Outcome::draw(EndReason::Adjudication));
        human.white = true;
        assert_eq!(abandoned_outcome(human, Color::White), Outcome::win(Color::Black, EndReason::Abandoned));
        let both = ByColor { white: true, black: true };
        assert_eq!(abandoned_outcome(both, Color::Black), Outcome::win(Color::White, EndReason::Abandoned));
    }

    #[test]
    fn idle_time_restarts_when_someone_comes() {
        let start = Instant::now();
        let secs = Duration::from_secs;
        let mut idle = IdleTracker::default();
        assert_eq!(idle.unattended(false, start), secs(0));
        assert_eq!(idle.unattended(false, start + secs(9)), secs(9));
        assert_eq!(idle.unattended(true, start + secs(9)), secs(0));
        assert_eq!(idle.unattended(false, start + secs(10)), secs(0));
        assert_eq!(idle.unattended(false, start + secs(20)), secs(10));
    }
}
