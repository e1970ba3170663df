//! The committed OpenAPI document is the one the server serves.

use crate::helpers::{spawn_app, Backend};

#[tokio::test]
async fn committed_openapi_json_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let current = worp::openapi::committed_openapi_json().expect("the document serialises");
    if std::env::var_os("WORP_WRITE_OPENAPI").is_some() {
        std::fs::write(path, &current).expect("write openapi.json");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == current,
        "openapi/openapi.json is stale: run `cargo run -- openapi > openapi/openapi.json`"
    );
}

#[test]
fn every_reference_in_the_spec_resolves() {
    fn refs(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("$ref", serde_json::Value::String(r)) => out.push(r.clone()),
                        _ => refs(x, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let spec: serde_json::Value =
        serde_json::from_str(&worp::openapi::openapi_json().expect("the document")).expect("json");
    let mut all = Vec::new();
    refs(&spec, &mut all);
    assert!(!all.is_empty());
    for r in all {
        let target = r
            .strip_prefix("#/")
            .map(|path| format!("/{path}"))
            .expect("a reference inside the document");
        assert!(
            spec.pointer(&target)
                .is_some_and(serde_json::Value::is_object),
            "{r} does not resolve"
        );
    }
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
    // `/docs` (as the README gives it) leads to the documentation.
    let docs = app.get("/docs").await;
    assert_eq!(docs.status(), 200, "{}", docs.url());
    let docs = app.get("/docs/").await;
    assert_eq!(docs.status(), 200);
    assert!(docs.text().await.expect("text").contains("swagger"));
    let health = app.get_json("/healthz").await;
    assert_eq!(health["status"], "ok");
}
