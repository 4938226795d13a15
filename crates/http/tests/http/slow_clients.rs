//! Clients that open a connection and never finish a request header (slowloris) are closed after
//! the header-read timeout, and beyond the connection cap they wait, so the server keeps
//! answering. Loopback only; every wait is bounded.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsoncost_http::MemorySource;
use jsoncost_http::mode::HEALTH_PATH;
use jsoncost_http::server::{self, ServerConfig};

/// Partial-header connections opened (twice the cap, well under the 1024 descriptors a test
/// process has by default, counting the server's side of each).
const PARTIAL: usize = 200;
const CAP: usize = 100;

/// The server on 2 workers, `cap` connections at once, with `limit` applied to its config.
fn start(cap: usize, limit: impl FnOnce(&mut ServerConfig)) -> server::RunningServer {
    let mut config = ServerConfig::with_source(Arc::new(MemorySource::generate(1, 1, 1)));
    config.worker_threads = 2;
    config.max_connections = cap;
    limit(&mut config);
    server::start(config).expect("server starts")
}

/// `n` connections that each send `start` of a request and no more; reads wait at most 10 s.
fn unfinished(srv: &server::RunningServer, n: usize, start: &[u8]) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = TcpStream::connect(srv.addr()).expect("connect");
            s.write_all(start).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            s
        })
        .collect()
}

#[test]
fn partial_headers_are_closed_after_the_timeout_and_a_normal_request_is_answered() {
    let srv = start(CAP, |c| c.header_read_timeout = Duration::from_millis(500));
    let mut partial = unfinished(&srv, PARTIAL, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    // Past the cap, the request waits until the timeout frees a slot, then is answered.
    let r = common::get(srv.addr(), HEALTH_PATH);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    // Every partial connection is closed by the server (EOF or reset), none answered with a
    // response to a request it never finished; each read is bounded by its 10 s timeout.
    let started = Instant::now();
    for (i, s) in partial.iter_mut().enumerate() {
        let mut buf = Vec::new();
        match s.read_to_end(&mut buf) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!("partial connection {i} was not closed: {e} after {:?}", started.elapsed()),
        }
        let head = String::from_utf8_lossy(&buf);
        assert!(buf.is_empty() || head.starts_with("HTTP/1.1 408"), "connection {i}: {head}");
    }
    assert_eq!(common::get(srv.addr(), HEALTH_PATH).status, 200);
    srv.shutdown().unwrap();
}

/// POSTs that announce a body and never send it hold a connection slot each, within the
/// header-read timeout (their headers are whole); the body-read timeout answers each 408 and
/// closes it, so a request past the cap is answered.
#[test]
fn a_post_whose_body_never_comes_is_answered_408_and_frees_its_connection() {
    const STALLED: usize = 4;
    let srv = start(STALLED, |c| c.body_read_timeout = Duration::from_millis(500));
    let head = b"POST /telemetry HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{";
    let mut stalled = unfinished(&srv, STALLED, head);
    // Every slot is held by a stalled POST: this request is answered once the timeout frees one.
    let r = common::get(srv.addr(), HEALTH_PATH);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    for (i, s) in stalled.iter_mut().enumerate() {
        let mut buf = Vec::new();
        match s.read_to_end(&mut buf) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!("stalled POST {i} was not answered and closed: {e}"),
        }
        let answer = String::from_utf8_lossy(&buf);
        assert!(answer.starts_with("HTTP/1.1 408"), "stalled POST {i}: {answer}");
        assert!(
            answer.contains(r#"{"error":"body_timeout","message":"the request body did not arrive within 0.5 s"}"#),
            "stalled POST {i}: {answer}"
        );
    }
    srv.shutdown().unwrap();
}

/// Clients that pipeline requests for the largest list and never read: once the socket buffers
/// are full each holds a response being written, so the write timeout closes them, their
/// memory and slots are freed, and a request past the cap is answered.
#[test]
fn clients_that_pipeline_and_never_read_are_closed_after_the_write_timeout() {
    const STALLED: usize = 4;
    // Each response a list of 1,000 entries: 200 of them are far more than loopback's socket
    // buffers (a few MB) take.
    const PIPELINED: usize = 200;
    let mut config = ServerConfig::with_source(Arc::new(MemorySource::generate(1, 1000, 1)));
    config.worker_threads = 2;
    config.max_connections = STALLED;
    config.write_timeout = Duration::from_millis(500);
    let srv = server::start(config).expect("server starts");
    let request = "GET /passthrough/items?count=1000 HTTP/1.1\r\nHost: x\r\n\r\n".repeat(PIPELINED);
    let mut stalled: Vec<TcpStream> = (0..STALLED)
        .map(|_| {
            let mut s = TcpStream::connect(srv.addr()).expect("connect");
            s.write_all(request.as_bytes()).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            s
        })
        .collect();
    // Every slot is held by a client that does not read: this one is answered once the write
    // timeout frees one (bounded: without it the request would wait for ever).
    let addr = srv.addr();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(common::get(addr, HEALTH_PATH).status);
    });
    assert_eq!(rx.recv_timeout(Duration::from_secs(20)), Ok(200));
    // Reading a connection lets its writes go on: first give the last of them to stall (each
    // stalls once its buffers fill, as the server gets to it) time to pass the timeout.
    std::thread::sleep(Duration::from_secs(3));
    // Each stalled connection was closed by the server before all its responses were written.
    let one = common::get(srv.addr(), "/passthrough/items?count=1000").body.len();
    for (i, s) in stalled.iter_mut().enumerate() {
        let mut buf = Vec::new();
        match s.read_to_end(&mut buf) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!("stalled connection {i} was not closed: {e}"),
        }
        assert!(buf.len() < PIPELINED * one, "connection {i}: all {} bytes were written", buf.len());
    }
    srv.shutdown().unwrap();
}

/// A client that sends its request and then shuts down its sending side (`shutdown(SHUT_WR)`)
/// still gets every answer: uncached item and list routes, whose answers take a moment.
#[test]
fn a_client_that_half_closes_after_its_request_is_answered() {
    let srv = start(CAP, |_| {});
    for path in [
        "/typed/serde_json/items/1",
        "/typed/serde_json/items?count=1",
        "/passthrough/items?count=1",
    ] {
        let mut s = TcpStream::connect(srv.addr()).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).unwrap();
        let head = String::from_utf8_lossy(&answer[..answer.len().min(40)]).into_owned();
        assert!(head.starts_with("HTTP/1.1 200 OK"), "{path}: {head:?}");
    }
    srv.shutdown().unwrap();
}
