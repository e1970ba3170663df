// Allocation-heavy request handling (JSON in and out) runs markedly faster on mimalloc
// than on glibc's malloc; see BENCHMARKS.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(worp::cli::main());
}
