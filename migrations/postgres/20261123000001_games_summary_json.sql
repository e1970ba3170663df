-- The summary is only ever read whole, by the server: kept as the text it was written
-- as (`json`) rather than parsed into `jsonb` on every move.
ALTER TABLE games ALTER COLUMN summary TYPE json USING summary::json;
