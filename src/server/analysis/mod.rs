//! Computer analysis of finished games, asked for over HTTP and run by the server: the engine
//! at full strength (level 12) over every position with a fixed budget each, position by position on the blocking
//! pool, each search waiting for one of the permits bot searches take (so analyses and bots
//! share the CPUs the server gives its engines, and a bot's move never waits behind a whole
//! analysis). The store holds the claim of the one analysis running per game, with its
//! progress, and then the result, which everyone is served from then on.

pub mod report;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use serde::Serialize;
use thiserror::Error;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::bots::search::TablePool;
use crate::bots::{analysis, AlphaBeta, Limits};
use crate::chess::Game;
use crate::server::room::{self, RoomConfig};
use crate::server::store::{
    now_ms, AnalysisRecord, AnalysisStore, AnalysisWrite, GameStore, StoreError, StoredAnalysis,
};

pub use report::Report;

/// How analyses run on this server.
#[derive(Clone, Debug)]
pub struct AnalysisConfig {
    /// The engine's time for each position.
    pub movetime: Duration,
    /// Analyses this server runs at once; more are refused until one ends.
    pub max_running: usize,
}

impl Default for AnalysisConfig {
    fn default() -> AnalysisConfig {
        AnalysisConfig { movetime: Duration::from_millis(150), max_running: 2 }
    }
}

/// The runner writes its progress at most this often ...
const PROGRESS_EVERY: Duration = Duration::from_millis(500);
/// ... and touches its claim at least this often, also while it waits for a search permit.
const TOUCH_EVERY: Duration = Duration::from_secs(2);
/// A claim nobody touched for this long (and three searches) belongs to a server that stopped.
const STALE_AFTER: Duration = Duration::from_secs(15);

/// Why an analysis request is turned down.
#[derive(Debug, Error)]
pub enum AnalysisError {
    #[error("there is no game {0:?} on this server")]
    NoSuchGame(String),
    #[error("game {0:?} is not finished: it can be analysed once it has ended")]
    Unfinished(String),
    #[error("no analysis of game {0:?} has been asked for (or it was interrupted); POST to ask for one")]
    NotRequested(String),
    #[error("{0} analyses are running on this server, as many as it runs at once; try again in a minute")]
    Busy(usize),
    #[error("game {game:?} cannot be analysed: {message}")]
    Damaged { game: String, message: String },
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for AnalysisError {
    fn from(e: StoreError) -> AnalysisError {
        match e {
            StoreError::Damaged { game, message } => AnalysisError::Damaged { game, message },
            e => AnalysisError::Store(e),
        }
    }
}

/// Where a game's analysis stands, as the API answers it: `{"status":"running","progress",
/// "plies":[]}` (the plies come all at once) or `{"status":"done",…}` with the report.
#[derive(Debug, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Answer {
    Running { progress: f64, plies: [report::Ply; 0] },
    Done(Box<Report>),
}

impl Answer {
    fn running(progress: f64) -> Answer {
        Answer::Running { progress: progress.clamp(0.0, 1.0), plies: [] }
    }
}

/// The analyses of one server.
pub struct Analyses {
    /// Where the games are read from ...
    games: Arc<dyn GameStore>,
    /// ... and their analyses claimed and kept.
    store: Arc<dyn AnalysisStore>,
    config: AnalysisConfig,
    /// The bot searches' permits and tables: each position's search takes one of each.
    permits: Arc<Semaphore>,
    tables: TablePool,
    /// This server process, as its claims name it.
    runner: String,
    running: Arc<AtomicUsize>,
}

/// One of the server's analysis slots, given back when the analysis ends however it ends.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Analyses {
    pub fn new(
        games: Arc<dyn GameStore>,
        store: Arc<dyn AnalysisStore>,
        config: AnalysisConfig,
        room: &RoomConfig,
    ) -> Analyses {
        let runner = format!("{}-{:016x}", std::process::id(), rand::rng().random::<u64>());
        Analyses {
            games,
            store,
            config,
            permits: room.bot_searches.clone(),
            tables: room.engine_tables.clone(),
            runner,
            running: Arc::new(AtomicUsize::new(0)),
        }
    }

    fn stale_before_ms(&self) -> i64 {
        let stale = STALE_AFTER.max(self.config.movetime * 3);
        now_ms() - i64::try_from(stale.as_millis()).unwrap_or(i64::MAX)
    }

    /// The game `id` replayed, if it exists and has ended.
    async fn finished(&self, id: &str) -> Result<Game, AnalysisError> {
        let stored = self.games.load(id).await?.ok_or_else(|| AnalysisError::NoSuchGame(id.to_string()))?;
        if stored.outcome.is_none() {
            return Err(AnalysisError::Unfinished(id.to_string()));
        }
        room::replay(&stored).map_err(|e| AnalysisError::Damaged { game: id.to_string(), message: e.message })
    }

    /// The answer a stored record gives. A running analysis says how far it got without the
    /// game (its claim exists only for a finished game), so polling costs one small read; a
    /// done one is read against the game, replayed from the store.
    async fn answer(&self, id: &str, record: AnalysisRecord) -> Result<Answer, AnalysisError> {
        match record {
            AnalysisRecord::Running { progress } => Ok(Answer::running(progress)),
            AnalysisRecord::Done(analysis) => {
                let game = self.finished(id).await?;
                report::report(&game, &analysis)
                    .map(|r| Answer::Done(Box::new(r)))
                    .map_err(|message| AnalysisError::Damaged { game: id.to_string(), message })
            }
        }
    }

    /// Where the analysis of game `id` stands.
    pub async fn get(&self, id: &str) -> Result<Answer, AnalysisError> {
        match self.store.analysis(id, self.stale_before_ms()).await? {
            Some(record) => self.answer(id, record).await,
            None => {
                // Unknown, unfinished (each with its own refusal), or simply not asked for.
                self.finished(id).await?;
                Err(AnalysisError::NotRequested(id.to_string()))
            }
        }
    }

    /// Asks for the analysis of game `id`: the result if there is one, else the one running,
    /// else a new one started here.
    pub async fn request(self: &Arc<Self>, id: &str) -> Result<Answer, AnalysisError> {
        if let Some(record) = self.store.analysis(id, self.stale_before_ms()).await? {
            return self.answer(id, record).await;
        }
        let game = self.finished(id).await?;
        let slot = self.slot()?;
        if self.store.claim_analysis(id, &self.runner, self.stale_before_ms()).await? {
            tracing::info!(game = id, plies = game.history().len(), "analysis started");
            tokio::spawn(self.clone().run(id.to_string(), game, slot));
            return Ok(Answer::running(0.0));
        }
        drop(slot);
        // Another request claimed it between the two looks: it runs (or has just ended).
        match self.store.analysis(id, self.stale_before_ms()).await? {
            Some(record) => self.answer(id, record).await,
            None => Ok(Answer::running(0.0)),
        }
    }

    fn slot(&self) -> Result<Slot, AnalysisError> {
        let max = self.config.max_running;
        self.running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1))
            .map(|_| Slot(self.running.clone()))
            .map_err(|_| AnalysisError::Busy(max))
    }

    /// Runs the claimed analysis of `id` to its end, then stores it (or lets the claim go).
    async fn run(self: Arc<Self>, id: String, game: Game, _slot: Slot) {
        let write = match self.evaluate(&id, &game).await {
            Ok(analysis) => {
                tracing::info!(game = %id, "analysis done");
                AnalysisWrite::Done(analysis)
            }
            Err(why) => {
                tracing::error!(game = %id, error = %why, "analysis failed");
                AnalysisWrite::Abandon
            }
        };
        if let Err(e) = self.store.write_analysis(&id, &self.runner, write).await {
            tracing::error!(game = %id, error = %e, "could not store the analysis");
        }
    }

    /// Every position of `game`, searched in turn.
    async fn evaluate(&self, id: &str, game: &Game) -> Result<StoredAnalysis, String> {
        // One replayed game walks the positions (memory linear in the game's length); it goes
        // to the blocking pool and back with the engine for each search.
        let mut replay = analysis::Replay::of(game);
        let total = replay.positions();
        let mut engine = AlphaBeta::with_pool(Some(0), self.tables.clone());
        let mut out = Vec::with_capacity(total);
        let mut written = Instant::now();
        loop {
            let progress = out.len() as f64 / total as f64;
            let permit = self.permit(id, progress).await?;
            let limits = Limits { movetime: Some(self.config.movetime), early_stop: true, ..Limits::default() };
            let searched = tokio::task::spawn_blocking(move || {
                let eval = analysis::evaluate(&mut engine, replay.game(), &limits);
                (engine, replay, eval)
            })
            .await;
            drop(permit);
            let (back, replayed, eval) = searched.map_err(|e| format!("the search failed: {e}"))?;
            (engine, replay) = (back, replayed);
            out.push(report::stored(eval.eval, eval.best.map(|m| m.to_string())));
            if written.elapsed() >= PROGRESS_EVERY {
                self.touch(id, out.len() as f64 / total as f64).await;
                written = Instant::now();
            }
            if !replay.advance() {
                break;
            }
        }
        let movetime_ms = u64::try_from(self.config.movetime.as_millis()).unwrap_or(u64::MAX);
        Ok(StoredAnalysis { movetime_ms, positions: out })
    }

    /// A search permit; the claim is kept alive while waiting for one.
    async fn permit(&self, id: &str, progress: f64) -> Result<OwnedSemaphorePermit, String> {
        loop {
            match tokio::time::timeout(TOUCH_EVERY, self.permits.clone().acquire_owned()).await {
                Ok(Ok(permit)) => return Ok(permit),
                Ok(Err(_)) => return Err("the server's searches are closed".into()),
                Err(_) => self.touch(id, progress).await,
            }
        }
    }

    async fn touch(&self, id: &str, progress: f64) {
        if let Err(e) = self.store.write_analysis(id, &self.runner, AnalysisWrite::Progress(progress)).await {
            tracing::warn!(game = id, error = %e, "could not store the analysis's progress");
        }
    }
}
