//! Walking a `.mat` file through GNU Backgammon: import it, show the score, step through
//! every record of every game and collect the Position and Match IDs it shows. Shared by
//! the engine's gnubg test and the server's match test (`#[path]` include).

/// Runs GNU Backgammon on a `.mat` file: imports it, shows the score, then steps through
/// every record of every game. Returns what it printed, or `None` without gnubg.
pub fn gnubg_walk(mat: &str) -> Option<String> {
    let gnubg = gnubg_path()?;
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("worp-gnubg-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("match.mat");
    std::fs::write(&file, mat).expect("write");
    let mut script = format!("import mat {}\nshow score\nfirst game\n", file.display());
    for records in records_per_game(mat) {
        script.push_str(&"next\nshow board\n".repeat(records));
        script.push_str("next game\n");
    }
    let text = run_gnubg(gnubg, &dir, script);
    let _ = std::fs::remove_dir_all(&dir);
    Some(text)
}

/// Where GNU Backgammon is installed; `None` without it, which fails the test unless
/// `WORP_SKIP_GNUBG` is set.
pub fn gnubg_path() -> Option<&'static str> {
    let gnubg = ["/usr/games/gnubg", "/usr/bin/gnubg"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    if gnubg.is_none() {
        assert!(
            std::env::var_os("WORP_SKIP_GNUBG").is_some(),
            "GNU Backgammon is needed for this test (apt-get install gnubg), or set WORP_SKIP_GNUBG=1"
        );
    }
    gnubg
}

/// How long GNU Backgammon may take over one script before it is killed.
const GNUBG_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Runs `gnubg` on `script` (its commands, one a line) with `home` as its home, and
/// returns what it printed. The script is written on a thread of its own while the output
/// is read: gnubg prints as it reads, so with a script and an output each larger than a
/// pipe holds, writing first and reading after would leave each side waiting for the
/// other. It is killed after [`GNUBG_LIMIT`].
pub fn run_gnubg(gnubg: &str, home: &std::path::Path, script: String) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(gnubg)
        .args(["-t", "-q"])
        .env("HOME", home)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run gnubg");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(script.as_bytes()));
    let pid = child.id().to_string();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let timed_out = matches!(
            finished.recv_timeout(GNUBG_LIMIT),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
        );
        if timed_out {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid])
                .status();
        }
        timed_out
    });
    let out = child.wait_with_output().expect("gnubg");
    let _ = done.send(());
    assert!(
        !watchdog.join().expect("the watchdog"),
        "gnubg took over {GNUBG_LIMIT:?} and was killed"
    );
    writer.join().expect("the script's writer").expect("script");
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

/// The records (cells) of each game of a `.mat` file.
pub fn records_per_game(mat: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for line in mat.lines() {
        if line.starts_with(" Game ") {
            out.push(0);
        } else if let (Some(n), Some((_, cells))) = (out.last_mut(), line.split_once(") ")) {
            let left = cells.get(..28).unwrap_or(cells).trim();
            let right = cells.get(28..).unwrap_or("").trim();
            *n += usize::from(!left.is_empty()) + usize::from(!right.is_empty());
        }
    }
    out
}

/// (Position ID, Match ID) pairs gnubg printed, in order, with the game state of each.
pub fn shown_ids(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut position = None;
    for line in text.lines() {
        if let Some(p) = line.split("Position ID:").nth(1) {
            position = Some(p.trim().to_owned());
        } else if let (Some(m), Some(p)) = (line.split("Match ID   :").nth(1), position.take()) {
            out.push((p, m.trim().to_owned()));
        }
    }
    out
}

/// Whether a Match ID says a game is being played (game state 1, bits 8..=10).
pub fn playing(match_id: &str) -> bool {
    const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let six = |i: usize| {
        match_id
            .as_bytes()
            .get(i)
            .and_then(|c| BASE64.find(char::from(*c)))
            .unwrap_or(0) as u32
    };
    let bytes = six(0) << 18 | six(1) << 12 | six(2) << 6 | six(3);
    (bytes >> 8) & 0b111 == 1
}
