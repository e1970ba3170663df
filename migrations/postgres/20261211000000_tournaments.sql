-- Tournaments (docs/tournaments.md). A tournament is its log, like a game: one row per
-- event, hash-chained, never changed. `tournaments` is its read model (rebuilt by
-- `worp rebuild`), `tournament_games` finds the tournament of a game that finished.
CREATE TABLE tournament_events (
    tournament_id UUID NOT NULL,
    seq           BIGINT NOT NULL CHECK (seq >= 1),
    kind          TEXT NOT NULL,
    -- The payload's canonical JSON text, which the hash covers.
    payload       TEXT NOT NULL,
    recorded_at   TIMESTAMPTZ NOT NULL,
    -- SHA-256(previous event's hash || this event's canonical bytes), hex.
    hash          TEXT NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
CREATE TRIGGER tournament_events_no_update_or_delete
    BEFORE UPDATE OR DELETE ON tournament_events
    FOR EACH ROW EXECUTE FUNCTION worp_events_are_immutable();
CREATE TRIGGER tournament_events_no_truncate
    BEFORE TRUNCATE ON tournament_events
    FOR EACH STATEMENT EXECUTE FUNCTION worp_events_are_immutable();

CREATE TABLE tournaments (
    id          UUID PRIMARY KEY,
    name        TEXT NOT NULL,
    variant     TEXT NOT NULL,
    -- registering, running or finished
    status      TEXT NOT NULL,
    created_by  UUID NOT NULL,
    -- The last sequence number of its log.
    version     BIGINT NOT NULL,
    -- The tournament's view (settings, players, rounds, standings) as JSON text.
    summary     TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX tournaments_by_status ON tournaments (status, created_at DESC, id);

CREATE TABLE tournament_games (
    game_id        UUID PRIMARY KEY,
    tournament_id  UUID NOT NULL,
    round          INTEGER NOT NULL,
    table_number   INTEGER NOT NULL
);
CREATE INDEX tournament_games_of ON tournament_games (tournament_id);
