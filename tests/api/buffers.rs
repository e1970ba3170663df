//! The HTTP/1.1 connection's buffers start at 1 KiB (`vendor/README.md`): requests and
//! answers far larger than that, trickled, pipelined and kept alive on one connection,
//! are read and written whole.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::edge::{app_with, socket};

/// One answer read from `s` (after `pending`, bytes already read past the last one): its
/// status, head and body, by its `Content-Length` or its chunks. Leaves in `pending` what
/// follows it.
async fn read_answer(s: &mut TcpStream, pending: &mut Vec<u8>) -> (u16, String, Vec<u8>) {
    let head_end = loop {
        if let Some(at) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        fill(s, pending).await;
    };
    let head = String::from_utf8_lossy(&pending[..head_end]).into_owned();
    pending.drain(..head_end);
    let status = head
        .get(9..12)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {head}"));
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    };
    let mut body = Vec::new();
    if let Some(length) = header("content-length") {
        let length: usize = length.parse().expect("a length");
        while pending.len() < length {
            fill(s, pending).await;
        }
        body.extend(pending.drain(..length));
    } else if header("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        loop {
            let line_end = loop {
                if let Some(at) = pending.windows(2).position(|w| w == b"\r\n") {
                    break at;
                }
                fill(s, pending).await;
            };
            let size = std::str::from_utf8(&pending[..line_end]).expect("a chunk size");
            let size = usize::from_str_radix(size.trim(), 16).expect("a hexadecimal size");
            while pending.len() < line_end + 2 + size + 2 {
                fill(s, pending).await;
            }
            body.extend_from_slice(&pending[line_end + 2..line_end + 2 + size]);
            pending.drain(..line_end + 2 + size + 2);
            if size == 0 {
                break;
            }
        }
    }
    (status, head, body)
}

/// Reads more of `s` into `pending`, failing the test after 10 s or at its end.
async fn fill(s: &mut TcpStream, pending: &mut Vec<u8>) {
    let mut buf = [0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf))
        .await
        .expect("the server answers within 10 s")
        .expect("read");
    assert!(n > 0, "the server closed the connection mid-answer");
    pending.extend_from_slice(&buf[..n]);
}

#[tokio::test]
async fn requests_and_answers_far_larger_than_the_first_buffers_pass_whole() {
    // The default body limit, 64 KiB (the tests' own is smaller).
    let app = app_with(|_| {}).await;
    let mut s = TcpStream::connect(socket(&app)).await.expect("connect");
    s.set_nodelay(true).expect("nodelay");
    let mut pending = Vec::new();

    // A head of 7 KiB in 61 headers (the decoder takes up to 96, and heads far larger),
    // sent 100 bytes a write.
    let mut head = String::from("GET /v1/variants HTTP/1.1\r\nHost: worp\r\n");
    for i in 0..60 {
        head.push_str(&format!("X-Padding-{i:03}: {}\r\n", "p".repeat(110)));
    }
    head.push_str("\r\n");
    assert!(head.len() > 7 * 1024, "{}", head.len());
    for piece in head.as_bytes().chunks(100) {
        s.write_all(piece).await.expect("write");
        s.flush().await.expect("flush");
    }
    let (status, _, variants) = read_answer(&mut s, &mut pending).await;
    assert_eq!(status, 200);
    let variants: serde_json::Value = serde_json::from_slice(&variants).expect("JSON");
    assert!(
        variants.as_array().is_some_and(|v| v.len() >= 5),
        "{variants}"
    );

    // A body of 60,000 bytes and a request after it, in one write: the body is read to
    // its end (the server objects to its field, not to its size or framing), and the
    // next request is answered after it.
    let body = format!(
        r#"{{"name": "alice", "padding": "{}"}}"#,
        "q".repeat(60_000 - 32)
    );
    assert_eq!(body.len(), 60_000);
    let pipelined = format!(
        "POST /v1/players HTTP/1.1\r\nHost: worp\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}GET /openapi.json HTTP/1.1\r\nHost: worp\r\n\r\n",
        body.len()
    );
    s.write_all(pipelined.as_bytes()).await.expect("write");
    let (status, head, problem) = read_answer(&mut s, &mut pending).await;
    assert_eq!(status, 400, "{head}");
    let problem: serde_json::Value = serde_json::from_slice(&problem).expect("a problem");
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("padding")),
        "{problem}"
    );

    // The next answer is far larger than 1 KiB, written whole.
    let (status, _, document) = read_answer(&mut s, &mut pending).await;
    assert_eq!(status, 200);
    assert!(document.len() > 100 * 1024, "{}", document.len());
    let document: serde_json::Value = serde_json::from_slice(&document).expect("JSON");
    assert!(document["paths"]["/v1/games"].is_object());

    // The connection is still kept alive, and a small request on it still served.
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: worp\r\n\r\n")
        .await
        .expect("write");
    let (status, _, _) = read_answer(&mut s, &mut pending).await;
    assert_eq!(status, 200);
    assert!(
        pending.is_empty(),
        "{} bytes after the last answer",
        pending.len()
    );
}
