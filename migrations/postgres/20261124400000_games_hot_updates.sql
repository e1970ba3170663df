-- A move rewrites its game's `games` row (status, version, the player to move, the
-- summary, updated_at). With an index on a column that changes, every update writes a
-- new entry into every index of the table; without, PostgreSQL updates the row in
-- place on its page (a heap-only tuple, HOT): no index entry at all, less WAL, and
-- pages pruned as they are read. Room is left on each page for those new versions.
-- A player's turns are found through `game_seats` (the player to move holds a seat);
-- listings by `updated_at` sort the matching games instead of reading an index.
DROP INDEX IF EXISTS games_to_move_player;
DROP INDEX IF EXISTS games_updated;
ALTER TABLE games SET (fillfactor = 70);
