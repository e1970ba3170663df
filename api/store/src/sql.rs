//! Every SQL text of the store, in one place: the column lists, the statements both
//! backends run (`$1`-style parameters work on PostgreSQL and SQLite alike), and the
//! group commit's batch statements on PostgreSQL, built from the same column lists.
//! Longer than 500 lines because it is a catalogue: each statement is short, and the
//! forms of one rule (the version check, the listing's order) read best side by side.
//!
//! ## The version check
//! A change of a game is written only if the game's log ends exactly at the version
//! its caller saw; otherwise nothing of it is written and the caller gets a conflict.
//! The rule has four forms, one per write path, side by side here:
//! 1. [`INSERT_FIRST_EVENT`] (one change in its own transaction, both backends): the
//!    first event is inserted only if [`log_end!`] is the expected version; a change
//!    without events checks [`LOG_END`] alone. A racing append of the same sequence
//!    number violates `UNIQUE (game_id, seq)`.
//! 2. [`APPEND_TOGETHER`] (a group-commit batch with new games, seats or answers): the
//!    `stale` CTE finds any game whose [`log_end!`] is not its change's version, and then
//!    every insert of the batch is skipped: all or nothing.
//! 3. [`APPEND_MOVES`] (a group-commit batch of moves to existing games): each change's
//!    `games` row is updated only while its `version` is the expected one, and its
//!    events and notices are written only with its row. The row is written in the same
//!    transaction as every append, so its version is the log's end, read through the
//!    primary key instead of an index scan of the log.
//! 4. [`LOG_END`], then [`INSERT_EVENT_IN_WRITER`] (each change of a batch of the SQLite
//!    group commit, in a savepoint of its own): the writer's transaction holds SQLite's
//!    one write lock from its `BEGIN IMMEDIATE` to its commit, so the log end it reads
//!    first stays the end until its events are inserted.
//!
//! ## The listings
//! A player's games and turns are read through their seats (`game_seats`), never by a
//! scan of `games`. On PostgreSQL no index of `games` covers a column a move changes, so
//! a move's update of its row stays heap-only (HOT): the listings, newest change first,
//! read the index on the second of the last change (`listed_second`, which the server
//! writes with every row, [`listed_second!`]) and sort within that second. A page after
//! a cursor (`LIST_GAMES_*_AFTER_*`: the last game's `updated_at` and id) starts at the
//! cursor's second through that index, so it costs the same at any depth; offsets are
//! bounded (`routes/paging.rs`). The waiting games have an index of their own
//! (`games_waiting`, partial on `status`, which a move leaves as it is), in the order of
//! the [`LOBBY`]: counting a player's open games reads only them.

/// The end of game `$game`'s log: its last sequence number, 0 when it has no events.
macro_rules! log_end {
    ($game:literal) => {
        concat!(
            "COALESCE((SELECT max(seq) FROM events WHERE game_id = ",
            $game,
            "), 0)"
        )
    };
}

/// The columns of an event, in the order every insert binds them.
macro_rules! event_columns {
    () => {
        "game_id, seq, kind, payload, rules_version, recorded_at, hash"
    };
}

/// The columns of a `games` row, in the order every write binds them.
macro_rules! game_columns {
    () => {
        "id, variant, status, version, to_move_seat, to_move_player, summary, created_at, updated_at, deadline"
    };
}

/// What a write of an existing `games` row changes.
macro_rules! game_update {
    () => {
        "
    ON CONFLICT (id) DO UPDATE SET status = excluded.status, version = excluded.version,
        to_move_seat = excluded.to_move_seat, to_move_player = excluded.to_move_player,
        summary = excluded.summary, updated_at = excluded.updated_at, deadline = excluded.deadline"
    };
}

/// The second of a change at `$at` (`updated_at` rounded down), by which PostgreSQL's
/// listings are ordered through an index (`games_listed`). The server writes it with
/// every `games` row (migration `20261125000000`): as a stored generated column it made
/// PostgreSQL rebuild the column's expression from its catalogue text at the start of
/// every statement that updates a game.
macro_rules! listed_second {
    ($at:literal) => {
        concat!(
            "date_bin('1 second', ",
            $at,
            ", TIMESTAMPTZ '2000-01-01 00:00:00+00')"
        )
    };
}

/// [`game_update!`] on PostgreSQL, which also keeps the second of the change.
macro_rules! game_update_postgres {
    () => {
        concat!(game_update!(), ", listed_second = excluded.listed_second")
    };
}

/// The columns of a new webhook delivery.
macro_rules! delivery_columns {
    () => {
        "id, webhook_id, player_id, game_id, version, kind, payload, status, attempts, next_attempt_at, created_at"
    };
}

/// The columns a delivery is read with (`records::Delivery`).
macro_rules! delivery_read_columns {
    () => {
        "id, webhook_id, game_id, version, kind, payload, status, attempts, next_attempt_at, last_status, last_error, created_at, delivered_at"
    };
}

/// The columns of a seat row, and what a write of an existing one changes.
macro_rules! seat_columns {
    () => {
        "game_id, seat, player_id"
    };
}
macro_rules! seat_update {
    () => {
        " ON CONFLICT (game_id, seat) DO UPDATE SET player_id = excluded.player_id"
    };
}

// ---- One change in its own transaction (both backends) ----

/// Form 1 of the version check: the first event of a change, inserted only if the log
/// ends at `$8`.
pub const INSERT_FIRST_EVENT: &str = concat!(
    "INSERT INTO events (",
    event_columns!(),
    ") SELECT $1, $2, $3, $4, $5, $6, $7 WHERE ",
    log_end!("$1"),
    " = $8 RETURNING position"
);
/// The further events of a change (the first one checked the version).
pub const INSERT_EVENT: &str = concat!(
    "INSERT INTO events (",
    event_columns!(),
    ") VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING position"
);
/// The SQLite writer's insert of an event (`store/sqlite_change.rs`): every event of a
/// change, once [`LOG_END`] has read where the log ends inside the writer's transaction,
/// which holds SQLite's one write lock from its `BEGIN IMMEDIATE` to its commit, so that
/// nothing appends between the two. Neither `RETURNING` nor a `SELECT` from the log:
/// SQLite runs each through a temporary b-tree opened and closed for the statement. The
/// position is the connection's last inserted row id (`position` is the rowid).
pub const INSERT_EVENT_IN_WRITER: &str = concat!(
    "INSERT INTO events (",
    event_columns!(),
    ") VALUES ($1, $2, $3, $4, $5, $6, $7)"
);
/// Every statement the SQLite writer runs for a change, none of which may open a
/// temporary b-tree (`tests/api/sqlite_commit.rs` asks SQLite's `EXPLAIN`).
pub const SQLITE_WRITER_CHANGE: [&str; 9] = [
    LOG_END,
    INSERT_EVENT_IN_WRITER,
    INSERT_SECRET,
    WRITE_GAME_ROW,
    WRITE_SEAT,
    WEBHOOKS_OF_PLAYER,
    INSERT_DELIVERY,
    DELETE_EXPIRED_ANSWER,
    INSERT_ANSWER,
];
/// Form 1 for a change without events, and form 4's read: where the log ends.
pub const LOG_END: &str = concat!("SELECT ", log_end!("$1"), " AS last");
pub const INSERT_SECRET: &str = "INSERT INTO game_secrets (game_id, server_seed) VALUES ($1, $2)";
pub const WRITE_GAME_ROW: &str = concat!(
    "INSERT INTO games (",
    game_columns!(),
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    game_update!()
);
/// [`WRITE_GAME_ROW`] on PostgreSQL, with the second of the change.
pub const WRITE_GAME_ROW_POSTGRES: &str = concat!(
    "INSERT INTO games (",
    game_columns!(),
    ", listed_second) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ",
    listed_second!("$9::timestamptz"),
    ")",
    game_update_postgres!()
);
pub const WRITE_SEAT: &str = concat!(
    "INSERT INTO game_seats (",
    seat_columns!(),
    ") VALUES ($1, $2, $3)",
    seat_update!()
);
pub const WEBHOOKS_OF_PLAYER: &str = "SELECT id FROM webhooks WHERE player_id = $1";
/// A delivery per webhook, `pending`, due at once (`$8`).
pub const INSERT_DELIVERY: &str = concat!(
    "INSERT INTO webhook_deliveries (",
    delivery_columns!(),
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, $8, $8)"
);
pub const INSERT_ANSWER: &str =
    "INSERT INTO idempotency (player_id, key, status, body, created_at, request, body_hash) \
     VALUES ($1, $2, 200, $3, $4, $5, $6)";
/// Deletes player `$1`'s answer for key `$2` if it was kept before `$3` (expired), before
/// a new answer takes the key: one row, by its key. The other expired answers are left to
/// [`DELETE_EXPIRED_ANSWERS`].
pub const DELETE_EXPIRED_ANSWER: &str =
    "DELETE FROM idempotency WHERE player_id = $1 AND key = $2 AND created_at < $3";
/// The background sweep's deletion of answers kept before `$1` (expired): the oldest
/// [`EXPIRED_PER_SWEEP_STEP`] at a time, through their index on `created_at` (both
/// backends: row values). Writes no longer delete them: a bare `created_at < $1` in every
/// batch of keyed moves was planned as a scan of every answer kept while the table was
/// young, and read all of them each time.
pub const DELETE_EXPIRED_ANSWERS: &str = "DELETE FROM idempotency WHERE (player_id, key) IN \
     (SELECT e.player_id, e.key FROM idempotency e WHERE e.created_at < $1 \
     ORDER BY e.created_at LIMIT 1000)";
/// How many answers one step of [`DELETE_EXPIRED_ANSWERS`] deletes at most.
pub const EXPIRED_PER_SWEEP_STEP: u64 = 1000;

// ---- The group commit on SQLite: a transaction per batch, a savepoint per change ----

/// Takes the database's write lock at once (a deferred transaction that read first could
/// not take it later without failing).
pub const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";
pub const SAVEPOINT: &str = "SAVEPOINT change";
/// Undoes one change of the batch (then [`RELEASE_SAVEPOINT`]).
pub const ROLLBACK_TO_SAVEPOINT: &str = "ROLLBACK TO change";
pub const RELEASE_SAVEPOINT: &str = "RELEASE change";
pub const COMMIT: &str = "COMMIT";
pub const ROLLBACK: &str = "ROLLBACK";
/// Copies what it can of the write-ahead log into the database without waiting for
/// the writer or readers.
pub const CHECKPOINT: &str = "PRAGMA wal_checkpoint(PASSIVE)";

// ---- Reads and the other writes (both backends) ----

/// The newest stored checkpoint of a game at or before event `$2`
/// (`checkpoints/stored.rs`).
pub const STORED_CHECKPOINT: &str = "SELECT game_id, version, rules_version, format, body \
     FROM checkpoints WHERE game_id = $1 AND version <= $2 ORDER BY version DESC LIMIT 1";
/// Stores a game's checkpoint at its version, in place of one stored there only where
/// `$7` says that one does not fit, or it was written under other rules or in another
/// layout.
pub const STORE_CHECKPOINT: &str = "INSERT INTO checkpoints \
     (game_id, version, rules_version, format, body, written_at) VALUES ($1, $2, $3, $4, $5, $6) \
     ON CONFLICT (game_id, version) DO UPDATE SET rules_version = excluded.rules_version, \
     format = excluded.format, body = excluded.body, written_at = excluded.written_at \
     WHERE $7 OR checkpoints.rules_version <> excluded.rules_version \
     OR checkpoints.format <> excluded.format";
/// Deletes a game's stored checkpoint at a version (one that does not fit, which no fold
/// reached to store again in its place).
pub const DROP_CHECKPOINT: &str = "DELETE FROM checkpoints WHERE game_id = $1 AND version = $2";

pub const PING: &str = "SELECT 1";
/// The migrations applied (PostgreSQL: read before running any).
pub const APPLIED_MIGRATIONS: &str =
    "SELECT version, checksum FROM _sqlx_migrations WHERE success ORDER BY version";
/// What SQLite's `events_no_replace` trigger says when an insert would replace an event
/// (a duplicate: read as a lost race, like the unique key of the log).
pub const EVENT_EXISTS: &str = "INSERT over an existing event refused";
pub const INSERT_PLAYER: &str =
    "INSERT INTO players (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)";
/// A name key, taken by a player as they register (`name_keys`' primary key refuses a
/// second player whose name looks the same).
pub const INSERT_NAME_KEY: &str = "INSERT INTO name_keys (key, player_id) VALUES ($1, $2)";
/// A name key for a player who registered without one, if nobody holds it yet.
pub const INSERT_NAME_KEY_IF_FREE: &str =
    "INSERT INTO name_keys (key, player_id) VALUES ($1, $2) ON CONFLICT DO NOTHING";
/// The player whose name holds a key.
pub const NAME_KEY_HOLDER: &str = "SELECT p.id, p.name FROM name_keys k \
     JOIN players p ON p.id = k.player_id WHERE k.key = $1";
/// Players without a name key (registered before keys were kept, or whose name looks
/// like an earlier player's), oldest first.
pub const PLAYERS_WITHOUT_NAME_KEY: &str = "SELECT p.id, p.name FROM players p \
     WHERE NOT EXISTS (SELECT 1 FROM name_keys k WHERE k.player_id = p.id) \
     ORDER BY p.created_at, p.id";
pub const PLAYER_BY_TOKEN_HASH: &str =
    "SELECT id, name, token_hash FROM players WHERE token_hash = $1";
pub const PLAYER_NAME: &str = "SELECT name FROM players WHERE id = $1";
/// The names of those of `$1` who are players, in one round trip (PostgreSQL).
pub const PLAYER_NAMES: &str = "SELECT id, name FROM players WHERE id = ANY($1)";
pub const PLAYER_PROFILE: &str = "SELECT name, created_at FROM players WHERE id = $1";
pub const PLAYER_EXISTS: &str = "SELECT 1 FROM players WHERE id = $1";
pub const INVITATION_NOTICES: &str = "SELECT invitation_notices FROM players WHERE id = $1";
pub const SET_INVITATION_NOTICES: &str = "UPDATE players SET invitation_notices = $2 WHERE id = $1";
/// The waiting (open, not started) games a player created, by the `created_by` of their
/// first event (seats do not tell: an invited player has one too). Few games wait, and
/// each is found by its key.
pub const OPEN_GAMES_OF_POSTGRES: &str = "SELECT COUNT(*) AS n FROM games g \
     JOIN events e ON e.game_id = g.id AND e.seq = 1 \
     WHERE g.status = 'waiting' AND e.payload->>'created_by' = $1";
pub const OPEN_GAMES_OF_SQLITE: &str = "SELECT COUNT(*) AS n FROM games g \
     JOIN events e ON e.game_id = g.id AND e.seq = 1 \
     WHERE g.status = 'waiting' AND json_extract(e.payload, '$.created_by') = $1";
pub const EVENTS_AFTER: &str = concat!(
    "SELECT position, ",
    event_columns!(),
    " FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
);
/// The events of a fold ([`worp_domain::events::RawEvent`]): those numbered `$2 + 1` to
/// `$2 + $3`, the same rows as [`EVENTS_AFTER`] (a game's events are numbered 1, 2, 3, …
/// without a gap). Bounding the numbers, not only the count, keeps each page's cost
/// to its own rows whatever plan the database picks: for a game whose statistics are
/// not yet gathered it reads every later event of the game by bitmap and sorts them to
/// return the first `$3` (3,148 rows to return 64, one step of a replay slider). Reads
/// that check the log (`Worp::all_events`, for audits and exports) keep [`EVENTS_AFTER`],
/// by count: there an event missing shows as the next one out of sequence.
pub const EVENTS_IN_RANGE: &str = concat!(
    "SELECT ",
    event_columns!(),
    " FROM events WHERE game_id = $1 AND seq > $2 AND seq <= $2 + $3 ORDER BY seq LIMIT $3"
);
/// [`EVENTS_AFTER`] of the game's messages only, through their own index
/// (`events_messages`).
pub const MESSAGES_AFTER: &str = concat!(
    "SELECT position, ",
    event_columns!(),
    " FROM events WHERE game_id = $1 AND kind = 'message_posted' AND seq > $2 ORDER BY seq LIMIT $3"
);
pub const SECRET: &str = "SELECT server_seed FROM game_secrets WHERE game_id = $1";
/// A page of games, newest change first: `$1` a player whose games only (through
/// `game_seats`), `$2` a status, `$3` the player to move, `$4`/`$5` limit and offset.
macro_rules! list_games {
    (any, $after:expr, $order:literal) => {
        concat!(
            "SELECT g.summary, g.updated_at, g.id FROM games g \
     WHERE ($1 IS NULL OR g.id IN (SELECT s.game_id FROM game_seats s WHERE s.player_id = $1)) \
     AND ($2 IS NULL OR g.status = $2) \
     AND ($3 IS NULL OR g.to_move_player = $3)",
            $after,
            " ORDER BY ",
            $order,
            " LIMIT $4 OFFSET $5"
        )
    };
    // A status given and no player: the games of that status, through an index that
    // starts with it (a listing of the few active games among a million finished ones
    // walked the whole listing's index).
    (in_status, $after:expr, $order:literal) => {
        concat!(
            "SELECT g.summary, g.updated_at, g.id FROM games g \
     WHERE g.status = $2 \
     AND ($1 IS NULL OR g.id IN (SELECT s.game_id FROM game_seats s WHERE s.player_id = $1)) \
     AND ($3 IS NULL OR g.to_move_player = $3)",
            $after,
            " ORDER BY ",
            $order,
            " LIMIT $4 OFFSET $5"
        )
    };
    // Without the `$1 IS NULL OR` the planner joins the player's seats instead of
    // testing every game against them.
    (seated, $after:expr, $order:literal) => {
        concat!(
            "SELECT g.summary, g.updated_at, g.id FROM games g \
     WHERE g.id IN (SELECT s.game_id FROM game_seats s WHERE s.player_id = $1) \
     AND ($2 IS NULL OR g.status = $2) \
     AND ($3 IS NULL OR g.to_move_player = $3)",
            $after,
            " ORDER BY ",
            $order,
            " LIMIT $4 OFFSET $5"
        )
    };
}
/// Keyset paging: only the games after the one changed at `$6` with id `$7`, in the
/// listing's order (an older change, or the same one and a greater id).
macro_rules! after_game {
    () => {
        " AND (g.updated_at < $6 OR (g.updated_at = $6 AND g.id > $7))"
    };
}
/// [`after_game!`] on PostgreSQL, with the bound on the indexed second of the change
/// that lets a page start where the cursor is instead of counting from the top.
macro_rules! after_game_postgres {
    () => {
        concat!(
            " AND g.listed_second <= ",
            listed_second!("$6::timestamptz"),
            after_game!()
        )
    };
}
/// Every game, or a player's games or turns, newest change first (PostgreSQL): by the
/// second of the last change, indexed (`games_listed`), then by the change itself, which
/// is the same order as by `updated_at` alone. No index covers `updated_at`, a column
/// every move changes, so that a move's update of its `games` row stays heap-only (HOT;
/// migration `20261124500000`).
pub const LIST_GAMES_POSTGRES: &str =
    list_games!(any, "", "g.listed_second DESC, g.updated_at DESC, g.id");
/// [`LIST_GAMES_POSTGRES`] of one player's games (`$1`: the player, or else the player to
/// move, who holds a seat too): through the player's seats, never a scan of `games`.
pub const LIST_GAMES_OF_POSTGRES: &str =
    list_games!(seated, "", "g.listed_second DESC, g.updated_at DESC, g.id");
/// [`LIST_GAMES_POSTGRES`] after a game (`$6`, `$7`).
pub const LIST_GAMES_AFTER_POSTGRES: &str = list_games!(
    any,
    after_game_postgres!(),
    "g.listed_second DESC, g.updated_at DESC, g.id"
);
/// [`LIST_GAMES_OF_POSTGRES`] after a game (`$6`, `$7`).
pub const LIST_GAMES_OF_AFTER_POSTGRES: &str = list_games!(
    seated,
    after_game_postgres!(),
    "g.listed_second DESC, g.updated_at DESC, g.id"
);
/// [`LIST_GAMES_POSTGRES`] of the games of one status (`$2`), through
/// `games_listed_by_status` (`status`, `listed_second`), which a move within the same
/// second leaves as it is, as it does `games_listed`.
pub const LIST_GAMES_IN_POSTGRES: &str = list_games!(
    in_status,
    "",
    "g.listed_second DESC, g.updated_at DESC, g.id"
);
/// [`LIST_GAMES_IN_POSTGRES`] after a game (`$6`, `$7`).
pub const LIST_GAMES_IN_AFTER_POSTGRES: &str = list_games!(
    in_status,
    after_game_postgres!(),
    "g.listed_second DESC, g.updated_at DESC, g.id"
);
/// [`LIST_GAMES_IN_POSTGRES`] on SQLite, through `games_by_status`.
pub const LIST_GAMES_IN_SQLITE: &str = list_games!(in_status, "", "g.updated_at DESC, g.id");
/// [`LIST_GAMES_IN_SQLITE`] after a game (`$6`, `$7`).
pub const LIST_GAMES_IN_AFTER_SQLITE: &str =
    list_games!(in_status, after_game!(), "g.updated_at DESC, g.id");
/// [`LIST_GAMES_POSTGRES`] on SQLite, through the index on `updated_at` (SQLite has no
/// heap-only updates to keep).
pub const LIST_GAMES_SQLITE: &str = list_games!(any, "", "g.updated_at DESC, g.id");
/// [`LIST_GAMES_OF_POSTGRES`] on SQLite.
pub const LIST_GAMES_OF_SQLITE: &str = list_games!(seated, "", "g.updated_at DESC, g.id");
/// [`LIST_GAMES_SQLITE`] after a game (`$6`, `$7`).
pub const LIST_GAMES_AFTER_SQLITE: &str =
    list_games!(any, after_game!(), "g.updated_at DESC, g.id");
/// [`LIST_GAMES_OF_SQLITE`] after a game (`$6`, `$7`).
pub const LIST_GAMES_OF_AFTER_SQLITE: &str =
    list_games!(seated, after_game!(), "g.updated_at DESC, g.id");
pub const ANSWER: &str = "SELECT body, request, body_hash FROM idempotency \
     WHERE player_id = $1 AND key = $2 AND created_at >= $3";
pub const OVERDUE_GAMES: &str =
    "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1 AND status = 'active' \
     ORDER BY deadline LIMIT $2";
pub const INSERT_WEBHOOK: &str =
    "INSERT INTO webhooks (id, player_id, url, secret, created_at) VALUES ($1, $2, $3, $4, $5)";
pub const WEBHOOKS: &str = "SELECT id, player_id, url, secret, created_at FROM webhooks \
     WHERE player_id = $1 ORDER BY created_at";
pub const DELETE_WEBHOOK: &str = "DELETE FROM webhooks WHERE player_id = $1 AND id = $2";
pub const DELIVERIES: &str = concat!(
    "SELECT ",
    delivery_read_columns!(),
    " FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3"
);
/// The due deliveries, oldest first, at most two per webhook (one webhook's backlog
/// leaves room for the others'), with their webhook's URL and secret.
pub const DUE_DELIVERIES: &str = concat!(
    "SELECT ",
    delivery_read_columns!(),
    ", url, secret FROM (SELECT d.*, w.url, w.secret, \
     row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id) AS nth \
     FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id \
     WHERE d.status = 'pending' AND d.next_attempt_at <= $1) AS due \
     WHERE nth <= 2 ORDER BY next_attempt_at LIMIT $2"
);
/// Takes a due delivery for a lease (`$1`), unless another process took it first: its
/// `next_attempt_at` is still the one read (`$3`).
pub const LEASE_DELIVERY: &str = "UPDATE webhook_deliveries SET next_attempt_at = $1 \
     WHERE id = $2 AND status = 'pending' AND next_attempt_at = $3";
/// Records an attempt only while the delivery is still under the lease it was sent
/// under (`$8`): after the lease ran out another process may have claimed it.
pub const RECORD_ATTEMPT: &str =
    "UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, \
     last_status = $4, last_error = $5, delivered_at = $6 \
     WHERE id = $7 AND status = 'pending' AND next_attempt_at = $8";
/// The deliveries of a webhook being deleted (in the same transaction).
pub const DELETE_WEBHOOK_DELIVERIES: &str = "DELETE FROM webhook_deliveries WHERE webhook_id = \
     (SELECT id FROM webhooks WHERE player_id = $1 AND id = $2)";
/// How many `game_finished` events there are after a position and up to another (an
/// index range of `events_finished`).
pub const FINISHED_COUNT: &str = "SELECT count(*) AS n FROM events \
     WHERE kind = 'game_finished' AND position > $1 AND position <= $2";
/// The transactions that may be writing events now (each holds a `ROW EXCLUSIVE` lock on
/// `events` from the start of its insert to its end, before it takes a position), by
/// their virtual transaction ids; other processes' too. `pg_locks` is readable by every
/// role.
pub const EVENT_WRITERS_POSTGRES: &str = "SELECT virtualtransaction AS vxid FROM pg_locks \
     WHERE locktype = 'relation' AND relation = to_regclass('events') \
     AND mode = 'RowExclusiveLock' AND pid IS DISTINCT FROM pg_backend_pid()";
/// The first `$2` `game_finished` events after a position, in global order, with their
/// games' listing entries (players, variant, whether rated).
/// Each game's entry is looked up by its key: a join let the planner read every game
/// to hash them, however few the new finishes.
pub const FINISHED_AFTER: &str = "SELECT e.position, e.game_id, e.payload, e.recorded_at, \
     (SELECT g.summary FROM games g WHERE g.id = e.game_id) AS summary \
     FROM events e WHERE e.kind = 'game_finished' AND e.position > $1 ORDER BY e.position LIMIT $2";
/// Waiting games with a seat anyone may take, newest first.
pub const LOBBY: &str = "SELECT g.summary FROM games g WHERE g.status = 'waiting' \
     AND ($1 IS NULL OR g.variant = $1) \
     AND EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.player_id IS NULL) \
     ORDER BY g.created_at DESC, g.id LIMIT $2 OFFSET $3";
pub const GAME_IDS: &str = "SELECT game_id FROM events WHERE seq = 1 ORDER BY position";
pub const CLEAR_SEATS: &str = "DELETE FROM game_seats";
/// How a rebuild makes appends wait until it commits (every append writes `games`).
/// PostgreSQL: a lock that conflicts with every write of the read models (not with
/// reads), taken before the log is read. SQLite: any write takes the database's one
/// write lock (across processes too), so the rebuild writes first, before it reads.
pub const LOCK_READ_MODELS_POSTGRES: &str = "LOCK TABLE games, game_seats IN EXCLUSIVE MODE";
pub const LOCK_READ_MODELS_SQLITE: &str = CLEAR_SEATS;
pub const CLEAR_GAMES: &str = "DELETE FROM games";
/// Whether a process other than `$1` listens for changes on this database: its `LISTEN`
/// connection is named `worp relay <origin>` (`application_name`, which every role may
/// read in `pg_stat_activity`).
pub const OTHERS_LISTEN: &str = "SELECT EXISTS (SELECT 1 FROM pg_stat_activity \
     WHERE datname = current_database() AND application_name LIKE 'worp relay %' \
     AND application_name <> $1) AS others";
/// Tells other processes on the same PostgreSQL server that games changed.
pub const ANNOUNCE: &str = "SELECT pg_notify('worp_events', p) FROM unnest($1::text[]) AS p";

// ---- The group commit on PostgreSQL: many changes in one statement ----

/// The events of the batch (`$3` to `$9`), in the batch's order, where `$filter` holds.
macro_rules! insert_events {
    ($filter:literal) => {
        concat!(
            "
    INSERT INTO events (",
            event_columns!(),
            ")
    SELECT x.game_id, x.seq, x.kind, x.payload::jsonb, x.rules_version, x.recorded_at, x.hash
    FROM unnest($3::uuid[], $4::int8[], $5::text[], $6::text[], $7::int4[], $8::timestamptz[], $9::text[])
        WITH ORDINALITY AS x(game_id, seq, kind, payload, rules_version, recorded_at, hash, n)
    WHERE ",
            $filter,
            "
    ORDER BY x.n
    RETURNING game_id, seq, position"
        )
    };
}

/// The `games` rows of the batch (`$10` to `$19`): `$filter` guards the new rows,
/// `$update` ends the update of existing ones (a condition, what to return).
macro_rules! upsert_games {
    ($filter:literal, $update:literal) => {
        concat!(
            "
    INSERT INTO games (",
            game_columns!(),
            ", listed_second)
    SELECT r.id, r.variant, r.status, r.version, r.to_move_seat, r.to_move_player, r.summary::json,
        r.created_at, r.updated_at, r.deadline, ",
            listed_second!("r.updated_at"),
            "
    FROM unnest($10::uuid[], $11::text[], $12::text[], $13::int8[], $14::int4[], $15::uuid[], $16::text[],
        $17::timestamptz[], $18::timestamptz[], $19::timestamptz[])
        AS r(id, variant, status, version, to_move_seat, to_move_player, summary, created_at, updated_at, deadline)",
            $filter,
            game_update_postgres!(),
            $update
        )
    };
}

/// The webhook outbox (`$20` to `$25`): a delivery per notice and webhook of its player,
/// where `$filter` holds.
macro_rules! insert_deliveries {
    ($filter:literal) => {
        concat!(
            "
    INSERT INTO webhook_deliveries (",
            delivery_columns!(),
            ")
    SELECT gen_random_uuid(), w.id, n.player_id, n.game_id, n.version, n.kind, n.payload::jsonb,
        'pending', 0, n.at, n.at
    FROM unnest($20::uuid[], $21::uuid[], $22::int8[], $23::text[], $24::text[], $25::timestamptz[])
        AS n(player_id, game_id, version, kind, payload, at)
    JOIN webhooks w ON w.player_id = n.player_id
    WHERE ",
            $filter,
            "
    RETURNING 1"
        )
    };
}

/// The versions each change was judged on (`$1`, `$2`).
macro_rules! heads {
    () => {
        "\
WITH heads AS (
    SELECT * FROM unnest($1::uuid[], $2::int8[]) AS h(game_id, expected)
)"
    };
}

/// The answer: the positions of the events written, and how many webhook deliveries.
macro_rules! append_answer {
    () => {
        "
SELECT game_id, seq, position, (SELECT count(*) FROM outbox) AS deliveries FROM ins"
    };
}

/// Form 3 of the version check: a batch of moves to games that exist, `$1` to `$25`.
/// Each change is judged on its own: its `games` row is updated only if it is still at
/// the version the change was judged on (the upsert finds the row by its key anyway,
/// locks it, and, when another writer's update got there first, waits for it and checks
/// the condition again on the row it committed), and its events and notices are
/// written only if its row was. A change to a game that has moved on writes nothing;
/// the rest of the batch is written. Two changes to the same game in one batch either
/// fail the statement ("cannot affect row a second time") or are both skipped.
pub const APPEND_MOVES: &str = concat!(
    heads!(),
    ", game_rows AS (",
    upsert_games!(
        "",
        "
    WHERE games.version = (SELECT h.expected FROM heads h WHERE h.game_id = excluded.id LIMIT 1)
    RETURNING id"
    ),
    "
), ins AS (",
    insert_events!("x.game_id IN (SELECT id FROM game_rows)"),
    "
), outbox AS (",
    insert_deliveries!("n.game_id IN (SELECT id FROM game_rows)"),
    "
)",
    append_answer!()
);

/// [`APPEND_MOVES`] for a batch whose notices go only to players not known to have a
/// webhook (most batches): no outbox, and nothing is written at all when one of `$20`'s
/// players (a `uuid[]`, every player the batch notifies) has a webhook, read in the
/// statement's snapshot as the outbox's join reads it. The outbox's insert, its join and
/// the array of each notice's payload cost the database and the server about 3 µs a
/// move at 32 clients. Its answer is [`APPEND_MOVES`]'s, with no deliveries.
pub const APPEND_QUIET_MOVES: &str = concat!(
    heads!(),
    ", game_rows AS (",
    upsert_games!(
        "
    WHERE NOT EXISTS (SELECT 1 FROM webhooks WHERE player_id = ANY($20::uuid[]))",
        "
    WHERE games.version = (SELECT h.expected FROM heads h WHERE h.game_id = excluded.id LIMIT 1)
    RETURNING id"
    ),
    "
), ins AS (",
    insert_events!("x.game_id IN (SELECT id FROM game_rows)"),
    "
)
SELECT game_id, seq, position, 0::int8 AS deliveries FROM ins"
);

/// Which of `$1`'s players have a webhook (after a statement without the outbox wrote
/// nothing).
pub const WATCHED_PLAYERS: &str =
    "SELECT DISTINCT player_id FROM webhooks WHERE player_id = ANY($1)";

/// The most events and notices of a lone move written by [`append_one_move`]'s
/// statements; a change with more goes through [`APPEND_MOVES`].
pub const ONE_MOVE_EVENTS: usize = 4;
pub const ONE_MOVE_NOTICES: usize = 8;

/// [`APPEND_MOVES`] for a batch of one change (each move, when a single client plays)
/// with `events` events and `notices` notices, or `None` past [`ONE_MOVE_EVENTS`] and
/// [`ONE_MOVE_NOTICES`]. Its `games` row is updated by its key and version, where the
/// upsert would first try an insert, and its rows are plain parameters in `VALUES`
/// lists: the database decoded each `unnest`ed array and set up a function scan for
/// each of them, which, with the upsert, made the statement of a lone move a third
/// dearer than a pgbench insert. Parameters: `$1` the game, `$2` the version the change
/// was judged on, `$3` to `$9` the row (status, version, seat and player to move,
/// summary, `updated_at`, deadline), then six per event (seq, kind, payload, rules
/// version, `recorded_at`, hash) and four per notice (player, version, kind, payload).
/// The events are inserted, and take their positions, in the order of the `VALUES`
/// list, which is theirs: an `ORDER BY` would keep the database from pulling the list
/// up into the insert, and setting up its sort and subquery scan took about 3 % of the
/// backend's time per move (`tests/api/group_commit.rs` checks the order of every
/// game's positions).
pub fn append_one_move(events: usize, notices: usize) -> Option<&'static str> {
    static SHAPES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        (1..=ONE_MOVE_EVENTS)
            .flat_map(|e| (0..=ONE_MOVE_NOTICES).map(move |n| one_move(e, Notices::Outbox(n))))
            .collect()
    });
    if !(1..=ONE_MOVE_EVENTS).contains(&events) || notices > ONE_MOVE_NOTICES {
        return None;
    }
    SHAPES
        .get((events - 1) * (ONE_MOVE_NOTICES + 1) + notices)
        .map(String::as_str)
}

/// [`append_one_move`] for a move whose notices go to players not known to have a
/// webhook (each move of most games): the `games` row is updated only if none of
/// `$10`'s players (a `uuid[]`) has a webhook, and no outbox is written. Setting up the
/// outbox's insert, its join and its count cost about 15 µs of the backend's time per
/// move, for deliveries that almost never exist. The webhooks are read in the
/// statement's snapshot, as the outbox's join reads them: a move whose notices should
/// have been delivered writes nothing, and is written again with its outbox. Parameters
/// as [`append_one_move`]'s with `$10` the players and the events from `$11`, or `None`
/// past [`ONE_MOVE_EVENTS`].
pub fn append_one_quiet_move(events: usize) -> Option<&'static str> {
    static SHAPES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        (1..=ONE_MOVE_EVENTS)
            .map(|e| one_move(e, Notices::Unwatched))
            .collect()
    });
    SHAPES.get(events.checked_sub(1)?).map(String::as_str)
}

/// What a lone move's statement does with its notices.
#[derive(Clone, Copy)]
enum Notices {
    /// This many, written to the outbox of the players' webhooks.
    Outbox(usize),
    /// None written: the move is written only while its players have no webhook.
    Unwatched,
}

/// The statement of [`append_one_move`] and [`append_one_quiet_move`].
fn one_move(events: usize, notices: Notices) -> String {
    let rows = |first: usize, count: usize, width: usize, types: &[&str]| {
        (0..count)
            .map(|i| {
                let columns: Vec<String> = types
                    .iter()
                    .enumerate()
                    .map(|(c, t)| format!("${}::{t}", first + i * width + c))
                    .collect();
                format!("({})", columns.join(", "))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let event_types = ["int8", "text", "text", "int4", "timestamptz", "text"];
    let notice_types = ["uuid", "int8", "text", "text"];
    let (first_event, unwatched) = match notices {
        Notices::Outbox(_) => (10, ""),
        Notices::Unwatched => (
            11,
            "\n        AND NOT EXISTS (SELECT 1 FROM webhooks WHERE player_id = ANY($10::uuid[]))",
        ),
    };
    let first_notice = first_event + events * event_types.len();
    let mut sql = format!(
        "\
WITH game_rows AS (
    UPDATE games SET status = $3::text, version = $4::int8, to_move_seat = $5::int4,
        to_move_player = $6::uuid, summary = $7::text::json, updated_at = $8::timestamptz,
        deadline = $9::timestamptz, listed_second = {}
    WHERE id = $1::uuid AND version = $2::int8{unwatched}
    RETURNING id
), ins AS (
    INSERT INTO events ({})
    SELECT $1::uuid, x.seq, x.kind, x.payload::jsonb, x.rules_version, x.recorded_at, x.hash
    FROM (VALUES {}) AS x(seq, kind, payload, rules_version, recorded_at, hash)
    WHERE EXISTS (SELECT 1 FROM game_rows)
    RETURNING game_id, seq, position
)",
        listed_second!("$8::timestamptz"),
        event_columns!(),
        rows(first_event, events, event_types.len(), &event_types),
    );
    let notices = match notices {
        Notices::Outbox(n) => n,
        Notices::Unwatched => 0,
    };
    if notices == 0 {
        sql.push_str("\nSELECT game_id, seq, position, 0::int8 AS deliveries FROM ins");
        return sql;
    }
    sql.push_str(&format!(
        ", outbox AS (
    INSERT INTO webhook_deliveries ({})
    SELECT gen_random_uuid(), w.id, n.player_id, $1::uuid, n.version, n.kind, n.payload::jsonb,
        'pending', 0, $8::timestamptz, $8::timestamptz
    FROM (VALUES {}) AS n(player_id, version, kind, payload)
    JOIN webhooks w ON w.player_id = n.player_id
    WHERE EXISTS (SELECT 1 FROM game_rows)
    RETURNING 1
)",
        delivery_columns!(),
        rows(first_notice, notices, notice_types.len(), &notice_types),
    ));
    sql.push_str(append_answer!());
    sql
}

/// Form 2 of the version check: a batch with new games, seats taken or
/// `Idempotency-Key` answers, `$1` to `$36`, all or nothing: when the log of any of its
/// games does not end at its change's version (`stale`), nothing is inserted. When a new
/// answer reuses an expired key the statement fails on the key, and the change is
/// appended alone, which deletes the expired answer first.
pub const APPEND_TOGETHER: &str = concat!(
    heads!(),
    ", stale AS (
    SELECT 1 FROM heads h WHERE ",
    log_end!("h.game_id"),
    " <> h.expected LIMIT 1
), ins AS (",
    insert_events!("NOT EXISTS (SELECT 1 FROM stale)"),
    "
), game_rows AS (",
    upsert_games!(
        "
    WHERE NOT EXISTS (SELECT 1 FROM stale)",
        ""
    ),
    "
), outbox AS (",
    insert_deliveries!("NOT EXISTS (SELECT 1 FROM stale)"),
    "
), seat_rows AS (
    INSERT INTO game_seats (",
    seat_columns!(),
    ")
    SELECT s.game_id, s.seat, s.player_id FROM unnest($26::uuid[], $27::int4[], $28::uuid[]) AS s(game_id, seat, player_id)
    WHERE NOT EXISTS (SELECT 1 FROM stale)",
    seat_update!(),
    "
), secrets AS (
    INSERT INTO game_secrets (game_id, server_seed)
    SELECT k.game_id, k.server_seed FROM unnest($29::uuid[], $30::bytea[]) AS k(game_id, server_seed)
    WHERE NOT EXISTS (SELECT 1 FROM stale)
), answers AS (
    INSERT INTO idempotency (player_id, key, status, body, created_at, request, body_hash)
    SELECT a.player_id, a.key, 200, a.body::jsonb, a.at, a.request, a.body_hash
    FROM unnest($31::uuid[], $32::text[], $33::text[], $34::timestamptz[], $35::text[], $36::text[])
        AS a(player_id, key, body, at, request, body_hash)
    WHERE NOT EXISTS (SELECT 1 FROM stale)
)",
    append_answer!()
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_deletes_an_expired_answer_only_by_its_own_key() {
        // Every other expired answer is the sweep's: a range over `created_at` in a
        // write's statement read every answer kept, once per batch of keyed moves.
        for write in [APPEND_TOGETHER, APPEND_MOVES, INSERT_ANSWER] {
            assert!(!write.contains("DELETE FROM idempotency"), "{write}");
        }
        assert!(DELETE_EXPIRED_ANSWER.contains("WHERE player_id = $1 AND key = $2 AND"));
    }

    #[test]
    fn a_step_of_the_answers_sweep_deletes_as_many_as_it_says() {
        assert!(DELETE_EXPIRED_ANSWERS.ends_with(&format!("LIMIT {EXPIRED_PER_SWEEP_STEP})")));
    }

    /// The highest `$n` of `sql`.
    fn last_parameter(sql: &str) -> usize {
        sql.split('$')
            .skip(1)
            .filter_map(|p| {
                let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn the_statements_of_moves_number_every_parameter_they_bind() {
        for events in 1..=ONE_MOVE_EVENTS {
            for notices in 0..=ONE_MOVE_NOTICES {
                let sql = append_one_move(events, notices).expect("a shape");
                assert_eq!(last_parameter(sql), 9 + 6 * events + 4 * notices, "{sql}");
                assert!(!sql.contains("$10::uuid[]"), "{sql}");
            }
            let quiet = append_one_quiet_move(events).expect("a shape");
            assert_eq!(last_parameter(quiet), 10 + 6 * events, "{quiet}");
            assert!(quiet.contains(
                "AND NOT EXISTS (SELECT 1 FROM webhooks WHERE player_id = ANY($10::uuid[]))"
            ));
            assert!(!quiet.contains("webhook_deliveries"), "{quiet}");
        }
        assert!(append_one_quiet_move(0).is_none());
        assert_eq!(last_parameter(APPEND_QUIET_MOVES), 20);
        assert!(APPEND_QUIET_MOVES.contains(
            "WHERE NOT EXISTS (SELECT 1 FROM webhooks WHERE player_id = ANY($20::uuid[]))"
        ));
        assert!(!APPEND_QUIET_MOVES.contains("webhook_deliveries"));
        assert_eq!(last_parameter(APPEND_MOVES), 25);
        assert!(append_one_quiet_move(ONE_MOVE_EVENTS + 1).is_none());
    }

    #[test]
    fn the_three_version_checks_read_the_same_columns() {
        assert!(INSERT_FIRST_EVENT
            .contains("COALESCE((SELECT max(seq) FROM events WHERE game_id = $1), 0) = $8"));
        assert!(APPEND_TOGETHER.contains(
            "COALESCE((SELECT max(seq) FROM events WHERE game_id = h.game_id), 0) <> h.expected"
        ));
        assert!(APPEND_MOVES.contains("WHERE games.version = (SELECT h.expected"));
        // Every insert of events names the same columns in the same order.
        for sql in [
            INSERT_FIRST_EVENT,
            INSERT_EVENT,
            INSERT_EVENT_IN_WRITER,
            APPEND_MOVES,
            APPEND_TOGETHER,
        ] {
            assert!(sql.contains("INSERT INTO events (game_id, seq, kind, payload, rules_version, recorded_at, hash)"), "{sql}");
        }
    }
}
