-- Players who deleted their account. The log keeps their games as they were (it holds
-- ids, never names); what the server held of them beside it is deleted, and their row
-- in `players` loses its name (shown as "Deleted player" from then on) and its first
-- token (its hash replaced by random bytes no token has).
CREATE TABLE deleted_players (
    player_id   UUID PRIMARY KEY REFERENCES players (id),
    deleted_at  TIMESTAMPTZ NOT NULL
);
GRANT SELECT, INSERT ON deleted_players TO worp_server;
GRANT UPDATE (name, token_hash) ON players TO worp_server;
-- A deleted player's name is free again.
GRANT DELETE ON name_keys TO worp_server;
