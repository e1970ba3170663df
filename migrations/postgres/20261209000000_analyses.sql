-- The computer's analyses of finished backgammon games and matches (GNU Backgammon's):
-- derived data, rebuilt by analysing again, never part of a game's log.
CREATE TABLE game_analyses (
    game_id      UUID PRIMARY KEY,
    -- 'pending' until analysed, then 'ready' or 'failed'.
    state        TEXT NOT NULL,
    -- The game's version the analysis is of.
    version      BIGINT NOT NULL,
    -- The analysis (JSON) once ready; why it failed once failed.
    body         TEXT,
    error        TEXT,
    requested_at TIMESTAMPTZ NOT NULL,
    done_at      TIMESTAMPTZ
);
CREATE INDEX game_analyses_pending ON game_analyses (requested_at) WHERE state = 'pending';

