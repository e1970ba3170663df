//! Group commit on SQLite: one writer thread owns the connection that appends, and
//! writes every change that arrived while it was busy in one transaction and one durable
//! commit, judging them change by change.
//!
//! Through sqlx's SQLite driver each statement is a command sent to the connection's
//! worker thread and an answer sent back: two thread hand-offs per statement, six or
//! seven statements per move (begin, each event, the `games` row, the webhooks of each
//! notice, commit), each move its own commit and `fsync`. Here the writer is a plain
//! thread with a connection of its own ([`rusqlite`], the same SQLite library sqlx
//! links), its statements prepared once and kept: a statement is a function call, a
//! change costs one hand-off in (the queue) and one out (its answer), and a batch one
//! commit.
//!
//! - The writer takes every change waiting (up to [`MAX_BATCH`]), begins one
//!   `IMMEDIATE` transaction and writes each change inside a savepoint of its own, with
//!   the version check read first ([`super::sql`], form 4): its events are inserted
//!   only if the game's log ends where the change's caller saw it end. The transaction
//!   holds SQLite's write lock, so nothing appends between the read and the inserts. A
//!   change refused (its game moved on: [`StoreError::Conflict`]) or failed
//!   (a constraint) is rolled back to its savepoint alone and gets its own answer; the
//!   rest of the batch is written. Two changes to the same game in one batch are judged
//!   in order: the first is written, the second finds the log moved on.
//! - One `COMMIT` per batch. In WAL mode with `synchronous = FULL` ([`PRAGMAS`]) it
//!   returns once the log is on disk, and only then is any change of the batch
//!   answered: an acknowledged change survives a crash of the process and of the
//!   machine, as with one commit per change.
//! - When the batch fails as a whole (the transaction could not begin or commit, or an
//!   error made SQLite roll it back), nothing of it was committed and nothing was
//!   answered: each change is written again on its own transaction, for its own answer.
//!   A database locked by another connection for longer than the busy timeout (a
//!   rebuild) is answered at once, to every change, as unavailable.
//!
//! A change's events and times are written out as text (`ChangeTexts`) by its caller,
//! before it joins the queue, so the writer only binds them; none of its statements
//! ([`super::sqlite_change`], `sql::SQLITE_WRITER_CHANGE`) opens a temporary b-tree. Stored
//! checkpoints go through the same queue and are written after the changes waiting, in a
//! transaction of their own, so that they never wait for the writer's lock nor make it
//! wait. Reads and the other writes go through sqlx's pool (one connection).
//!
//! The queue is bounded (`WORP_WRITE_QUEUE`): a full one answers
//! [`StoreError::Overloaded`], as on PostgreSQL.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, ErrorCode};
use tokio::sync::{mpsc, oneshot, Notify};

use super::error::StoreError;
use super::sql;
use super::sqlite_change::{change, store_checkpoints, ChangeTexts, CheckpointJob, Written};
use worp_domain::events::StoredEvent;
use worp_domain::records::{Append, StoredCheckpoint};

/// The most changes one transaction carries.
pub const MAX_BATCH: usize = 256;

/// How every connection of the server to its SQLite file is set up (the load tool's
/// SQLite anchor uses the same): write-ahead log, and a commit returns only once the log
/// is on disk (`synchronous = FULL`; `NORMAL` would lose the last commits on a power
/// failure, which an acknowledged move must survive).
pub const PRAGMAS: &str = "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
     PRAGMA foreign_keys = ON;";

/// How long a write waits for another connection's lock (a rebuild, a registration).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

type Answer = Result<Vec<StoredEvent>, StoreError>;

struct Job {
    append: Append,
    texts: ChangeTexts,
    reply: oneshot::Sender<Answer>,
}

/// What the writer is given. Nearly every item is a change, the large variant: boxing
/// it would allocate once more per change for the sake of the rare checkpoint.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Work {
    Change(Job),
    Checkpoint(CheckpointJob),
}

/// The queue in front of the writer thread.
#[derive(Debug, Clone)]
pub struct SqliteCommit {
    queue: mpsc::Sender<Work>,
    outbox: Arc<Notify>,
    commits: Arc<AtomicU64>,
    batches: Arc<AtomicU64>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("game_id", &self.append.game_id)
            .finish()
    }
}

/// Opens a connection to the SQLite file at `path` as the server uses it.
pub fn open(path: &str) -> Result<Connection, rusqlite::Error> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.execute_batch(PRAGMAS)?;
    connection.set_prepared_statement_cache_capacity(32);
    Ok(connection)
}

impl SqliteCommit {
    /// Opens the writer's connection to `path` (a file already migrated) and starts its
    /// thread, with room for `queue` changes waiting. The thread ends when the last
    /// `SqliteCommit` (the last clone of the store) is dropped.
    pub fn start(path: &str, queue: usize) -> Result<SqliteCommit, StoreError> {
        let connection = open(path)?;
        let outbox = Arc::new(Notify::new());
        let (sender, receiver) = mpsc::channel(queue.max(1));
        let commits = Arc::new(AtomicU64::new(0));
        let batches = Arc::new(AtomicU64::new(0));
        // The writer checkpoints only when the other thread falls far behind.
        connection.execute_batch(WRITER_AUTOCHECKPOINT)?;
        let checkpoints = open(path)?;
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let writer = Writer {
            connection,
            outbox: outbox.clone(),
            commits: commits.clone(),
            batches: batches.clone(),
            _checkpointer: stop,
        };
        let spawned = std::thread::Builder::new()
            .name("worp-sqlite-checkpoints".into())
            .spawn(move || checkpointer(&checkpoints, &stopped))
            .and_then(|_| {
                std::thread::Builder::new()
                    .name("worp-sqlite-writer".into())
                    .spawn(move || writer.run(receiver))
            });
        spawned.map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
        Ok(SqliteCommit {
            queue: sender,
            outbox,
            commits,
            batches,
        })
    }

    /// How many transactions the writer has committed (batches, and changes written
    /// again alone).
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// How many batches of changes the writer has taken from its queue: a change queued
    /// after it took one is in a later batch.
    pub fn batches(&self) -> u64 {
        self.batches.load(Ordering::Relaxed)
    }

    /// Signalled whenever webhook deliveries were written.
    pub fn outbox(&self) -> Arc<Notify> {
        self.outbox.clone()
    }

    /// Appends one change (see the module's documentation). The change joins the queue
    /// now; the future answers once it is written.
    pub fn append(&self, append: Append) -> impl Future<Output = Answer> + Send {
        let (reply, answer) = oneshot::channel();
        let texts = ChangeTexts::of(&append);
        let sent = self.send(Work::Change(Job {
            append,
            texts,
            reply,
        }));
        async move {
            sent?;
            // A writer stopped in the middle of this change: whether it was committed is
            // unknown, as when a connection breaks.
            answer.await.unwrap_or_else(|_| Err(gone()))
        }
    }
}

impl SqliteCommit {
    /// Stores a game's checkpoint, after the changes waiting, in a transaction of its
    /// own (see [`sql::STORE_CHECKPOINT`] for when it replaces the one stored).
    pub fn store_checkpoint(
        &self,
        checkpoint: &StoredCheckpoint,
        at: DateTime<Utc>,
        replace_any: bool,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let (reply, answer) = oneshot::channel();
        let job = CheckpointJob {
            checkpoint: checkpoint.clone(),
            at,
            replace_any,
            reply,
        };
        let sent = self.send(Work::Checkpoint(job));
        async move {
            sent?;
            answer.await.unwrap_or_else(|_| Err(gone()))
        }
    }
}

impl SqliteCommit {
    /// Puts `work` in the writer's queue, or says why it cannot wait there.
    fn send(&self, work: Work) -> Result<(), StoreError> {
        match self.queue.try_send(work) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(_)) => Err(StoreError::Overloaded),
            Err(mpsc::error::TrySendError::Closed(_)) => Err(gone()),
        }
    }
}

fn gone() -> StoreError {
    StoreError::Database(sqlx::Error::WorkerCrashed)
}

/// How often the checkpointer copies the log's new pages into the database file.
const WAL_CHECKPOINT_INTERVAL: Duration = Duration::from_millis(100);
/// The writer's own automatic checkpoint, in pages of the log (4 KiB each): only when
/// the checkpointer has fallen that far behind (SQLite's default is 1,000).
const WRITER_AUTOCHECKPOINT: &str = "PRAGMA wal_autocheckpoint = 16384";

/// Copies the write-ahead log into the database file (`PASSIVE`: beside the writer,
/// never blocking it) every [`WAL_CHECKPOINT_INTERVAL`], until `stop`'s sender (the writer) is
/// gone. Left to the writer, a checkpoint (a thousand pages copied and the database
/// file synced) ran inside the commit of every few dozen batches, and every change of
/// those batches waited for it.
fn checkpointer(connection: &Connection, stop: &std::sync::mpsc::Receiver<()>) {
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
        stop.recv_timeout(WAL_CHECKPOINT_INTERVAL)
    {
        // (busy, pages in the log, pages copied)
        match connection.query_row(sql::CHECKPOINT, [], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        }) {
            Ok((_, log, copied)) => tracing::debug!(log, copied, "sqlite checkpoint"),
            Err(e) => tracing::warn!("sqlite checkpoint: {e}"),
        }
    }
}

/// The writer thread's state: its connection, what it signals and counts.
struct Writer {
    connection: Connection,
    outbox: Arc<Notify>,
    commits: Arc<AtomicU64>,
    batches: Arc<AtomicU64>,
    /// Dropped with the writer: the checkpointer then stops.
    _checkpointer: std::sync::mpsc::Sender<()>,
}

impl Writer {
    fn run(mut self, mut queue: mpsc::Receiver<Work>) {
        let mut jobs = Vec::with_capacity(MAX_BATCH);
        let mut checkpoints = Vec::new();
        fn sort(work: Work, jobs: &mut Vec<Job>, checkpoints: &mut Vec<CheckpointJob>) {
            match work {
                Work::Change(job) => jobs.push(job),
                Work::Checkpoint(c) => checkpoints.push(c),
            }
        }
        while let Some(work) = queue.blocking_recv() {
            sort(work, &mut jobs, &mut checkpoints);
            while jobs.len() < MAX_BATCH {
                match queue.try_recv() {
                    Ok(work) => sort(work, &mut jobs, &mut checkpoints),
                    Err(_) => break,
                }
            }
            if !jobs.is_empty() {
                self.batches.fetch_add(1, Ordering::Relaxed);
                let (n, started) = (jobs.len(), std::time::Instant::now());
                self.write(std::mem::take(&mut jobs));
                tracing::debug!(
                    changes = n,
                    micros = started.elapsed().as_micros() as u64,
                    "sqlite group commit"
                );
            }
            if !checkpoints.is_empty() {
                store_checkpoints(&mut self.connection, std::mem::take(&mut checkpoints));
            }
        }
    }

    /// Writes `jobs` in one transaction and answers each of them.
    #[tracing::instrument(name = "store.group_commit", level = "info", skip_all, fields(backend = "sqlite", changes = jobs.len()))]
    fn write(&mut self, jobs: Vec<Job>) {
        let connection = &mut self.connection;
        let answers = match batch(connection, &jobs) {
            Ok(answers) => {
                self.commits.fetch_add(1, Ordering::Relaxed);
                answers
            }
            Err(e) if is_busy(&e) => {
                tracing::warn!("sqlite group commit of {} changes: {e}", jobs.len());
                let message = e.to_string();
                jobs.iter()
                    .map(|_| Err(StoreError::Sqlite(busy(&message))))
                    .collect()
            }
            Err(e) => {
                // Nothing of the batch was committed: each change on its own.
                tracing::warn!(
                    "sqlite group commit of {} changes failed ({e}); writing each alone",
                    jobs.len()
                );
                let answers: Vec<_> = jobs.iter().map(|j| alone(connection, j)).collect();
                let written = answers.iter().filter(|a| a.is_ok()).count();
                self.commits.fetch_add(written as u64, Ordering::Relaxed);
                answers
            }
        };
        let mut deliveries = 0;
        for (job, answer) in jobs.into_iter().zip(answers) {
            let answer = answer.map(|(positions, written)| {
                deliveries += written;
                let mut events: Vec<_> = job.append.events.into_iter().map(|r| r.event).collect();
                for (e, position) in events.iter_mut().zip(positions) {
                    e.position = position;
                }
                events
            });
            let _ = job.reply.send(answer);
        }
        if deliveries > 0 {
            self.outbox.notify_one();
        }
    }
}

/// The batch in one transaction, each change in a savepoint: each change's answer, or
/// the error that failed the batch as a whole (then nothing of it was committed).
fn batch(
    connection: &mut Connection,
    jobs: &[Job],
) -> Result<Vec<Result<Written, StoreError>>, rusqlite::Error> {
    let answers = in_transaction(connection, jobs);
    if answers.is_err() && !connection.is_autocommit() {
        let _ = connection.execute_batch(sql::ROLLBACK);
    }
    answers
}

fn in_transaction(
    connection: &mut Connection,
    jobs: &[Job],
) -> Result<Vec<Result<Written, StoreError>>, rusqlite::Error> {
    connection.prepare_cached(sql::BEGIN_WRITE)?.execute([])?;
    let mut answers = Vec::with_capacity(jobs.len());
    for job in jobs {
        connection.prepare_cached(sql::SAVEPOINT)?.execute([])?;
        let answer = change(connection, &job.append, &job.texts);
        if connection.is_autocommit() {
            // The error rolled the whole transaction back (SQLite does on some, e.g.
            // a full disk): the changes before this one are gone too.
            return Err(match answer {
                Err(StoreError::Sqlite(e)) => e,
                _ => rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ABORT),
                    Some("the transaction was rolled back".into()),
                ),
            });
        }
        if answer.is_err() {
            connection
                .prepare_cached(sql::ROLLBACK_TO_SAVEPOINT)?
                .execute([])?;
        }
        connection
            .prepare_cached(sql::RELEASE_SAVEPOINT)?
            .execute([])?;
        answers.push(answer);
    }
    connection.prepare_cached(sql::COMMIT)?.execute([])?;
    Ok(answers)
}

/// One change on its own transaction.
fn alone(connection: &mut Connection, job: &Job) -> Result<Written, StoreError> {
    connection.prepare_cached(sql::BEGIN_WRITE)?.execute([])?;
    let written = change(connection, &job.append, &job.texts).and_then(|w| {
        connection.prepare_cached(sql::COMMIT)?.execute([])?;
        Ok(w)
    });
    if written.is_err() && !connection.is_autocommit() {
        let _ = connection.execute_batch(sql::ROLLBACK);
    }
    written
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

fn busy(message: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
        Some(message.to_owned()),
    )
}
