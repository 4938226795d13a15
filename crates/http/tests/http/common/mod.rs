//! Test helpers: a raw HTTP/1.1 client (to see exact headers) and a scriptable fault server.
//! Everything listens on and connects to 127.0.0.1 only.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

/// A response read by [`raw_request`].
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    /// Lower-case header names.
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// Sends `head` (request line and headers, without the blank line; `Connection: close` is
/// added) and `body` as is, then reads the whole response.
pub fn raw_request(addr: SocketAddr, head: &str, body: &[u8]) -> RawResponse {
    let mut s = TcpStream::connect(addr).expect("connect to the test server");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!("{head}\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) and close before reading all of it.
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    RawResponse {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

pub fn get(addr: SocketAddr, path: &str) -> RawResponse {
    raw_request(addr, &format!("GET {path} HTTP/1.1"), b"")
}

pub fn post(addr: SocketAddr, path: &str, body: &[u8]) -> RawResponse {
    raw_request(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}",
            body.len()
        ),
        body,
    )
}

/// What the fault server does with request number `n` (1-based, counted over all connections).
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// Answer every request after `delay`.
    Delay(Duration),
    /// Answer at once, except: the first request arriving `after` the server started stalls the
    /// whole server for `stall` (every request arriving meanwhile waits until it ends).
    StallOnce { after: Duration, stall: Duration },
    /// Answer 500 to every `k`-th request.
    FailEvery(u64),
    /// Close the connection without answering every `k`-th request.
    CloseEvery(u64),
    /// Never answer every `k`-th request (hold it 10 s, then close).
    HangEvery(u64),
    /// Answer every request with `Connection: close`, then close: a peer ending keep-alive.
    AnswerThenClose,
    /// Answer every request 503 after `delay`: a server whose store stalls.
    UnavailableAfter(Duration),
    /// Read every request and never answer (the connection stays open).
    Silent,
}

/// A hand-written HTTP/1.1 server, because each fault needs control below what a framework
/// allows (closing mid-request, stalling the whole server). GET only, keep-alive.
pub struct FaultServer {
    pub addr: SocketAddr,
    pub requests: Arc<AtomicU64>,
    runtime: Option<tokio::runtime::Runtime>,
}

pub const FAULT_BODY: &[u8] = br#"{"ok":true,"pad":"0123456789"}"#;

impl FaultServer {
    /// Starts serving with `fault`. With `max_accepts`, the listener closes after that many
    /// connections (later connects are refused).
    pub fn start(fault: Fault, max_accepts: Option<usize>) -> FaultServer {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(AtomicU64::new(0));
        let state = Arc::new(State {
            fault,
            started: Instant::now(),
            stall_until: std::sync::Mutex::new(None),
            requests: Arc::clone(&requests),
        });
        let accepted = Arc::new(AtomicUsize::new(0));
        runtime.spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { return };
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve_connection(stream, Arc::clone(&state)));
                if max_accepts.is_some_and(|m| accepted.fetch_add(1, SeqCst) + 1 >= m) {
                    return; // drops the listener
                }
            }
        });
        FaultServer {
            addr,
            requests,
            runtime: Some(runtime),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/x", self.addr)
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

struct State {
    fault: Fault,
    started: Instant,
    stall_until: std::sync::Mutex<Option<Instant>>,
    requests: Arc<AtomicU64>,
}

async fn serve_connection(mut stream: tokio::net::TcpStream, state: Arc<State>) {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        // Read one request head (GET: no body).
        let end = loop {
            if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break p + 4;
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        buf.drain(..end);
        let n = state.requests.fetch_add(1, SeqCst) + 1;
        let status = match state.fault {
            Fault::Delay(d) => {
                tokio::time::sleep(d).await;
                "200 OK"
            }
            Fault::StallOnce { after, stall } => {
                let until = {
                    let mut s = state.stall_until.lock().unwrap();
                    let now = Instant::now();
                    if s.is_none() && now >= state.started + after {
                        *s = Some(now + stall);
                    }
                    s.filter(|u| *u > now)
                };
                if let Some(u) = until {
                    tokio::time::sleep_until(u).await;
                }
                "200 OK"
            }
            Fault::FailEvery(k) if n.is_multiple_of(k) => "500 Internal Server Error",
            Fault::CloseEvery(k) if n.is_multiple_of(k) => return,
            Fault::HangEvery(k) if n.is_multiple_of(k) => {
                tokio::time::sleep(Duration::from_secs(10)).await;
                return;
            }
            Fault::UnavailableAfter(delay) => {
                tokio::time::sleep(delay).await;
                "503 Service Unavailable"
            }
            Fault::Silent => {
                // Keep reading (a client may pipeline or close) and never write.
                while !matches!(stream.read(&mut chunk).await, Ok(0) | Err(_)) {}
                return;
            }
            _ => "200 OK",
        };
        let close = matches!(state.fault, Fault::AnswerThenClose);
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}\r\n",
            FAULT_BODY.len(),
            if close { "Connection: close\r\n" } else { "" }
        );
        let mut out = head.into_bytes();
        out.extend_from_slice(FAULT_BODY);
        if stream.write_all(&out).await.is_err() || close {
            return;
        }
    }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then released).
pub fn refused_addr() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    addr
}

/// How a [`FakeRedis`] behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedisMode {
    /// Answers PING, GET, SET and CLIENT like Redis (RESP2), from a map in memory.
    Healthy,
    /// Closes every open connection, and every new one as soon as it is accepted.
    Down,
    /// Accepts connections and reads commands, but never answers.
    Silent,
}

/// A minimal Redis speaking RESP2 on 127.0.0.1, whose failures the test controls. Just enough
/// for the server's cache: PING, GET, SET (options ignored), CLIENT (answered +OK).
pub struct FakeRedis {
    pub addr: SocketAddr,
    pub data: Arc<std::sync::Mutex<HashMap<Vec<u8>, Vec<u8>>>>,
    /// Commands received, all connections.
    pub commands: Arc<AtomicU64>,
    /// Connections accepted (each a connection attempt of the client).
    pub accepts: Arc<AtomicU64>,
    mode: tokio::sync::watch::Sender<RedisMode>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl FakeRedis {
    pub fn start(mode: RedisMode) -> FakeRedis {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let (mode, _) = tokio::sync::watch::channel(mode);
        let data = Arc::new(std::sync::Mutex::new(HashMap::new()));
        let commands = Arc::new(AtomicU64::new(0));
        let accepts = Arc::new(AtomicU64::new(0));
        let (modes, shared, count, accepted) = (mode.clone(), Arc::clone(&data), Arc::clone(&commands), Arc::clone(&accepts));
        runtime.spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { return };
                accepted.fetch_add(1, SeqCst);
                if *modes.borrow() == RedisMode::Down {
                    continue; // dropped: closed at once
                }
                tokio::spawn(redis_connection(stream, modes.subscribe(), Arc::clone(&shared), Arc::clone(&count)));
            }
        });
        FakeRedis {
            addr,
            data,
            commands,
            accepts,
            mode,
            runtime: Some(runtime),
        }
    }

    pub fn url(&self) -> String {
        format!("redis://{}", self.addr)
    }

    pub fn set_mode(&self, mode: RedisMode) {
        self.mode.send_replace(mode);
    }
}

impl Drop for FakeRedis {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// One RESP command (an array of bulk strings) from the front of `buf`: (arguments, bytes
/// used), or `None` if it is not complete yet.
fn resp_command(buf: &[u8]) -> Option<(Vec<Vec<u8>>, usize)> {
    fn line(buf: &[u8], at: usize) -> Option<(&[u8], usize)> {
        let end = at + buf.get(at..)?.windows(2).position(|w| w == b"\r\n")?;
        Some((&buf[at..end], end + 2))
    }
    let number = |bytes: &[u8]| std::str::from_utf8(bytes).ok()?.parse::<usize>().ok();
    let (head, mut at) = line(buf, 0)?;
    let count = number(head.strip_prefix(b"*").expect("a RESP array"))?;
    let mut args = Vec::with_capacity(count);
    for _ in 0..count {
        let (head, next) = line(buf, at)?;
        let len = number(head.strip_prefix(b"$").expect("a RESP bulk string"))?;
        let arg = buf.get(next..next + len)?;
        buf.get(next + len..next + len + 2)?;
        args.push(arg.to_vec());
        at = next + len + 2;
    }
    Some((args, at))
}

async fn redis_connection(
    mut stream: tokio::net::TcpStream,
    mut mode: tokio::sync::watch::Receiver<RedisMode>,
    data: Arc<std::sync::Mutex<HashMap<Vec<u8>, Vec<u8>>>>,
    commands: Arc<AtomicU64>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        tokio::select! {
            changed = mode.changed() => {
                if changed.is_err() || *mode.borrow() == RedisMode::Down {
                    return;
                }
            }
            read = stream.read(&mut chunk) => {
                match read {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
        }
        let mut out = Vec::new();
        while let Some((args, used)) = resp_command(&buf) {
            buf.drain(..used);
            commands.fetch_add(1, SeqCst);
            if *mode.borrow() != RedisMode::Healthy {
                continue;
            }
            let name = args.first().map(|a| a.to_ascii_uppercase()).unwrap_or_default();
            match name.as_slice() {
                b"PING" => out.extend_from_slice(b"+PONG\r\n"),
                b"GET" => match data.lock().unwrap().get(&args[1]) {
                    Some(v) => {
                        out.extend_from_slice(format!("${}\r\n", v.len()).as_bytes());
                        out.extend_from_slice(v);
                        out.extend_from_slice(b"\r\n");
                    }
                    None => out.extend_from_slice(b"$-1\r\n"),
                },
                b"SET" => {
                    data.lock().unwrap().insert(args[1].clone(), args[2].clone());
                    out.extend_from_slice(b"+OK\r\n");
                }
                b"CLIENT" => out.extend_from_slice(b"+OK\r\n"),
                _ => out.extend_from_slice(b"-ERR unknown command\r\n"),
            }
        }
        if !out.is_empty() && stream.write_all(&out).await.is_err() {
            return;
        }
    }
}
