//! `--sqlite-anchor PATH`: SQLite's own ceiling on this machine, the anchor of a run
//! against a server on SQLite, as pgbench is for PostgreSQL.
//!
//! Durable single-row inserts, each its own transaction, into a scratch file created
//! beside `PATH` (the server's database file: the same disk and file system) and removed
//! afterwards, opened exactly as the server opens its writer's connection
//! (`worp::store::sqlite_commit::open`: WAL, `synchronous = FULL`), with the same number
//! of clients for the same duration. SQLite has one writer at a time: the clients are
//! threads taking turns on one connection (a mutex), so none of them waits in SQLite's
//! busy handler, which sleeps. That is the fastest way to make each insert durable
//! before the next: one commit and one `fsync` of the log per row.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::cpu::{self, Rounds, Snapshot};
use super::{Anchor, Measured, Out};

/// The anchor's table: a row shaped like an event.
const CREATE: &str = "CREATE TABLE IF NOT EXISTS worp_load_anchor (
    id INTEGER PRIMARY KEY, game_id BLOB NOT NULL, seq INTEGER NOT NULL,
    payload TEXT NOT NULL, recorded_at TEXT NOT NULL)";
const INSERT: &str = "INSERT INTO worp_load_anchor (game_id, seq, payload, recorded_at) \
     VALUES (?1, ?2, '{\"dice\": [3, 5]}', ?3)";

/// The scratch file beside `database` (and SQLite's `-wal` and `-shm` files).
pub(super) fn scratch(database: &Path) -> PathBuf {
    let dir = database
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    dir.join(format!(
        "worp-load-anchor-{}.sqlite",
        uuid::Uuid::new_v4().simple()
    ))
}

pub(super) fn remove(file: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
}

/// One durable insert: the row `seq` of `game`, in a transaction of its own.
pub(super) fn insert(
    connection: &rusqlite::Connection,
    game: &uuid::Uuid,
    seq: i64,
) -> rusqlite::Result<()> {
    let mut insert = connection.prepare_cached(INSERT)?;
    insert.execute(rusqlite::params![
        &game.as_bytes()[..],
        seq,
        chrono::Utc::now().to_rfc3339()
    ])?;
    Ok(())
}

/// Runs the anchor: its inserts per second, and the CPU they took.
pub(super) fn measure(
    database: &Path,
    clients: usize,
    duration: Duration,
    out: &Out,
) -> Result<Anchor, String> {
    let file = scratch(database);
    let result = run(&file, clients.max(1), duration, out);
    remove(&file);
    result
}

/// The anchor's connection to `file`, opened as the server opens its writer's, with the
/// anchor's table made.
pub(super) fn open(file: &Path) -> Result<rusqlite::Connection, String> {
    let path = file.to_str().ok_or("the anchor's path is not UTF-8")?;
    let connection = worp::store::sqlite_commit::open(path).map_err(|e| e.to_string())?;
    connection
        .execute_batch(CREATE)
        .map_err(|e| e.to_string())?;
    Ok(connection)
}

fn run(file: &Path, clients: usize, duration: Duration, out: &Out) -> Result<Anchor, String> {
    let connection = open(file)?;
    let settings: (String, i64) = connection
        .query_row(
            "SELECT * FROM pragma_journal_mode, pragma_synchronous",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| e.to_string())?;
    out.line(format!(
        "  SQLite anchor: {} (journal_mode {}, synchronous {} = {}), SQLite {}",
        file.display(),
        settings.0,
        settings.1,
        match settings.1 {
            0 => "OFF",
            1 => "NORMAL",
            2 => "FULL",
            _ => "EXTRA",
        },
        rusqlite::version()
    ));
    let connection = Arc::new(Mutex::new(connection));
    let inserted = Arc::new(AtomicU64::new(0));
    let failed: Arc<Mutex<Option<String>>> = Arc::default();
    let cpu_before = Snapshot::take(None);
    let started = Instant::now();
    let until = started + duration;
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let (connection, inserted, failed) =
                (connection.clone(), inserted.clone(), failed.clone());
            std::thread::spawn(move || {
                let game = uuid::Uuid::new_v4();
                let mut seq = 0_i64;
                while Instant::now() < until {
                    seq += 1;
                    let connection = connection
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    let done = insert(&connection, &game, seq);
                    drop(connection);
                    match done {
                        Ok(_) => {
                            inserted.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            *failed
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner) =
                                Some(e.to_string());
                            return;
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().map_err(|_| "an anchor client panicked")?;
    }
    let elapsed = started.elapsed().as_secs_f64();
    // The anchor's clients are threads of this process, which also run SQLite.
    let spent = cpu_before.to(&Snapshot::take(None), cpu::Client::Unseparated);
    if let Some(e) = failed
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
    {
        return Err(format!("SQLite anchor: {e}"));
    }
    let inserts = inserted.load(Ordering::Relaxed) as f64;
    let rate = inserts / elapsed;
    out.line(format!(
        "  SQLite durable single-row INSERT transactions, {clients} clients: {rate:.0} tx/s"
    ));
    let cpu = cpu::anchor(spent, Some(inserts), "SQLite insert transaction", out);
    Ok(Anchor { tps: rate, cpu })
}

/// One round's anchor after the HTTP load `ours`: prints the ratio; returns the load's
/// rate, the anchor's and the p99 when the round can be judged.
pub(super) async fn round(
    database: &Path,
    clients: usize,
    duration: Duration,
    ours: Option<&Measured>,
    cpus: &mut Rounds,
    out: &Out,
) -> Result<Option<(f64, f64, f64)>, String> {
    let (database, anchor_out) = (database.to_owned(), out.clone());
    let Anchor { tps, cpu } =
        tokio::task::spawn_blocking(move || measure(&database, clients, duration, &anchor_out))
            .await
            .map_err(|e| e.to_string())??;
    cpus.round(ours, cpu, out);
    Ok(match ours {
        Some(Measured {
            rate: Some(rate),
            p99: Some(p99),
            ..
        }) => {
            out.line(format!(
                "  this round: {:.1}% of SQLite's durable insert rate ({rate:.0} / {tps:.0}), p99 {p99:.2} ms",
                rate / tps * 100.0
            ));
            Some((*rate, tps, *p99))
        }
        Some(m) => {
            out.line(format!(
                "  this round: cannot be judged ({})",
                m.unjudged().unwrap_or_default()
            ));
            None
        }
        None => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchor_inserts_durably_beside_the_database_and_cleans_up() {
        let dir = std::env::temp_dir().join(format!("worp-anchor-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("dir");
        let out = Out {
            echo: super::super::Echo::Quiet,
            transcript: Arc::default(),
        };
        let Anchor { tps: rate, cpu } = measure(
            &dir.join("worp.sqlite"),
            2,
            Duration::from_millis(200),
            &out,
        )
        .expect("the anchor runs");
        assert!(rate > 0.0, "{rate}");
        if let Some((spent, inserts)) = cpu {
            assert!(inserts > 0.0 && spent.wall > 0.0, "{spent:?} {inserts}");
        }
        let transcript = out.transcript.lock().expect("transcript").clone();
        assert!(
            transcript.contains("journal_mode wal, synchronous 2 = FULL"),
            "{transcript}"
        );
        let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
        assert!(left.is_empty(), "the scratch files are removed: {left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
