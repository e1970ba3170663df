-- Web Push (RFC 8030, 8291, 8292).
--
-- The server's VAPID key pair, made once on first need so that every restart signs with
-- the same key (browsers bind each subscription to the public key it was made with):
-- the P-256 private scalar, base64url. One row at most.
CREATE TABLE vapid_keys (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    private_key  TEXT NOT NULL,
    created_at   TEXT NOT NULL
);

-- A browser's push subscription (`PushSubscription.toJSON()`): where to send, and the
-- keys each message is encrypted to. One row per endpoint; a player holds a few.
CREATE TABLE push_subscriptions (
    id            BLOB PRIMARY KEY,
    player_id     BLOB NOT NULL REFERENCES players (id),
    endpoint      TEXT NOT NULL UNIQUE,
    p256dh        TEXT NOT NULL,
    auth          TEXT NOT NULL,
    device        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    last_used_at  TEXT
);
CREATE INDEX push_subscriptions_by_player ON push_subscriptions (player_id);
