//! Bot seats in the room: starting the bot to move, taking its answer, pausing an unwatched
//! bot-vs-bot game and waking it.

use std::time::Duration;

use tokio::time::Instant;

use super::actor::Room;
use super::bot::{self};
use super::clock::{self};
use super::events::Batch;
use super::seat::Seat;
use crate::bots::Limits;
use crate::chess::Move;
use crate::protocol::Status;

impl Room {
    // ---- bots ------------------------------------------------------------------------------

    pub(super) fn cancel_bot(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
    }

    /// Pauses a bot-vs-bot game that nobody watches: its moves would cost CPU for no one.
    pub(super) fn pause(&mut self) {
        if self.paused || self.game.is_over() || !self.seats.all(Seat::is_bot) {
            return;
        }
        tracing::info!(game = %self.id, "bot game paused: nobody watches it");
        self.paused = true;
        self.cancel_bot();
        if let Some(clock) = &mut self.clock {
            clock.stop(Instant::now());
        }
    }

    /// Someone watches: a paused bot game goes on, clock and all.
    pub(super) fn wake(&mut self, out: &mut Batch) {
        if !self.paused {
            return;
        }
        tracing::info!(game = %self.id, "bot game resumed: someone watches it");
        self.paused = false;
        if self.sync_clock() {
            // Everyone, the newcomer included, learns that the clock runs again from now.
            out.push(self.state_event());
        }
        self.maybe_start_bot();
    }

    /// Starts the bot to move, if a bot is to move and is not already thinking.
    pub(super) fn maybe_start_bot(&mut self) {
        if self.job.is_some() || self.paused || self.game.is_over() || self.status() != Status::Ongoing {
            return;
        }
        let turn = self.game.turn();
        if !self.seat(turn).is_bot() {
            return;
        }
        let both_bots = self.seats.all(Seat::is_bot);
        let config = self.ctx.config.clone();
        let (movetime, delay) = match &self.clock {
            Some(c) => {
                let remaining = c.remaining(turn, Instant::now());
                let budget = clock::think_budget(config.engine_movetime, remaining, c.increment());
                // The pause for spectators is charged too, so it shrinks with the time left.
                (budget, if both_bots { config.bot_delay.min(remaining / 20) } else { Duration::ZERO })
            }
            None => (config.engine_movetime, if both_bots { config.bot_delay } else { Duration::ZERO }),
        };
        if matches!(self.seat(turn), Seat::Engine { .. }) {
            self.start_engine(turn, movetime, delay);
            return;
        }
        let Seat::Bot { level, bot } = self.seat_mut(turn) else { return };
        let level = *level;
        // The bot may still be out with a cancelled search; a fresh one does the same job.
        let bot = bot.take().unwrap_or_else(|| bot::new_bot(level, &config.engine_tables));
        self.next_job += 1;
        self.job = Some(bot::start(
            self.next_job,
            bot,
            self.game.clone(),
            // On a clock, what the bot does not spend is kept for later moves.
            Limits { movetime: Some(movetime), early_stop: self.clock.is_some(), ..Limits::default() },
            delay,
            self.ctx.config.bot_searches.clone(),
            self.me.clone(),
        ));
    }

    pub(super) async fn bot_answer(
        &mut self,
        job: u64,
        mv: Option<Move>,
        returned: Box<dyn crate::bots::Bot>,
        out: &mut Batch,
    ) {
        let current = self.job.as_ref().is_some_and(|j| j.job == job);
        let turn = self.game.turn();
        if let Seat::Bot { bot, .. } = self.seat_mut(turn) {
            if bot.is_none() {
                *bot = Some(returned);
            }
        }
        if !current {
            return; // Asked before an undo or the end: the position it answers is gone.
        }
        self.job = None;
        match mv {
            Some(mv) => {
                if let Err(e) = self.play(mv, out).await {
                    tracing::error!(game = %self.id, error = %e, "bot move refused");
                }
            }
            None => tracing::warn!(game = %self.id, "bot found no move"),
        }
    }
}
