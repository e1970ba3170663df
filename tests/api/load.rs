//! The load generator (`worp-load`, run in-process through its library) against the real
//! server: its moves are acknowledged, its rounds alternate with pgbench, and its rebuild
//! measurement reads the games back.

use clap::Parser as _;

use crate::helpers::{spawn_app, Backend};

/// A number printed after `prefix` on some line of `text`.
fn number_after(text: &str, prefix: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix(prefix)?;
        rest.split_whitespace()
            .next()?
            .replace(',', "")
            .parse()
            .ok()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_load_generator_plays_rounds_against_pgbench_and_rebuilds_the_games() {
    let app = spawn_app(Backend::Postgres).await;
    let (url, db) = (app.address.as_str(), app.database.as_str());
    let args = worp_load::Args::try_parse_from([
        "worp-load",
        "--url",
        url,
        "--clients",
        "2",
        "--duration",
        "1s",
        "--rounds",
        "2",
        "--pgbench-db",
        db,
        "--database-url",
        db,
        "--rebuild-games",
        "3",
    ])
    .expect("worp-load's arguments");
    // A report whose target was not met is fine on this machine; an error is a failure.
    let report = match worp_load::run(&args, worp_load::Echo::Quiet).await {
        Ok(report) => report,
        Err(e) => panic!("worp-load failed: {e}"),
    };
    let transcript = report.transcript.as_str();
    assert!(transcript.contains("Round 2 of 2"), "{transcript}");
    assert_eq!(transcript.matches("this round:").count(), 2, "{transcript}");
    assert_eq!(transcript.matches("  errors: 0").count(), 2, "{transcript}");
    let moves = number_after(transcript, "acknowledged moves:").unwrap_or(0.0);
    assert!(moves > 0.0, "no move was acknowledged:\n{transcript}");
    let tps = number_after(transcript, "pgbench single-row INSERT transactions:").unwrap_or(0.0);
    assert!(tps > 0.0, "no pgbench rate:\n{transcript}");
    assert!(transcript.contains("means over the rounds"), "{transcript}");
    if cfg!(target_os = "linux") {
        // What each round cost the machine, a move beside a pgbench transaction.
        for line in [
            "CPU per acknowledged move: machine ",
            "CPU per pgbench transaction (its connections included): machine ",
            "this round's CPU: a move took the machine ",
        ] {
            assert_eq!(transcript.matches(line).count(), 2, "{line}\n{transcript}");
        }
        let per_move = number_after(transcript, "CPU per acknowledged move: machine");
        assert!(per_move.is_some_and(|us| us > 0.0), "{transcript}");
        assert!(
            transcript.contains("CPU per move: the machine's "),
            "{transcript}"
        );
        // The clients' own part of it: the load generator's (here the test's process,
        // which also runs the server) and pgbench's, a child process waited for.
        assert_eq!(
            transcript.matches("%), pgbench ").count(),
            2,
            "pgbench's own CPU in each round:\n{transcript}"
        );
        // Summed over the rounds where they could be told apart from the machine's:
        // on a machine loaded by other work a round's clients can count more than it.
        if transcript.matches("without the clients' own").count() == 2 {
            assert!(
                transcript.contains("The clients' own CPU: this load generator "),
                "{transcript}"
            );
        }
    }
    assert!(transcript.contains("Rebuild of 3 games"), "{transcript}");
}
