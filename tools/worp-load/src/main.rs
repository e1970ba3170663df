//! `worp-load`, the command: parses the arguments and runs [`worp_load::run`], printing as
//! it goes. Exits 0 when the target is met (or nothing was compared), 1 when it is not,
//! 2 on a failure, 3 when the load gave nothing to judge it by (e.g. no acknowledged
//! move: no latency samples).

use clap::Parser;
use worp_load::{Args, Echo};

// The load generator shares the machine with the server it measures: keep it light.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args = Args::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("worp-load: {e}");
            std::process::exit(2);
        }
    };
    match rt.block_on(worp_load::run(&args, Echo::Stdout)) {
        Ok(report) => std::process::exit(report.verdict.exit_code()),
        Err(e) => {
            eprintln!("worp-load: {e}");
            std::process::exit(2);
        }
    }
}
