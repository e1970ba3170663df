-- The notifier follows the log of all games by position (`notifications/tail.rs`). With
-- no index on it since `20261125100000`, each of its reads sorted the whole log: a
-- second a read with 8 million events, and at start a read per 500 events of the log.
-- A BRIN index fits a log that is only appended to (positions rise with the pages):
-- a few pages of summaries, and the tail's read visits only the ranges past its
-- position, and those not summarised yet. Each range of 32 pages is summarised by an
-- autovacuum worker as soon as the next one begins (`autosummarize`), not by the move
-- that fills it; without it the newest fifth of the log, up to the next vacuum, was read
-- whole by every read of the tail (a second after 12 million events were written).
CREATE INDEX events_position ON events USING brin (position)
    WITH (pages_per_range = 32, autosummarize = on);

-- The listing of one status (`GET /v1/games?status=active`) walked `games_listed` past
-- every game of the other statuses: a second and more among a million finished games.
-- A move leaves `status` as it is, and `listed_second` within a second, so this index
-- keeps a move's update of its row heap-only as often as `games_listed` does.
CREATE INDEX games_listed_by_status ON games (status, listed_second DESC);
