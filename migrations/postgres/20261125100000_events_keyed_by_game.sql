-- Every read of the log finds events by game and sequence number; the global position is
-- read only through `events_finished` (the ratings) or sorted once (a rebuild). Its own
-- unique index cost every event a second index entry: two per move of the four written,
-- and about 8 % of a move's WAL. The position stays unique by its identity sequence; the
-- log's key is `UNIQUE (game_id, seq)`, which every append checks anyway.
ALTER TABLE events DROP CONSTRAINT events_pkey;
