//! A real SMTP server for the notification tests: `tests/notifications/smtp_sink.py`
//! (aiosmtpd) on loopback, in the Python environment `tests/notifications/python.sh`
//! makes. The mails it accepts are read back as files.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::helpers::TempDir;

/// The Python with the notification tests' packages (made on first use).
pub fn python() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/notifications/python.sh");
    let out = Command::new("bash")
        .arg(&root)
        .output()
        .expect("tests/notifications/python.sh runs");
    assert!(
        out.status.success(),
        "tests/notifications/python.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// One mail as received: its headers (names lowercased, folded lines joined) and body.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == &name.to_ascii_lowercase())
            .map(|(_, v)| v.as_str())
    }

    pub fn subject(&self) -> &str {
        self.header("subject").unwrap_or_default()
    }

    /// The first line of the body that starts with `prefix` (a link).
    pub fn link(&self, prefix: &str) -> Option<String> {
        self.body
            .lines()
            .map(str::trim)
            .find_map(|l| l.find(prefix).map(|i| l[i..].to_owned()))
    }
}

fn parse(text: &str) -> Received {
    let text = text.replace("\r\n", "\n");
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = headers.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
        } else if let Some((n, v)) = line.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    // Bodies may be encoded: quoted-printable or base64.
    let encoding = headers
        .iter()
        .find(|(n, _)| n == "content-transfer-encoding")
        .map(|(_, v)| v.to_ascii_lowercase())
        .unwrap_or_default();
    let body = match encoding.as_str() {
        "quoted-printable" => quoted_printable(body),
        "base64" => {
            use base64::Engine;
            let compact: String = body.split_whitespace().collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(compact)
                .expect("a base64 body");
            String::from_utf8_lossy(&bytes).into_owned()
        }
        _ => body.to_owned(),
    };
    Received { headers, body }
}

fn quoted_printable(text: &str) -> String {
    let joined = text.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The SMTP server; stopped when dropped.
pub struct SmtpSink {
    child: Child,
    pub port: u16,
    dir: TempDir,
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl SmtpSink {
    pub fn start() -> SmtpSink {
        let dir = TempDir(std::env::temp_dir().join(format!("worp-smtp-{}", uuid::Uuid::new_v4())));
        std::fs::create_dir_all(&dir.0).expect("a directory");
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/notifications/smtp_sink.py");
        let mut child = Command::new(python())
            .arg(script)
            .arg(&dir.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the SMTP server starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the SMTP server says where it listens");
        let port = line
            .trim()
            .strip_prefix("READY ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("the SMTP server said {line:?}"));
        SmtpSink { child, port, dir }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every mail received so far, in order.
    pub fn mails(&self) -> Vec<Received> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&self.dir.0)
            .expect("the mail directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| parse(&std::fs::read_to_string(p).expect("a mail")))
            .collect()
    }

    /// Waits (at most 30 s) until `n` mails have arrived; all of them.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let mails = self.mails();
            if mails.len() >= n {
                return mails;
            }
            assert!(
                Instant::now() < deadline,
                "{} mails arrived, not {n}: {mails:#?}",
                mails.len()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The next mails are answered with these replies, one each, instead of accepted.
    pub fn refuse(&self, replies: &[&str]) {
        let text: String = replies.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(self.dir.0.join("refuse"), text).expect("the refusals");
    }
}
