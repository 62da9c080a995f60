//! Presence: who is at the game — counted spectators (their count sent in batches), the
//! server's own observers, how long the game has been left alone — and claims against a
//! player who went away while the opponent stayed.

use std::time::Duration;

use tokio::time::Instant;

use super::build::bad;
use super::events::EventLog;
use super::idle::{self, IdleTracker};
use super::seats::Seats;
use super::{ClaimKind, RoomConfig};
use crate::chess::{ByColor, Color, EndReason, Game, Outcome};
use crate::protocol::{ClaimView, Refusal, ServerMessage, Status};

/// A player away from an ongoing game while the opponent is connected: their side, and since
/// when (see [`Seats::absent`]).
pub(super) type Absent = Option<(Color, Instant)>;

/// Who attends the room.
#[derive(Default)]
pub(super) struct Presence {
    /// Counted spectators.
    watchers: usize,
    /// The count last sent.
    watchers_sent: usize,
    /// When the count is next sent, if it may have changed.
    flush_at: Option<Instant>,
    /// Subscribers that are the server's own (text logs): they do not attend the game.
    observers: usize,
    /// How long the game has been left alone.
    idle: IdleTracker,
    /// Whether the opponent of an absent player has been told they may now claim, by side of
    /// the absent player.
    claim_told: ByColor<bool>,
}

/// What becomes of an unfinished game left alone (see `idle`).
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Idle {
    /// Attended, or not for long.
    No,
    /// Alone long enough for a bot-vs-bot game to pause.
    Unwatched,
    /// A game still waiting for a player, alone for the idle timeout: the room closes.
    Close,
    /// A game in progress alone for the idle timeout: it ends so.
    Abandoned(Outcome),
}

impl Presence {
    /// The counted spectators.
    pub(super) fn watchers(&self) -> usize {
        self.watchers
    }

    /// `n` more counted spectators (a count from another node is never trusted not to
    /// overflow); a changed count goes out within `batch`.
    pub(super) fn watch(&mut self, n: usize, batch: Duration) {
        if n > 0 {
            self.watchers = self.watchers.saturating_add(n);
            self.schedule(batch);
        }
    }

    /// A counted spectator left.
    pub(super) fn unwatch(&mut self, batch: Duration) {
        self.watchers = self.watchers.saturating_sub(1);
        self.schedule(batch);
    }

    /// One more of the server's own observers.
    pub(super) fn observe(&mut self) {
        self.observers += 1;
    }

    fn schedule(&mut self, batch: Duration) {
        if self.flush_at.is_none() {
            self.flush_at = Some(Instant::now() + batch);
        }
    }

    /// When the count is next to be sent.
    pub(super) fn flush_at(&self) -> Option<Instant> {
        self.flush_at
    }

    /// Time to send the count of watchers to the followers of `events`: true if it changed
    /// since it was last sent, and so was sent.
    pub(super) fn flush(&mut self, events: &EventLog) -> bool {
        self.flush_at = None;
        if self.watchers == self.watchers_sent {
            return false;
        }
        self.watchers_sent = self.watchers;
        let count = self.watchers;
        events.announce(ServerMessage::Watchers { game: events.game().clone(), count }.to_json().into());
        true
    }

    /// Someone is at the game: a seat holder online, a spectator, or another follower of the
    /// room's `subscribers` (such as the creator of a bot game).
    fn attended(&self, seats: &Seats, subscribers: usize) -> bool {
        seats.any_online() || self.watchers > 0 || subscribers > self.observers
    }

    /// Notes who is at an unfinished `game` now, counting the subscribers of its `events` (a
    /// finished game stays while finished games do): what becomes of it, if it has been left
    /// alone for long by `config`'s limits.
    pub(super) fn idle(&mut self, game: &Game, seats: &Seats, events: &EventLog, config: &RoomConfig) -> Idle {
        if game.is_over() {
            return Idle::No;
        }
        let alone = self.idle.unattended(self.attended(seats, events.subscribers()), Instant::now());
        if alone < config.idle_timeout {
            return if alone >= config.unwatched_bot_pause { Idle::Unwatched } else { Idle::No };
        }
        if seats.status(game) == Status::Waiting {
            tracing::info!(game = %events.game(), "waiting game left alone; closed");
            return Idle::Close;
        }
        let outcome = idle::abandoned_outcome(seats.humans(), game.turn());
        tracing::info!(game = %events.game(), %outcome, "unattended game ended");
        Idle::Abandoned(outcome)
    }

    /// `side`'s player came or went: their opponent is to be told anew when they may claim.
    pub(super) fn came_or_went(&mut self, side: Color) {
        self.claim_told[side] = false;
    }

    /// Who may claim the game and in how long (`grace` after the player went away).
    pub(super) fn claim_view(absent: Absent, grace: Duration, now: Instant) -> Option<ClaimView> {
        let (absent, since) = absent?;
        let left = (since + grace).saturating_duration_since(now);
        Some(ClaimView { by: absent.other(), in_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX) })
    }

    /// When the opponent of an absent player is next to be told that they may claim.
    pub(super) fn claim_at(&self, absent: Absent, grace: Duration) -> Option<Instant> {
        let (absent, since) = absent?;
        (!self.claim_told[absent]).then(|| since + grace)
    }

    /// The grace has run out: true if the opponent is to be told (a `seats` event) that they
    /// may claim now.
    pub(super) fn open_claim(&mut self, absent: Absent) -> bool {
        let Some((absent, _)) = absent else { return false };
        self.claim_told[absent] = true;
        true
    }

    /// `side` claims the game of the opponent in `seats`, away for the `grace` period: how
    /// the game ends, or why it may not be claimed.
    pub(super) fn claim(side: Color, kind: ClaimKind, seats: &Seats, grace: Duration) -> Result<Outcome, Refusal> {
        let opponent = seats.seat(side.other());
        if opponent.is_bot() {
            return Err(bad("there is nothing to claim: your opponent is a computer player"));
        }
        if opponent.is_online() {
            return Err(bad("your opponent is connected; there is nothing to claim"));
        }
        let Some(since) = opponent.away_since() else {
            return Err(bad("your opponent is connected; there is nothing to claim"));
        };
        let left = (since + grace).saturating_duration_since(Instant::now());
        if !left.is_zero() {
            let secs = left.as_millis().div_ceil(1000);
            return Err(bad(format!("your opponent may still come back: you can claim in {secs} s")));
        }
        Ok(match kind {
            ClaimKind::Win => Outcome::win(side, EndReason::Abandoned),
            ClaimKind::Draw => Outcome::draw(EndReason::Abandoned),
        })
    }
}
