//! A few gnubg workers shared by every bot: a bounded queue before them, a timeout on
//! each question, and a worker that died or hung replaced by a fresh one.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;

use crate::{GnubgError, Worker};

/// How the pool runs.
#[derive(Debug, Clone)]
pub struct PoolSettings {
    /// The `gnubg` program.
    pub program: PathBuf,
    /// Worker processes at most (each one question at a time).
    pub workers: usize,
    /// Questions that may wait for a worker; one more is refused (`Busy`).
    pub queue: usize,
    /// How long one question may take before its worker is stopped.
    pub timeout: Duration,
}

impl PoolSettings {
    /// Where `gnubg` is: `explicit` if given, else the first on the `PATH`, else Debian's
    /// `/usr/games/gnubg`.
    pub fn find_program(explicit: Option<&Path>) -> Result<PathBuf, GnubgError> {
        if let Some(p) = explicit {
            return if p.is_file() {
                Ok(p.to_path_buf())
            } else {
                Err(GnubgError::Missing(format!(
                    "{} is not a file",
                    p.display()
                )))
            };
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .chain([PathBuf::from("/usr/games")])
            .map(|dir| dir.join("gnubg"))
            .find(|p| p.is_file())
            .ok_or_else(|| GnubgError::Missing("no gnubg on the PATH or in /usr/games".into()))
    }
}

/// The workers: each slot holds a running worker, or none yet.
#[derive(Debug)]
pub struct Pool {
    settings: PoolSettings,
    state: Mutex<Slots>,
    freed: Condvar,
    restarts: AtomicU64,
}

#[derive(Debug)]
struct Slots {
    /// The slots no question holds now.
    free: Vec<Option<Worker>>,
    /// Questions waiting for a slot.
    waiting: usize,
}

impl Pool {
    /// A pool with one worker started, to know that gnubg runs here.
    pub fn start(settings: PoolSettings) -> Result<Pool, GnubgError> {
        let first = Worker::start(&settings.program, START_LIMIT)
            .or_else(|_| Worker::start(&settings.program, START_LIMIT))?;
        let mut free: Vec<Option<Worker>> = (1..settings.workers.max(1)).map(|_| None).collect();
        free.push(Some(first));
        Ok(Pool {
            settings,
            state: Mutex::new(Slots { free, waiting: 0 }),
            freed: Condvar::new(),
            restarts: AtomicU64::new(0),
        })
    }

    /// The `gnubg` program the workers run.
    pub fn program(&self) -> &Path {
        &self.settings.program
    }

    /// Questions waiting for a worker now.
    pub fn queue_depth(&self) -> usize {
        self.slots().waiting
    }

    /// Workers replaced since the pool started (died, hung or answered garbage).
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    fn slots(&self) -> MutexGuard<'_, Slots> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks `request` of a free worker, waiting for one if the queue has room. Blocks
    /// the calling thread: from async code, call it on a blocking thread.
    pub fn ask(&self, request: &Value) -> Result<Value, GnubgError> {
        let slot = {
            let mut slots = self.slots();
            if slots.free.is_empty() {
                if slots.waiting >= self.settings.queue {
                    return Err(GnubgError::Busy(slots.waiting));
                }
                slots.waiting += 1;
                while slots.free.is_empty() {
                    slots = self.freed.wait(slots).unwrap_or_else(|e| e.into_inner());
                }
                slots.waiting -= 1;
            }
            slots.free.pop().flatten()
        };
        let (slot, answer) = self.ask_on(slot, request);
        self.slots().free.push(slot);
        self.freed.notify_one();
        answer
    }

    /// Asks on `worker` (starting one if there is none); a worker that died, hung,
    /// answered what is not JSON or did not start is stopped and the question asked once
    /// more of a fresh one.
    fn ask_on(
        &self,
        mut worker: Option<Worker>,
        request: &Value,
    ) -> (Option<Worker>, Result<Value, GnubgError>) {
        let mut last = GnubgError::Exited;
        for _ in 0..2 {
            let mut w = match worker.take() {
                Some(w) => w,
                None => match Worker::start(&self.settings.program, START_LIMIT) {
                    Ok(w) => w,
                    Err(e) => {
                        tracing::warn!("a gnubg worker did not start: {e}");
                        last = e;
                        continue;
                    }
                },
            };
            match w.ask(request.clone(), self.settings.timeout) {
                Ok(v) => return (Some(w), Ok(v)),
                // A refusal by the script: the worker is well, the question was bad.
                Err(e @ GnubgError::Answer(_)) => return (Some(w), Err(e)),
                Err(e) => {
                    tracing::warn!(pid = w.pid(), "a gnubg worker is replaced: {e}");
                    self.restarts.fetch_add(1, Ordering::Relaxed);
                    last = e;
                }
            }
        }
        (None, Err(last))
    }
}

/// How long a new worker may take to load its networks and say it is ready.
const START_LIMIT: Duration = Duration::from_secs(60);
