//! Where games are kept. The room hands every change to a [`GameStore`] and waits for it before
//! broadcasting, so a move is durable before anyone sees it (DESIGN.md §4, "durable before
//! visible"); on start the server reads back every unfinished game. [`SqliteStore`] keeps them
//! in an SQLite file (or in memory), [`PostgresStore`] in a PostgreSQL database, each with the
//! accounts, ratings and analyses beside them (one trait per need, `traits.rs`); [`NoStore`]
//! keeps nothing, for tests of the room alone and for replaying an archived game.

mod accounts;
mod analyses;
mod games;
mod postgres;
mod queue;
mod records;
mod sqlite;
mod traits;

use std::sync::Arc;

use futures::future::BoxFuture;

pub use accounts::{
    AccountKey, RatedEnd, RatedResult, RatingChange, RatingPoint, RatingUpdate, RatingsAfter, RatingsBefore, Relation,
    Results, StoredAccount, StoredApiToken, StoredChallenge, StoredNotification, StoredRating, StoredRatings,
    StoredTournament,
};
pub use analyses::{AnalysisRecord, AnalysisWrite, StoredAnalysis, StoredEval};
pub use games::{StoreEvent, StoredChat, StoredClock, StoredGame, StoredScore, StoredSeat, StoredTimes, CHAT_KEPT};
pub use postgres::{NodeInfo, Owner, PostgresStore, LEASE, RENEW_EVERY};
/// The SQLite file's schema (its version is what `PRAGMA user_version` reads).
pub use sqlite::schema;
pub use sqlite::SqliteStore;
pub use traits::{
    AccountStore, AnalysisStore, ChallengeStore, GameStore, NotificationStore, RatingStore, RelationStore, StoreError,
    TournamentStore,
};

/// True if `db` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than an
/// SQLite file.
pub fn is_postgres(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// One store's faces, one per need (one database behind them all): each part of the server
/// holds the one it uses.
#[derive(Clone)]
pub struct Stores {
    pub games: Arc<dyn GameStore>,
    pub accounts: Arc<dyn AccountStore>,
    pub ratings: Arc<dyn RatingStore>,
    pub analyses: Arc<dyn AnalysisStore>,
    pub challenges: Arc<dyn ChallengeStore>,
    pub relations: Arc<dyn RelationStore>,
    pub notifications: Arc<dyn NotificationStore>,
    pub tournaments: Arc<dyn TournamentStore>,
}

impl Stores {
    /// Every face of `store`.
    pub fn of<S>(store: Arc<S>) -> Stores
    where
        S: GameStore
            + AccountStore
            + RatingStore
            + AnalysisStore
            + ChallengeStore
            + RelationStore
            + NotificationStore
            + TournamentStore,
    {
        Stores {
            games: store.clone(),
            accounts: store.clone(),
            ratings: store.clone(),
            analyses: store.clone(),
            challenges: store.clone(),
            relations: store.clone(),
            notifications: store.clone(),
            tournaments: store,
        }
    }
}

/// Opens the store `db` names: a PostgreSQL database, or an SQLite file (or `:memory:`).
pub async fn open(db: &str) -> Result<Stores, StoreError> {
    if is_postgres(db) {
        Ok(Stores::of(Arc::new(PostgresStore::connect(db).await?)))
    } else {
        Ok(Stores::of(Arc::new(SqliteStore::open(db)?)))
    }
}

/// `db` as logs may show it: a PostgreSQL URL without its password.
pub fn shown(db: &str) -> String {
    if is_postgres(db) {
        postgres::redact(db)
    } else {
        db.to_string()
    }
}

/// A store that keeps nothing: games live in memory only.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoStore;

impl GameStore for NoStore {
    fn record(&self, _game: &str, _event: StoreEvent) -> BoxFuture<'static, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }

    fn unfinished(&self) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn finished(&self, _limit: usize) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn load(&self, _game: &str) -> BoxFuture<'static, Result<Option<StoredGame>, StoreError>> {
        Box::pin(async { Ok(None) })
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// The current Unix time in milliseconds.
pub fn now_ms() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}
