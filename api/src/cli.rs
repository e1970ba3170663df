//! The `worp` command line.

use std::io::{BufRead, Read, Write};
use std::sync::Arc;

use clap::{Parser, Subcommand};
use worp_engine::Capability;

use crate::configuration::Settings;
use crate::startup::Application;
use worp_domain::clock::SystemClock;
use worp_service::Worp;
use worp_store::Store;
use worp_telemetry::traces::Traces;

/// Worp: correspondence play of dice board games over HTTP.
#[derive(Debug, Parser)]
#[command(name = "worp", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the HTTP API (the default). Configured by environment variables:
    /// DATABASE_URL, WORP_SQLITE_PATH, WORP_BIND, PORT, WORP_CORS_ORIGINS, RUST_LOG
    /// (see docs/configuration.md for all).
    Serve,
    /// Replay a game record (JSON; from FILE or standard input) and print one JSON line
    /// per step with the state, what is awaited and the legal moves.
    Replay {
        /// The record file; `-` or absent for standard input.
        file: Option<String>,
    },
    /// Read positions as JSON lines on standard input and print every legal outcome, for
    /// games with position analysis. Backgammon: lines with `board`, `bar`, `off`,
    /// `to_move`, `dice`; answers `{"outcomes": [...]}` or `{"error": "..."}` per line.
    Analyze {
        /// The game, e.g. `backgammon`.
        variant: String,
    },
    /// Check an exported game offline (no database): the hash chain, every roll against
    /// the revealed seed, every move through the rules, and the final state and result.
    /// Exits non-zero at the first broken link, naming the event.
    Audit {
        /// The export (`GET /v1/games/{id}/export`, or a tournament's,
        /// `GET /v1/tournaments/{id}/export`); `-` for standard input.
        file: String,
    },
    /// Rebuild the read models (the games listing, the tournaments) from the event
    /// logs, forget the analyses (made again when next read), then fold the ratings from
    /// the game_finished events in global order and print them. Safe while servers run:
    /// their appends wait until the rebuild commits.
    Rebuild,
    /// Print the OpenAPI document.
    Openapi,
    /// Print every game with its options and JSON Schemas (as `GET /v1/variants`).
    Variants,
    /// The computer's players, offline.
    Bots {
        #[command(subcommand)]
        command: BotsCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum BotsCommand {
    /// Play bot A against bot B through the engine alone and print the win rates with
    /// their 95 % intervals. A takes one seat (rotating game by game), B the others.
    Duel {
        /// The game, e.g. `backgammon`.
        variant: String,
        /// Bot A: `random`, `greedy`, `expectimax`, or (backgammon, with gnubg installed)
        /// `gnubg-beginner`, `gnubg-intermediate`, `gnubg-expert`, `gnubg-world-class`.
        a: String,
        /// Bot B.
        b: String,
        /// How many games.
        #[arg(long, default_value_t = 1000)]
        games: u32,
        /// The seed of the dice and the bots' choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The seats (default: the fewest the game allows).
        #[arg(long)]
        seats: Option<u8>,
        /// The game's options as JSON, e.g. `{"match_length": 5}` or `{"cube": true}`.
        #[arg(long, default_value = "{}")]
        options: String,
    },
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Serve);
    if !matches!(command, Command::Serve | Command::Rebuild) {
        end_quietly_when_output_closes();
    }
    match command {
        Command::Serve => runtime(serve()),
        Command::Rebuild => runtime(rebuild()),
        Command::Replay { file } => replay(file.as_deref()),
        Command::Analyze { variant } => analyze(&variant),
        Command::Audit { file } => audit(&file),
        Command::Variants => {
            match worp_http::routes::variants::variant_infos()
                .and_then(|infos| serde_json::to_string_pretty(&infos))
            {
                Ok(text) => {
                    println!("{text}");
                    0
                }
                Err(e) => {
                    eprintln!("worp variants: could not write the games' schemas: {e}");
                    1
                }
            }
        }
        Command::Bots {
            command:
                BotsCommand::Duel {
                    variant,
                    a,
                    b,
                    games,
                    seed,
                    seats,
                    options,
                },
        } => crate::duel::duel(&variant, &a, &b, &options, games, seed, seats),
        Command::Openapi => match worp_http::openapi::openapi_json() {
            Ok(doc) => {
                print!("{doc}");
                0
            }
            Err(e) => {
                eprintln!("worp openapi: could not write the document: {e}");
                1
            }
        },
    }
}

/// Lets a command whose output is cut short (`worp variants | head -1`) end quietly, as
/// Unix tools do, rather than panic on the closed pipe: Rust ignores SIGPIPE, so a print
/// to a closed pipe fails, and `println!` panics on the failure. Not for the commands
/// that talk to a database or clients over sockets (`serve`, `rebuild`), which must see
/// a closed socket as an error, not die of it.
fn end_quietly_when_output_closes() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal at start, before any thread.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn runtime(fut: impl std::future::Future<Output = Result<(), String>>) -> i32 {
    let traces = match init_tracing() {
        Ok(traces) => traces,
        Err(e) => {
            eprintln!("worp: {e}");
            return 1;
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("worp: cannot start the runtime: {e}");
            return 1;
        }
    };
    let code = match rt.block_on(fut) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("worp: {e}");
            1
        }
    };
    drop(rt);
    // Outside the runtime: the exporter's last batch is sent on its own thread.
    if let Some(traces) = traces {
        traces.shutdown();
    }
    code
}

/// The log subscriber as `WORP_LOG_FORMAT` says, exporting traces when
/// `WORP_OTLP_ENDPOINT` is set (`worp serve` reads both with the other settings too,
/// and a bad value stops it there).
fn init_tracing() -> Result<Option<Traces>, String> {
    let var = |name| {
        std::env::var(name)
            .ok()
            .filter(|v: &String| !v.trim().is_empty())
    };
    worp_telemetry::logs::init(
        var("WORP_LOG_FORMAT")
            .and_then(|f| f.parse().ok())
            .unwrap_or_default(),
        var("WORP_OTLP_ENDPOINT").as_deref(),
    )
}

async fn serve() -> Result<(), String> {
    // Before the settings: the default connection cap is read from the raised limit.
    let open_files = worp_http::admission::raise_open_file_limit();
    let settings = Settings::from_env().map_err(|e| e.to_string())?;
    tracing::info!(
        open_files,
        max_connections = settings.max_connections,
        connections_per_address = settings.connections_per_address,
        streams_per_address = settings.streams_per_address,
        "connection limits"
    );
    let app = Application::build(settings, Arc::new(SystemClock))
        .await
        .map_err(|e| e.to_string())?;
    tracing::info!(
        "worp serving on http://{} ({} database; API docs at /docs/)",
        app.address(),
        app.worp().backend()
    );
    app.run_until_stopped().await.map_err(|e| e.to_string())
}

async fn rebuild() -> Result<(), String> {
    let settings = Settings::from_env().map_err(|e| e.to_string())?;
    let store = Store::connect(&settings.database(), settings.db_connections)
        .await
        .map_err(|e| format!("cannot open the database: {e}"))?;
    let worp = Worp::new(store, settings.cache_states, Arc::new(SystemClock));
    let n = worp.rebuild().await.map_err(|e| e.to_string())?;
    println!("rebuilt the read models of {n} games");
    let n = worp
        .rebuild_tournaments()
        .await
        .map_err(|e| e.to_string())?;
    println!("rebuilt the rows of {n} tournaments from their logs");
    let forgotten = worp.forget_analyses().await.map_err(|e| e.to_string())?;
    println!("forgot {forgotten} analyses: each is made again when next read");
    let collisions = worp.settle_name_keys().await.map_err(|e| e.to_string())?;
    println!(
        "{} players' names look like another's or show nothing (kept as they are):",
        collisions.len()
    );
    for c in collisions {
        match c.holder {
            Some((id, name)) => println!("{} {:?} looks like {id} {name:?}", c.player, c.name),
            None => println!("{} {:?} shows nothing", c.player, c.name),
        }
    }
    let book = worp
        .rating_book_from_scratch()
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "folded the ratings from {} finished games (to position {}):",
        book.folded, book.last_position
    );
    for (player, variant, s) in book.all() {
        println!(
            "{player} {variant} rating {:.2} deviation {:.2} games {} won {} lost {} drawn {}",
            s.rating, s.deviation, s.games, s.won, s.lost, s.drawn
        );
    }
    Ok(())
}

fn replay(file: Option<&str>) -> i32 {
    let mut text = String::new();
    let read = match file {
        None | Some("-") => std::io::stdin().read_to_string(&mut text),
        Some(path) => std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text)),
    };
    if let Err(e) = read {
        eprintln!("worp replay: cannot read the record: {e}");
        return 2;
    }
    let record: worp_engine::replay::Record = match serde_json::from_str(&text) {
        Ok(r) => r,
        Err(e) => {
            let export = serde_json::from_str::<serde_json::Value>(&text)
                .is_ok_and(|v| v.get("format").is_some() && v.get("events").is_some());
            let hint = if export {
                " (this is an export bundle: replay reads the game record, \
                 GET /v1/games/{id}/export?format=record; `worp audit` checks a bundle)"
            } else {
                ""
            };
            eprintln!("worp replay: not a game record: {e}{hint}");
            return 2;
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // The first failure to write a state stops the writing, and is reported.
    let mut unwritten: Option<std::io::Error> = None;
    let result = worp_engine::replay::replay(&record, |report| {
        if unwritten.is_none() {
            let written = serde_json::to_writer(&mut out, &report)
                .map_err(std::io::Error::from)
                .and_then(|()| out.write_all(b"\n"));
            unwritten = written.err();
        }
    });
    let unwritten = unwritten.or_else(|| out.flush().err());
    if let Some(e) = &unwritten {
        eprintln!("worp replay: cannot write the states: {e}");
    }
    match result {
        Ok(_) if unwritten.is_none() => 0,
        Ok(_) => 1,
        Err(e) => {
            eprintln!("worp replay: {e}");
            1
        }
    }
}

fn analyze(name: &str) -> i32 {
    let game = match worp_engine::variant(name) {
        Ok(g) if g.capabilities().has(Capability::AnalyzeLine) => g,
        Ok(_) => {
            eprintln!("worp analyze: {name} has no position analysis");
            return 2;
        }
        Err(e) => {
            eprintln!("worp analyze: {e}");
            return 2;
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("worp analyze: cannot read standard input: {e}");
                return 2;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match game.analyze_line(&line) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("worp analyze: {e}");
                return 2;
            }
        };
        if serde_json::to_writer(&mut out, &answer).is_err() || out.write_all(b"\n").is_err() {
            return 2;
        }
    }
    if out.flush().is_err() {
        return 2;
    }
    0
}

fn audit(file: &str) -> i32 {
    let mut text = String::new();
    let read = if file == "-" {
        std::io::stdin().read_to_string(&mut text)
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_string(&mut text))
    };
    if let Err(e) = read {
        eprintln!("worp audit: cannot read {file}: {e}");
        return 2;
    }
    if text.contains(worp_service::tournaments::views::TOURNAMENT_EXPORT_FORMAT) {
        if let Ok(x) = serde_json::from_str(&text) {
            return audit_tournament(&x);
        }
    }
    let export: worp_service::export::Export = match serde_json::from_str(&text) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("worp audit: {file} is not a Worp export: {e}");
            return 2;
        }
    };
    match worp_service::export::audit_export(&export) {
        Ok(r) => {
            println!("game {} ({}): OK", export.game_id, export.variant);
            println!(
                "  {} events: hash chain intact, sequence without gaps",
                r.events
            );
            if r.seed_revealed {
                println!(
                    "  {} dice recomputed from the revealed seed: all match",
                    r.rolls_verified
                );
            } else {
                println!("  the server seed is not revealed yet (game not over): dice not checked");
            }
            println!(
                "  {} moves replayed through the rules: all legal",
                r.moves_replayed
            );
            if r.vacation_events > 0 {
                println!(
                    "  {} vacation events: each of a seated player, in order, in a game not over",
                    r.vacation_events
                );
            }
            if let Some(deadline) = r.deadline {
                println!(
                    "  the seat to move runs out of time at {} (folded from the log)",
                    worp_domain::events::format_time(&deadline)
                );
            }
            match &r.result {
                Some(res) => println!(
                    "  result: {} ({:?}, {} points)",
                    res.winner
                        .map_or("draw".to_owned(), |s| format!("seat {s} wins")),
                    res.ending,
                    res.points
                ),
                None => println!("  result: none yet (status {})", export.status),
            }
            0
        }
        Err(e) => {
            println!("game {} ({}): BROKEN", export.game_id, export.variant);
            println!("  {e}");
            1
        }
    }
}

fn audit_tournament(x: &worp_service::tournaments::views::TournamentExport) -> i32 {
    match worp_service::tournaments::audit::audit_tournament(x) {
        Ok(r) => {
            println!("tournament {}: OK", x.tournament_id);
            println!(
                "  {} events: hash chain intact, sequence without gaps",
                r.events
            );
            println!(
                "  {} rounds: each the pairing the rules give from the standings then",
                r.rounds_checked
            );
            println!(
                "  {} results: each its game's, and {} games audited",
                r.results_checked, r.games_audited
            );
            println!(
                "  {}; standings:",
                if r.finished {
                    "finished"
                } else {
                    "not finished"
                }
            );
            for (rank, player, points) in r.standings {
                println!("  {rank} {player} {points}");
            }
            0
        }
        Err(e) => {
            println!("tournament {}: BROKEN", x.tournament_id);
            println!("  {e}");
            1
        }
    }
}
