//! Seats and presence: joining, resuming and leaving seats, claims against an absent player,
//! and games left unattended (ended, or a bot game paused).

use std::time::Duration;

use tokio::time::Instant;

use super::actor::Room;
use super::build::bad;
use super::clock::Clock;
use super::events::Batch;
use super::idle;
use super::seat::Seat;
use super::ClaimKind;
use crate::chess::{Color, EndReason, Outcome};
use crate::protocol::{ClaimView, Refusal, Status};
use crate::server::accounts::Player;
use crate::server::store::{AccountKey, StoreEvent};
use crate::server::token::TokenHash;

impl Room {
    // ---- seats ----------------------------------------------------------------------------

    /// Seats a new player: their side and token.
    pub(super) async fn join(
        &mut self,
        color: Option<Color>,
        player: Player,
        out: &mut Batch,
    ) -> Result<(Color, String), Refusal> {
        if self.game.is_over() {
            // An open seat of a game called off: nothing to sit down to.
            return Err(Refusal::game_over("the game is over; you can watch it"));
        }
        let side = match color {
            Some(side) => side,
            None => [Color::White, Color::Black]
                .into_iter()
                .find(|s| self.seat(*s).is_open())
                .ok_or_else(|| Refusal::seat_taken("both seats are taken; you can watch"))?,
        };
        if !self.seat(side).is_open() {
            let who = if self.seat(side).is_bot() { "a bot" } else { "another player" };
            return Err(Refusal::seat_taken(format!("the {} seat is taken by {who}", side.name())));
        }
        if self.rated {
            let Some(account) = player.account_id() else {
                return Err(Refusal::login_required("this game is rated: log in to play it"));
            };
            if self.seat(side.other()).account() == Some(account) {
                return Err(Refusal::bad_request("you hold the other seat; a rated game is against someone else"));
            }
        }
        let token = player.seat_token(&self.id);
        // The seat is the player's once the store has it: a restart must know their token.
        let stored_name = player.name.as_ref().map(|n| n.as_str().to_string());
        let account = player.account_id();
        self.store(StoreEvent::Seat { side, token: TokenHash::of(&token), name: stored_name, account }).await?;
        *self.seat_mut(side) = Seat::taken(&token, &player);
        self.push_seats(out);
        if self.sync_clock() {
            // The seats event carries no clock: a fresh state tells everyone it is running.
            out.push(self.state_event());
        }
        self.maybe_start_bot();
        Ok((side, token))
    }

    pub(super) fn side_of(&self, token: &str) -> Option<Color> {
        // Hashed once, compared with both seats.
        let presented = TokenHash::of(token);
        [Color::White, Color::Black].into_iter().find(|s| self.seat(*s).held_by(&presented))
    }

    /// A seat holder comes back (or opens another connection): their side. A logged-in player
    /// (`account`) gets back the seat their account holds, which `token` opens from then on.
    pub(super) fn resume(
        &mut self,
        token: &str,
        account: Option<AccountKey>,
        out: &mut Batch,
    ) -> Result<Color, Refusal> {
        let by_account = || {
            let account = account?;
            [Color::White, Color::Black].into_iter().find(|s| self.seat(*s).account() == Some(account))
        };
        let side = match (self.side_of(token), by_account()) {
            (Some(side), _) => side,
            (None, Some(side)) => {
                if let Seat::Human { also, .. } = self.seat_mut(side) {
                    *also = Some(TokenHash::of(token));
                }
                side
            }
            (None, None) if account.is_some() => {
                return Err(Refusal::not_a_player("your account holds no seat in this game"))
            }
            (None, None) => return Err(Refusal::not_a_player("that token holds no seat in this game")),
        };
        let came_online = match self.seat_mut(side) {
            Seat::Human { online, away_since, .. } => {
                *online += 1;
                *away_since = None;
                *online == 1
            }
            Seat::Bot { .. } | Seat::Engine { .. } => false,
        };
        if came_online {
            self.claim_told[side] = false;
            self.push_seats(out);
        }
        Ok(side)
    }

    pub(super) fn leave(&mut self, token: &str, out: &mut Batch) {
        let Some(side) = self.side_of(token) else { return };
        let went_offline = match self.seat_mut(side) {
            Seat::Human { online, away_since, .. } if *online > 0 => {
                *online -= 1;
                if *online == 0 {
                    *away_since = Some(Instant::now());
                }
                *online == 0
            }
            _ => false,
        };
        if went_offline {
            self.claim_told[side] = false;
            self.push_seats(out);
        }
    }

    // ---- presence: claims against an absent player ------------------------------------------

    /// How long a player may be away before the opponent may claim the game.
    pub(super) fn grace(&self) -> Duration {
        self.ctx.config.claim_grace.for_clock(self.clock.as_ref().map(Clock::spec))
    }

    /// The side that is away from an ongoing game while its opponent is connected, and since when.
    pub(super) fn absent(&self) -> Option<(Color, Instant)> {
        if self.status() != Status::Ongoing {
            return None;
        }
        [Color::White, Color::Black].into_iter().find_map(|side| {
            let since = self.seat(side).away_since()?;
            self.seat(side.other()).is_online().then_some((side, since))
        })
    }

    /// Who may claim the game and in how long, while a player is away.
    pub(super) fn claim_view(&self, now: Instant) -> Option<ClaimView> {
        let (absent, since) = self.absent()?;
        let left = (since + self.grace()).saturating_duration_since(now);
        Some(ClaimView { by: absent.other(), in_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX) })
    }

    /// When the opponent of an absent player is next to be told that they may claim.
    pub(super) fn claim_at(&self) -> Option<Instant> {
        let (absent, since) = self.absent()?;
        (!self.claim_told[absent]).then(|| since + self.grace())
    }

    /// The grace has run out: a `seats` event tells the opponent they may claim now.
    pub(super) fn open_claims(&mut self, out: &mut Batch) {
        if let Some((absent, _)) = self.absent() {
            self.claim_told[absent] = true;
            self.push_seats(out);
        }
    }

    /// `side` claims the game of an opponent who has been away for the grace period.
    pub(super) async fn claim(&mut self, side: Color, kind: ClaimKind, out: &mut Batch) -> Result<(), Refusal> {
        let opponent = self.seat(side.other());
        if opponent.is_bot() {
            return Err(bad("there is nothing to claim: your opponent is a computer player"));
        }
        if opponent.is_online() {
            return Err(bad("your opponent is connected; there is nothing to claim"));
        }
        let Some(since) = opponent.away_since() else {
            return Err(bad("your opponent is connected; there is nothing to claim"));
        };
        let left = (since + self.grace()).saturating_duration_since(Instant::now());
        if !left.is_zero() {
            let secs = left.as_millis().div_ceil(1000);
            return Err(bad(format!("your opponent may still come back: you can claim in {secs} s")));
        }
        let outcome = match kind {
            ClaimKind::Win => Outcome::win(side, EndReason::Abandoned),
            ClaimKind::Draw => Outcome::draw(EndReason::Abandoned),
        };
        self.finish(outcome, out).await;
        Ok(())
    }

    // ---- idle games ------------------------------------------------------------------------

    /// Someone is at the game: a seat holder online, a spectator, or another follower (such as
    /// the creator of a bot game).
    pub(super) fn attended(&self) -> bool {
        let online = self.seats.any(|s| matches!(s, Seat::Human { online, .. } if *online > 0));
        online || self.watchers > 0 || self.events.subscribers() > self.observers
    }

    /// Ends an unfinished game left alone for the idle timeout. True if the room is to close
    /// (a game still waiting for a player simply goes); a game in progress ends and stays
    /// while finished games do.
    pub(super) async fn idle_check(&mut self, out: &mut Batch) -> bool {
        if self.game.is_over() {
            return false;
        }
        let alone = self.idle.unattended(self.attended(), Instant::now());
        if alone < self.ctx.config.idle_timeout {
            if alone >= self.ctx.config.unwatched_bot_pause {
                // A flag that fell meanwhile ends the game rather than freezing at zero.
                self.check_flag(out).await;
                self.pause();
            }
            return false;
        }
        if self.status() == Status::Waiting {
            tracing::info!(game = %self.id, "waiting game left alone; closed");
            // Nobody played it: it need not be kept, nor come back after a restart.
            let _ = self.store(StoreEvent::Discarded).await;
            return true;
        }
        let human = self.seats.as_ref().map(|seat| !seat.is_bot());
        let outcome = idle::abandoned_outcome(human, self.game.turn());
        tracing::info!(game = %self.id, %outcome, "unattended game ended");
        self.finish(outcome, out).await;
        false
    }
}
