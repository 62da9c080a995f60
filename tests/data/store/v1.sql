-- A gambit database as the first store (schema version 1) wrote it: frozen, never to be
-- edited, so the migration test keeps proving that a newer server opens an older file.
-- Two games: an unfinished one between two people (tokens "v1-white-token" and
-- "v1-black-token"), timed 5+3, after 1. e4 e5 2. Nf3; and a finished one (black resigned).
BEGIN;
CREATE TABLE games (
    id          TEXT PRIMARY KEY,
    variant     TEXT NOT NULL,              -- "standard" | "minichess7"
    initial_fen TEXT NOT NULL,
    rules       TEXT NOT NULL,              -- RulesSpec as JSON
    white       TEXT NOT NULL,              -- SeatSpec as JSON: {"kind":"human"} | {"kind":"bot","level":n}
    black       TEXT NOT NULL,
    white_token BLOB,                       -- SHA-256 of the seat's token; NULL while open or a bot's
    black_token BLOB,
    clock       TEXT,                       -- ClockSpec as JSON; NULL for an untimed game
    status      TEXT NOT NULL,              -- "playing" | "ended"
    result      TEXT,                       -- "1-0" | "0-1" | "1/2-1/2" once ended
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
INSERT INTO games VALUES ('v1game01', 'standard', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  '{"castling":true,"en_passant":true,"repetition":"threefold"}', '{"kind":"human"}', '{"kind":"human"}',
  X'45252a9763017d6fcbcb9c239b942f06e50fee9fab78d2786b48e74a7605dd58', X'de2e1b73a67e46a1ee4e0b924358641685608a4944836335b96ea610041bdd8e', '{"initial_ms":300000,"increment_ms":3000}', 'playing', NULL, NULL, 1763800000000, NULL);
INSERT INTO moves VALUES ('v1game01', 1, 'e2e4'), ('v1game01', 2, 'e7e5'), ('v1game01', 3, 'g1f3');
INSERT INTO games VALUES ('v1game02', 'minichess7', 'nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1',
  '{"castling":false,"en_passant":false,"repetition":"threefold"}', '{"kind":"human"}', '{"kind":"bot","level":2}',
  X'45252a9763017d6fcbcb9c239b942f06e50fee9fab78d2786b48e74a7605dd58', NULL, NULL, 'ended', '1-0', 'resignation', 1763800000000, 1763800600000);
INSERT INTO moves VALUES ('v1game02', 1, 'c2c3');
PRAGMA user_version = 1;
COMMIT;
