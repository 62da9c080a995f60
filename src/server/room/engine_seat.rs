//! Engine seats in the room: an external UCI engine's process, started when it is first to
//! move, asked for each move under the same search permits and time budget as the built-in
//! levels, and what happens when it misbehaves (crash, garbage, illegal move, silence). The
//! game goes on or ends by the rules below; the server never waits on a broken engine.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Semaphore};

use super::actor::Room;
use super::bot::{wait_turn, PendingBot};
use super::clock;
use super::events::Batch;
use super::seat::Seat;
use super::RoomCommand;
use crate::chess::{Color, EndReason, Game, Outcome};
use crate::uci_client::{Engine, EngineConfig, Reply};

/// How long past its budget an engine may take before it is told to `stop`.
const HARD_SLACK: Duration = Duration::from_millis(500);
/// After `stop`, how long a late engine may take before it is killed.
const STOP_GRACE: Duration = Duration::from_millis(200);
/// An engine that dies this many times in one game resigns it.
const MAX_CRASHES: u8 = 3;

/// An engine seat's process. Ending one may block for a moment (`quit`, then a kill and a
/// wait for the child), so a process dropped on the async threads is ended on the blocking
/// pool instead.
pub struct EngineProcess(Option<Engine>);

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Some(engine) = self.0.take() {
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => drop(runtime.spawn_blocking(move || drop(engine))),
                Err(_) => drop(engine),
            }
        }
    }
}

/// What became of asking an engine seat for a move.
#[derive(Debug)]
pub enum EngineAnswer {
    /// The text after `bestmove`, not yet checked.
    BestMove(String),
    /// No answer within budget + [`HARD_SLACK`]; the process was ended.
    TimedOut,
    /// The process died (or could not be started again): why.
    Crashed(String),
    /// The server no longer offers this engine (a game stored before a restart without it).
    Unavailable,
}

/// One question to an engine seat: the position, the time, and the process to ask (None:
/// start one), or no configuration if the server no longer offers the engine.
struct Question {
    job: u64,
    side: Color,
    process: Option<EngineProcess>,
    config: Option<EngineConfig>,
    game: Game,
    movetime: Duration,
    delay: Duration,
}

/// Asks the engine for a move on the blocking pool, after the question's delay and once one of
/// the server's search `permits` is free; the answer comes back as [`RoomCommand::EngineMove`].
fn think(question: Question, permits: Arc<Semaphore>, room: mpsc::WeakSender<RoomCommand>) -> PendingBot {
    let Question { job, side, process, config, game, movetime, delay } = question;
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    tokio::spawn(async move {
        let send = |answer, process| async move {
            if let Some(room) = room.upgrade() {
                let _ = room.send(RoomCommand::EngineMove { job, side, answer, process }).await;
            }
        };
        let Some(config) = config else {
            return send(EngineAnswer::Unavailable, process).await;
        };
        let Some(permit) = wait_turn(delay, &stopped, permits).await else { return };
        let thought = tokio::task::spawn_blocking(move || {
            let answer = ask(process, &config, &game, movetime);
            drop(permit);
            answer
        })
        .await;
        match thought {
            Ok((answer, process)) => send(answer, process).await,
            Err(e) => tracing::error!(error = %e, "engine seat task failed"),
        }
    });
    PendingBot { job, stop }
}

/// Starts the process if there is none (or restarts a dead one) and asks it for a move.
fn ask(
    process: Option<EngineProcess>,
    config: &EngineConfig,
    game: &Game,
    movetime: Duration,
) -> (EngineAnswer, Option<EngineProcess>) {
    let mut process = process.unwrap_or(EngineProcess(None));
    let mut engine = match process.0.take() {
        Some(engine) => engine,
        None => match Engine::start(config) {
            Ok(engine) => engine,
            Err(e) => return (EngineAnswer::Crashed(e.to_string()), None),
        },
    };
    let answer = match engine.best_move_within(game, movetime, movetime + HARD_SLACK, STOP_GRACE) {
        Ok(Reply::BestMove(text)) => EngineAnswer::BestMove(text),
        // The seat has lost: end the process now rather than keep a stuck engine.
        Ok(Reply::TimedOut) => return (EngineAnswer::TimedOut, None),
        Ok(Reply::Died) => EngineAnswer::Crashed("the process exited".into()),
        Err(e) => return (EngineAnswer::Crashed(e.to_string()), None),
    };
    // A dead engine is kept: it marked itself broken and restarts on its next use.
    process.0 = Some(engine);
    (answer, Some(process))
}

impl Room {
    /// Asks the engine on `turn`'s seat for a move within `movetime`.
    pub(super) fn start_engine(&mut self, turn: Color, movetime: Duration, delay: Duration) {
        let variant = self.game.variant();
        let engines = self.ctx.config.engines.clone();
        let Seat::Engine { name, options, process, .. } = self.seat_mut(turn) else { return };
        let config = engines.config(name, options, variant);
        let process = process.take();
        self.next_job += 1;
        let question =
            Question { job: self.next_job, side: turn, process, config, game: self.game.clone(), movetime, delay };
        self.job = Some(think(question, self.ctx.config.bot_searches.clone(), self.me.clone()));
    }

    /// Ends every engine process of the room (the game is over).
    pub(super) fn end_engines(&mut self) {
        for side in [Color::White, Color::Black] {
            if let Seat::Engine { process, .. } = self.seat_mut(side) {
                *process = None;
            }
        }
    }

    /// Takes an engine seat's answer: plays its move, or decides what its failure costs.
    pub(super) async fn engine_answer(
        &mut self,
        job: u64,
        side: Color,
        answer: EngineAnswer,
        returned: Option<EngineProcess>,
        out: &mut Batch,
    ) {
        let over = self.game.is_over();
        if let Seat::Engine { process, .. } = self.seat_mut(side) {
            if process.is_none() && !over {
                *process = returned;
            }
        }
        if self.job.as_ref().is_none_or(|j| j.job != job) {
            return; // Asked before an undo or the end: the position it answers is gone.
        }
        self.job = None;
        let label = self.seat(side).view().name().unwrap_or("the engine").to_string();
        let resign = Outcome::win(!side, EndReason::Resignation);
        match answer {
            EngineAnswer::BestMove(text) => match self.game.position().parse_uci(&text) {
                Ok(mv) => {
                    if let Err(e) = self.play(mv, out).await {
                        tracing::error!(game = %self.id, error = %e, "engine move refused");
                    }
                }
                Err(e) => {
                    self.system_chat(format!(
                        "{label} answered {text:?}, which is not a legal move here ({e}): it loses the game"
                    ));
                    self.finish(resign, out).await;
                }
            },
            EngineAnswer::Crashed(why) => {
                let crashes = match self.seat_mut(side) {
                    Seat::Engine { crashes, .. } => {
                        *crashes += 1;
                        *crashes
                    }
                    _ => MAX_CRASHES,
                };
                if crashes >= MAX_CRASHES {
                    self.system_chat(format!("{label} crashed ({why}) {crashes} times in this game: it resigns"));
                    self.finish(resign, out).await;
                } else {
                    self.system_chat(format!("{label} crashed ({why}); it is restarted and asked again"));
                    self.maybe_start_bot();
                }
            }
            EngineAnswer::TimedOut if self.clock.is_some() => {
                self.system_chat(format!("{label} did not answer within its time: it loses on time"));
                let outcome = crate::chess::timeout_outcome(self.game.position(), side);
                self.finish(outcome, out).await;
            }
            EngineAnswer::TimedOut => {
                self.system_chat(format!("{label} did not answer within its time: it resigns"));
                self.finish(resign, out).await;
            }
            EngineAnswer::Unavailable => {
                self.system_chat(format!("{label} is no longer offered by this server: it resigns"));
                self.finish(resign, out).await;
            }
        }
    }
}
