//! Group commit on PostgreSQL: the changes that arrive while the previous write is in
//! flight are appended together, in one statement and one durable commit.
//!
//! A move on its own would cost a transaction of five to seven statements (the version
//! check, each event, the games row, the webhook outbox, the commit), each a round trip
//! and a parse on the database. Here each of `GROUP_COMMIT_WRITERS` writer tasks takes
//! every change waiting in the queue (up to [`MAX_BATCH`]) and sends them as one
//! statement of data-modifying CTEs over `unnest`ed arrays: the same rows, the same
//! checks, a single commit. Every change names the last sequence number its caller saw
//! (the statements are in [`super::sql`], with the three forms of the version check):
//!
//! - A batch of moves to existing games (the common case, [`APPEND_MOVES`]) is judged
//!   change by change. A change's `games` row is updated only while it is still at that
//!   version (the upsert finds and locks the row by its key anyway, so the check costs
//!   no index scan of the log), and its events and notices are written only with its
//!   row. A change to a game whose log has moved on, or not reached that version, writes
//!   nothing; the rest of the batch is written.
//! - Any other batch (new games, seats taken, `Idempotency-Key` answers) is all or
//!   nothing: if the log of any of its games is not at the version named, nothing is
//!   inserted (every insert is guarded by the `stale` CTE).
//! - Two changes to the same sequence number (a race inside the batch, or with another
//!   process) violate `UNIQUE (game_id, seq)`, or update one `games` row twice, and the
//!   statement fails as a whole.
//!
//! A change that was not written, and every change of a statement the database refused,
//! is appended again on its own transaction (`append_alone`), so each gets its own
//! answer: the loser of a race its [`StoreError::Conflict`], the others their events.
//! Errors that leave the outcome unknown (the connection broke, or the server ended it
//! on its way down or turned standby: a failover) are reported to every change of the
//! batch, as a single append would report them.
//!
//! The announcements to other processes (`NOTIFY`) are not part of the statement:
//! PostgreSQL serialises the commits of transactions that notify (a global lock held
//! through the commit's flush), which would undo group commit across processes;
//! `live::announce` sends them after the commit, in batches of their own.
//!
//! A change is acknowledged only after its commit returned (fsync, `synchronous_commit`).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};

use futures_util::future::{ready, Either, FutureExt};

use sqlx::pool::PoolConnection;
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgConnection, PgPool, Postgres, Row};
use tokio::sync::{mpsc, oneshot, Mutex, Notify};
use uuid::Uuid;

use super::batch_columns::{AnswerColumns, EventColumns, NoticeColumns, RowColumns};
use super::error::{refused, same_error, StoreError};
use super::lone_move;
use super::postgres::append_alone;
use super::records::Append;
use super::sql::{APPEND_MOVES, APPEND_TOGETHER};
use crate::events::StoredEvent;

/// Writer tasks: while one waits for its commit, the next gathers the changes that
/// arrived meanwhile.
pub const GROUP_COMMIT_WRITERS: usize = 2;
/// The most changes one statement carries.
pub const MAX_BATCH: usize = 256;
/// How many changes may wait for the writers by default (`WORP_WRITE_QUEUE`): beyond,
/// an append is refused at once ([`StoreError::Overloaded`]), not queued without bound.
pub const WRITE_QUEUE: usize = 16 * MAX_BATCH;

type Answer = Result<Vec<StoredEvent>, StoreError>;

struct Job {
    append: Append,
    reply: oneshot::Sender<Answer>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("game_id", &self.append.game_id)
            .finish()
    }
}

/// The queue in front of the writer tasks: bounded, so that under overload an append is
/// refused at once ([`StoreError::Overloaded`], 503 with `Retry-After`) instead of
/// waiting behind an ever longer queue.
#[derive(Debug, Clone)]
pub struct GroupCommit {
    pool: PgPool,
    queue: mpsc::Sender<Job>,
    outbox: Arc<Notify>,
    /// Room for changes waiting, per queue.
    capacity: usize,
    /// Held by every clone: once the last is dropped, the threads' own writers stop.
    alive: Arc<()>,
    /// The connections of the threads' own writers.
    own_pools: Arc<std::sync::Mutex<Vec<PgPool>>>,
}

thread_local! {
    /// The queues of this thread's own writers, one per store (keyed by its `alive`).
    static OWN_WRITERS: std::cell::RefCell<Vec<(Weak<()>, mpsc::Sender<Job>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl GroupCommit {
    /// Starts `writers` writer tasks on the current Tokio runtime, with room for
    /// `queue` changes waiting for them. They stop when the last `GroupCommit` (the last
    /// clone of the store) is dropped.
    pub fn start(pool: PgPool, writers: usize, queue: usize) -> GroupCommit {
        let outbox = Arc::new(Notify::new());
        let queue_capacity = queue.max(1);
        let (queue, rx) = mpsc::channel(queue_capacity);
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..writers.max(1) {
            tokio::spawn(writer(pool.clone(), rx.clone(), outbox.clone(), None));
        }
        GroupCommit {
            pool,
            queue,
            outbox,
            capacity: queue_capacity,
            alive: Arc::new(()),
            own_pools: Arc::default(),
        }
    }

    /// The queue of this thread's own writer when the thread runs a single-threaded
    /// runtime (each of actix-web's workers does), started on first use: the request and
    /// the writer then take turns on one thread, and the writer's connection is polled by
    /// that thread too, instead of two threads waking each other twice per change (which
    /// cost as much as the rest of a move's server time with one client). `None` on a
    /// multi-threaded runtime, whose tasks use the shared writers.
    fn own_queue(&self) -> Option<mpsc::Sender<Job>> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        if runtime.runtime_flavor() != tokio::runtime::RuntimeFlavor::CurrentThread {
            return None;
        }
        OWN_WRITERS
            .try_with(|writers| {
                let mut writers = writers.borrow_mut();
                writers.retain(|(alive, _)| alive.strong_count() > 0);
                if let Some((_, queue)) = writers
                    .iter()
                    .find(|(alive, _)| alive.as_ptr() == Arc::as_ptr(&self.alive))
                {
                    return queue.clone();
                }
                let (queue, rx) = mpsc::channel(self.capacity);
                // Connections of the writer's own, opened on this thread's runtime: the
                // one it writes on, and one for a change it then appends alone.
                let pool = PgPoolOptions::new()
                    .max_connections(2)
                    .test_before_acquire(false)
                    .acquire_timeout(std::time::Duration::from_secs(5))
                    .connect_lazy_with((*self.pool.connect_options()).clone());
                let (outbox, alive, own) = (
                    self.outbox.clone(),
                    Arc::downgrade(&self.alive),
                    pool.clone(),
                );
                runtime.spawn(async move {
                    writer(own.clone(), Arc::new(Mutex::new(rx)), outbox, Some(alive)).await;
                    own.close().await;
                });
                writers.push((Arc::downgrade(&self.alive), queue.clone()));
                if let Ok(mut pools) = self.own_pools.lock() {
                    pools.retain(|p| !p.is_closed());
                    pools.push(pool);
                }
                queue
            })
            .ok()
    }

    /// The connections of the threads' own writers: open, and idle.
    pub fn own_connections(&self) -> (u32, usize) {
        let pools = self
            .own_pools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        pools.iter().fold((0, 0), |(open, idle), p| {
            (open + p.size(), idle + p.num_idle())
        })
    }

    /// Signalled whenever webhook deliveries were written.
    pub fn outbox(&self) -> Arc<Notify> {
        self.outbox.clone()
    }

    /// Appends one change (see the module's documentation); it joins the queue now.
    /// Not an `async fn`, which would keep the change, its job and the lone append each
    /// in a place of its own: several KiB that every future around it copies.
    pub fn append(&self, a: Append) -> impl Future<Output = Answer> + Send + '_ {
        let alone = |a: Append| -> Pin<Box<dyn Future<Output = Answer> + Send + '_>> {
            Box::pin(async move { append_alone(&self.pool, &a, &self.outbox).await })
        };
        if a.events.is_empty() {
            return Either::Left(alone(a)); // Only a version check: nothing to batch.
        }
        let (reply, answer) = oneshot::channel();
        let queue = self.own_queue();
        let queue = queue.as_ref().unwrap_or(&self.queue);
        crate::telemetry::metrics::write_queue(queue);
        match queue.try_send(Job { append: a, reply }) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                return Either::Left(Box::pin(ready(Err(StoreError::Overloaded))))
            }
            // The writers are gone (their runtime ended): append here.
            Err(mpsc::error::TrySendError::Closed(job)) => return Either::Left(alone(job.append)),
        }
        // A writer stopped in the middle of this change: whether it was committed is
        // unknown, as when a connection breaks.
        let crashed = || Err(StoreError::Database(sqlx::Error::WorkerCrashed));
        Either::Right(answer.map(move |answer| answer.unwrap_or_else(|_| crashed())))
    }
}

/// How long a writer keeps its connection while no change arrives. While changes keep
/// coming each writer holds one connection: handing it back to the pool after every
/// batch costs a round trip (the pool tests each connection it gets back).
const IDLE_CONNECTION: std::time::Duration = std::time::Duration::from_millis(250);

/// A writer's loop: takes every change waiting and writes them together, until its
/// queue is closed or, for a thread's own writer, its store (`alive`) is gone.
///
/// The quiet spell is timed by one timer that is moved only when it fires: a new timer
/// for every batch, due sooner than what the runtime last parked for, made Tokio wake
/// its own driver (a write to its `eventfd` and one more `epoll_wait`) every few moves.
async fn writer(
    pool: PgPool,
    rx: Arc<Mutex<mpsc::Receiver<Job>>>,
    outbox: Arc<Notify>,
    alive: Option<Weak<()>>,
) {
    let mut jobs = Vec::with_capacity(MAX_BATCH);
    let mut connection: Option<PoolConnection<Postgres>> = None;
    let mut watched = lone_move::Watched::default();
    let mut last_batch = tokio::time::Instant::now();
    let quiet = tokio::time::sleep(IDLE_CONNECTION);
    tokio::pin!(quiet);
    loop {
        let next = async {
            let mut rx = rx.lock().await;
            rx.recv_many(&mut jobs, MAX_BATCH).await
        };
        let received = if connection.is_some() || alive.is_some() {
            tokio::select! {
                biased;
                n = next => n,
                () = &mut quiet => {
                    let due = last_batch + IDLE_CONNECTION;
                    if due > tokio::time::Instant::now() {
                        // Changes came since the timer was set: quiet for less long.
                        quiet.as_mut().reset(due);
                        continue;
                    }
                    // Quiet: give the connection back (both the lock and `recv_many`
                    // may be given up midway; nothing is lost).
                    connection = None;
                    if alive.as_ref().is_some_and(|a| a.strong_count() == 0) {
                        return;
                    }
                    quiet.as_mut().reset(tokio::time::Instant::now() + IDLE_CONNECTION);
                    continue;
                }
            }
        } else {
            next.await
        };
        if received == 0 {
            return;
        }
        let (n, started) = (jobs.len(), std::time::Instant::now());
        let batch = std::mem::take(&mut jobs);
        write(&pool, &mut connection, batch, &outbox, &mut watched).await;
        last_batch = tokio::time::Instant::now();
        crate::telemetry::metrics::group_commit(n, started.elapsed());
        tracing::debug!(
            changes = n,
            micros = started.elapsed().as_micros() as u64,
            "group commit"
        );
        jobs.reserve(MAX_BATCH);
    }
}

/// Appends `jobs` and answers each of them, on `connection` (taken from the pool if
/// there is none; dropped when it failed).
#[tracing::instrument(name = "store.group_commit", level = "info", skip_all, fields(backend = "postgres", changes = jobs.len()))]
async fn write(
    pool: &PgPool,
    connection: &mut Option<PoolConnection<Postgres>>,
    jobs: Vec<Job>,
    outbox: &Notify,
    watched: &mut lone_move::Watched,
) {
    let together = match connection {
        Some(c) => append_together(c, &jobs, watched).await,
        None => match pool.acquire().await {
            Ok(c) => append_together(connection.insert(c), &jobs, watched).await,
            Err(e) => Err(e),
        },
    };
    if matches!(&together, Err(e) if !refused(e)) {
        // The connection may be broken: the pool tests it when it comes back.
        *connection = None;
    }
    let written = match together {
        Ok((written, deliveries)) => {
            if deliveries > 0 {
                outbox.notify_one();
            }
            written
        }
        // The database refused the statement: nothing of it was committed.
        Err(e) if refused(&e) => jobs.iter().map(|_| None).collect(),
        Err(e) => {
            tracing::warn!("group commit of {} changes failed: {e}", jobs.len());
            for job in jobs {
                let _ = job.reply.send(Err(StoreError::Database(same_error(&e))));
            }
            return;
        }
    };
    let mut again = Vec::new();
    for (job, at) in jobs.into_iter().zip(written) {
        match at {
            Some(at) => {
                let mut events = job.append.events;
                for (e, position) in events.iter_mut().zip(at) {
                    e.position = position;
                }
                let _ = job.reply.send(Ok(events));
            }
            None => again.push(job),
        }
    }
    // What was not written (a game had moved on, or the statement was refused): each
    // change on its own, for its own answer.
    for job in again {
        let answer = append_alone(pool, &job.append, outbox).await;
        let _ = job.reply.send(answer);
    }
}

/// What a batch statement did for each of its changes, in order: the positions of the
/// change's events, or `None` when nothing of it was written (its game had moved on);
/// and the number of webhook deliveries written.
type Written = (Vec<Option<Vec<i64>>>, i64);

/// Appends the changes of `jobs` in one statement. A batch of moves to existing games is
/// judged change by change ([`APPEND_MOVES`]); any other batch is all or nothing (every
/// change `None` when a game had moved on).
async fn append_together(
    connection: &mut PgConnection,
    jobs: &[Job],
    watched: &mut lone_move::Watched,
) -> Result<Written, sqlx::Error> {
    if let [job] = jobs {
        if let Some(statement) = lone_move::statement(&job.append, watched) {
            let (at, deliveries) =
                lone_move::append(connection, &job.append, statement, watched).await?;
            return Ok((vec![at], deliveries));
        }
    }
    let mut heads = (Vec::new(), Vec::new());
    let mut ev = EventColumns::default();
    let mut rows = RowColumns::default();
    let mut seats = (Vec::new(), Vec::new(), Vec::new());
    let mut secrets = (Vec::new(), Vec::new());
    let mut notices = NoticeColumns::default();
    let mut answers = AnswerColumns::default();
    for job in jobs {
        let a = &job.append;
        heads.0.push(a.game_id);
        heads.1.push(a.expected_version);
        for e in &a.events {
            ev.push(e);
        }
        rows.push(&a.row);
        if a.seats_changed() {
            for (seat, player) in a.row.seats.iter().enumerate() {
                seats.0.push(a.game_id);
                seats.1.push(seat as i32);
                seats.2.push(*player);
            }
        }
        if let Some(seed) = &a.secret {
            secrets.0.push(a.game_id);
            secrets.1.push(seed.clone());
        }
        for n in &a.notices {
            notices.push(n, a.row.updated_at);
        }
        if let Some(kept) = &a.idempotency {
            answers.push(kept, a.row.updated_at);
        }
    }
    let total = ev.game_id.len();
    let only_moves = seats.0.is_empty()
        && secrets.0.is_empty()
        && answers.player_id.is_empty()
        && jobs
            .iter()
            .all(|j| j.append.expected_version > 0 && !j.append.events.is_empty());
    let mut statement = sqlx::query(if only_moves {
        APPEND_MOVES
    } else {
        APPEND_TOGETHER
    })
    .bind(heads.0)
    .bind(heads.1)
    .bind(ev.game_id)
    .bind(ev.seq)
    .bind(ev.kind)
    .bind(ev.payload)
    .bind(ev.rules_version)
    .bind(ev.recorded_at)
    .bind(ev.hash)
    .bind(rows.id)
    .bind(rows.variant)
    .bind(rows.status)
    .bind(rows.version)
    .bind(rows.to_move_seat)
    .bind(rows.to_move_player)
    .bind(rows.summary)
    .bind(rows.created_at)
    .bind(rows.updated_at)
    .bind(rows.deadline)
    .bind(notices.player_id)
    .bind(notices.game_id)
    .bind(notices.version)
    .bind(notices.kind)
    .bind(notices.payload)
    .bind(notices.at);
    if !only_moves {
        statement = statement
            .bind(seats.0)
            .bind(seats.1)
            .bind(seats.2)
            .bind(secrets.0)
            .bind(secrets.1)
            .bind(answers.player_id)
            .bind(answers.key)
            .bind(answers.body)
            .bind(answers.at)
            .bind(answers.request)
            .bind(answers.body_hash);
    }
    let returned = statement.fetch_all(connection).await?;
    let mut positions = std::collections::HashMap::with_capacity(total);
    let mut deliveries = 0;
    for r in &returned {
        deliveries = r.try_get("deliveries")?;
        let game: Uuid = r.try_get("game_id")?;
        let seq: i64 = r.try_get("seq")?;
        let position: i64 = r.try_get("position")?;
        positions.insert((game, seq), position);
    }
    if !only_moves && returned.len() != total {
        // All or nothing: a game had moved on.
        return Ok((jobs.iter().map(|_| None).collect(), deliveries));
    }
    // A statement that succeeded wrote each game at most once: a returned event is its
    // game's (and sequence number's) one change.
    let mut written = Vec::with_capacity(jobs.len());
    for job in jobs {
        let events = &job.append.events;
        let at: Vec<i64> = events
            .iter()
            .filter_map(|e| positions.get(&(e.game_id, e.seq)).copied())
            .collect();
        if at.is_empty() {
            written.push(None);
        } else if at.len() == events.len() {
            written.push(Some(at));
        } else {
            // The statement writes a change's events together or not at all.
            return Err(sqlx::Error::Protocol(
                "only some of a change's events were returned".into(),
            ));
        }
    }
    Ok((written, deliveries))
}
