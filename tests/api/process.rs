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
