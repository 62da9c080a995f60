//! Tournaments for a club night: **arenas** (lichess's format: a fixed time in which whoever is
//! free is paired again at once; `arena`) and **round robins** (3–16 players, every pairing
//! made up front from the Berger tables; `round_robin`).
//!
//! Each running tournament is one task that alone owns its state (`arena_task`,
//! `round_robin_task`), as a room owns its game; others send it a [`Call`], the one vocabulary
//! of what may be asked of a tournament, whether it comes from the HTTP API of this node or,
//! in a cluster, of another (`cluster`). A tournament is written to the store whole after every
//! change, and taken up again on start — or, in a cluster, by a surviving node once the node
//! that ran it stops renewing its lease (the store fences every write by the owner's epoch).

pub mod arena;
mod arena_task;
mod cluster;
mod games;
pub mod round_robin;
mod round_robin_task;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use thiserror::Error;
use tokio::sync::{mpsc, oneshot};

use crate::chess::Color;
use crate::protocol::{ClockSpec, GameId, VariantName};
use crate::server::accounts::Account;
use crate::server::state::Shared;
use crate::server::store::{AccountKey, StoreError, StoredTournament};
use crate::server::token::TokenHash;

pub use arena::Who;
pub use arena_task::Arena;
pub use cluster::Wire;
pub use round_robin_task::RoundRobin;

/// What a tournament request may be refused for.
#[derive(Debug, Error)]
pub enum TournamentError {
    #[error("there is no such tournament")]
    NotFound,
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn refused(message: impl Into<String>) -> TournamentError {
    TournamentError::Refused(message.into())
}

/// Where a tournament is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Taking entries.
    Created,
    Started,
    Finished,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Created => "created",
            Stage::Started => "started",
            Stage::Finished => "finished",
        }
    }
}

/// What a new tournament is to be, whichever kind it is.
#[derive(Clone, Debug)]
pub struct NewTournament {
    pub name: String,
    pub variant: VariantName,
    pub clock: Option<ClockSpec>,
    pub days: Option<u32>,
    pub rated: bool,
    pub password: Option<String>,
    /// Bot accounts may join (and, in an arena, the creator may seat the server's computers).
    pub bots_allowed: bool,
}

/// What a new arena is to be besides: when it starts and how long it lasts, and its options.
#[derive(Clone, Copy, Debug)]
pub struct ArenaTerms {
    pub starts_ms: i64,
    pub duration_ms: i64,
    pub berserkable: bool,
    pub streakable: bool,
}

/// What every tournament has, whatever its kind: who made it, and what it is.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct About {
    pub id: String,
    pub name: String,
    pub created_by: String,
    /// The creator's account.
    pub creator: AccountKey,
    pub created_ms: i64,
    pub variant: VariantName,
    pub rated: bool,
    /// The password's hash (with the id, so equal passwords differ), for a private club event.
    pub password: Option<String>,
    /// Bot accounts may join (and, in an arena, the creator may seat the server's computers).
    #[serde(default)]
    pub bots_allowed: bool,
}

impl About {
    /// Tournament `id`, called `name`, made now by `creator` as `spec` asks.
    fn new(id: &str, name: String, creator: &Account, spec: &NewTournament) -> About {
        let password = spec.password.as_deref().filter(|p| !p.is_empty()).map(|p| password_hash(id, p));
        About {
            id: id.to_string(),
            name,
            created_by: creator.username.clone(),
            creator: creator.id,
            created_ms: crate::server::store::now_ms(),
            variant: spec.variant,
            rated: spec.rated,
            password,
            bots_allowed: spec.bots_allowed,
        }
    }

    /// Whether `password` opens the tournament.
    fn admits(&self, password: Option<&str>) -> bool {
        match &self.password {
            None => true,
            Some(hash) => password.is_some_and(|p| password_hash(&self.id, p) == *hash),
        }
    }
}

/// A player in a round robin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub account: AccountKey,
    pub name: String,
}

/// A tournament, whichever kind: what the store keeps and views are made from.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Tournament {
    #[serde(rename = "roundrobin")]
    RoundRobin(RoundRobin),
    Arena(Arena),
}

impl Tournament {
    /// What it has whatever its kind.
    pub fn about(&self) -> &About {
        match self {
            Tournament::RoundRobin(t) => &t.about,
            Tournament::Arena(t) => &t.about,
        }
    }

    pub fn id(&self) -> &str {
        &self.about().id
    }

    pub fn stage(&self) -> Stage {
        match self {
            Tournament::RoundRobin(t) => t.stage,
            Tournament::Arena(t) => t.stage,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Tournament::RoundRobin(_) => "roundrobin",
            Tournament::Arena(_) => "arena",
        }
    }

    /// As the store keeps it, written under `epoch` (the owner's lease in a cluster).
    fn stored(&self, epoch: i64) -> Result<StoredTournament, TournamentError> {
        Ok(StoredTournament {
            id: self.id().to_string(),
            kind: self.kind().into(),
            status: self.stage().name().into(),
            body: serde_json::to_string(self).map_err(|e| StoreError::Write(e.to_string()))?,
            created_ms: self.about().created_ms,
            epoch,
        })
    }

    fn from_stored(stored: &StoredTournament) -> Result<Tournament, TournamentError> {
        serde_json::from_str(&stored.body).map_err(|e| {
            TournamentError::Store(StoreError::Damaged { game: stored.id.clone(), message: e.to_string() })
        })
    }
}

/// What may be asked of a tournament: the same value whether it comes from this node's HTTP
/// API or another node's (it travels over the cluster's bus).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum Call {
    /// The account enters (with the password of a private tournament); in an arena that has
    /// started, a paused player comes back.
    Join { account: AccountKey, name: String, bot: bool, password: Option<String> },
    /// The account leaves (a round robin before it starts; an arena at any time: paused).
    Withdraw { account: AccountKey },
    /// The creator starts a round robin.
    Start { account: AccountKey },
    /// The creator seats one of the server's computers in an arena that allows bots.
    AddComputer { account: AccountKey, who: Who },
    /// The tournament as it is now.
    View,
}

impl Call {
    /// `account` joins, as they are.
    pub fn join(account: &Account, password: Option<String>) -> Call {
        Call::Join { account: account.id, name: account.username.clone(), bot: account.bot, password }
    }
}

/// The answer to a [`Call`].
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    Done,
    View { tournament: Box<Tournament> },
}

type Reply = oneshot::Sender<Result<Answer, TournamentError>>;

/// A message to a tournament's task.
pub(crate) enum Request {
    Call {
        call: Call,
        reply: Reply,
    },
    /// A game of the tournament ended: White's half-points, and whether it was a forfeit (a
    /// first move never made: the side that did not move is `forfeit_by`).
    Ended {
        game: GameId,
        white: u8,
        forfeit_by: Option<Color>,
    },
    /// A player of a game of the tournament berserked.
    Berserked {
        game: GameId,
        side: Color,
    },
}

/// The tournaments this node runs. The map is the registry of their tasks (as the lobby's is
/// of rooms), not tournament state: each task owns its own.
#[derive(Default)]
pub struct Tournaments {
    running: Mutex<HashMap<String, mpsc::Sender<Request>>>,
}

/// The hash a tournament's password is kept as: with its id, so equal passwords differ.
fn password_hash(id: &str, password: &str) -> String {
    TokenHash::of(&format!("{id}\n{password}")).to_hex()
}

/// A tournament's name, checked: 2 to 40 characters on one line.
fn checked_name(name: &str) -> Result<String, TournamentError> {
    let name = name.trim();
    let count = name.chars().count();
    if !(2..=40).contains(&count) || name.chars().any(char::is_control) {
        return Err(refused("a tournament's name has 2 to 40 characters, on one line"));
    }
    Ok(name.to_string())
}

impl Tournaments {
    fn handle(&self, id: &str) -> Option<mpsc::Sender<Request>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
    }

    /// Creates a round robin by `creator`, who enters it.
    pub async fn create_round_robin(
        &self,
        shared: &Arc<Shared>,
        creator: &Account,
        spec: NewTournament,
    ) -> Result<RoundRobin, TournamentError> {
        let id = crate::server::lobby::new_game_id();
        let t = RoundRobin::new(&id, checked_name(&spec.name)?, creator, &spec)?;
        self.launch(shared, Tournament::RoundRobin(t.clone())).await?;
        tracing::info!(tournament = %id, by = %creator.username, "round robin created");
        Ok(t)
    }

    /// Creates an arena by `creator` (who does not enter it by making it, as on lichess).
    pub async fn create_arena(
        &self,
        shared: &Arc<Shared>,
        creator: &Account,
        spec: NewTournament,
        terms: ArenaTerms,
    ) -> Result<Arena, TournamentError> {
        let id = crate::server::lobby::new_game_id();
        let t = Arena::new(&id, checked_name(&spec.name)?, creator, &spec, terms)?;
        self.launch(shared, Tournament::Arena(t.clone())).await?;
        tracing::info!(tournament = %id, by = %creator.username, "arena created");
        Ok(t)
    }

    /// Stores a new tournament (this node its owner) and starts its task.
    async fn launch(&self, shared: &Arc<Shared>, t: Tournament) -> Result<(), TournamentError> {
        if !shared.tournament_store.save_tournament(t.stored(1)?).await? {
            return Err(refused("a tournament of that id exists already; try again"));
        }
        self.run(shared, t, 1);
        Ok(())
    }

    /// Starts the task of `tournament`, held under `epoch`.
    fn run(&self, shared: &Arc<Shared>, tournament: Tournament, epoch: i64) {
        let (tx, rx) = mpsc::channel(64);
        let id = tournament.id().to_string();
        self.running.lock().unwrap_or_else(|e| e.into_inner()).insert(id, tx.clone());
        let keeper = Keeper { shared: shared.clone(), epoch };
        match tournament {
            Tournament::RoundRobin(t) => {
                tokio::spawn(round_robin_task::run(keeper, t, tx, rx));
            }
            Tournament::Arena(t) => {
                tokio::spawn(arena_task::run(keeper, t, tx, rx));
            }
        }
    }

    /// Takes up every unfinished tournament in the store (a single server, on start).
    pub async fn resume_all(&self, shared: &Arc<Shared>) -> Result<(), StoreError> {
        for stored in shared.tournament_store.tournaments(0).await? {
            self.resume(shared, &stored);
        }
        Ok(())
    }

    /// Takes up one stored tournament, if it is unfinished and not running here already.
    fn resume(&self, shared: &Arc<Shared>, stored: &StoredTournament) {
        if self.handle(&stored.id).is_some() {
            return;
        }
        match Tournament::from_stored(stored) {
            Ok(t) if t.stage() != Stage::Finished => {
                tracing::info!(tournament = %stored.id, epoch = stored.epoch, "taking up a tournament");
                self.run(shared, t, stored.epoch);
            }
            Ok(_) => {}
            Err(e) => tracing::error!(tournament = %stored.id, error = %e, "a stored tournament cannot be read"),
        }
    }

    /// Asks tournament `id` `call`, wherever it runs: here, on another node of the cluster, or
    /// (once finished, or on a node that has stopped) as the store keeps it.
    pub async fn call(&self, shared: &Arc<Shared>, id: &str, call: Call) -> Result<Answer, TournamentError> {
        if let Some(answer) = self.call_here(id, call.clone()).await {
            return answer;
        }
        if shared.cluster.is_some() {
            if let Some(answer) = cluster::route(shared, id, call.clone()).await {
                return answer;
            }
        }
        // Not running anywhere: a finished tournament can still be looked at.
        let stored = shared.tournament_store.tournament(id).await?.ok_or(TournamentError::NotFound)?;
        match call {
            Call::View => Ok(Answer::View { tournament: Box::new(Tournament::from_stored(&stored)?) }),
            _ if stored.status == Stage::Finished.name() => Err(refused("that tournament is over")),
            _ => Err(refused("the tournament's server does not answer; try again")),
        }
    }

    /// `call` answered by the task of `id` on this node; None if it does not run here.
    async fn call_here(&self, id: &str, call: Call) -> Option<Result<Answer, TournamentError>> {
        let tx = self.handle(id)?;
        let (reply, answer) = oneshot::channel();
        tx.send(Request::Call { call, reply }).await.ok()?;
        answer.await.ok()
    }

    /// Tournament `id` as it is now.
    pub async fn view(&self, shared: &Arc<Shared>, id: &str) -> Result<Tournament, TournamentError> {
        match self.call(shared, id, Call::View).await? {
            Answer::View { tournament } => Ok(*tournament),
            Answer::Done => Err(refused("the tournament did not answer with itself")),
        }
    }

    /// Every tournament not finished, and the last few finished, newest first.
    pub async fn list(&self, shared: &Arc<Shared>) -> Result<Vec<Tournament>, TournamentError> {
        let mut all = Vec::new();
        for stored in shared.tournament_store.tournaments(20).await? {
            // A running one is asked for its latest state; the store has it as of its last change.
            let running = self.handle(&stored.id).is_some();
            let found = if running { self.view(shared, &stored.id).await } else { Tournament::from_stored(&stored) };
            match found {
                Ok(t) => all.push(t),
                Err(e) => tracing::warn!(tournament = %stored.id, error = %e, "a tournament cannot be listed"),
            }
        }
        Ok(all)
    }

    /// A task that has finished its tournament, or lost it to another node, lets go of it.
    fn finished(&self, id: &str) {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
    }

    /// Starts what a cluster node runs for tournaments: taking up those whose node is gone,
    /// and answering other nodes' calls.
    pub fn join_cluster(shared: &Arc<Shared>) {
        cluster::start(shared);
    }
}

/// What a tournament's task writes with: the server, and the epoch its writes are fenced by.
pub(crate) struct Keeper {
    shared: Arc<Shared>,
    epoch: i64,
}

impl Keeper {
    /// Writes `t` whole. False when another node has taken the tournament over (its lease ran
    /// out here): the task must stop.
    async fn save(&self, t: &Tournament) -> bool {
        let stored = match t.stored(self.epoch) {
            Ok(stored) => stored,
            Err(e) => {
                tracing::error!(tournament = %t.id(), error = %e, "could not write a tournament");
                return true;
            }
        };
        match self.shared.tournament_store.save_tournament(stored).await {
            Ok(true) => true,
            Ok(false) => {
                tracing::warn!(tournament = %t.id(), "another node has taken this tournament over");
                false
            }
            Err(e) => {
                tracing::error!(tournament = %t.id(), error = %e, "could not store a tournament");
                true
            }
        }
    }
}
