// Allocation-heavy request handling (JSON in and out) runs markedly faster on mimalloc
// than on glibc's malloc; see BENCHMARKS.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    small_pages_only();
    std::process::exit(worp::cli::main());
}

/// Turns transparent huge pages off for this process. mimalloc gives the pages of memory
/// it no longer uses back to the kernel; with huge pages the next allocation there faults
/// in a fresh 2 MiB page that the kernel zeroes whole, which cost 6 to 8 % of the server's
/// CPU at one client (BENCHMARKS.md). A failure leaves the default: nothing depends on it.
fn small_pages_only() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
