//! `--database-url` on PostgreSQL with an HTTP load: what PostgreSQL itself counted for
//! the server's tables over the load, per acknowledged move. Unlike rates and CPU time
//! these counts do not depend on what else runs on the machine: buffer accesses of
//! indexes and tables (`pg_statio_user_*`: blocks touched, whether cached or read) and
//! how many updates of `games` were heap-only (HOT: no index entry written).

use std::process::Command;

use super::Out;

/// The server's tables the counts cover (not pgbench's scratch table).
const TABLES: &str = "('games', 'events', 'game_seats')";

/// Cumulative counts since the database's statistics began.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Counts {
    games_updates: f64,
    games_hot_updates: f64,
    index_blocks: f64,
    heap_blocks: f64,
}

/// Reads the counts (`None` on SQLite or when `psql` cannot).
pub(crate) fn read(db: &str) -> Option<Counts> {
    if !(db.starts_with("postgres://") || db.starts_with("postgresql://")) {
        return None;
    }
    let sql = format!(
        "SELECT (SELECT coalesce(sum(n_tup_upd), 0) FROM pg_stat_user_tables WHERE relname = 'games'), \
         (SELECT coalesce(sum(n_tup_hot_upd), 0) FROM pg_stat_user_tables WHERE relname = 'games'), \
         (SELECT coalesce(sum(idx_blks_hit + idx_blks_read), 0) FROM pg_statio_user_indexes WHERE relname IN {TABLES}), \
         (SELECT coalesce(sum(heap_blks_hit + heap_blks_read), 0) FROM pg_statio_user_tables WHERE relname IN {TABLES})"
    );
    let answer = Command::new("psql")
        .args(["-X", "-q", "-At", "-F", " ", "-d", db, "-c", &sql])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    parse(&String::from_utf8_lossy(&answer.stdout))
}

fn parse(line: &str) -> Option<Counts> {
    let n: Vec<f64> = line
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    match n[..] {
        [games_updates, games_hot_updates, index_blocks, heap_blocks] => Some(Counts {
            games_updates,
            games_hot_updates,
            index_blocks,
            heap_blocks,
        }),
        _ => None,
    }
}

/// The line for the counts from `before` to `after`, over `moves` acknowledged moves.
pub(crate) fn line(before: Counts, after: Counts, moves: u64) -> String {
    let per_move = |a: f64, b: f64| (a - b) / moves.max(1) as f64;
    let updates = after.games_updates - before.games_updates;
    let hot = after.games_hot_updates - before.games_hot_updates;
    format!(
        "  PostgreSQL's counts for the server's tables over the load, per acknowledged move \
         ({moves}): index blocks {:.2}, table blocks {:.2}; heap-only (HOT) updates of games \
         {:.0}% of {updates:.0}",
        per_move(after.index_blocks, before.index_blocks),
        per_move(after.heap_blocks, before.heap_blocks),
        if updates > 0.0 {
            hot / updates * 100.0
        } else {
            0.0
        },
    )
}

/// Reports the counts since `before`, after the backends have sent their statistics
/// (each at most once a second while busy, ten seconds after it went idle).
pub(crate) async fn report(db: &str, before: Option<Counts>, moves: u64, waited: bool, out: &Out) {
    let Some(before) = before else { return };
    if !waited {
        tokio::time::sleep(std::time::Duration::from_secs(11)).await;
    }
    if let Some(after) = read(db) {
        out.line(line(before, after, moves));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_move_and_the_hot_share() {
        let before = parse("10 0 100 50\n").unwrap();
        let after = parse("110 75 1100 1050\n").unwrap();
        assert_eq!(
            line(before, after, 100),
            "  PostgreSQL's counts for the server's tables over the load, per acknowledged move \
             (100): index blocks 10.00, table blocks 10.00; heap-only (HOT) updates of games \
             75% of 100"
        );
        assert_eq!(parse("1 2 3"), None);
        assert_eq!(parse("a b c d"), None);
    }
}
