//! The bot runner's settings and state, kept apart from its work (`mod.rs`).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use uuid::Uuid;
use worp_gnubg::Pool;

/// How bots are run (`WORP_GNUBG`, `WORP_GNUBG_WORKERS`, `WORP_BOT_QUEUE`,
/// `WORP_BOT_TIMEOUT_SECS`).
#[derive(Debug, Clone)]
pub struct BotSettings {
    /// Whether to offer GNU Backgammon's bots (`WORP_GNUBG=off`: not).
    pub gnubg: bool,
    /// The `gnubg` program; `None`: found on the `PATH` or in `/usr/games`.
    pub gnubg_program: Option<PathBuf>,
    /// gnubg worker processes, and thinking bots deciding at once.
    pub workers: usize,
    /// Games that may wait for a thinking bot; more wait for the next sweep.
    pub queue: usize,
    /// How long one decision may take before its worker is replaced.
    pub timeout: Duration,
    /// The look-ahead of analyses (`WORP_ANALYSIS_PLIES`; gnubg's default is 2).
    pub analysis_plies: u8,
    /// How long one analysis may take.
    pub analysis_timeout: Duration,
}

impl Default for BotSettings {
    fn default() -> Self {
        BotSettings {
            gnubg: true,
            gnubg_program: None,
            workers: 2,
            queue: 1000,
            timeout: Duration::from_secs(30),
            analysis_plies: 2,
            analysis_timeout: Duration::from_secs(600),
        }
    }
}

/// The runner's queue, the games in it, and the gnubg pool if gnubg runs here.
#[derive(Debug)]
pub struct BotState {
    pub(crate) settings: BotSettings,
    pub(crate) gnubg: Option<Arc<Pool>>,
    pub(crate) queue: mpsc::Sender<Uuid>,
    pub(crate) receiver: Mutex<Option<mpsc::Receiver<Uuid>>>,
    /// The games in the queue (each once).
    pub(crate) queued: Mutex<HashSet<Uuid>>,
    /// Games whose bot failed to move, and how many times in a row.
    pub(crate) failures: Mutex<HashMap<Uuid, u32>>,
    /// Wakes the analyst when an analysis is asked for.
    pub(crate) analyst: tokio::sync::Notify,
}

impl BotState {
    pub(crate) fn new(settings: BotSettings, gnubg: Option<Arc<Pool>>) -> BotState {
        let (queue, receiver) = mpsc::channel(settings.queue.max(1));
        BotState {
            settings,
            gnubg,
            queue,
            receiver: Mutex::new(Some(receiver)),
            queued: Mutex::default(),
            failures: Mutex::default(),
            analyst: tokio::sync::Notify::new(),
        }
    }

    pub(crate) fn queued(&self) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
        self.queued.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for BotState {
    fn default() -> Self {
        BotState::new(BotSettings::default(), None)
    }
}
