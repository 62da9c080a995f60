//! Running a bot seat's search off the async threads and reporting back to the room.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Semaphore};

use super::RoomCommand;
use crate::bots::search::TablePool;
use crate::bots::{AlphaBeta, Bot, Level, Limits};
use crate::chess::Game;

/// Transposition table size of the server's searching bots (levels 5–8): 2^17 entries (about 3 MiB), enough
/// for a second's search.
const SERVER_TABLE_BITS: u32 = 17;

/// The tables the server's searching bots borrow for each search. Searches are capped by the
/// search permits, so `searches` tables are all that is ever held: a bot seat, and a finished
/// game above all, holds none.
pub fn table_pool(searches: usize) -> TablePool {
    TablePool::new(SERVER_TABLE_BITS, searches.max(1))
}

/// A fresh bot for a seat of this level.
pub(super) fn new_bot(level: Level, tables: &TablePool) -> Box<dyn Bot> {
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
pub(super) fn start(
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    use crate::chess::{Move, Variant};

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
                start(job, bot, game.clone(), Limits::movetime(10), Duration::ZERO, permits.clone(), tx.downgrade())
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
