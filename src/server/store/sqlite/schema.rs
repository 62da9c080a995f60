//! The store's schema and its migrations. Each migration is applied once, in order, and the
//! file records how many have been applied (SQLite's `user_version`), so a newer server opens a
//! file written by an older one. Never edit a migration that has shipped: add a new one.

use rusqlite_migration::{Migrations, M};

/// Version 1: games and their moves.
const V1: &str = "
CREATE TABLE games (
    id          TEXT PRIMARY KEY,
    variant     TEXT NOT NULL,              -- \"standard\" | \"minichess7\"
    initial_fen TEXT NOT NULL,
    rules       TEXT NOT NULL,              -- RulesSpec as JSON
    white       TEXT NOT NULL,              -- SeatSpec as JSON: {\"kind\":\"human\"} | {\"kind\":\"bot\",\"level\":n}
    black       TEXT NOT NULL,
    white_token BLOB,                       -- SHA-256 of the seat's token; NULL while open or a bot's
    black_token BLOB,
    clock       TEXT,                       -- ClockSpec as JSON; NULL for an untimed game
    status      TEXT NOT NULL,              -- \"playing\" | \"ended\"
    result      TEXT,                       -- \"1-0\" | \"0-1\" | \"1/2-1/2\" once ended
    reason      TEXT,                       -- an EndReason name once ended
    created_ms  INTEGER NOT NULL,           -- Unix time in milliseconds
    ended_ms    INTEGER
);
CREATE TABLE moves (
    game TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply  INTEGER NOT NULL,                  -- 1 for the first move
    uci  TEXT NOT NULL,
    PRIMARY KEY (game, ply)
) WITHOUT ROWID;
";

/// Version 2: what a restart needs to carry on exactly: the event version, the clock's times,
/// when each move was played; and an index for the archive of finished games.
const V2: &str = "
ALTER TABLE games ADD COLUMN v INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN white_ms INTEGER;     -- time left as of the last change
ALTER TABLE games ADD COLUMN black_ms INTEGER;
ALTER TABLE moves ADD COLUMN played_ms INTEGER;    -- Unix time in milliseconds
CREATE INDEX games_by_status ON games (status, ended_ms);
";

/// Version 3: the display names players gave on taking their seats (NULL: none given, or a bot).
const V3: &str = "
ALTER TABLE games ADD COLUMN white_name TEXT;
ALTER TABLE games ADD COLUMN black_name TEXT;
";

/// Version 4: the match a game belongs to (its score before the game, in half-points, as the
/// game's colours see it), and the games' chat, the last lines of each room.
const V4: &str = "
ALTER TABLE games ADD COLUMN match_white INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN match_black INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN match_games INTEGER NOT NULL DEFAULT 0;
CREATE TABLE chat (
    game   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    room   TEXT NOT NULL,                  -- \"players\" | \"spectators\"
    sender TEXT NOT NULL,                  -- the writer's display name
    text   TEXT NOT NULL,
    at_ms  INTEGER NOT NULL                -- Unix time in milliseconds
);
CREATE INDEX chat_by_game ON chat (game, room);
";

/// Version 5: accounts, their sessions and ratings; which account holds each seat; whether a
/// game is rated, and the rating change it made.
const V5: &str = "
CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY,
    username      TEXT NOT NULL,
    username_key  TEXT NOT NULL UNIQUE,     -- the username in lower case: names are unique ignoring case
    password_hash TEXT NOT NULL,            -- Argon2id, PHC string format (salt and parameters included)
    seat_key      BLOB NOT NULL,            -- secret the account's seat tokens are derived from
    created_ms    INTEGER NOT NULL
);
CREATE TABLE sessions (
    token_hash BLOB PRIMARY KEY,            -- SHA-256 of the cookie's token
    account    INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    created_ms INTEGER NOT NULL,
    used_ms    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE ratings (
    account    INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    category   TEXT NOT NULL,               -- bullet | blitz | rapid | classical | minichess7
    rating     REAL NOT NULL,
    rd         REAL NOT NULL,
    volatility REAL NOT NULL,
    games      INTEGER NOT NULL,
    rated_ms   INTEGER NOT NULL,            -- when it last changed
    PRIMARY KEY (account, category)
) WITHOUT ROWID;
CREATE INDEX ratings_by_category ON ratings (category, rating);
CREATE TABLE rating_history (
    account  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    category TEXT NOT NULL,
    game     TEXT NOT NULL,
    at_ms    INTEGER NOT NULL,
    rating   REAL NOT NULL
);
CREATE INDEX rating_history_by_account ON rating_history (account, at_ms);
ALTER TABLE games ADD COLUMN white_account INTEGER;   -- NULL: an anonymous player, an open seat or a bot
ALTER TABLE games ADD COLUMN black_account INTEGER;
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN ratings TEXT;            -- the rating change, as JSON, once a rated game ended
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
    progress   REAL NOT NULL,              -- 0..1
    result     TEXT,                        -- StoredAnalysis as JSON once done
    updated_ms INTEGER NOT NULL                -- last touched by its runner (Unix time in ms)
);
";

/// Version 7: each account's name key (`protocol::name_key`: the confusable skeleton of the
/// username, ignoring case), so a chosen name that looks like a username is found. Filled in
/// for older accounts when the store opens (the key is computed in Rust).
const V7: &str = "
ALTER TABLE accounts ADD COLUMN name_key TEXT;
CREATE INDEX accounts_by_name_key ON accounts (name_key);
";

/// Version 8: personal API tokens (lichess's API; the token known by its SHA-256 only), bot
/// accounts, and challenges waiting for an answer.
const V8: &str = "
ALTER TABLE accounts ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;
CREATE TABLE api_tokens (
    id          INTEGER PRIMARY KEY,
    token_hash  BLOB NOT NULL UNIQUE,       -- SHA-256 of the token
    account     INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    description TEXT NOT NULL,
    scopes      TEXT NOT NULL,              -- lichess's scope names, comma-separated
    created_ms  INTEGER NOT NULL
);
CREATE INDEX api_tokens_by_account ON api_tokens (account);
CREATE TABLE challenges (
    id         TEXT PRIMARY KEY,
    challenger INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    dest       INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    body       TEXT NOT NULL,               -- the challenge as JSON (server::challenges)
    created_ms INTEGER NOT NULL
);
CREATE INDEX challenges_by_challenger ON challenges (challenger, created_ms);
CREATE INDEX challenges_by_dest ON challenges (dest, created_ms);
";

/// Version 9: players' relations (following and blocking) and their notifications, kept until
/// read.
const V9: &str = "
CREATE TABLE relations (
    from_account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    to_account   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,             -- follow | block
    created_ms   INTEGER NOT NULL,
    PRIMARY KEY (from_account, to_account)
) WITHOUT ROWID;
CREATE INDEX relations_by_to ON relations (to_account, kind);
CREATE TABLE notifications (
    id         INTEGER PRIMARY KEY,
    account    INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,               -- challenge | friendGame | corresMove | tournament
    body       TEXT NOT NULL,               -- the rest as JSON (server::notifications)
    created_ms INTEGER NOT NULL,
    read       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX notifications_by_account ON notifications (account, id);
";

/// Version 10: tournaments, each kept whole as JSON (`server::tournaments`).
const V10: &str = "
CREATE TABLE tournaments (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,               -- roundrobin
    status     TEXT NOT NULL,               -- created | started | finished
    body       TEXT NOT NULL,               -- the tournament as JSON
    created_ms INTEGER NOT NULL
);
CREATE INDEX tournaments_by_status ON tournaments (status, created_ms);
";

/// Every migration's SQL, oldest first: version n is `STEPS[n - 1]`.
const STEPS: [&str; 10] = [V1, V2, V3, V4, V5, V6, V7, V8, V9, V10];

/// The schema version this server writes.
pub const LATEST: usize = STEPS.len();

/// Every migration, to bring any older file up to [`LATEST`]. (Tests of older files use a
/// frozen copy of what an older server wrote: tests/data/store/v1.sql.)
pub fn migrations() -> Migrations<'static> {
    Migrations::new(STEPS.into_iter().map(M::up).collect())
}
