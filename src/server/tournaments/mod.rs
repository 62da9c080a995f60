//! Tournaments for a club night. A **round robin** (3–16 players, lichess has none): players
//! join until its creator starts it; every pairing is made up front from the Berger tables
//! (`round_robin`), and the games of each round start together, the next round once every game
//! of the last has ended; the crosstable ranks by points, then Sonneborn–Berger.
//!
//! Each running tournament is one task that alone owns its state (`task`), as a room owns its
//! game; others send it requests. It is written to the store whole after every change, and on
//! start the server takes up every unfinished one again, games in progress included.

pub mod round_robin;
mod task;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use thiserror::Error;
use tokio::sync::{mpsc, oneshot};

use crate::protocol::{ClockSpec, GameId, VariantName};
use crate::server::accounts::Account;
use crate::server::state::Shared;
use crate::server::store::{now_ms, AccountKey, StoreError, StoredTournament};
use crate::server::token::TokenHash;

pub use task::RoundRobin;

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

/// What a new round robin is to be.
#[derive(Clone, Debug)]
pub struct NewRoundRobin {
    pub name: String,
    pub variant: VariantName,
    pub clock: Option<ClockSpec>,
    pub days: Option<u32>,
    pub rated: bool,
    pub password: Option<String>,
}

/// A player in a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub account: AccountKey,
    pub name: String,
}

/// A request to a tournament's task.
pub(crate) enum Request {
    Join {
        account: Account,
        password: Option<String>,
        reply: oneshot::Sender<Result<(), TournamentError>>,
    },
    Withdraw {
        account: AccountKey,
        reply: oneshot::Sender<Result<(), TournamentError>>,
    },
    Start {
        account: AccountKey,
        reply: oneshot::Sender<Result<(), TournamentError>>,
    },
    View {
        reply: oneshot::Sender<RoundRobin>,
    },
    /// A game of the tournament ended: White's half-points, and whether it was a forfeit.
    Ended {
        game: GameId,
        white: u8,
        forfeit: bool,
    },
}

/// The tournaments this server runs.
#[derive(Default)]
pub struct Tournaments {
    running: Mutex<HashMap<String, mpsc::Sender<Request>>>,
}

/// The hash a tournament's password is kept as: with its id, so equal passwords differ.
fn password_hash(id: &str, password: &str) -> String {
    TokenHash::of(&format!("{id}\n{password}")).to_hex()
}

impl Tournaments {
    fn handle(&self, id: &str) -> Option<mpsc::Sender<Request>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
    }

    /// Creates a round robin by `creator`, who enters it.
    pub async fn create(
        &self,
        shared: &Arc<Shared>,
        creator: &Account,
        spec: NewRoundRobin,
    ) -> Result<RoundRobin, TournamentError> {
        let name = spec.name.trim();
        if name.chars().count() < 2 || name.chars().count() > 40 || name.chars().any(char::is_control) {
            return Err(refused("a tournament's name has 2 to 40 characters, on one line"));
        }
        let game = crate::protocol::NewGame {
            variant: spec.variant,
            clock: spec.clock,
            days: spec.days,
            rated: spec.rated,
            white: crate::protocol::SeatSpec::Human,
            black: crate::protocol::SeatSpec::Human,
            ..Default::default()
        };
        // Checked now, so that a tournament never starts games that cannot be played.
        crate::server::room::check(&game).map_err(|r| refused(r.message))?;
        if spec.rated && spec.clock.is_none() && spec.days.is_none() {
            return Err(refused("a rated tournament needs a clock or days per move"));
        }
        let id = crate::server::lobby::new_game_id();
        let password = spec.password.as_deref().filter(|p| !p.is_empty()).map(|p| password_hash(&id, p));
        let tournament = RoundRobin {
            id: id.clone(),
            name: name.to_string(),
            created_by: creator.username.clone(),
            creator: creator.id,
            created_ms: now_ms(),
            variant: spec.variant,
            clock: spec.clock,
            days: spec.days,
            rated: spec.rated,
            password,
            stage: Stage::Created,
            players: vec![Entrant { account: creator.id, name: creator.username.clone() }],
            rounds: Vec::new(),
            round: 0,
        };
        shared.tournament_store.save_tournament(tournament.stored()?).await?;
        self.run(shared, tournament.clone());
        tracing::info!(tournament = %id, by = %creator.username, "round robin created");
        Ok(tournament)
    }

    /// Starts the task of `tournament`.
    fn run(&self, shared: &Arc<Shared>, tournament: RoundRobin) {
        let (tx, rx) = mpsc::channel(64);
        let id = tournament.id.clone();
        self.running.lock().unwrap_or_else(|e| e.into_inner()).insert(id, tx.clone());
        tokio::spawn(task::run(shared.clone(), tournament, tx, rx));
    }

    /// Takes up every unfinished tournament in the store (on start).
    pub async fn resume_all(&self, shared: &Arc<Shared>) -> Result<(), StoreError> {
        for stored in shared.tournament_store.tournaments(0).await? {
            match RoundRobin::from_stored(&stored) {
                Ok(t) if t.stage != Stage::Finished => self.run(shared, t),
                Ok(_) => {}
                Err(e) => tracing::error!(tournament = %stored.id, error = %e, "a stored tournament cannot be read"),
            }
        }
        Ok(())
    }

    /// A tournament as it is now: the running one's state, or a finished one from the store.
    pub async fn view(&self, shared: &Shared, id: &str) -> Result<RoundRobin, TournamentError> {
        if let Some(tx) = self.handle(id) {
            let (reply, answer) = oneshot::channel();
            if tx.send(Request::View { reply }).await.is_ok() {
                if let Ok(view) = answer.await {
                    return Ok(view);
                }
            }
        }
        let stored = shared.tournament_store.tournament(id).await?.ok_or(TournamentError::NotFound)?;
        RoundRobin::from_stored(&stored)
    }

    /// Every tournament not finished, and the last few finished, newest first.
    pub async fn list(&self, shared: &Shared) -> Result<Vec<RoundRobin>, TournamentError> {
        let mut all = Vec::new();
        for stored in shared.tournament_store.tournaments(20).await? {
            match self.view(shared, &stored.id).await {
                Ok(t) => all.push(t),
                Err(e) => tracing::warn!(tournament = %stored.id, error = %e, "a tournament cannot be listed"),
            }
        }
        Ok(all)
    }

    async fn ask(
        &self,
        id: &str,
        request: impl FnOnce(oneshot::Sender<Result<(), TournamentError>>) -> Request,
    ) -> Result<(), TournamentError> {
        let tx = self.handle(id).ok_or_else(|| refused("that tournament is over"))?;
        let (reply, answer) = oneshot::channel();
        tx.send(request(reply)).await.map_err(|_| refused("that tournament is over"))?;
        answer.await.map_err(|_| refused("that tournament is over"))?
    }

    /// `account` enters tournament `id` (with its password if it has one).
    pub async fn join(&self, id: &str, account: Account, password: Option<String>) -> Result<(), TournamentError> {
        self.ask(id, |reply| Request::Join { account, password, reply }).await
    }

    /// `account` leaves tournament `id` before it starts.
    pub async fn withdraw(&self, id: &str, account: AccountKey) -> Result<(), TournamentError> {
        self.ask(id, |reply| Request::Withdraw { account, reply }).await
    }

    /// The creator starts tournament `id`.
    pub async fn start(&self, id: &str, account: AccountKey) -> Result<(), TournamentError> {
        self.ask(id, |reply| Request::Start { account, reply }).await
    }

    /// A task that has finished its tournament lets go of it.
    fn finished(&self, id: &str) {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
    }
}

impl RoundRobin {
    /// As the store keeps it.
    fn stored(&self) -> Result<StoredTournament, TournamentError> {
        Ok(StoredTournament {
            id: self.id.clone(),
            kind: "roundrobin".into(),
            status: self.stage.name().into(),
            body: serde_json::to_string(self).map_err(|e| StoreError::Write(e.to_string()))?,
            created_ms: self.created_ms,
        })
    }

    fn from_stored(stored: &StoredTournament) -> Result<RoundRobin, TournamentError> {
        serde_json::from_str(&stored.body).map_err(|e| {
            TournamentError::Store(StoreError::Damaged { game: stored.id.clone(), message: e.to_string() })
        })
    }

    /// Whether `password` opens this tournament.
    fn admits(&self, password: Option<&str>) -> bool {
        match &self.password {
            None => true,
            Some(hash) => password.is_some_and(|p| password_hash(&self.id, p) == *hash),
        }
    }
}
