//! The log subscriber: `RUST_LOG` filters (default `info`); `WORP_LOG_FORMAT` chooses
//! human-readable lines (`text`, the default) or one JSON object per line (`json`), each
//! with the fields of the spans it was written in (a request's `request_id`).

use std::str::FromStr;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use super::traces::Traces;

/// How log lines are written (`WORP_LOG_FORMAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

impl FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!("{other:?} is neither text nor json")),
        }
    }
}

/// Installs the process's log subscriber (once; later calls do nothing), and with an
/// `otlp` endpoint the export of traces (`traces.rs`), whose pipeline is returned.
pub fn init(format: LogFormat, otlp: Option<&str>) -> Result<Option<Traces>, String> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let (traces_layer, traces) = match otlp {
        Some(endpoint) => {
            let (layer, traces) = super::traces::layer(endpoint)?;
            (Some(layer), Some(traces))
        }
        None => (None, None),
    };
    let text = (format == LogFormat::Text).then(tracing_subscriber::fmt::layer);
    let json = (format == LogFormat::Json).then(|| {
        tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_span_list(true)
    });
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(text)
        .with(json)
        .with(traces_layer)
        .try_init();
    Ok(traces)
}
