//! Faults: closed ports, a server that dies mid-run, unknown schemes. Every server here is on
//! 127.0.0.1 and every wait is bounded in count and time.

use crate::common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::{DOCS, server_url};
use jsoncost_stores::{OpenOptions, OrderDocs, StoreError, ensure_loaded, open};

/// A loopback port nothing listens on: bound by the OS, then released.
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn quick() -> OpenOptions {
    OpenOptions {
        connect_timeout: Duration::from_secs(2),
        io_timeout: Duration::from_secs(2),
        ..OpenOptions::default()
    }
}

fn assert_unreachable_quickly(url: &str, shown: &str) {
    let started = Instant::now();
    let err = open(url, &quick()).err().unwrap_or_else(|| panic!("{url} opened"));
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "{url}: took {elapsed:?}");
    assert!(matches!(err, StoreError::Unreachable { .. }), "{url}: {err:?}");
    let message = err.to_string();
    assert!(message.contains(shown) && message.contains("check"), "{message}");
    assert_eq!(err.exit_code(), 3);
    assert!(!err.is_document_error());
}

#[test]
fn a_closed_redis_port_is_unreachable_within_seconds() {
    let url = format!("redis://127.0.0.1:{}", closed_port());
    assert_unreachable_quickly(&url, &url);
}

#[test]
fn a_closed_cluster_port_is_unreachable_within_seconds() {
    let port = closed_port();
    let url = format!("redis+cluster://127.0.0.1:{port}");
    assert_unreachable_quickly(&url, &url);
}

#[test]
fn a_closed_postgres_port_is_unreachable_within_seconds() {
    let port = closed_port();
    let url = format!("postgres://jsoncost:secret@127.0.0.1:{port}/jsoncost");
    assert_unreachable_quickly(&url, &format!("postgres://jsoncost@127.0.0.1:{port}/jsoncost"));
    let err = open(&url, &quick()).err().unwrap();
    assert!(!err.to_string().contains("secret"), "{err}");
}

#[test]
fn an_unknown_scheme_is_a_usage_error_listing_the_schemes() {
    let err = open("mongodb://127.0.0.1:27017", &OpenOptions::default()).err().unwrap();
    assert!(matches!(err, StoreError::UnknownScheme { .. }), "{err:?}");
    assert_eq!(err.exit_code(), 2);
    let message = err.to_string();
    assert!(message.contains("mongodb://127.0.0.1:27017"), "{message}");
    for scheme in ["redb:PATH", "sqlite:PATH", "redis://", "redis+cluster://", "postgres://"] {
        assert!(message.contains(scheme), "{message}");
    }
}

/// A short-lived redis-server of this test's own, killed on drop.
struct OwnRedis {
    child: Child,
    port: u16,
}

impl OwnRedis {
    /// None (after saying why) when redis-server is not installed.
    fn start(extra: &[&str]) -> Option<OwnRedis> {
        let port = closed_port();
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(extra)
            .current_dir(std::env::temp_dir())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else {
            eprintln!("SKIPPED a_redis_server_stopped_mid_run: redis-server is not installed (scripts/services.sh start installs it)");
            return None;
        };
        let server = OwnRedis { child, port };
        // At most 50 × 100 ms for it to accept connections.
        for _ in 0..50 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            sleep(Duration::from_millis(100));
        }
        panic!("redis-server on 127.0.0.1:{port} did not accept connections within 5 s");
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
    }
}

#[test]
fn a_redis_server_stopped_mid_run_fails_the_next_read_promptly() {
    let Some(mut server) = OwnRedis::start(&[]) else { return };
    let url = format!("redis://127.0.0.1:{}", server.port);
    let mut store = open(&url, &quick()).unwrap();
    ensure_loaded(store.as_mut(), "order", &DOCS.marker(), false, || DOCS.documents()).unwrap();
    let id = OrderDocs::id(1);
    assert_eq!(store.read_default("order", &id).unwrap().id, id);

    server.kill();
    let started = Instant::now();
    let err = store
        .read_raw("order", &id, &mut |_| panic!("no bytes from a dead server"))
        .unwrap_err();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(matches!(err, StoreError::ConnectionLost { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(&url) && message.contains("server may have stopped"), "{message}");
    assert_eq!(err.exit_code(), 3);
    assert!(!err.is_document_error());
    // And every later read fails the same way, without hanging.
    let err = store.read_default("order", &id).unwrap_err();
    assert!(matches!(err, StoreError::ConnectionLost { .. }), "{err:?}");
}

#[test]
fn a_postgres_connection_terminated_mid_run_fails_the_next_read_promptly() {
    let Some(url) = server_url("JSONCOST_TEST_PG_URL", "a_postgres_connection_terminated_mid_run") else {
        return;
    };
    // A distinct application name lets this test end its own backend and no other.
    let app = format!("jsoncost-fault-{}", std::process::id());
    let sep = if url.contains('?') { '&' } else { '?' };
    let mut store = open(&format!("{url}{sep}application_name={app}"), &quick()).unwrap();
    ensure_loaded(store.as_mut(), "test-fault", &DOCS.marker(), false, || DOCS.documents()).unwrap();
    let id = OrderDocs::id(2);
    assert_eq!(store.read_default("test-fault", &id).unwrap().id, id);

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let (admin, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        let ended = admin
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                &[&app],
            )
            .await
            .unwrap();
        assert_eq!(ended.len(), 1, "exactly this test's connection is terminated");
    });

    let started = Instant::now();
    let err = store.read_default("test-fault", &id).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(matches!(err, StoreError::ConnectionLost { .. }), "{err:?}");
    assert!(err.to_string().contains("127.0.0.1"), "{err}");
    assert_eq!(err.exit_code(), 3);
    eprintln!("RAN a_postgres_connection_terminated_mid_run: {err}");
}

#[test]
fn a_cluster_node_stopped_mid_run_fails_the_next_read_promptly() {
    // A one-node cluster owning every slot: a real cluster connection, cheap to start and kill.
    let config = std::env::temp_dir().join(format!("jsoncost-fault-nodes-{}.conf", std::process::id()));
    let config_arg = config.display().to_string();
    let Some(mut server) = OwnRedis::start(&["--cluster-enabled", "yes", "--cluster-config-file", &config_arg]) else {
        return;
    };
    let node = format!("redis://127.0.0.1:{}", server.port);
    let mut admin = redis::Client::open(node.as_str())
        .unwrap()
        .get_connection_with_timeout(Duration::from_secs(2))
        .unwrap();
    redis::cmd("CLUSTER")
        .arg("ADDSLOTSRANGE")
        .arg(0)
        .arg(16383)
        .exec(&mut admin)
        .unwrap();
    // At most 50 × 100 ms for the node to report cluster_state:ok.
    let ok = (0..50).any(|_| {
        let info: String = redis::cmd("CLUSTER").arg("INFO").query(&mut admin).unwrap_or_default();
        let ok = info.lines().any(|line| line.trim() == "cluster_state:ok");
        if !ok {
            sleep(Duration::from_millis(100));
        }
        ok
    });
    assert!(ok, "the one-node cluster on {node} did not reach cluster_state:ok within 5 s");

    let url = format!("redis+cluster://127.0.0.1:{}", server.port);
    let mut store = open(&url, &quick()).unwrap();
    ensure_loaded(store.as_mut(), "order", &DOCS.marker(), false, || DOCS.documents()).unwrap();
    let id = OrderDocs::id(3);
    assert_eq!(store.read_default("order", &id).unwrap().id, id);

    server.kill();
    let _ = std::fs::remove_file(&config);
    let started = Instant::now();
    let err = store
        .read_raw("order", &id, &mut |_| panic!("no bytes from a dead node"))
        .unwrap_err();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(matches!(err, StoreError::ConnectionLost { .. }), "{err:?}");
    assert!(err.to_string().contains(&url), "{err}");
    assert_eq!(err.exit_code(), 3);
    eprintln!("RAN a_cluster_node_stopped_mid_run ({elapsed:?}): {err}");
}

/// A loopback server that accepts connections and never answers (held until the test ends).
fn silent_server() -> (TcpListener, u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepting = listener.try_clone().unwrap();
    // Accepts a bounded number of connections and keeps them open, unanswered.
    let held = std::thread::spawn(move || {
        let mut kept = Vec::new();
        for stream in accepting.incoming().take(8) {
            match stream {
                Ok(s) => kept.push(s),
                Err(_) => break,
            }
        }
        sleep(Duration::from_secs(10));
    });
    (listener, port, held)
}

#[test]
fn a_redis_server_that_never_answers_is_said_to_have_timed_out() {
    let (_listener, port, _held) = silent_server();
    let url = format!("redis://:s3cret@127.0.0.1:{port}");
    let opts = OpenOptions {
        connect_timeout: Duration::from_millis(500),
        io_timeout: Duration::from_millis(500),
        ..OpenOptions::default()
    };
    let started = Instant::now();
    let err = open(&url, &opts).err().expect("a server that never answers");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    let message = err.to_string();
    assert!(message.contains("timed out"), "{message}");
    assert!(!message.contains("os error") && !message.contains("s3cret"), "{message}");
    assert_eq!(err.exit_code(), 3);
}
