-- The listing of one status (`GET /v1/games?status=active`) walked the listing's index
-- past every game of the other statuses: among a million finished games, all of them.
CREATE INDEX games_by_status ON games (status, updated_at DESC, id);
