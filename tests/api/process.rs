//! The `worp serve` process itself, as the operating system sees it.

use crate::faults::{free_port, start_server};
use crate::helpers::{fresh_database, Backend};

/// Transparent huge pages are off for the server: each page the allocator gave back and
/// then used again would otherwise come back as a fresh 2 MiB page for the kernel to zero
/// (6 to 8 % of the server's CPU at one client, BENCHMARKS.md).
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_server_runs_without_transparent_huge_pages() {
    let (database, _dir) = fresh_database(Backend::Sqlite).await;
    let server = start_server(&database, free_port()).await;
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id()))
        .expect("the server's /proc status");
    let thp = status
        .lines()
        .find_map(|l| l.strip_prefix("THP_enabled:"))
        .map(str::trim);
    assert_eq!(
        thp,
        Some("0"),
        "THP_enabled of worp serve, from /proc/PID/status:\n{status}"
    );
}

/// `worp variants | head -1` once panicked on the closed pipe (exit 101): a command
/// whose reader goes away ends quietly, as Unix tools do.
#[cfg(unix)]
#[test]
fn a_command_whose_output_is_cut_short_ends_without_a_panic() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    for args in [&["variants"][..], &["openapi"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_worp"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("worp");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut first)
            .expect("a first line");
        // The reader is gone (as `head -1` goes): the rest has nowhere to go.
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "worp {args:?}: {stderr}");
        assert_ne!(out.status.code(), Some(101), "worp {args:?}: {stderr}");
    }
}

/// `worp replay` given an export bundle says which export it reads, not only what
/// field it did not expect.
#[test]
fn replay_given_an_export_bundle_says_to_export_the_record() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_worp"))
        .arg("replay")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("worp");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(br#"{"format": "worp-export-1", "events": []}"#)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("format=record"), "{stderr}");
}

/// `worp replay` that cannot write its states (a full disk) says so and exits 1, where
/// it said nothing and exited 0.
#[test]
fn replay_that_cannot_write_its_states_says_so() {
    use std::process::{Command, Stdio};
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // Not Linux: nothing to write to that is always full.
    };
    let record = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/contract/backgammon.match.record.json");
    let out = Command::new(env!("CARGO_BIN_EXE_worp"))
        .arg("replay")
        .arg(&record)
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .expect("worp");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write the states"), "{stderr}");
}

/// `worp bots duel` plays bots against each other offline and prints win rates with
/// their intervals; a bot that does not exist is refused with the two that do.
#[test]
fn bots_duel_prints_win_rates_with_their_intervals() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
            .args(args)
            .output()
            .expect("worp runs")
    };
    let args = "bots duel backgammon greedy random --games 40 --seed 5";
    let args: Vec<&str> = args.split(' ').collect();
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("greedy   wins"), "{text}");
    assert!(text.contains("of 40"), "{text}");
    assert!(text.contains("95 % interval"), "{text}");
    assert_eq!(
        run(&args).stdout,
        out.stdout,
        "the same seed, the same report"
    );
    let out = run(&["bots", "duel", "backgammon", "stockfish", "random"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("random, greedy, expectimax"));
}
