//! Bot seats: the room's part that runs its computer players (a built-in level's search, or an
//! external engine's question, `engine.rs`) — starting the one to move, telling its answer from
//! a stale one, pausing an unwatched bot-vs-bot game and waking it — and the search runner,
//! which thinks off the async threads and reports back to the room.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Semaphore};
use tokio::time::Instant;

use super::actions::Step;
use super::clock::RoomClock;
use super::engine::{self, EngineAnswer, EngineProcess, Question, Verdict};
use super::seats::{Seat, Seats};
use super::{RoomCommand, RoomConfig};
use crate::bots::search::TablePool;
use crate::bots::{AlphaBeta, Bot, Level, Limits};
use crate::chess::{ByColor, Color, Game, Move};
use crate::protocol::{GameId, Status};

/// Transposition table size of the server's searching bots (levels 5–12): 2^17 entries (about 3 MiB), enough
/// for a second's search.
const SERVER_TABLE_BITS: u32 = 17;

/// The tables the server's searching bots borrow for each search. Searches are capped by the
/// search permits, so `searches` tables are all that is ever held: a bot seat, and a finished
/// game above all, holds none.
pub fn table_pool(searches: usize) -> TablePool {
    TablePool::new(SERVER_TABLE_BITS, searches.max(1))
}

/// A fresh bot for a seat of this level.
fn new_bot(level: Level, tables: &TablePool) -> Box<dyn Bot> {
    if level.searches() {
        Box::new(level.engine(AlphaBeta::with_pool(None, tables.clone())))
    } else {
        level.bot(None)
    }
}

/// A search under way: its id (to recognise its answer) and the flag that stops it early.
pub(super) struct PendingBot {
    pub(super) job: u64,
    pub(super) stop: Arc<AtomicBool>,
}

impl PendingBot {
    /// Asks the search to finish now; its answer will be dropped as stale.
    pub(super) fn cancel(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Waits `delay`, then for one of the search `permits`: the permit, or None if the search was
/// cancelled meanwhile (or the permits are gone).
pub(super) async fn wait_turn(
    delay: Duration,
    stopped: &AtomicBool,
    permits: Arc<Semaphore>,
) -> Option<tokio::sync::OwnedSemaphorePermit> {
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    if stopped.load(Ordering::Relaxed) {
        return None;
    }
    let permit = permits.acquire_owned().await.ok()?;
    // Cancelled while waiting for a permit: give it back at once.
    (!stopped.load(Ordering::Relaxed)).then_some(permit)
}

/// Starts a search on the blocking pool after `delay`, once one of the server's `permits` is
/// free (so however many bot games run, only so many searches take CPUs at once); the answer
/// comes back to the room as [`RoomCommand::BotMove`] tagged with `job`. `limits` gets the stop
/// flag that cancels it.
fn search(
    job: u64,
    mut bot: Box<dyn Bot>,
    game: Game,
    limits: Limits,
    delay: Duration,
    permits: Arc<Semaphore>,
    room: mpsc::WeakSender<RoomCommand>,
) -> PendingBot {
    let stop = Arc::new(AtomicBool::new(false));
    let limits = Limits { stop: Some(stop.clone()), ..limits };
    let stopped = stop.clone();
    tokio::spawn(async move {
        let Some(permit) = wait_turn(delay, &stopped, permits).await else { return };
        // The movetime counts from when the search starts, not from the wait for a permit.
        let searched = tokio::task::spawn_blocking(move || {
            let mv = bot.choose(&game, &limits);
            drop(permit);
            (mv, bot)
        })
        .await;
        match (searched, room.upgrade()) {
            (Ok((mv, bot)), Some(room)) => {
                let _ = room.send(RoomCommand::BotMove { job, mv, bot }).await;
            }
            (Err(e), _) => tracing::error!(error = %e, "bot search failed"),
            (Ok(_), None) => {}
        }
    });
    PendingBot { job, stop }
}

/// The room's computer players: the search or question under way (one at a time: only the
/// side to move thinks), the numbers that tell its answer from a stale one, each seat's bot or
/// engine process between moves, and the pause of a bot-vs-bot game nobody watches.
pub(super) struct Bots {
    /// The game, as the log names it.
    game: GameId,
    /// The rooms' timing and search permits.
    config: RoomConfig,
    /// The room's own command queue, where answers go; weak so the room ends when its handles do.
    room: mpsc::WeakSender<RoomCommand>,
    job: Option<PendingBot>,
    next_job: u64,
    /// A bot-vs-bot game nobody watches is paused: no bot thinks and the clock stands still
    /// until someone watches again.
    paused: bool,
    /// A level's bot, lent to each search (a fresh one is made if it is still out).
    bots: ByColor<Option<Box<dyn Bot>>>,
    /// An engine seat's process: started on its first move, lent to each question, ended with
    /// the game.
    processes: ByColor<Option<EngineProcess>>,
    /// An engine seat's deaths in this game (the third resigns).
    crashes: ByColor<u8>,
}

impl Bots {
    /// The bot seats of `game`, whose room is reached at `room`, nothing thinking yet.
    pub(super) fn new(game: GameId, config: RoomConfig, room: mpsc::WeakSender<RoomCommand>) -> Bots {
        let (job, next_job, paused) = (None, 0, false);
        let (bots, processes, crashes) = Default::default();
        Bots { game, config, room, job, next_job, paused, bots, processes, crashes }
    }

    /// Drops the search under way: its answer will be stale.
    pub(super) fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
    }

    /// The game is over: nothing thinks any more, engine processes end, nothing is paused.
    pub(super) fn end(&mut self) {
        self.cancel();
        self.processes = ByColor::default();
        self.paused = false;
    }

    /// Pauses a bot-vs-bot game that nobody watches, clock and all: its moves would cost CPU
    /// for no one.
    pub(super) fn pause(&mut self, game: &Game, seats: &Seats, clock: &mut RoomClock) {
        if self.paused || game.is_over() || !seats.all_bots() {
            return;
        }
        tracing::info!(game = %self.game, "bot game paused: nobody watches it");
        self.paused = true;
        self.cancel();
        clock.stop(Instant::now());
    }

    /// Someone watches: true if a paused bot game goes on (the room then starts its clock).
    pub(super) fn wake(&mut self) -> bool {
        if self.paused {
            tracing::info!(game = %self.game, "bot game resumed: someone watches it");
        }
        std::mem::replace(&mut self.paused, false)
    }

    /// Starts the computer to move, if one is to move and is not already thinking.
    pub(super) fn start(&mut self, game: &Game, seats: &Seats, clock: &RoomClock) {
        if self.job.is_some() || self.paused || game.is_over() || seats.status(game) != Status::Ongoing {
            return;
        }
        let turn = game.turn();
        if !seats.seat(turn).is_bot() {
            return;
        }
        // The pause for spectators is charged too, so on a clock it shrinks with the time left.
        let (config, room) = (&self.config, &self.room);
        let delay = if seats.all_bots() { config.bot_delay } else { Duration::ZERO };
        let (movetime, delay) = clock.budget(turn, Instant::now(), config.engine_movetime, delay);
        self.next_job += 1;
        let (job, permits) = (self.next_job, config.bot_searches.clone());
        match seats.seat(turn) {
            Seat::Engine { name, options } => {
                let config = config.engines.config(name, options, game.variant());
                let process = self.processes[turn].take();
                let question = Question { job, side: turn, process, config, game: game.clone(), movetime, delay };
                self.job = Some(engine::think(question, permits, room.clone()));
            }
            Seat::Bot { level } => {
                // The bot may still be out with a cancelled search; a fresh one does the same job.
                let bot = self.bots[turn].take().unwrap_or_else(|| new_bot(*level, &config.engine_tables));
                // On a clock, what the bot does not spend is kept for later moves.
                let limits = Limits { movetime: Some(movetime), early_stop: clock.is_timed(), ..Limits::default() };
                self.job = Some(search(job, bot, game.clone(), limits, delay, permits, room.clone()));
            }
            Seat::Human { .. } => {}
        }
    }

    /// A level's answer to `job` (`mv`), with its bot back: what the room is to do, or None if
    /// the answer is stale.
    pub(super) fn bot_answered(
        &mut self,
        (job, mv): (u64, Option<Move>),
        returned: Box<dyn Bot>,
        game: &Game,
        seats: &Seats,
    ) -> Option<Verdict> {
        let turn = game.turn();
        if matches!(seats.seat(turn), Seat::Bot { .. }) && self.bots[turn].is_none() {
            self.bots[turn] = Some(returned);
        }
        if !self.answered(job) {
            return None;
        }
        let step = mv.map_or(Step::Nothing, |mv| Step::Play(mv, None));
        if mv.is_none() {
            tracing::warn!(game = %self.game, "bot found no move");
        }
        Some(Verdict { say: None, step, who: "bot" })
    }

    /// An engine seat's answer to `job`, with its process back: what the room is to do, or
    /// None if the answer is stale.
    pub(super) fn engine_answered(
        &mut self,
        (job, side): (u64, Color),
        (answer, returned): (EngineAnswer, Option<EngineProcess>),
        game: &Game,
        seats: &Seats,
        clock: &RoomClock,
    ) -> Option<Verdict> {
        let engine = matches!(seats.seat(side), Seat::Engine { .. });
        if engine && self.processes[side].is_none() && !game.is_over() {
            self.processes[side] = returned;
        }
        if !self.answered(job) {
            return None;
        }
        let label = seats.seat(side).view().name().unwrap_or("the engine").to_string();
        let crashes = &mut self.crashes[side];
        let crashed = || {
            if !engine {
                return engine::MAX_CRASHES;
            }
            *crashes += 1;
            *crashes
        };
        Some(engine::verdict(answer, &label, side, game, clock.is_timed(), crashed))
    }

    /// True if `job` is the search under way, which is then done; else its answer is stale
    /// (asked before an undo or the end: the position it answers is gone).
    fn answered(&mut self, job: u64) -> bool {
        let current = self.job.as_ref().is_some_and(|j| j.job == job);
        if current {
            self.job = None;
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    use crate::chess::Variant;

    /// A bot that notes how many of its kind search at once.
    struct Counting {
        now: Arc<AtomicUsize>,
        most: Arc<AtomicUsize>,
    }

    impl Bot for Counting {
        fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
            let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(30));
            self.now.fetch_sub(1, Ordering::SeqCst);
            game.legal_moves().first().copied()
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn searches_wait_for_a_permit() {
        let (tx, mut rx) = mpsc::channel(64);
        let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let permits = Arc::new(Semaphore::new(2));
        let game = Game::new(Variant::Standard);
        let _pending: Vec<PendingBot> = (0..8)
            .map(|job| {
                let bot = Box::new(Counting { now: now.clone(), most: most.clone() });
                search(job, bot, game.clone(), Limits::movetime(10), Duration::ZERO, permits.clone(), tx.downgrade())
            })
            .collect();
        for _ in 0..8 {
            let answer = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.expect("answer");
            assert!(matches!(answer, Some(RoomCommand::BotMove { mv: Some(_), .. })));
        }
        let most = most.load(Ordering::SeqCst);
        assert!((1..=2).contains(&most), "{most} searches at once");
        assert_eq!(permits.available_permits(), 2);
    }
}
