-- Passkeys (WebAuthn credentials): the credential as webauthn-rs keeps it (its public
-- key, counter and flags, as JSON), by the credential's id.
CREATE TABLE passkeys (
    credential_id  BYTEA PRIMARY KEY,
    player_id      UUID NOT NULL REFERENCES players (id),
    name           TEXT NOT NULL,
    passkey        TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    last_used_at   TIMESTAMPTZ
);
CREATE INDEX passkeys_by_player ON passkeys (player_id);

-- A WebAuthn ceremony between its two requests (the challenge and what it expects),
-- used once, within minutes.
CREATE TABLE webauthn_ceremonies (
    id          UUID PRIMARY KEY,
    player_id   UUID REFERENCES players (id),
    kind        TEXT NOT NULL CHECK (kind IN ('register', 'sign_in')),
    state       TEXT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);

GRANT SELECT, INSERT, UPDATE, DELETE ON passkeys, webauthn_ceremonies TO worp_server;
