//! Faults: errors are counted by kind and the run completes; a refused target is a distinct error.

use crate::common;

use std::time::Duration;

use common::{Fault, FaultServer, refused_addr};
use jsoncost_http::loadgen::{self, LoadError, LoadSpec, StopReason};
use jsoncost_http::row::http_row;

#[test]
fn status_500s_are_counted_and_the_run_completes() {
    let srv = FaultServer::start(Fault::FailEvery(5), None);
    let r = loadgen::run(&LoadSpec::closed(srv.url(), 100, 4)).unwrap();
    assert_eq!((r.requests, r.ok, r.errors.status, r.errors.total()), (100, 80, 20, 20));
    assert_eq!(r.status_codes.get(&500), Some(&20));
    assert_eq!(r.responses(), 100);
    assert_eq!(r.stop, StopReason::Completed);
    let row = http_row("x", &r, None);
    assert_eq!(
        serde_json::to_value(&row.http).unwrap()["errors"],
        serde_json::json!({"connect": 0, "timeout": 0, "status": 20, "closed": 0})
    );
    assert_eq!(
        serde_json::to_value(&row.http).unwrap()["status_codes"],
        serde_json::json!({"500": 20})
    );
}

#[test]
fn closed_connections_are_counted_and_reconnected() {
    let srv = FaultServer::start(Fault::CloseEvery(4), None);
    let r = loadgen::run(&LoadSpec::closed(srv.url(), 100, 3)).unwrap();
    assert_eq!((r.requests, r.ok, r.errors.closed, r.errors.total()), (100, 75, 25, 25));
}

#[test]
fn a_peer_ending_keep_alive_is_reconnected_without_errors() {
    let srv = FaultServer::start(Fault::AnswerThenClose, None);
    let r = loadgen::run(&LoadSpec::closed(srv.url(), 60, 3)).unwrap();
    assert_eq!((r.requests, r.ok, r.errors.total()), (60, 60, 0), "{:?}", r.errors);
}

#[test]
fn slow_responses_are_counted_as_timeouts() {
    let srv = FaultServer::start(Fault::HangEvery(10), None);
    let mut spec = LoadSpec::closed(srv.url(), 50, 2);
    spec.timeout = Duration::from_millis(200);
    let r = loadgen::run(&spec).unwrap();
    assert_eq!((r.requests, r.ok, r.errors.timeout, r.errors.total()), (50, 45, 5, 5));
}

#[test]
fn connection_errors_mid_run_are_counted_not_fatal() {
    // Two connections are accepted (the probe and the one worker), then the listener closes:
    // after the 5th request closes its connection, every reconnect is refused.
    let srv = FaultServer::start(Fault::CloseEvery(5), Some(2));
    let r = loadgen::run(&LoadSpec::closed(srv.url(), 20, 1)).unwrap();
    assert_eq!((r.requests, r.ok, r.errors.closed, r.errors.connect), (20, 4, 1, 15));
    assert_eq!(r.stop, StopReason::Completed);
}

#[test]
fn a_refused_target_is_a_distinct_error_naming_the_url() {
    let url = format!("http://{}/passthrough/items/1", refused_addr());
    let err = loadgen::run(&LoadSpec::closed(&url, 10, 2)).unwrap_err();
    assert!(matches!(&err, LoadError::Unreachable { url: u, .. } if *u == url), "{err:?}");
    assert!(err.to_string().contains(&url), "{err}");
}

#[test]
fn invalid_urls_and_loads_are_rejected_before_sending() {
    for url in ["https://127.0.0.1:1/", "127.0.0.1:1/x", "http://"] {
        assert!(
            matches!(loadgen::run(&LoadSpec::closed(url, 1, 1)), Err(LoadError::InvalidUrl { .. })),
            "{url}"
        );
    }
    let url = format!("http://{}/", refused_addr());
    assert!(matches!(
        loadgen::run(&LoadSpec::closed(&url, 0, 1)),
        Err(LoadError::InvalidSpec { .. })
    ));
    assert!(matches!(
        loadgen::run(&LoadSpec::closed(&url, 1, 0)),
        Err(LoadError::InvalidSpec { .. })
    ));
    assert!(matches!(
        loadgen::run(&LoadSpec::open(&url, 0.0, Duration::from_secs(1), 1)),
        Err(LoadError::InvalidSpec { .. })
    ));
    assert!(matches!(
        loadgen::run(&LoadSpec::open(&url, f64::NAN, Duration::from_secs(1), 1)),
        Err(LoadError::InvalidSpec { .. })
    ));
}

#[test]
fn a_run_with_no_success_is_a_failed_row() {
    let srv = FaultServer::start(Fault::FailEvery(1), None);
    let r = loadgen::run(&LoadSpec::closed(srv.url(), 10, 2)).unwrap();
    let row = http_row("passthrough", &r, None);
    assert!(!row.is_ok());
    // The errors by status code, in the message and in `extra`.
    assert_eq!(
        row.error_message.as_deref().unwrap(),
        format!("no successful response from {}: 10 requests, 500×10", srv.url())
    );
    assert_eq!(
        serde_json::to_value(&row.http).unwrap()["status_codes"],
        serde_json::json!({"500": 10})
    );
    assert_eq!(serde_json::to_value(&row.http).unwrap()["errors"]["status"], 10);
    assert_eq!((r.server_errors(), r.errors_by_kind().as_str()), (10, "500×10"));
}

#[test]
fn errors_by_kind_name_each_status_and_kind() {
    let srv = FaultServer::start(Fault::HangEvery(4), None);
    let mut spec = LoadSpec::closed(srv.url(), 8, 1);
    spec.timeout = Duration::from_millis(200);
    let r = loadgen::run(&spec).unwrap();
    assert_eq!(r.errors_by_kind(), "timeout×2");
    // Timeouts are the load's, not a server failure.
    assert_eq!(r.server_errors(), 0);
}

/// A one-request server that answers with the request's head as its body.
fn echo_head_once() -> (std::net::SocketAddr, std::thread::JoinHandle<()>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let (mut head, mut length) = (String::new(), 0);
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line.to_ascii_lowercase());
        }
        reader.read_exact(&mut vec![0; length]).unwrap();
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{head}",
            head.len()
        )
        .unwrap();
    });
    (addr, server)
}

/// The check before a load (`ab --http` compares both servers' answers) sends the request the
/// load sends, Content-Type included: a server that needs it answers the check as the load.
#[test]
fn fetch_sends_the_content_type_the_load_sends() {
    let (addr, server) = echo_head_once();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (status, head) = runtime
        .block_on(loadgen::fetch(
            &format!("http://{addr}/telemetry"),
            http::Method::POST,
            bytes::Bytes::from_static(b"{}"),
            Some("application/json"),
            Duration::from_secs(10),
        ))
        .unwrap();
    server.join().unwrap();
    let head = String::from_utf8(head.to_vec()).unwrap();
    assert_eq!(status, 200);
    assert!(head.starts_with("post /telemetry http/1.1\r\n"), "{head}");
    assert!(head.contains("content-type: application/json\r\n"), "{head}");
}

/// A server answering every connection (up to `connections`) with `head` and then `body_chunk`
/// again and again (each write bounded in count, so it ends once the client has gone or after
/// `chunks`), `pause` between chunks.
fn endless_body(
    connections: usize,
    head: &'static str,
    body_chunk: &'static [u8],
    chunks: usize,
    pause: Duration,
) -> (std::net::SocketAddr, std::thread::JoinHandle<()>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        for _ in 0..connections {
            let Ok((stream, _)) = listener.accept() else { return };
            stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            let mut stream = stream;
            if stream.write_all(head.as_bytes()).is_err() {
                continue;
            }
            for _ in 0..chunks {
                if stream.write_all(body_chunk).is_err() {
                    break;
                }
                std::thread::sleep(pause);
            }
        }
    });
    (addr, server)
}

fn fetch_from(addr: std::net::SocketAddr) -> Result<(u16, bytes::Bytes), loadgen::FetchError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(loadgen::fetch(
        &format!("http://{addr}/"),
        http::Method::GET,
        bytes::Bytes::new(),
        None,
        Duration::from_secs(30),
    ))
}

/// A body announced larger than [`loadgen::FETCH_MAX_BODY`] is refused from its head, none of it
/// held; one that goes on past it (chunked, no length) is given up once that much arrived.
#[test]
fn fetch_holds_no_body_over_its_cap() {
    let started = std::time::Instant::now();
    let (addr, server) = endless_body(
        1,
        "HTTP/1.1 200 OK\r\nContent-Length: 100000000000\r\n\r\n",
        b"x",
        200,
        Duration::from_millis(10),
    );
    let e = fetch_from(addr).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "fetching http://{addr}/ failed: the body is 100000000000 bytes (Content-Length), over the {} bytes an answer checked whole may hold",
            loadgen::FETCH_MAX_BODY
        )
    );
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    server.join().unwrap();
    // 1 MiB chunks, 96 of them at most: past the 64 MiB cap.
    static CHUNK: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
        let mut c = format!("{:x}\r\n", 1 << 20).into_bytes();
        c.extend(std::iter::repeat_n(b'x', 1 << 20));
        c.extend(b"\r\n");
        c
    });
    let (addr, server) = endless_body(
        1,
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        CHUNK.as_slice(),
        96,
        Duration::ZERO,
    );
    let e = fetch_from(addr).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "fetching http://{addr}/ failed: the body goes on, over the {} bytes an answer checked whole may hold",
            loadgen::FETCH_MAX_BODY
        )
    );
    server.join().unwrap();
}

/// A readiness probe reads the status and none of the body: an endless one costs nothing.
#[test]
fn status_of_reads_no_body() {
    let (addr, server) = endless_body(
        1,
        "HTTP/1.1 200 OK\r\nContent-Length: 100000000000\r\n\r\n",
        b"x",
        200,
        Duration::from_millis(10),
    );
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let started = std::time::Instant::now();
    let status = runtime.block_on(loadgen::status_of(&format!("http://{addr}/"), Duration::from_secs(30)));
    assert_eq!(status.unwrap(), 200);
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    server.join().unwrap();
}
