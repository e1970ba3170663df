-- worp-load's anchor: pgbench's durable single-row insert.
INSERT INTO anchor (game_id, seq, payload) VALUES (gen_random_uuid(), 1, '{"dice": [3, 5]}');
