-- Notifications: players' e-mail addresses, their preferences, and the outbox of mails
-- and pushes, filled from the event log by the notifier (`worp_service::notifications`).

-- A player's e-mail address (one each). Only a confirmed one that is not disabled gets
-- notices; a permanent refusal by the receiving server disables it.
CREATE TABLE email_addresses (
    player_id           BLOB PRIMARY KEY REFERENCES players (id),
    address             TEXT NOT NULL,
    -- The SHA-256 of the pending confirmation link's secret, and when it expires.
    confirm_hash        BLOB UNIQUE,
    confirm_expires_at  TEXT,
    confirmed_at        TEXT,
    -- The secret in this address's unsubscribe links (RFC 8058); new with each address.
    unsubscribe_key     TEXT NOT NULL UNIQUE,
    disabled_at         TEXT,
    disabled_reason     TEXT,
    created_at          TEXT NOT NULL
);

-- Confirmation mails sent, counted per player, per client address and per target
-- address for the rate limits.
CREATE TABLE email_confirmations_sent (
    player_id       BLOB NOT NULL,
    client_address  TEXT NOT NULL,
    target          TEXT NOT NULL,
    sent_at         TEXT NOT NULL
);
CREATE INDEX email_confirmations_by_player ON email_confirmations_sent (player_id, sent_at);
CREATE INDEX email_confirmations_by_client ON email_confirmations_sent (client_address, sent_at);
CREATE INDEX email_confirmations_by_target ON email_confirmations_sent (target, sent_at);

-- Each player's choices (JSON: per kind and channel, quiet hours, time zone); absent:
-- the defaults.
CREATE TABLE notification_preferences (
    player_id   BLOB PRIMARY KEY REFERENCES players (id),
    settings    TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE muted_games (
    player_id  BLOB NOT NULL REFERENCES players (id),
    game_id    BLOB NOT NULL,
    PRIMARY KEY (player_id, game_id)
);

-- The position in the event log up to which the notifier has turned events into
-- notices. It starts at the log's end: notices begin with this version.
CREATE TABLE notifier_cursor (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    position  INTEGER NOT NULL
);
INSERT INTO notifier_cursor (id, position) SELECT 1, COALESCE(max(position), 0) FROM events;

-- Each notice (player, game, version, kind) taken into the outbox once, whichever
-- process read it and however often.
CREATE TABLE notices_taken (
    player_id  BLOB NOT NULL,
    game_id    BLOB NOT NULL,
    version    INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    taken_at   TEXT NOT NULL,
    PRIMARY KEY (player_id, game_id, version, kind)
);

-- The outbox: one mail or push per row. Notices of one player, channel and topic (a
-- game, or the day's digest) coalesce into the row still pending.
CREATE TABLE notifications (
    id           BLOB PRIMARY KEY,
    player_id    BLOB NOT NULL,
    -- email, push, digest, confirm or reset
    channel      TEXT NOT NULL,
    topic        TEXT NOT NULL,
    -- The notices, one JSON object a line.
    items        TEXT NOT NULL,
    -- pending, sending, sent, failed or dropped
    status       TEXT NOT NULL,
    due_at       TEXT NOT NULL,
    attempts     INTEGER NOT NULL,
    lease_until  TEXT,
    last_error   TEXT,
    created_at   TEXT NOT NULL,
    sent_at      TEXT
);
CREATE UNIQUE INDEX notifications_pending ON notifications (player_id, channel, topic)
    WHERE status = 'pending';
CREATE INDEX notifications_due ON notifications (due_at) WHERE status IN ('pending', 'sending');
CREATE INDEX notifications_by_player ON notifications (player_id, channel, topic, sent_at);


-- Password resets asked by mail: the SHA-256 of each link's secret, single-use, for an
-- hour. Kept a day after, to count them against the limit.
CREATE TABLE password_resets (
    secret_hash  BLOB PRIMARY KEY,
    player_id    BLOB NOT NULL REFERENCES players (id),
    created_at   TEXT NOT NULL,
    expires_at   TEXT NOT NULL,
    used_at      TEXT
);
CREATE INDEX password_resets_by_player ON password_resets (player_id, created_at);
