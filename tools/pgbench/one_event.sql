-- One event alone, as a move would write it if the roll and the move were one event and
-- the listings' row were written after the acknowledgement.
\set g random(1, 1000)
\set s random(1, 1000000000000)
INSERT INTO e_jsonb (game_id, seq, kind, payload, rules_version, recorded_at, hash)
VALUES (md5(:g::text)::uuid, :s::int8, 'move_played', :p1::text::jsonb, 1, now(), :h1)
RETURNING game_id, seq, position;
