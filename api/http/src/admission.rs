//! Who may hold the server's connections and live streams, decided before any work is
//! done for them: at most `WORP_CONNECTIONS_PER_ADDRESS` connections (default 64) and
//! `WORP_STREAMS_PER_ADDRESS` live streams (default 32) per client address, so that one
//! client cannot fill the server's cap (`WORP_MAX_CONNECTIONS`) and leave everyone else
//! unanswered. IPv6 clients are counted by their /64, the block one household is given.
//! Near the cap (nine tenths of it in use), streams without a bearer token are refused
//! first, keeping the rest for players.
//!
//! A connection over its address's limit is answered 429 at once and closed, before
//! its request is read; a stream over its limit is answered 429 before the game is
//! read. The defaults are far above what a household behind one address holds (a
//! browser keeps at most six connections to a server). The cap itself follows the
//! open-file limit, which the server raises to its hard limit at start
//! ([`raise_open_file_limit`], [`default_max_connections`]): each connection is a file.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::dev::{Extensions, Payload};
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};

use crate::problem::ApiError;

/// The limits, from `Settings` (`0`: no limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionLimits {
    /// Connections open at once per client address.
    pub connections_per_address: usize,
    /// Live streams open at once per client address.
    pub streams_per_address: usize,
    /// The server's cap on connections (`WORP_MAX_CONNECTIONS`).
    pub max_connections: usize,
}

/// The default per-address limits.
pub const CONNECTIONS_PER_ADDRESS: usize = 64;
pub const STREAMS_PER_ADDRESS: usize = 32;

/// Raises this process's soft limit on open files to its hard limit (each connection
/// is one) and returns the limit now in force.
pub fn raise_open_file_limit() -> u64 {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => n,
        Err(e) => {
            tracing::debug!(error = %e, "the open-file limit was not raised");
            open_file_limit()
        }
    }
}

/// This process's soft limit on open files.
pub fn open_file_limit() -> u64 {
    rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(1024, |(soft, _)| soft)
}

/// The default connection cap where `open_files` files may be open: nine tenths of
/// them, less 100 for the database, the log and the listeners, at least 64.
pub fn default_max_connections(open_files: u64) -> usize {
    let cap = (open_files / 10 * 9).saturating_sub(100).max(64);
    usize::try_from(cap.min(1 << 20)).unwrap_or(1 << 20)
}

/// The key a client is counted under: its IPv4 address, or the /64 of its IPv6 one.
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
        v4 => v4,
    }
}

/// The counts, shared by every worker.
#[derive(Debug)]
pub struct Admission {
    limits: AdmissionLimits,
    connections: Mutex<HashMap<IpAddr, usize>>,
    streams: Mutex<HashMap<IpAddr, usize>>,
    open: AtomicUsize,
}

/// Why a stream was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamRefusal {
    /// The address holds its limit of streams.
    AddressFull,
    /// The server is near its connection cap and the stream has no token.
    Pressure,
}

impl Admission {
    pub fn new(limits: AdmissionLimits) -> Arc<Admission> {
        Arc::new(Admission {
            limits,
            connections: Mutex::new(HashMap::new()),
            streams: Mutex::new(HashMap::new()),
            open: AtomicUsize::new(0),
        })
    }

    /// Counts a connection from `ip`, unless its address holds its limit already.
    pub fn connect(self: &Arc<Self>, ip: IpAddr) -> Option<ConnectionSlot> {
        let key = client_key(ip);
        take(&self.connections, key, self.limits.connections_per_address).then(|| {
            self.open.fetch_add(1, Ordering::Relaxed);
            ConnectionSlot {
                admission: self.clone(),
                key,
            }
        })
    }

    /// Counts a live stream from `ip` (`anonymous`: without a bearer token).
    pub fn open_stream(
        self: &Arc<Self>,
        ip: IpAddr,
        anonymous: bool,
    ) -> Result<StreamSlot, StreamRefusal> {
        let cap = self.limits.max_connections;
        if anonymous && cap > 0 && self.open.load(Ordering::Relaxed) >= cap / 10 * 9 {
            return Err(StreamRefusal::Pressure);
        }
        let key = client_key(ip);
        if take(&self.streams, key, self.limits.streams_per_address) {
            Ok(StreamSlot {
                admission: self.clone(),
                key,
            })
        } else {
            Err(StreamRefusal::AddressFull)
        }
    }

    /// Connections counted now (those of every address).
    pub fn open_connections(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }
}

/// Adds one to `key`'s count unless it is at `limit` (`0`: no limit).
fn take(counts: &Mutex<HashMap<IpAddr, usize>>, key: IpAddr, limit: usize) -> bool {
    let mut counts = counts.lock().unwrap_or_else(|p| p.into_inner());
    let n = counts.entry(key).or_insert(0);
    if limit > 0 && *n >= limit {
        return false;
    }
    *n += 1;
    true
}

fn give_back(counts: &Mutex<HashMap<IpAddr, usize>>, key: IpAddr) {
    let mut counts = counts.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(n) = counts.get_mut(&key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            counts.remove(&key);
        }
    }
}

/// A connection counted against its address, for as long as it is open (kept in the
/// connection's data, dropped with it).
#[derive(Debug)]
pub struct ConnectionSlot {
    admission: Arc<Admission>,
    key: IpAddr,
}

impl ConnectionSlot {
    /// The key the connection is counted under.
    pub fn key(&self) -> IpAddr {
        self.key
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.admission.open.fetch_sub(1, Ordering::Relaxed);
        give_back(&self.admission.connections, self.key);
    }
}

/// A live stream counted against its address, for as long as it is open (held by the
/// stream).
#[derive(Debug)]
pub struct StreamSlot {
    admission: Arc<Admission>,
    key: IpAddr,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        give_back(&self.admission.streams, self.key);
    }
}

/// The refusal of a connection over its address's limit: answered by [`on_connect`]
/// on the socket, and by [`refuse_marked`] to a request that came through anyway.
fn connection_refusal() -> ApiError {
    ApiError::TooManyRequests("this address holds its limit of connections: close one first".into())
}

/// [`connection_refusal`] as the bytes [`on_connect`] writes on the socket before it is
/// shut (no request is read, so no response object is built for it).
static REFUSED_CONNECTION: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
    let body = match serde_json::to_string(&connection_refusal().problem()) {
        Ok(body) => body,
        Err(e) => {
            tracing::error!(error = %e, "the connection refusal has no body");
            String::new()
        }
    };
    format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/problem+json\r\n\
         retry-after: 10\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
});

/// The server's `on_connect`: counts the connection against its address, or answers
/// 429 and closes it when the address holds its limit (before reading a byte of it).
pub fn on_connect(
    admission: &Arc<Admission>,
    connection: &dyn std::any::Any,
    data: &mut Extensions,
) {
    let Some(tcp) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() else {
        return;
    };
    let Ok(peer) = tcp.peer_addr() else {
        return;
    };
    match admission.connect(peer.ip()) {
        Some(slot) => {
            data.insert(slot);
        }
        None => {
            // Whatever of its request the socket still yields is answered by
            // [`refuse_marked`] alone: no route runs for it.
            data.insert(RefusedConnection);
            worp_telemetry::metrics::rate_limited();
            refuse(tcp);
        }
    }
}

/// The mark of a connection refused by [`on_connect`].
#[derive(Debug, Clone, Copy)]
pub struct RefusedConnection;

/// The outermost middleware: a request on a connection refused by [`on_connect`] (one
/// that arrived before the socket was shut) is answered 429 and nothing else is done for
/// it. Without this, a refused connection's request could still open a stream.
pub async fn refuse_marked(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    if req.conn_data::<RefusedConnection>().is_some() {
        let mut resp = actix_web::ResponseError::error_response(&connection_refusal());
        resp.head_mut()
            .set_connection_type(actix_web::http::ConnectionType::Close);
        return Ok(req.into_response(resp));
    }
    next.call(req).await.map(|r| r.map_into_boxed_body())
}

/// Writes [`REFUSED_CONNECTION`] on `tcp`, drops what the client sent already and shuts
/// both directions: the server reads nothing more of it and closes it.
///
/// The socket is written and read by its descriptor, not by tokio's `try_write` and
/// `try_read`: those answer "would block" until the reactor has seen the fresh socket
/// ready, which it has not yet when the connection is accepted, and the client got an
/// empty close instead of its 429.
fn refuse(tcp: &actix_web::rt::net::TcpStream) {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let fd = tcp.as_raw_fd();
        let answer = REFUSED_CONNECTION.as_slice();
        // SAFETY: `fd` is the socket's descriptor, open for as long as `tcp` is borrowed;
        // `send` reads `answer.len()` bytes of `answer` and `recv` writes at most
        // `sink.len()` bytes into `sink`, both live for the calls; `shutdown` touches
        // no memory. None of them blocks (`MSG_DONTWAIT`).
        unsafe {
            // A fresh socket's send buffer takes this whole; if not, the close says it.
            libc::send(
                fd,
                answer.as_ptr().cast(),
                answer.len(),
                libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
            );
            // What the client sent already is read and dropped: closed with unread
            // bytes, the socket would be reset and the answer lost with it.
            let mut sink = [0u8; 4096];
            while libc::recv(fd, sink.as_mut_ptr().cast(), sink.len(), libc::MSG_DONTWAIT) > 0 {}
            libc::shutdown(fd, libc::SHUT_RDWR);
        }
    }
}

/// A live stream's admission, taken first of everything a stream route extracts: 429
/// when the caller's address holds its limit of streams, 503 for a stream without a
/// token when the server is near its connection cap.
pub struct StreamAdmission(pub Option<StreamSlot>);

impl FromRequest for StreamAdmission {
    type Error = ApiError;
    type Future = std::future::Ready<Result<StreamAdmission, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(admit_stream(req))
    }
}

fn admit_stream(req: &HttpRequest) -> Result<StreamAdmission, ApiError> {
    let Some(admission) = req.app_data::<web::Data<Admission>>() else {
        return Ok(StreamAdmission(None));
    };
    let ip = match (req.conn_data::<ConnectionSlot>(), req.peer_addr()) {
        (Some(slot), _) => slot.key(),
        (None, Some(peer)) => peer.ip(),
        (None, None) => return Ok(StreamAdmission(None)),
    };
    let anonymous = !req.headers().contains_key(header::AUTHORIZATION);
    match admission.open_stream(ip, anonymous) {
        Ok(slot) => Ok(StreamAdmission(Some(slot))),
        Err(StreamRefusal::AddressFull) => Err(ApiError::TooManyRequests(format!(
            "this address holds its limit of {} live streams: close one first",
            admission.limits.streams_per_address
        ))),
        Err(StreamRefusal::Pressure) => Err(ApiError::Unavailable(
            "the server is near its connection limit: streams without a bearer token are refused for now".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admission(connections: usize, streams: usize, cap: usize) -> Arc<Admission> {
        Admission::new(AdmissionLimits {
            connections_per_address: connections,
            streams_per_address: streams,
            max_connections: cap,
        })
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("address")
    }

    #[test]
    fn an_address_holds_its_limit_of_connections_and_gets_them_back() {
        let a = admission(2, 0, 100);
        let one = a.connect(ip("10.0.0.1")).expect("first");
        let _two = a.connect(ip("10.0.0.1")).expect("second");
        assert!(a.connect(ip("10.0.0.1")).is_none(), "a third");
        let other = a.connect(ip("10.0.0.2")).expect("another address");
        drop(one);
        let _three = a.connect(ip("10.0.0.1")).expect("one given back");
        assert_eq!(a.open_connections(), 3);
        drop(other);
        assert_eq!(a.open_connections(), 2);
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64_and_mapped_ones_as_ipv4() {
        let a = admission(1, 0, 100);
        let _one = a.connect(ip("2001:db8:1:2::1")).expect("first");
        assert!(a.connect(ip("2001:db8:1:2:ffff::9")).is_none(), "same /64");
        assert!(a.connect(ip("2001:db8:1:3::1")).is_some(), "another /64");
        let _v4 = a.connect(ip("192.0.2.7")).expect("v4");
        assert!(a.connect(ip("::ffff:192.0.2.7")).is_none(), "mapped");
    }

    #[test]
    fn streams_have_their_own_limit_and_anonymous_ones_shed_first_near_the_cap() {
        let a = admission(0, 1, 20);
        let s = a.open_stream(ip("10.0.0.1"), false).expect("first");
        assert_eq!(
            a.open_stream(ip("10.0.0.1"), false).err(),
            Some(StreamRefusal::AddressFull)
        );
        drop(s);
        let held: Vec<_> = (0..18)
            .map(|i| a.connect(ip(&format!("10.0.1.{i}"))).expect("connection"))
            .collect();
        assert_eq!(
            a.open_stream(ip("10.0.0.2"), true).err(),
            Some(StreamRefusal::Pressure)
        );
        assert!(a.open_stream(ip("10.0.0.3"), false).is_ok(), "a player's");
        drop(held);
        assert!(a.open_stream(ip("10.0.0.2"), true).is_ok());
    }

    #[test]
    fn no_limit_is_zero() {
        let a = admission(0, 0, 0);
        let held: Vec<_> = (0..1000)
            .map(|_| a.connect(ip("10.0.0.1")).expect("connection"))
            .collect();
        assert_eq!(held.len(), 1000);
        assert!(a.open_stream(ip("10.0.0.1"), true).is_ok());
    }

    #[test]
    fn the_default_cap_follows_the_open_file_limit() {
        assert_eq!(default_max_connections(1024), 818);
        assert_eq!(default_max_connections(20_000), 17_900);
        assert_eq!(default_max_connections(10), 64);
        assert_eq!(default_max_connections(u64::MAX), 1 << 20);
    }

    #[test]
    fn the_refusal_says_its_length() {
        let text = String::from_utf8(REFUSED_CONNECTION.clone()).expect("text");
        let (head, body) = text.split_once("\r\n\r\n").expect("head");
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let problem: serde_json::Value = serde_json::from_str(body).expect("json");
        assert_eq!(problem["status"], 429);
    }
}
