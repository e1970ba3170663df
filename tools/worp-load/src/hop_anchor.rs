//! `--hop-anchor`: the round's anchor insert behind a minimal HTTP hop, measured in each
//! round beside the anchor itself: pgbench's durable single-row insert
//! (`tools/pgbench/anchor.sql`) on PostgreSQL, or the SQLite anchor's
//! ([`super::sqlite_anchor`]) in a scratch file beside the server's.
//!
//! An actix-web server of one worker, in this process, runs the anchor's `INSERT` for
//! each `POST /anchor` and answers 201 once it has committed; each client is one
//! blocking keep-alive connection. On PostgreSQL the insert runs on a pooled
//! connection; on SQLite it runs on the worker's own thread, on the anchor's one
//! connection (the least a hop can add: no other thread wakes). It judges no game and
//! writes no row beyond the anchor's, so its rate over the anchor's is the most that the
//! hop in front of the database (an HTTP request, a handler, the answer) leaves of the
//! anchor's rate on this machine. Worp's own rate over the hop's is then what the
//! server's game work and rows cost beyond the hop.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpResponse, HttpServer};
use sqlx::postgres::PgPoolOptions;
use sqlx::Connection;

use super::{percentile, sqlite_anchor, ANCHOR, ANCHOR_DROP, ANCHOR_TABLE};

/// The database behind the hop.
#[derive(Debug, Clone)]
pub enum Store {
    /// PostgreSQL at this URL: pgbench's table and insert.
    Postgres(String),
    /// SQLite: the anchor's table and insert in a scratch file beside this one (the
    /// server's database file), removed afterwards.
    Sqlite(PathBuf),
}

/// What one run of the hop measured.
#[derive(Debug, Clone, Copy)]
pub struct Hop {
    /// Committed inserts a second, over all clients.
    pub rate: f64,
    /// Median and 99th percentile of a request's time, in milliseconds.
    pub p50: f64,
    pub p99: f64,
}

/// The request each client sends, again and again.
const REQUEST: &[u8] = b"POST /anchor HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n";

/// Runs the hop on `store` for `duration` with `clients` connections (the anchor's
/// scratch table or file is made and dropped again). Blocking: call it off the
/// runtime, as the anchors are.
pub fn run(store: &Store, clients: usize, duration: Duration) -> Result<Hop, String> {
    let clients = clients.max(1);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let store = store.clone();
    let server = std::thread::Builder::new()
        .name("hop-anchor".into())
        .spawn(move || serve(&store, clients, ready_tx))
        .map_err(|e| format!("hop anchor: {e}"))?;
    let (port, handle) = match ready_rx.recv() {
        Ok(Ok(ready)) => ready,
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            return Err(match server.join() {
                Ok(Err(e)) => e,
                _ => "hop anchor: the server stopped before it listened".into(),
            })
        }
    };
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let loads: Vec<_> = (0..clients)
        .map(|_| std::thread::spawn(move || client(port, deadline)))
        .collect();
    let mut times = Vec::new();
    let mut failed = None;
    for load in loads {
        match load.join() {
            Ok(Ok(t)) => times.extend(t),
            Ok(Err(e)) => failed = Some(e),
            Err(_) => failed = Some("hop anchor: a client panicked".into()),
        }
    }
    let took = started.elapsed().as_secs_f64();
    let stop = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    stop.block_on(handle.stop(true));
    match server.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(e),
        Err(_) => return Err("hop anchor: the server panicked".into()),
    }
    if let Some(e) = failed {
        return Err(e);
    }
    if times.is_empty() {
        return Err("hop anchor: no insert was answered".into());
    }
    times.sort_unstable();
    Ok(Hop {
        rate: times.len() as f64 / took,
        p50: percentile(&times, 50.0).unwrap_or(0.0),
        p99: percentile(&times, 99.0).unwrap_or(0.0),
    })
}

/// [`run`] on the runtime's blocking pool, as the anchors run.
pub async fn measure(store: Store, clients: usize, duration: Duration) -> Result<Hop, String> {
    tokio::task::spawn_blocking(move || run(&store, clients, duration))
        .await
        .map_err(|e| e.to_string())?
}

/// The hop's rounds, each beside its anchor's rate and ours (if judged) in the same
/// round.
#[derive(Debug)]
pub struct Rounds {
    /// The anchor's name, as the lines give it ("pgbench", "SQLite").
    anchor: &'static str,
    rounds: Vec<(f64, f64, Option<f64>)>,
}

impl Rounds {
    /// No rounds yet, beside the anchor called `anchor`.
    pub fn new(anchor: &'static str) -> Rounds {
        Rounds {
            anchor,
            rounds: Vec::new(),
        }
    }

    /// Keeps a round: `hop` beside the anchor's `tps` and our `ours`; returns its line.
    pub fn round(&mut self, hop: &Hop, tps: f64, ours: Option<f64>) -> String {
        self.rounds.push((hop.rate, tps, ours));
        format!(
            "  the anchor behind a minimal HTTP hop: {:.0} tx/s, {:.1}% of {}'s (p50 {:.2} ms, p99 {:.2} ms){}",
            hop.rate,
            hop.rate / tps * 100.0,
            self.anchor,
            hop.p50,
            hop.p99,
            ours.map(|r| format!("; our rate is {:.1}% of it", r / hop.rate * 100.0))
                .unwrap_or_default()
        )
    }

    /// The means over the rounds (`None` without any): the hop's share of the anchor's
    /// rate and, when every round judged ours, our share of the hop's.
    pub fn summary(&self) -> Option<String> {
        if self.rounds.is_empty() {
            return None;
        }
        let n = self.rounds.len() as f64;
        let hop = self.rounds.iter().map(|r| r.0).sum::<f64>() / n;
        let tps = self.rounds.iter().map(|r| r.1).sum::<f64>() / n;
        let ours: Option<f64> = self.rounds.iter().map(|r| r.2).sum();
        Some(format!(
            "The anchor behind a minimal HTTP hop: {:.1}% of {}'s rate ({hop:.0} / {tps:.0}, means over the rounds){}",
            hop / tps * 100.0,
            self.anchor,
            ours.map(|sum| format!("; our rate is {:.1}% of the hop's", sum / n / hop * 100.0))
                .unwrap_or_default()
        ))
    }
}

type Ready = Result<(u16, actix_web::dev::ServerHandle), String>;

/// What the hop's handler writes to.
enum Backend {
    Postgres(sqlx::PgPool),
    /// The anchor's one connection, the game its rows name, and the sequence number of
    /// the last.
    Sqlite(Mutex<rusqlite::Connection>, uuid::Uuid, AtomicI64),
}

/// The hop's server, on this thread until it is stopped: the table, then one worker.
fn serve(
    store: &Store,
    clients: usize,
    ready: std::sync::mpsc::Sender<Ready>,
) -> Result<(), String> {
    let scratch = match store {
        Store::Sqlite(database) => Some(sqlite_anchor::scratch(database)),
        Store::Postgres(_) => None,
    };
    let served = actix_web::rt::System::new().block_on(async {
        let started = async {
            let backend = match (store, &scratch) {
                (Store::Postgres(db), _) => Backend::Postgres(postgres(db, clients).await?),
                (Store::Sqlite(_), Some(file)) => Backend::Sqlite(
                    Mutex::new(sqlite_anchor::open(file).map_err(|e| format!("hop anchor: {e}"))?),
                    uuid::Uuid::new_v4(),
                    AtomicI64::new(0),
                ),
                (Store::Sqlite(_), None) => return Err("hop anchor: no scratch file".into()),
            };
            let data = web::Data::new(backend);
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(data.clone())
                    .route("/anchor", web::post().to(insert))
            })
            .workers(1)
            .disable_signals()
            .bind(("127.0.0.1", 0))
            .map_err(|e| format!("hop anchor: {e}"))?;
            let port = server
                .addrs()
                .first()
                .map(std::net::SocketAddr::port)
                .ok_or("hop anchor: no address")?;
            Ok::<_, String>((server.run(), port))
        };
        let (server, port) = match started.await {
            Ok(s) => s,
            Err(e) => {
                let _ = ready.send(Err(e.clone()));
                return Err(e);
            }
        };
        let _ = ready.send(Ok((port, server.handle())));
        let served = server.await.map_err(|e| format!("hop anchor: {e}"));
        let Store::Postgres(db) = store else {
            return served;
        };
        // The pool's connections went with the worker's runtime: the table is dropped on
        // a connection of this thread's own.
        let dropped = async {
            let mut connection = sqlx::PgConnection::connect(db).await?;
            sqlx::query(ANCHOR_DROP).execute(&mut connection).await?;
            connection.close().await
        }
        .await
        .map_err(|e| format!("hop anchor: dropping the table: {e}"));
        served.and(dropped)
    });
    if let Some(file) = &scratch {
        sqlite_anchor::remove(file);
    }
    served
}

/// A pool of `clients` connections to `db`, with pgbench's table made.
async fn postgres(db: &str, clients: usize) -> Result<sqlx::PgPool, String> {
    let pool = PgPoolOptions::new()
        .max_connections(u32::try_from(clients).unwrap_or(u32::MAX))
        .test_before_acquire(false)
        .connect(db)
        .await
        .map_err(|e| format!("hop anchor: {e}"))?;
    sqlx::raw_sql(ANCHOR_TABLE)
        .execute(&pool)
        .await
        .map_err(|e| format!("hop anchor: the anchor's table: {e}"))?;
    Ok(pool)
}

/// The anchor's transaction, answered once it committed.
async fn insert(backend: web::Data<Backend>) -> HttpResponse {
    let done = match backend.get_ref() {
        // Prepared and kept by the connection, as pgbench's `-M prepared` does.
        Backend::Postgres(pool) => sqlx::query(ANCHOR)
            .execute(pool)
            .await
            .map(drop)
            .map_err(|e| e.to_string()),
        // On this thread: SQLite's commit blocks it until the log is synced.
        Backend::Sqlite(connection, game, seq) => {
            let seq = seq.fetch_add(1, Ordering::Relaxed) + 1;
            let connection = connection
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            sqlite_anchor::insert(&connection, game, seq).map_err(|e| e.to_string())
        }
    };
    match done {
        Ok(()) => HttpResponse::Created()
            .content_type("application/json")
            .body("{\"inserted\":1}"),
        Err(e) => HttpResponse::InternalServerError().body(e),
    }
}

/// One client until `deadline`: the time of each answered insert, in microseconds.
fn client(port: u16, deadline: Instant) -> Result<Vec<u32>, String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))
        .map_err(|e| format!("hop anchor: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; 4096];
    let mut times = Vec::with_capacity(1 << 16);
    while Instant::now() < deadline {
        let sent = Instant::now();
        stream
            .write_all(REQUEST)
            .map_err(|e| format!("hop anchor: {e}"))?;
        read_answer(&mut stream, &mut buf)?;
        times.push(u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX));
    }
    Ok(times)
}

/// Reads one answer (its head and `Content-Length` body) from `stream`: `Ok` for a 201.
fn read_answer(stream: &mut impl Read, buf: &mut [u8]) -> Result<(), String> {
    let mut got = 0;
    loop {
        if got == buf.len() {
            return Err("hop anchor: an answer too long".into());
        }
        let n = stream
            .read(&mut buf[got..])
            .map_err(|e| format!("hop anchor: {e}"))?;
        if n == 0 {
            return Err("hop anchor: the server closed the connection".into());
        }
        got += n;
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut response = httparse::Response::new(&mut headers);
        let head = match response.parse(&buf[..got]) {
            Ok(httparse::Status::Partial) => continue,
            Ok(httparse::Status::Complete(head)) => head,
            Err(e) => return Err(format!("hop anchor: a malformed answer: {e}")),
        };
        let length = response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("content-length"))
            .map(|h| {
                std::str::from_utf8(h.value)
                    .ok()
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .ok_or("hop anchor: a malformed Content-Length")
            })
            .transpose()?
            .unwrap_or(0);
        if got < head + length {
            continue;
        }
        if response.code != Some(201) {
            return Err(format!(
                "hop anchor: {} {}: {}",
                response.code.unwrap_or(0),
                response.reason.unwrap_or(""),
                String::from_utf8_lossy(&buf[head..got])
            ));
        }
        if got > head + length {
            return Err("hop anchor: more than one answer".into());
        }
        return Ok(());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives `data` a few bytes at a time, as a socket may.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(out.len()).min(7);
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn rounds_give_the_hops_share_of_its_anchor_and_ours_of_the_hops() {
        let hop = |rate| Hop {
            rate,
            p50: 0.24,
            p99: 0.35,
        };
        let mut rounds = Rounds::new("pgbench");
        assert_eq!(rounds.summary(), None);
        let line = rounds.round(&hop(4000.0), 6000.0, Some(3000.0));
        assert!(line.contains("4000 tx/s, 66.7% of pgbench's"), "{line}");
        assert!(line.ends_with("our rate is 75.0% of it"), "{line}");
        rounds.round(&hop(4400.0), 6400.0, Some(3300.0));
        let summary = rounds.summary().expect("rounds");
        assert!(
            summary.contains("67.7% of pgbench's rate (4200 / 6200"),
            "{summary}"
        );
        assert!(
            summary.ends_with("our rate is 75.0% of the hop's"),
            "{summary}"
        );
        // A round whose load was not judged leaves our share out of the summary.
        rounds.round(&hop(4000.0), 6000.0, None);
        let summary = rounds.summary().expect("rounds");
        assert!(!summary.contains("our rate"), "{summary}");
        // Beside SQLite's anchor, the lines name it.
        let line = Rounds::new("SQLite").round(&hop(1500.0), 5000.0, Some(500.0));
        assert!(line.contains("1500 tx/s, 30.0% of SQLite's"), "{line}");
        assert!(line.ends_with("our rate is 33.3% of it"), "{line}");
    }

    #[test]
    fn an_answer_in_pieces_is_read_to_the_end_of_its_body() {
        let answer = b"HTTP/1.1 201 Created\r\ncontent-length: 14\r\n\r\n{\"inserted\":1}";
        let mut buf = vec![0u8; 4096];
        assert_eq!(read_answer(&mut Trickle(answer), &mut buf), Ok(()));
    }

    #[test]
    fn a_refusal_is_an_error_that_carries_its_body() {
        let answer = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\nboom";
        let mut buf = vec![0u8; 4096];
        let e = read_answer(&mut Trickle(answer), &mut buf).unwrap_err();
        assert!(e.contains("500") && e.contains("boom"), "{e}");
    }

    #[test]
    fn a_closed_connection_is_an_error() {
        let mut buf = vec![0u8; 4096];
        let e = read_answer(&mut Trickle(b"HTTP/1.1 201 Cr"), &mut buf).unwrap_err();
        assert!(e.contains("closed"), "{e}");
    }

    /// The hop on SQLite (a scratch file beside the one named): it answers inserts, times
    /// them, and leaves no file behind.
    #[test]
    fn the_sqlite_hop_answers_inserts_and_removes_its_file() {
        let dir = std::env::temp_dir().join(format!("worp-hop-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("dir");
        let hop = run(
            &Store::Sqlite(dir.join("worp.sqlite")),
            2,
            Duration::from_millis(300),
        )
        .expect("the hop runs");
        assert!(
            hop.rate > 0.0 && hop.p50 > 0.0 && hop.p99 >= hop.p50,
            "{hop:?}"
        );
        let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
        assert!(left.is_empty(), "the scratch files are removed: {left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The hop against a real database (the README's test command's private cluster):
    /// it answers inserts, times them, and leaves no table behind.
    #[test]
    fn the_hop_answers_inserts_and_drops_its_table() {
        let Ok(admin) = std::env::var("WORP_TEST_POSTGRES") else {
            eprintln!("WORP_TEST_POSTGRES is not set: skipped (the README's test command sets it)");
            return;
        };
        // Its server and clients are threads of this process, busy for half a second.
        let _alone = crate::cpu::tests::process_cpu_to_myself();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let name = format!("worp_hop_{}", uuid::Uuid::new_v4().simple());
        let db = match admin.rfind('/') {
            Some(i) => format!("{}/{name}", &admin[..i]),
            None => panic!("WORP_TEST_POSTGRES must end in /<database>"),
        };
        rt.block_on(async {
            let mut admin = sqlx::PgConnection::connect(&admin).await.expect("admin");
            sqlx::raw_sql(&format!("CREATE DATABASE {name}"))
                .execute(&mut admin)
                .await
                .expect("create");
        });
        let hop =
            run(&Store::Postgres(db.clone()), 2, Duration::from_millis(500)).expect("the hop runs");
        assert!(
            hop.rate > 0.0 && hop.p50 > 0.0 && hop.p99 >= hop.p50,
            "{hop:?}"
        );
        rt.block_on(async {
            let mut conn = sqlx::PgConnection::connect(&db).await.expect("connect");
            let left: Option<String> = sqlx::query_scalar("SELECT to_regclass('anchor')::text")
                .fetch_one(&mut conn)
                .await
                .expect("query");
            assert_eq!(left, None, "the anchor's table is dropped");
            conn.close().await.expect("close");
            let mut admin = sqlx::PgConnection::connect(&admin).await.expect("admin");
            sqlx::raw_sql(&format!("DROP DATABASE {name}"))
                .execute(&mut admin)
                .await
                .expect("drop the test database");
        });
    }
}
