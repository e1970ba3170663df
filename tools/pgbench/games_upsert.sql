-- Sixteen `games` rows as a batch of moves writes them now (store/sql.rs, `upsert_games!`):
-- an upsert guarded by the version each change was judged on.
\set b random(0, 6000) * 16
WITH heads AS (SELECT md5((:b + i)::text)::uuid AS game_id, 1::int8 AS expected FROM generate_series(1,16) i),
rows AS (SELECT h.game_id AS id, 'backgammon'::text AS variant, 'active'::text AS status, 1::int8 AS version, 1::int4 AS to_move_seat, NULL::uuid AS to_move_player, :summary::text AS summary, now() AS created_at, now() AS updated_at, NULL::timestamptz AS deadline FROM heads h)
INSERT INTO g_json (id, variant, status, version, to_move_seat, to_move_player, summary, created_at, updated_at, deadline, listed_second)
SELECT r.id, r.variant, r.status, r.version, r.to_move_seat, r.to_move_player, r.summary::json, r.created_at, r.updated_at, r.deadline, date_bin('1 second', r.updated_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') FROM rows r
ON CONFLICT (id) DO UPDATE SET status = excluded.status, version = excluded.version, to_move_seat = excluded.to_move_seat, to_move_player = excluded.to_move_player, summary = excluded.summary, updated_at = excluded.updated_at, deadline = excluded.deadline, listed_second = excluded.listed_second
WHERE g_json.version = (SELECT h.expected FROM heads h WHERE h.game_id = excluded.id LIMIT 1)
RETURNING id;
