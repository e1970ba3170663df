-- The event log: the only source of truth. One row per event, never changed.
CREATE TABLE players (
    id          UUID PRIMARY KEY,
    name        TEXT NOT NULL,
    -- SHA-256 of the bearer token; the token itself is never stored.
    token_hash  BYTEA NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE events (
    -- Global position, for readers that follow every game.
    position      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id       UUID NOT NULL,
    -- 1, 2, 3, ... per game, without gaps: the unique key makes a racing append fail.
    seq           BIGINT NOT NULL CHECK (seq >= 1),
    kind          TEXT NOT NULL,
    payload       JSONB NOT NULL,
    rules_version INTEGER NOT NULL,
    recorded_at   TIMESTAMPTZ NOT NULL,
    -- SHA-256(previous event's hash || this event's canonical bytes), hex.
    hash          TEXT NOT NULL,
    UNIQUE (game_id, seq)
);

CREATE FUNCTION worp_events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable: % refused', TG_OP;
END;
$$;

CREATE TRIGGER events_no_update_or_delete
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION worp_events_are_immutable();

CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION worp_events_are_immutable();

-- The secret server seed of each game's dice, until the final event reveals it.
CREATE TABLE game_secrets (
    game_id     UUID PRIMARY KEY,
    server_seed BYTEA NOT NULL
);

-- Read models, written in the same transaction as the events; `worp rebuild` remakes them.
CREATE TABLE games (
    id              UUID PRIMARY KEY,
    variant         TEXT NOT NULL,
    status          TEXT NOT NULL,
    version         BIGINT NOT NULL,
    to_move_seat    INTEGER,
    to_move_player  UUID,
    summary         JSONB NOT NULL,
    -- When the seat to move runs out of time (games with a clock).
    deadline        TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX games_to_move_player ON games (to_move_player) WHERE to_move_player IS NOT NULL;
CREATE INDEX games_updated ON games (updated_at DESC, id);
CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL;

CREATE TABLE game_seats (
    game_id   UUID NOT NULL,
    seat      INTEGER NOT NULL,
    player_id UUID,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_seats_player ON game_seats (player_id);

-- Answers kept for requests that carried an Idempotency-Key.
CREATE TABLE idempotency (
    player_id   UUID NOT NULL,
    key         TEXT NOT NULL,
    status      INTEGER NOT NULL,
    body        JSONB NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (player_id, key)
);
