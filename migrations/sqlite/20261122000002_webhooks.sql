-- Webhooks: URLs a player registers to hear that it is their turn or a game ended, and
-- the outbox of deliveries, written in the same transaction as the events.
CREATE TABLE webhooks (
    id          BLOB PRIMARY KEY,
    player_id   BLOB NOT NULL,
    url         TEXT NOT NULL,
    -- The HMAC-SHA256 signing secret (shown to the player once).
    secret      TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX webhooks_player ON webhooks (player_id);

CREATE TABLE webhook_deliveries (
    id              BLOB PRIMARY KEY,
    webhook_id      BLOB NOT NULL,
    player_id       BLOB NOT NULL,
    game_id         BLOB NOT NULL,
    version         BIGINT NOT NULL,
    kind            TEXT NOT NULL,
    payload         TEXT NOT NULL,
    -- pending, delivered or failed
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at TEXT NOT NULL,
    last_status     INTEGER,
    last_error      TEXT,
    created_at      TEXT NOT NULL,
    delivered_at    TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, created_at);
