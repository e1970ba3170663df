-- A player's games and turns are read through `game_seats` (the player to move holds a
-- seat; `LIST_GAMES_OF_SQLITE`), and no query finds games by `to_move_player` alone, so
-- the index on it, a column every move changes, only cost each move two index entries:
-- a page of the commit's log on a small database, two on a large one. PostgreSQL dropped
-- it for the same reason (its migration `20261124400000`).
DROP INDEX IF EXISTS games_to_move_player;
