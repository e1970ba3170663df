-- A kept Idempotency-Key answer (about 2.9 KB of JSON on average, a game's whole view) is
-- over the size PostgreSQL compresses, and its default compression (pglz) cost a keyed
-- move about 20 µs of the database's time: lz4 compresses it several times faster. A
-- server built without lz4 keeps the default.
DO $$
BEGIN
    ALTER TABLE idempotency ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not supported by this server: kept answers stay compressed by pglz';
END $$;
