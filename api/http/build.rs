//! Rebuild when a file is added to or removed from the web client (`include_dir!` tracks
//! only the files it embedded), so dropping in `api/web/boards/<game>.js` is enough.
fn main() {
    // A directory is scanned whole: any file added, removed or changed below it.
    println!("cargo:rerun-if-changed=../web");
}
