//! The committed OpenAPI document is the one the server serves.

use crate::helpers::{spawn_app, Backend};

#[tokio::test]
async fn committed_openapi_json_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let current = worp::openapi::openapi_json();
    if std::env::var_os("WORP_WRITE_OPENAPI").is_some() {
        std::fs::write(path, &current).expect("write openapi.json");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == current,
        "openapi/openapi.json is stale: run `cargo run -- openapi > openapi/openapi.json`"
    );
}

#[tokio::test]
async fn the_server_serves_its_spec_docs_and_health() {
    let app = spawn_app(Backend::Sqlite).await;
    let spec = app.get_json("/openapi.json").await;
    assert_eq!(
        spec["openapi"].as_str().map(|v| v.starts_with("3.")),
        Some(true)
    );
    assert!(spec["paths"]["/v1/games/{id}/moves"]["post"].is_object());
    let docs = app.get("/docs/").await;
    assert_eq!(docs.status(), 200);
    assert!(docs.text().await.expect("text").contains("swagger"));
    let health = app.get_json("/healthz").await;
    assert_eq!(health["status"], "ok");
}
