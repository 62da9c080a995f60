//! Running a bot seat's search off the async threads and reporting back to the room.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::RoomCommand;
use crate::bots::{Bot, Limits};
use crate::chess::Game;

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

/// Starts a search on the blocking pool after `delay`; the answer comes back to the room as
/// [`RoomCommand::BotMove`] tagged with `job`.
pub(super) fn start(
    job: u64,
    mut bot: Box<dyn Bot>,
    game: Game,
    movetime: Duration,
    delay: Duration,
    room: mpsc::WeakSender<RoomCommand>,
) -> PendingBot {
    let stop = Arc::new(AtomicBool::new(false));
    let limits = Limits { movetime: Some(movetime), stop: Some(stop.clone()), ..Limits::default() };
    let stopped = stop.clone();
    tokio::spawn(async move {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        if stopped.load(Ordering::Relaxed) {
            return;
        }
        let searched = tokio::task::spawn_blocking(move || {
            let mv = bot.choose(&game, &limits);
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
