//! The item cache: Redis (`CacheConfig::Redis`) serves what the in-process cache does, a miss
//! fills Redis and the next read is a hit; an unreachable Redis is a startup error naming the
//! URL; a Redis failing mid-run answers 503 while the server keeps serving.
//!
//! The real-Redis test runs when JSONCOST_TEST_REDIS_URL is set (scripts/services.sh), else
//! says on stderr that it was skipped and why (and fails if JSONCOST_REQUIRE_SERVICES=1). The
//! others run always, against a closed port or a fake Redis on loopback.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{FakeRedis, RedisMode, get, refused_addr};
use jsoncost_http::server::{self, CacheConfig, REDIS_KEY_PREFIX, ServerConfig, ServerError};
use jsoncost_http::verify::{Route, modes_agree_blocking};
use jsoncost_http::{ItemSource, MemorySource, RunningServer, ServeMode, SourceError};
use jsoncost_shapes::DEFAULT_SEED;

const ITEMS: u64 = 20;
const LIST: usize = 60;

/// The memory source, counting item reads (a read is a cache miss).
struct CountingSource {
    inner: MemorySource,
    item_reads: AtomicU64,
}

impl ItemSource for CountingSource {
    fn name(&self) -> String {
        "counting memory".into()
    }
    fn item(&self, id: u64) -> Result<Option<Bytes>, SourceError> {
        self.item_reads.fetch_add(1, SeqCst);
        self.inner.item(id)
    }
    fn list(&self, count: usize) -> Result<Vec<Bytes>, SourceError> {
        self.inner.list(count)
    }
    fn list_len(&self) -> usize {
        self.inner.list_len()
    }
}

fn counting_source() -> Arc<CountingSource> {
    Arc::new(CountingSource {
        inner: MemorySource::generate(ITEMS, LIST, DEFAULT_SEED),
        item_reads: AtomicU64::new(0),
    })
}

fn start_with(source: Arc<dyn ItemSource>, cache: CacheConfig) -> Result<RunningServer, ServerError> {
    let mut config = ServerConfig::with_source(source);
    config.cache = cache;
    config.worker_threads = 2;
    server::start(config)
}

fn services_required() -> bool {
    std::env::var("JSONCOST_REQUIRE_SERVICES").is_ok_and(|v| v == "1")
}

/// The Redis URL to test against, or `None` after saying why the test is skipped.
fn redis_url(test: &str) -> Option<String> {
    match std::env::var("JSONCOST_TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let why = "JSONCOST_TEST_REDIS_URL is not set (run scripts/services.sh start && eval \"$(scripts/services.sh env)\")";
            assert!(!services_required(), "{test}: JSONCOST_REQUIRE_SERVICES=1 but {why}");
            eprintln!("SKIPPED {test}: {why}");
            None
        }
    }
}

#[test]
fn cache_values_parse() {
    assert_eq!("memory".parse::<CacheConfig>(), Ok(CacheConfig::Memory));
    assert_eq!("moka".parse::<CacheConfig>(), Ok(CacheConfig::Memory));
    assert_eq!(
        "redis://127.0.0.1:16379".parse::<CacheConfig>(),
        Ok(CacheConfig::Redis {
            url: "redis://127.0.0.1:16379".into(),
            key_prefix: "jsoncost:http:item:".into(),
        })
    );
    assert_eq!(CacheConfig::redis("redis://:secret@127.0.0.1:1").describe(), "redis://127.0.0.1:1");
    let err = "memcached://127.0.0.1:1".parse::<CacheConfig>().unwrap_err();
    assert!(err.to_string().contains("memcached://127.0.0.1:1"), "{err}");
    assert_eq!(ServerConfig::default().cache, CacheConfig::Memory);
}

#[test]
fn an_unreachable_redis_is_a_startup_error_naming_the_url() {
    let url = format!("redis://{}", refused_addr());
    let started = Instant::now();
    let err = start_with(counting_source(), CacheConfig::redis(&url)).map(|_| ()).unwrap_err();
    assert!(matches!(&err, ServerError::CacheUnreachable { url: u, .. } if *u == url), "{err:?}");
    assert!(err.to_string().contains(&url), "{err}");
    // Bounded by the connect timeout (3 s), with a wide margin for a loaded machine.
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
}

#[test]
fn a_redis_that_never_answers_is_a_startup_error_too() {
    let fake = FakeRedis::start(RedisMode::Silent);
    let err = start_with(counting_source(), CacheConfig::redis(fake.url()))
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(&err, ServerError::CacheUnreachable { url, .. } if *url == fake.url()),
        "{err:?}"
    );
}

#[test]
fn a_bad_redis_url_is_a_distinct_error_without_the_password() {
    let cache = CacheConfig::redis("redis://:hunter2@127.0.0.1:notaport/");
    let err = start_with(counting_source(), cache).map(|_| ()).unwrap_err();
    assert!(matches!(&err, ServerError::CacheUrl { .. }), "{err:?}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
}

#[test]
fn a_failing_redis_answers_503_and_the_server_keeps_serving() {
    let fake = FakeRedis::start(RedisMode::Healthy);
    let source = counting_source();
    let srv = start_with(source.clone(), CacheConfig::redis(fake.url())).unwrap();
    let want = source.inner.item(3).unwrap().unwrap();

    // Miss, then hit: the stored bytes under the namespaced key, the source read once.
    for mode in [ServeMode::Passthrough, ServeMode::baseline()] {
        let r = get(srv.addr(), &mode.item_path(3));
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    }
    assert_eq!(source.item_reads.load(SeqCst), 1);
    let key = format!("{REDIS_KEY_PREFIX}3").into_bytes();
    assert_eq!(fake.data.lock().unwrap().get(&key).map(Vec::as_slice), Some(want.as_ref()));

    fake.set_mode(RedisMode::Down);
    let r = get(srv.addr(), &ServeMode::Passthrough.item_path(3));
    assert_eq!(r.status, 503, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json();
    assert_eq!(v["error"], "cache_unavailable", "{v}");
    assert!(v["message"].as_str().unwrap().contains(&fake.url()), "{v}");
    // Every other route still answers.
    assert_eq!(get(srv.addr(), &ServeMode::Passthrough.list_path(48)).status, 200);
    assert_eq!(get(srv.addr(), "/health").status, 200);
    assert_eq!(get(srv.addr(), &ServeMode::Passthrough.item_path(4)).status, 503);

    // Redis back: the cache reconnects (a few requests may still fail while it does).
    fake.set_mode(RedisMode::Healthy);
    let mut statuses = Vec::new();
    for _ in 0..30 {
        let r = get(srv.addr(), &ServeMode::Passthrough.item_path(3));
        statuses.push(r.status);
        if r.status == 200 {
            assert_eq!(r.body, want.as_ref());
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(statuses.last(), Some(&200), "{statuses:?}");
    assert!(statuses.iter().all(|s| [200, 503].contains(s)), "{statuses:?}");
    srv.shutdown().unwrap();
}

#[test]
fn a_redis_that_is_down_answers_503_without_retrying_inside_the_request() {
    // Each request that finds the cache down tries one connection and answers 503: retrying
    // with a backoff inside the request made every 503 take ~0.3 s, and a load run of them
    // take many minutes.
    let fake = FakeRedis::start(RedisMode::Healthy);
    let srv = start_with(counting_source(), CacheConfig::redis(fake.url())).unwrap();
    assert_eq!(get(srv.addr(), &ServeMode::Passthrough.item_path(1)).status, 200);
    fake.set_mode(RedisMode::Down);
    let before = fake.accepts.load(SeqCst);
    const REQUESTS: u64 = 6;
    for _ in 0..REQUESTS {
        let r = get(srv.addr(), &ServeMode::Passthrough.item_path(2));
        assert_eq!(r.status, 503, "{}", String::from_utf8_lossy(&r.body));
    }
    let attempts = fake.accepts.load(SeqCst) - before;
    // One attempt per request (a reconnect started by the previous failure may add one);
    // with retries there were three per request.
    assert!(attempts <= REQUESTS + 1, "{attempts} connection attempts for {REQUESTS} requests");
    srv.shutdown().unwrap();
}

#[test]
fn a_redis_cache_serves_what_the_memory_cache_does() {
    let test = "a_redis_cache_serves_what_the_memory_cache_does";
    let Some(url) = redis_url(test) else { return };
    // A prefix of this run's own, so parallel runs against one Redis never see each other's keys.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let prefix = format!("jsoncost:test:http:{}:{nanos}:item:", std::process::id());
    let cache = CacheConfig::Redis {
        url: url.clone(),
        key_prefix: prefix.clone(),
    };
    let source = counting_source();
    let redis_srv = start_with(source.clone(), cache).unwrap_or_else(|e| panic!("{test}: {e}"));
    let memory_srv = start_with(counting_source(), CacheConfig::Memory).unwrap();
    let mut con = redis::Client::open(url.as_str()).unwrap().get_connection().unwrap();
    let key = |id: u64| format!("{prefix}{id}");
    let stored = |con: &mut redis::Connection, id: u64| -> Option<Vec<u8>> { redis::cmd("GET").arg(key(id)).query(con).unwrap() };

    // Miss then hit: nothing under the key, one source read that fills it, then none.
    assert_eq!(stored(&mut con, 7), None);
    let first = get(redis_srv.addr(), &ServeMode::Passthrough.item_path(7));
    assert_eq!(first.status, 200);
    assert_eq!(source.item_reads.load(SeqCst), 1);
    let want = source.inner.item(7).unwrap().unwrap();
    assert_eq!(stored(&mut con, 7).as_deref(), Some(want.as_ref()));
    let ttl: i64 = redis::cmd("TTL").arg(key(7)).query(&mut con).unwrap();
    assert!((1..=3600).contains(&ttl), "ttl {ttl}");
    let second = get(redis_srv.addr(), &ServeMode::Passthrough.item_path(7));
    assert_eq!((second.status, &second.body), (200, &first.body));
    assert_eq!(source.item_reads.load(SeqCst), 1, "the second read must be a Redis hit");

    // Every mode of every route answers the same bodies as with the in-process cache.
    for route in [Route::Item(1), Route::Item(7), Route::Item(ITEMS), Route::List(48)] {
        let a = modes_agree_blocking(&redis_srv.url(""), route).unwrap();
        let b = modes_agree_blocking(&memory_srv.url(""), route).unwrap();
        assert_eq!(a, b, "{route:?}");
    }
    // Errors too: unknown ids are 404 and not cached, bad ids 400.
    for (path, status) in [
        (ServeMode::Passthrough.item_path(ITEMS + 1), 404),
        ("typed/sonic-rs".parse::<ServeMode>().unwrap().item_path(ITEMS + 1), 404),
        ("/passthrough/items/0".to_string(), 400),
        ("/typed/serde_json/items/x".to_string(), 400),
    ] {
        let (a, b) = (get(redis_srv.addr(), &path), get(memory_srv.addr(), &path));
        assert_eq!((a.status, &a.body), (status, &b.body), "{path}");
    }
    assert_eq!(stored(&mut con, ITEMS + 1), None);

    redis_srv.shutdown().unwrap();
    memory_srv.shutdown().unwrap();
    let keys: Vec<String> = (1..=ITEMS + 1).map(key).collect();
    let _: () = redis::cmd("DEL").arg(&keys).query(&mut con).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn an_unreachable_redis_is_reported_from_inside_a_runtime_too() {
    let url = format!("redis://{}", refused_addr());
    let err = start_with(counting_source(), CacheConfig::redis(&url)).map(|_| ()).unwrap_err();
    assert!(matches!(&err, ServerError::CacheUnreachable { url: u, .. } if *u == url), "{err:?}");
}
