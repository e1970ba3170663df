//! One gnubg worker process: started with Worp's script, asked one question at a time.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::Value;

use crate::GnubgError;

/// The script every worker runs.
const SCRIPT: &str = include_str!("worker.py");

/// The prefix of the worker's own lines; gnubg prints others beside them.
const MARK: &str = "@worp ";

/// A running `gnubg -t -q -p worker.py`.
#[derive(Debug)]
pub struct Worker {
    /// Its own `HOME`: gnubg writes its settings there at start, and two starting in
    /// one `HOME` at once can trip over each other.
    home: PathBuf,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

/// Where the workers' script is written, beside each worker's own `HOME`.
pub(crate) fn home() -> PathBuf {
    std::env::temp_dir().join(format!("worp-gnubg-{}", std::process::id()))
}

impl Worker {
    /// Starts a worker of `program` and waits up to `timeout` for it to say it is ready.
    pub fn start(program: &Path, timeout: Duration) -> Result<Worker, GnubgError> {
        let home = home();
        std::fs::create_dir_all(&home)?;
        let script = home.join("worker.py");
        if std::fs::read_to_string(&script).ok().as_deref() != Some(SCRIPT) {
            // Written beside, then renamed: a worker starting meanwhile reads a whole one.
            let partial = home.join(format!("worker.py.{:?}", std::thread::current().id()));
            std::fs::write(&partial, SCRIPT)?;
            std::fs::rename(&partial, &script)?;
        }
        static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let own = home.join(format!("worker-{n}"));
        std::fs::create_dir_all(&own)?;
        let mut child = Command::new(program)
            .args(["-t", "-q", "-p"])
            .arg(&script)
            .env("HOME", &own)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(GnubgError::Garbled("no pipes to the worker".into()));
        };
        let (send, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("gnubg-reader".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if let Some(mine) = line.strip_prefix(MARK) {
                        if send.send(mine.to_owned()).is_err() {
                            break;
                        }
                    }
                }
            })?;
        let mut worker = Worker {
            home: own,
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let ready = worker.read(timeout)?;
        if ready.get("ready") != Some(&Value::Bool(true)) {
            return Err(GnubgError::Garbled(format!("not ready: {ready}")));
        }
        Ok(worker)
    }

    /// The process id, for tests that stop a worker from outside.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Asks `request` (an object; its `id` is set here) and waits up to `timeout`.
    pub fn ask(&mut self, mut request: Value, timeout: Duration) -> Result<Value, GnubgError> {
        let id = self.next_id;
        self.next_id += 1;
        request["id"] = Value::from(id);
        let mut line = request.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|_| GnubgError::Exited)?;
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let reply = self.read(left).map_err(|e| match e {
                GnubgError::Timeout(_) => GnubgError::Timeout(timeout),
                e => e,
            })?;
            // A reply to an earlier question the caller gave up on is skipped.
            if reply.get("id").and_then(Value::as_u64) != Some(id) {
                continue;
            }
            if let Some(error) = reply.get("error") {
                return Err(GnubgError::Answer(error.to_string()));
            }
            return Ok(reply);
        }
    }

    fn read(&mut self, timeout: Duration) -> Result<Value, GnubgError> {
        let line = match self.lines.recv_timeout(timeout) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => return Err(GnubgError::Timeout(timeout)),
            Err(RecvTimeoutError::Disconnected) => return Err(GnubgError::Exited),
        };
        serde_json::from_str(&line).map_err(|e| GnubgError::Garbled(format!("{e}: {line}")))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.home);
    }
}
