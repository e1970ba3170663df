-- The games that wait for players, by creation. Opening a game counts the waiting games
-- its creator already has (`WORP_OPEN_GAMES_PER_PLAYER`), and without an index on them
-- that read every game ever stored: 46 ms at 100,000 games, on every game opened. Moves
-- leave `status` as it is, so their updates of `games` stay heap-only (HOT).
CREATE INDEX games_waiting ON games (created_at DESC, id) WHERE status = 'waiting';
