//! `deploy/`: the Grafana dashboard is valid JSON whose queries name only metrics the
//! server exports, and the Prometheus configuration scrapes `/metrics`.

use serde_json::Value;
use worp::telemetry::metrics::NAMES;

fn deploy(path: &str) -> String {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../deploy")
        .join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// Every `worp_…` name in `expr`, without the suffixes of a histogram's series.
fn metric_names(expr: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find("worp_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let name = &tail[..end];
        let base = ["_bucket", "_count", "_sum"]
            .iter()
            .find_map(|s| name.strip_suffix(s).filter(|b| NAMES.contains(b)))
            .unwrap_or(name);
        names.push(base.to_owned());
        rest = &tail[end..];
    }
    names
}

/// Every `expr` in the dashboard.
fn exprs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("expr", Value::String(e)) => out.push(e.clone()),
                    _ => exprs(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| exprs(x, out)),
        _ => {}
    }
}

#[test]
fn the_dashboard_queries_only_metrics_the_server_exports() {
    let dashboard: Value =
        serde_json::from_str(&deploy("grafana/worp-dashboard.json")).expect("valid JSON");
    assert!(dashboard["panels"]
        .as_array()
        .is_some_and(|p| !p.is_empty()));
    let mut all = Vec::new();
    exprs(&dashboard, &mut all);
    assert!(!all.is_empty(), "no queries");
    let mut used = std::collections::BTreeSet::new();
    for e in &all {
        let names = metric_names(e);
        assert!(!names.is_empty(), "a query without a worp metric: {e}");
        for n in names {
            assert!(NAMES.contains(&n.as_str()), "{n} (in {e}) is not exported");
            used.insert(n);
        }
    }
    // Every family is on the dashboard.
    let unused: Vec<_> = NAMES.iter().filter(|n| !used.contains(**n)).collect();
    assert!(unused.is_empty(), "not on the dashboard: {unused:?}");
}

#[test]
fn a_misspelt_metric_is_caught() {
    assert_eq!(
        metric_names("rate(worp_moves_acknowledged_total[5m]) / worp_nope"),
        ["worp_moves_acknowledged_total", "worp_nope"]
    );
    assert_eq!(
        metric_names("histogram_quantile(0.5, rate(worp_group_commit_seconds_bucket[5m]))"),
        ["worp_group_commit_seconds"]
    );
}

#[test]
fn prometheus_scrapes_the_metrics_path() {
    let config = deploy("prometheus.yml");
    assert!(config.contains("metrics_path: /metrics"), "{config}");
    assert!(config.contains("job_name: worp"), "{config}");
}
