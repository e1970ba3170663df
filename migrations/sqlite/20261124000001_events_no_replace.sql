-- `REPLACE INTO events` and `INSERT OR REPLACE` delete the event they replace without
-- firing `events_no_delete` (SQLite fires no delete triggers for REPLACE unless
-- recursive triggers are on): refuse any insert that would replace an event, by its
-- game and sequence number or by its position. A plain duplicate insert fails here too
-- (the store reads this as a lost race, as it would the unique key).
CREATE TRIGGER events_no_replace BEFORE INSERT ON events
WHEN EXISTS (
    SELECT 1 FROM events
    WHERE (game_id = NEW.game_id AND seq = NEW.seq) OR position = NEW.position
)
BEGIN
    SELECT RAISE(ABORT, 'events are immutable: INSERT over an existing event refused');
END;
