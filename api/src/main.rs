fn main() {
    std::process::exit(worp::cli::main());
}
