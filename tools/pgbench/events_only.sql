-- The lone move's statement without its `games` row: the two events alone, as a move
-- would write them if the listings' row were written after the acknowledgement.
\set g random(1, 1000)
\set s random(1, 1000000000000)
INSERT INTO e_jsonb (game_id, seq, kind, payload, rules_version, recorded_at, hash)
SELECT md5(:g::text)::uuid, x.seq, x.kind, x.payload::jsonb, x.rules_version, x.recorded_at, x.hash
FROM (VALUES (:s::int8, 'move_played'::text, :p1::text, 1::int4, now(), :h1::text),
    (:s::int8 + 1, 'dice_rolled'::text, :p2::text, 1::int4, now(), :h2::text))
    AS x(seq, kind, payload, rules_version, recorded_at, hash)
RETURNING game_id, seq, position;
