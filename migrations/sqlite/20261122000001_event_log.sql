-- The event log: the only source of truth. One row per event, never changed.
CREATE TABLE players (
    id          BLOB PRIMARY KEY,
    name        TEXT NOT NULL,
    -- SHA-256 of the bearer token; the token itself is never stored.
    token_hash  BLOB NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

CREATE TABLE events (
    -- Global position, for readers that follow every game.
    position      INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id       BLOB NOT NULL,
    -- 1, 2, 3, ... per game, without gaps: the unique key makes a racing append fail.
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    kind          TEXT NOT NULL,
    payload       TEXT NOT NULL,
    rules_version INTEGER NOT NULL,
    recorded_at   TEXT NOT NULL,
    -- SHA-256(previous event's hash || this event's canonical bytes), hex.
    hash          TEXT NOT NULL,
    UNIQUE (game_id, seq)
);

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are immutable: UPDATE refused');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are immutable: DELETE refused');
END;

-- The secret server seed of each game's dice, until the final event reveals it.
CREATE TABLE game_secrets (
    game_id     BLOB PRIMARY KEY,
    server_seed BLOB NOT NULL
);

-- Read models, written in the same transaction as the events; `worp rebuild` remakes them.
CREATE TABLE games (
    id              BLOB PRIMARY KEY,
    variant         TEXT NOT NULL,
    status          TEXT NOT NULL,
    version         INTEGER NOT NULL,
    to_move_seat    INTEGER,
    to_move_player  BLOB,
    summary         TEXT NOT NULL,
    -- When the seat to move runs out of time (games with a clock).
    deadline        TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX games_to_move_player ON games (to_move_player);
CREATE INDEX games_updated ON games (updated_at DESC, id);
CREATE INDEX games_deadline ON games (deadline);

CREATE TABLE game_seats (
    game_id   BLOB NOT NULL,
    seat      INTEGER NOT NULL,
    player_id BLOB,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_seats_player ON game_seats (player_id);

-- Answers kept for requests that carried an Idempotency-Key.
CREATE TABLE idempotency (
    player_id   BLOB NOT NULL,
    key         TEXT NOT NULL,
    status      INTEGER NOT NULL,
    body        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (player_id, key)
);
