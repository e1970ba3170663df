-- The games that wait for players, by creation: opening a game counts the waiting games
-- its creator already has (`WORP_OPEN_GAMES_PER_PLAYER`), which read every game ever
-- stored without it.
CREATE INDEX games_waiting ON games (created_at DESC, id) WHERE status = 'waiting';
