//! The PostgreSQL store's schema and its migrations: applied once each, in order, each in its
//! own transaction, with the version kept in `gambit_schema`. Nodes of a cluster may start
//! together: an advisory lock lets one migrate while the others wait. Never edit a migration
//! that has shipped: add a new one. The columns hold the same formats as SQLite's
//! (`records.rs`), so one reader serves both.

use tokio_postgres::Client;

/// Version 1: games and their moves, as SQLite's schema 2 has them.
const V1: &str = "
CREATE TABLE games (
    id          TEXT PRIMARY KEY,
    variant     TEXT NOT NULL,              -- 'standard' | 'minichess7'
    initial_fen TEXT NOT NULL,
    rules       TEXT NOT NULL,              -- {\"castling\":true,\"en_passant\":true,\"repetition\":\"threefold\"}
    white       TEXT NOT NULL,              -- {\"kind\":\"human\"} | {\"kind\":\"bot\",\"level\":n}
    black       TEXT NOT NULL,
    white_token BYTEA,                      -- SHA-256 of the seat's token; NULL while open or a bot's
    black_token BYTEA,
    clock       TEXT,                       -- {\"initial_ms\":n,\"increment_ms\":n}; NULL when untimed
    status      TEXT NOT NULL,              -- 'playing' | 'ended'
    result      TEXT,                       -- '1-0' | '0-1' | '1/2-1/2' once ended
    reason      TEXT,                       -- an end reason's name once ended
    created_ms  BIGINT NOT NULL,            -- Unix time in milliseconds
    ended_ms    BIGINT,
    v           BIGINT NOT NULL DEFAULT 0,  -- the last event version stored
    white_ms    BIGINT,                     -- time left as of the last change
    black_ms    BIGINT
);
CREATE INDEX games_by_status ON games (status, ended_ms);
CREATE TABLE moves (
    game      TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply       INTEGER NOT NULL,             -- 1 for the first move
    uci       TEXT NOT NULL,
    played_ms BIGINT,                       -- Unix time in milliseconds
    PRIMARY KEY (game, ply)
);
";

/// Version 2: a cluster's nodes, and which node owns each game. A node is alive while its
/// heartbeat is recent (by the database's clock): that is the lease on all its games, renewed
/// with one row each second, so renewing never locks a game's row. `epoch` grows by one each
/// time a game changes hands, and every write a node makes checks it, so a node that lost a
/// game cannot write to it. A single server leaves these empty.
const V2: &str = "
ALTER TABLE games ADD COLUMN owner TEXT;
ALTER TABLE games ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;
CREATE INDEX games_by_owner ON games (owner) WHERE status <> 'ended';
CREATE TABLE nodes (
    name         TEXT PRIMARY KEY,
    started_at   TIMESTAMPTZ NOT NULL,
    heartbeat_at TIMESTAMPTZ NOT NULL,       -- the node's lease runs until this plus a few seconds
    games        INTEGER NOT NULL DEFAULT 0, -- rooms held
    connections  INTEGER NOT NULL DEFAULT 0  -- WebSocket connections open
);
";

/// Version 3: the display names players gave on taking their seats (NULL: none given, or a bot).
const V3: &str = "
ALTER TABLE games ADD COLUMN white_name TEXT;
ALTER TABLE games ADD COLUMN black_name TEXT;
";

/// Version 4: as SQLite's schema 4: the match a game belongs to, and the games' chat.
const V4: &str = "
ALTER TABLE games ADD COLUMN match_white INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN match_black INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN match_games INTEGER NOT NULL DEFAULT 0;
CREATE TABLE chat (
    seq    BIGSERIAL PRIMARY KEY,
    game   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    room   TEXT NOT NULL,                  -- 'players' | 'spectators'
    sender TEXT NOT NULL,
    text   TEXT NOT NULL,
    at_ms  BIGINT NOT NULL
);
CREATE INDEX chat_by_game ON chat (game, room, seq);
";

/// Version 5: as SQLite's schema 5: accounts, sessions, ratings, and who holds each seat.
const V5: &str = "
CREATE TABLE accounts (
    id            BIGSERIAL PRIMARY KEY,
    username      TEXT NOT NULL,
    username_key  TEXT NOT NULL UNIQUE,     -- lower case: names are unique ignoring case
    password_hash TEXT NOT NULL,            -- Argon2id, PHC string format
    seat_key      BYTEA NOT NULL,
    created_ms    BIGINT NOT NULL
);
CREATE TABLE sessions (
    token_hash BYTEA PRIMARY KEY,
    account    BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    created_ms BIGINT NOT NULL,
    used_ms    BIGINT NOT NULL
);
CREATE TABLE ratings (
    account    BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    category   TEXT NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    rd         DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      INTEGER NOT NULL,
    rated_ms   BIGINT NOT NULL,
    PRIMARY KEY (account, category)
);
CREATE INDEX ratings_by_category ON ratings (category, rating);
CREATE TABLE rating_history (
    seq      BIGSERIAL PRIMARY KEY,
    account  BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    category TEXT NOT NULL,
    game     TEXT NOT NULL,
    at_ms    BIGINT NOT NULL,
    rating   DOUBLE PRECISION NOT NULL
);
CREATE INDEX rating_history_by_account ON rating_history (account, at_ms);
ALTER TABLE games ADD COLUMN white_account BIGINT;
ALTER TABLE games ADD COLUMN black_account BIGINT;
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE games ADD COLUMN ratings TEXT;
CREATE INDEX games_by_white_account ON games (white_account, ended_ms);
CREATE INDEX games_by_black_account ON games (black_account, ended_ms);
";

/// Version 6: computer analyses of finished games: the claim of the one running per game,
/// then its result.
const V6: &str = "
CREATE TABLE analyses (
    game       TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    status     TEXT NOT NULL,               -- running | done
    runner     TEXT NOT NULL,               -- the server process that runs (or ran) it
    progress   DOUBLE PRECISION NOT NULL,   -- 0..1
    result     TEXT,                        -- StoredAnalysis as JSON once done
    updated_ms BIGINT NOT NULL                -- last touched by its runner (Unix time in ms)
);
";

/// Version 7: as SQLite's schema 7: each account's name key, filled in for older accounts
/// when the store opens.
const V7: &str = "
ALTER TABLE accounts ADD COLUMN name_key TEXT;
CREATE INDEX accounts_by_name_key ON accounts (name_key);
";

/// Version 8: personal API tokens (the token known by its SHA-256 only), bot accounts, and
/// challenges waiting for an answer.
const V8: &str = "
ALTER TABLE accounts ADD COLUMN bot BOOLEAN NOT NULL DEFAULT false;
CREATE TABLE api_tokens (
    id          BIGSERIAL PRIMARY KEY,
    token_hash  BYTEA NOT NULL UNIQUE,
    account     BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    description TEXT NOT NULL,
    scopes      TEXT NOT NULL,
    created_ms  BIGINT NOT NULL
);
CREATE INDEX api_tokens_by_account ON api_tokens (account);
CREATE TABLE challenges (
    id         TEXT PRIMARY KEY,
    challenger BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    dest       BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    body       TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE INDEX challenges_by_challenger ON challenges (challenger, created_ms);
CREATE INDEX challenges_by_dest ON challenges (dest, created_ms);
";

/// Version 9: players' relations (following and blocking) and their notifications.
const V9: &str = "
CREATE TABLE relations (
    from_account BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    to_account   BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    created_ms   BIGINT NOT NULL,
    PRIMARY KEY (from_account, to_account)
);
CREATE INDEX relations_by_to ON relations (to_account, kind);
CREATE TABLE notifications (
    id         BIGSERIAL PRIMARY KEY,
    account    BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    read       BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX notifications_by_account ON notifications (account, id);
";

/// Version 10: tournaments, each kept whole as JSON, and owned in a cluster as games are (the
/// node running it, and the epoch of its lease that every write checks).
const V10: &str = "
CREATE TABLE tournaments (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    status     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    owner      TEXT,
    epoch      BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX tournaments_by_status ON tournaments (status, created_ms);
";

/// Every migration's SQL, oldest first: version n is `STEPS[n - 1]`.
const STEPS: [&str; 10] = [V1, V2, V3, V4, V5, V6, V7, V8, V9, V10];

/// The schema version this server writes.
pub const LATEST: usize = STEPS.len();

/// The advisory lock key the migrations hold ("gambit" in ASCII).
const LOCK: i64 = 0x67_61_6d_62_69_74;

/// Brings the database's schema up to [`LATEST`]; refuses one written by a newer gambit.
pub(super) async fn migrate(client: &mut Client) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    loop {
        let tx = client.transaction().await?;
        // Held until the transaction ends: another node migrating waits here, then sees its work.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK]).await?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS gambit_schema (version INTEGER NOT NULL)").await?;
        let version: Option<i32> = tx.query_opt("SELECT version FROM gambit_schema", &[]).await?.map(|r| r.get(0));
        let version = usize::try_from(version.unwrap_or(0)).unwrap_or(0);
        if version > LATEST {
            return Err(format!(
                "it was written by a newer gambit (schema version {version}; this one knows {LATEST})"
            )
            .into());
        }
        let Some(step) = STEPS.get(version) else { return Ok(()) };
        tx.batch_execute(step).await?;
        let next = i32::try_from(version + 1)?;
        if version == 0 {
            tx.execute("INSERT INTO gambit_schema (version) VALUES ($1)", &[&next]).await?;
        } else {
            tx.execute("UPDATE gambit_schema SET version = $1", &[&next]).await?;
        }
        tx.commit().await?;
    }
}

/// Gives every account without one its name key (accounts made before schema 7).
pub(super) async fn fill_name_keys(client: &Client) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let rows = client.query("SELECT id, username FROM accounts WHERE name_key IS NULL", &[]).await?;
    for row in rows {
        let (id, username): (i64, String) = (row.get(0), row.get(1));
        client
            .execute("UPDATE accounts SET name_key = $2 WHERE id = $1", &[&id, &crate::protocol::name_key(&username)])
            .await?;
    }
    Ok(())
}
