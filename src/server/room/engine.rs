//! Engine seats' process side: an external UCI engine's process, started when it is first to
//! move, asked for each move under the same search permits and time budget as the built-in
//! levels (the bot seats' part, `bot.rs`, asks), and what happens when it misbehaves (crash,
//! garbage, illegal move, silence). The game goes on or ends by the rules below; the server
//! never waits on a broken engine.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Semaphore};

use super::actions::Step;
use super::bot::{wait_turn, PendingBot};
use super::RoomCommand;
use crate::chess::{timeout_outcome, Color, EndReason, Game, Outcome};
use crate::uci_client::{Engine, EngineConfig, Reply};

/// How long past its budget an engine may take before it is told to `stop`.
const HARD_SLACK: Duration = Duration::from_millis(500);
/// After `stop`, how long a late engine may take before it is killed.
const STOP_GRACE: Duration = Duration::from_millis(200);
/// An engine that dies this many times in one game resigns it.
pub(super) const MAX_CRASHES: u8 = 3;

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
pub(super) struct Question {
    pub(super) job: u64,
    pub(super) side: Color,
    pub(super) process: Option<EngineProcess>,
    pub(super) config: Option<EngineConfig>,
    pub(super) game: Game,
    pub(super) movetime: Duration,
    pub(super) delay: Duration,
}

/// Asks the engine for a move on the blocking pool, after the question's delay and once one of
/// the server's search `permits` is free; the answer comes back as [`RoomCommand::EngineMove`].
pub(super) fn think(question: Question, permits: Arc<Semaphore>, room: mpsc::WeakSender<RoomCommand>) -> PendingBot {
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

/// What the room is to do with a computer's answer: say something in the chat first, maybe,
/// then take a step; `who` answered ("bot" or "engine", as the log says of a move refused).
pub(super) struct Verdict {
    pub(super) say: Option<String>,
    pub(super) step: Step,
    pub(super) who: &'static str,
}

impl Verdict {
    /// An engine's verdict: say `text`, then take `step`.
    fn engine(text: String, step: Step) -> Verdict {
        Verdict { say: Some(text), step, who: "engine" }
    }
}

/// What the answer of the engine called `label` on `side`'s seat means in `game`: its move,
/// or what its failure costs (`crashed` counts a crash, and says how many there have been).
pub(super) fn verdict(
    answer: EngineAnswer,
    label: &str,
    side: Color,
    game: &Game,
    timed: bool,
    crashed: impl FnOnce() -> u8,
) -> Verdict {
    let resign = Step::End(Outcome::win(!side, EndReason::Resignation));
    match answer {
        EngineAnswer::BestMove(text) => match game.position().parse_uci(&text) {
            Ok(mv) => Verdict { say: None, step: Step::Play(mv, None), who: "engine" },
            Err(e) => Verdict::engine(
                format!("{label} answered {text:?}, which is not a legal move here ({e}): it loses the game"),
                resign,
            ),
        },
        EngineAnswer::Crashed(why) => {
            let crashes = crashed();
            if crashes >= MAX_CRASHES {
                Verdict::engine(format!("{label} crashed ({why}) {crashes} times in this game: it resigns"), resign)
            } else {
                Verdict::engine(format!("{label} crashed ({why}); it is restarted and asked again"), Step::Ask)
            }
        }
        EngineAnswer::TimedOut if timed => Verdict::engine(
            format!("{label} did not answer within its time: it loses on time"),
            Step::End(timeout_outcome(game.position(), side)),
        ),
        EngineAnswer::TimedOut => {
            Verdict::engine(format!("{label} did not answer within its time: it resigns"), resign)
        }
        EngineAnswer::Unavailable => {
            Verdict::engine(format!("{label} is no longer offered by this server: it resigns"), resign)
        }
    }
}
