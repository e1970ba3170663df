//! Rebuild when a file is added to or removed from the web client (`include_dir!` tracks
//! only the files it embedded), so dropping in `web/boards/<game>.js` is enough; and when
//! a migration is added (`sqlx::migrate!` embeds the files it found, as sqlx advises).
fn main() {
    // A directory is scanned whole: any file added, removed or changed below it.
    println!("cargo:rerun-if-changed=web");
    println!("cargo:rerun-if-changed=../migrations");
}
