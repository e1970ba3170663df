-- Every stored checkpoint of a game is kept, one each time it passes a multiple of 256
-- events (api/src/checkpoints/stored.rs), not only the newest: `state?at=N` of a game
-- this process has not folded starts at the newest one at or before N. Derived, like
-- the read models: any row may be deleted at any time.
ALTER TABLE checkpoints DROP CONSTRAINT checkpoints_pkey;
ALTER TABLE checkpoints ADD PRIMARY KEY (game_id, version);
