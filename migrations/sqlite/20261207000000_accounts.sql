-- Credentials beside a player's first token (`players.token_hash`, which stays and
-- grants every scope): personal access tokens, web sessions and OAuth tokens. Only the
-- SHA-256 of each secret is stored. Revoking one deletes its row.
CREATE TABLE credentials (
    id            BLOB PRIMARY KEY,
    player_id     BLOB NOT NULL REFERENCES players (id),
    secret_hash   BLOB NOT NULL UNIQUE,
    kind          TEXT NOT NULL
                  CHECK (kind IN ('personal', 'session', 'oauth_access', 'oauth_refresh')),
    -- The token's note, the session's device, or the OAuth client's id.
    name          TEXT NOT NULL,
    -- Space-separated scope names.
    scopes        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    last_used_at  TEXT,
    expires_at    TEXT,
    -- The OAuth grant an OAuth token belongs to: revoking the grant revokes them all.
    grant_id      BLOB,
    -- When a refresh token was exchanged; presenting it again revokes its grant.
    used_at       TEXT
);
CREATE INDEX credentials_by_player ON credentials (player_id, kind);
CREATE INDEX credentials_by_grant ON credentials (grant_id) WHERE grant_id IS NOT NULL;

-- Argon2id hashes in PHC string format.
CREATE TABLE passwords (
    player_id   BLOB PRIMARY KEY REFERENCES players (id),
    phc         TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

-- Single-use recovery codes, as SHA-256; a used one is deleted.
CREATE TABLE recovery_codes (
    player_id  BLOB NOT NULL REFERENCES players (id),
    code_hash  BLOB NOT NULL,
    PRIMARY KEY (player_id, code_hash)
);

-- The third-party front-ends a player authorised (OAuth 2.0, public clients).
CREATE TABLE oauth_grants (
    id            BLOB PRIMARY KEY,
    player_id     BLOB NOT NULL REFERENCES players (id),
    client_id     TEXT NOT NULL,
    redirect_uri  TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE INDEX oauth_grants_by_player ON oauth_grants (player_id);

-- Authorisation codes: single-use, short-lived. An exchanged code keeps its row (with
-- the grant it made) until it expires, so that a replay revokes that grant.
CREATE TABLE oauth_codes (
    code_hash       BLOB PRIMARY KEY,
    player_id       BLOB NOT NULL REFERENCES players (id),
    client_id       TEXT NOT NULL,
    redirect_uri    TEXT NOT NULL,
    scopes          TEXT NOT NULL,
    code_challenge  TEXT NOT NULL,
    expires_at      TEXT NOT NULL,
    grant_id        BLOB
);

-- Failed sign-ins per key (an account's name key, or an address): what the growing
-- delays are counted from. A success deletes the account's row.
CREATE TABLE sign_in_failures (
    key          TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    last_failed  TEXT NOT NULL
);

