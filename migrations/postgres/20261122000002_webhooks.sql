-- Webhooks: URLs a player registers to hear that it is their turn or a game ended, and
-- the outbox of deliveries, written in the same transaction as the events.
CREATE TABLE webhooks (
    id          UUID PRIMARY KEY,
    player_id   UUID NOT NULL,
    url         TEXT NOT NULL,
    -- The HMAC-SHA256 signing secret (shown to the player once).
    secret      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhooks_player ON webhooks (player_id);

CREATE TABLE webhook_deliveries (
    id              UUID PRIMARY KEY,
    webhook_id      UUID NOT NULL,
    player_id       UUID NOT NULL,
    game_id         UUID NOT NULL,
    version         BIGINT NOT NULL,
    kind            TEXT NOT NULL,
    payload         JSONB NOT NULL,
    -- pending, delivered or failed
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    last_status     INTEGER,
    last_error      TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    delivered_at    TIMESTAMPTZ
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, created_at);
