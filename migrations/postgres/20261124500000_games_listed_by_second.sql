-- Every move rewrites its game's `games` row. While an index covers a column the move
-- changes (`updated_at`, for the listing newest first), no such update can be heap-only
-- (HOT): each one adds an entry to every index of the table and leaves a dead row version
-- that lookups of the game walk through until a vacuum, so a busy game's row gets dearer
-- to reach with every move.
--
-- The listing's order is kept by the second of the last change instead, a column that a
-- game's moves within the same second leave as it is: ordering by it and then by
-- `updated_at` is the same order as by `updated_at` alone (the second is `updated_at`
-- rounded down), and a page reads the index to the first seconds that fill it, then
-- sorts only their games. Room is left on each page for the new row versions.
ALTER TABLE games ADD COLUMN listed_second TIMESTAMPTZ
    GENERATED ALWAYS AS (date_bin('1 second', updated_at, TIMESTAMPTZ '2000-01-01 00:00:00+00')) STORED;
DROP INDEX IF EXISTS games_updated;
CREATE INDEX games_listed ON games (listed_second DESC);
ALTER TABLE games SET (fillfactor = 70);
