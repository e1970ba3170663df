-- Players' vacations (docs/vacation.md): while one lasts, the clocks of the player's
-- correspondence games are paused. The games' logs say so themselves
-- (`vacation_started`, `vacation_ended`); this table counts the yearly allowance, finds
-- the vacations the sweep ends at `until`, and shows "on vacation until …". A vacation
-- ended early has `ended_at`; one ended by the sweep has it too. At most one is current.
CREATE TABLE vacations (
    player_id   BLOB NOT NULL REFERENCES players (id),
    started_at  TEXT NOT NULL,
    until       TEXT NOT NULL,
    ended_at    TEXT,
    PRIMARY KEY (player_id, started_at),
    CHECK (until > started_at)
);
CREATE UNIQUE INDEX vacations_current ON vacations (player_id) WHERE ended_at IS NULL;
CREATE INDEX vacations_due ON vacations (until) WHERE ended_at IS NULL;
