//! The room's chess clock: its view, when a flag falls, starting and stopping it with the game.

use tokio::time::Instant;

use super::actor::Room;
use super::clock::{self, Clock};
use super::events::Batch;
use crate::protocol::Status;

impl Room {
    // ---- clock -----------------------------------------------------------------------------

    pub(super) fn clock_view(&self) -> Option<crate::protocol::ClockView> {
        self.clock.as_ref().map(|c| c.view(Instant::now()))
    }

    /// When the running side's flag falls, while the game goes on.
    pub(super) fn flag_at(&self) -> Option<Instant> {
        self.clock.as_ref().filter(|_| !self.game.is_over()).and_then(Clock::flag_at)
    }

    /// Runs the clock of the side to move while the game is on, stops it otherwise. True if this
    /// started the clock of a game whose clock was not running.
    pub(super) fn sync_clock(&mut self) -> bool {
        let ongoing = self.status() == Status::Ongoing;
        let turn = self.game.turn();
        let Some(clock) = &mut self.clock else { return false };
        let now = Instant::now();
        let was_running = clock.running().is_some();
        if ongoing {
            clock.start(turn, now);
        } else {
            clock.stop(now);
        }
        ongoing && !was_running
    }

    /// Ends the game if the running side's time is up: a loss, or a draw when the opponent
    /// cannot mate (docs/rules.md, "Time controls").
    pub(super) async fn check_flag(&mut self, out: &mut Batch) {
        if self.game.is_over() {
            return;
        }
        let Some(flagged) = self.clock.as_ref().and_then(|c| c.flagged(Instant::now())) else { return };
        let outcome = crate::chess::timeout_outcome(self.game.position(), flagged);
        self.finish(outcome, out).await;
    }
}
