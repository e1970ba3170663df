-- Players who deleted their account. The log keeps their games as they were (it holds
-- ids, never names); what the server held of them beside it is deleted, and their row
-- in `players` loses its name (shown as "Deleted player" from then on) and its first
-- token (its hash replaced by random bytes no token has).
CREATE TABLE deleted_players (
    player_id   BLOB PRIMARY KEY REFERENCES players (id),
    deleted_at  TEXT NOT NULL
);
