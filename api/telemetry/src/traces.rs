//! OpenTelemetry traces, off unless `WORP_OTLP_ENDPOINT` names an OTLP/HTTP collector
//! (e.g. `http://127.0.0.1:4318`): the spans of `tracing` (a request's, with its
//! `request_id`; the service operations, group commits and replays that carry
//! `#[tracing::instrument]`) are sent in batches as protobuf to `{endpoint}/v1/traces`.
//! The protocol's code is generated ahead of time in `opentelemetry-proto`: building
//! needs no `protoc` and no network.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_subscriber::registry::LookupSpan;

/// The exporter's pipeline, to be shut down (flushing what is buffered) at exit.
#[derive(Debug)]
pub struct Traces(SdkTracerProvider);

impl Traces {
    /// Sends what is buffered and stops. Call outside the async runtime.
    pub fn shutdown(self) {
        if let Err(e) = self.0.shutdown() {
            eprintln!("worp: the last traces were not sent: {e}");
        }
    }
}

/// The full URL traces are posted to.
fn traces_url(endpoint: &str) -> String {
    let endpoint = endpoint.trim_end_matches('/');
    if endpoint.ends_with("/v1/traces") {
        endpoint.to_owned()
    } else {
        format!("{endpoint}/v1/traces")
    }
}

/// A layer sending the spans to `endpoint`, and its pipeline. Build it before the async
/// runtime starts (the exporter's HTTP client is a blocking one on its own thread).
pub fn layer<S>(endpoint: &str) -> Result<(impl tracing_subscriber::Layer<S>, Traces), String>
where
    S: tracing::Subscriber + for<'span> LookupSpan<'span>,
{
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(traces_url(endpoint))
        .build()
        .map_err(|e| format!("WORP_OTLP_ENDPOINT {endpoint:?}: {e}"))?;
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(Resource::builder().with_service_name("worp").build())
        .build();
    let tracer = provider.tracer("worp");
    Ok((
        tracing_opentelemetry::layer().with_tracer(tracer),
        Traces(provider),
    ))
}

#[cfg(test)]
mod tests {
    use super::traces_url;

    #[test]
    fn the_traces_path_is_added_once() {
        assert_eq!(traces_url("http://c:4318"), "http://c:4318/v1/traces");
        assert_eq!(traces_url("http://c:4318/"), "http://c:4318/v1/traces");
        assert_eq!(
            traces_url("http://c:4318/v1/traces"),
            "http://c:4318/v1/traces"
        );
    }
}
