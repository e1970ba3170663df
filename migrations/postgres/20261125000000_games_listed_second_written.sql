-- The second of a game's last change (`listed_second`, by which the listings are ordered
-- through `games_listed`) was a stored generated column. PostgreSQL rebuilds a generated
-- column's expression from its catalogue text at the start of every statement that
-- updates the table, and every move updates its game's row: with one client that was
-- about a fiftieth of the database's time per move. The server now writes the column
-- with every row, computed in the statement from `updated_at` by the same expression
-- (`listed_second!` in api/src/store/sql.rs). The values already stored are kept.
ALTER TABLE games ALTER COLUMN listed_second DROP EXPRESSION;
