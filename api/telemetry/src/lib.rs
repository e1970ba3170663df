//! What operators see of the server: logs (`logs`), the request id that ties a
//! request's log lines, answer and problem document together (`request_id`), and the
//! Prometheus metrics (`metrics`), and the optional export of traces (`traces`). The rest of the code calls these in one line each.

pub mod logs;
pub mod metrics;
pub mod request_id;
pub mod traces;
