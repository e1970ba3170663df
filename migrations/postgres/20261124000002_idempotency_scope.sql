-- An Idempotency-Key answers only the request it was first sent with: the answer is
-- kept with the request's method and path and the SHA-256 of its body, and a reuse of
-- the key for anything else is refused. Answers expire (`WORP_IDEMPOTENCY_TTL_SECS`):
-- the expired ones are deleted when a new answer is written, found by their time.
ALTER TABLE idempotency ADD COLUMN request TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency ADD COLUMN body_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX idempotency_created ON idempotency (created_at);
