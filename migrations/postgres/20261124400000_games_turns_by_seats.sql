-- A player's games and turns are read through `game_seats` (the player to move holds a
-- seat; `LIST_GAMES_OF`), so the index on `to_move_player`, a column every move
-- changes, only cost an index entry per move. `games_updated` stays: the public listing
-- of every game, newest change first, reads a page of it instead of sorting the table.
DROP INDEX IF EXISTS games_to_move_player;
