//! Group commit on PostgreSQL: the changes that arrive while the previous write is in
//! flight are appended together, in one statement and one durable commit.
//!
//! A move on its own would cost a transaction of five to seven statements (the version
//! check, each event, the games row, the webhook outbox, the commit), each a round trip
//! and a parse on the database. Here each of `GROUP_COMMIT_WRITERS` writer tasks takes
//! every change waiting in the queue (up to [`MAX_BATCH`]) and sends them as one
//! statement of data-modifying CTEs over `unnest`ed arrays: the same rows, the same
//! checks, a single commit. Every change names the last sequence number its caller saw
//! (the statements are in [`super::sql`]: a batch is judged by form 3 or form 2 of its
//! four forms of the version check):
//!
//! - A batch of moves to existing games (the common case, [`super::sql::APPEND_MOVES`])
//!   is judged change by change. A change's `games` row is updated only while it is
//!   still at that version (the upsert finds and locks the row by its key anyway, so the
//!   check costs no index scan of the log), and its events and notices are written only
//!   with its row. A change to a game whose log has moved on, or not reached that
//!   version, writes nothing; the rest of the batch is written. While none of the
//!   players a batch notifies is known to have a webhook, it is written without the
//!   outbox ([`super::watched`]).
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
//! batch, as a single append would report them. The statements themselves are built in
//! [`super::batch`].
//!
//! Which writer takes a change: each actix-web worker thread (one unless `WORP_WORKERS`
//! says more) starts a writer of its own on the first append made on it, with two
//! connections of its own (one to write on, one for a change appended alone), so that the
//! request and its commit take turns on one thread instead of two threads waking each
//! other for every change; with several worker threads, each batches its own requests.
//! Tasks on a multi-threaded runtime (background work, the command line) share the
//! [`GROUP_COMMIT_WRITERS`] writers started with the store. A batch of one move is bound
//! row by row to a statement of its shape ([`super::lone_move`]) rather than as arrays.
//! Every queue is bounded (`WORP_WRITE_QUEUE`): a full one refuses the change at once
//! ([`StoreError::Overloaded`], 503 with `Retry-After`).
//!
//! The announcements to other processes (`NOTIFY`) are not part of the statement:
//! PostgreSQL serialises the commits of transactions that notify (a global lock held
//! through the commit's flush), which would undo group commit across processes;
//! `live::relay::announce` sends them after the commit, in batches of their own.
//!
//! A change is acknowledged only after its commit returned (fsync, `synchronous_commit`).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};

use futures_util::future::{ready, Either, FutureExt};

use sqlx::pool::PoolConnection;
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgPool, Postgres};
use tokio::sync::{mpsc, oneshot, Mutex, Notify};

use super::batch::append_together;
use super::error::{refused, same_error, StoreError};
use super::postgres::append_alone;
use super::watched::Watched;
use worp_domain::events::StoredEvent;
use worp_domain::records::Append;

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
        worp_telemetry::metrics::write_queue(queue);
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
    let mut watched = Watched::default();
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
        worp_telemetry::metrics::group_commit(n, started.elapsed());
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
    watched: &mut Watched,
) {
    let appends: Vec<&Append> = jobs.iter().map(|j| &j.append).collect();
    let together = match connection {
        Some(c) => append_together(c, &appends, watched).await,
        None => match pool.acquire().await {
            Ok(c) => append_together(connection.insert(c), &appends, watched).await,
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
                let mut events: Vec<_> = job.append.events.into_iter().map(|r| r.event).collect();
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
