//! Rebuild when a migration is added (`sqlx::migrate!` embeds the files it found, as
//! sqlx advises).
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
