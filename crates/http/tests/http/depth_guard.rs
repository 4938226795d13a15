//! A cached item 100,000 arrays deep must not take the server down: sonic-rs, held to
//! serde_json's 128 levels by the depth guard, answers 500 with the offset, and every other
//! request is still served. The test body runs in a child
//! process (this test binary again), so a regression fails by its signal instead of taking the
//! runner down.

use crate::common;

use std::sync::Arc;

use bytes::Bytes;
use jsoncost_http::server::{self, ServerConfig};
use jsoncost_http::{ItemSource, MemorySource, ServeMode, SourceError};

/// The default items, except item 1, which carries an unknown field 100,000 arrays deep.
struct DeepItem {
    inner: MemorySource,
    deep: Bytes,
}

impl ItemSource for DeepItem {
    fn name(&self) -> String {
        "deep".into()
    }
    fn item(&self, id: u64) -> Result<Option<Bytes>, SourceError> {
        if id == 1 {
            return Ok(Some(self.deep.clone()));
        }
        self.inner.item(id)
    }
    fn list(&self, count: usize) -> Result<Vec<Bytes>, SourceError> {
        self.inner.list(count)
    }
    fn list_len(&self) -> usize {
        self.inner.list_len()
    }
}

const PREFIX: &str = r#"{"x":"#;

fn deep_item() -> Bytes {
    let inner = MemorySource::default_data();
    let item = inner.item(1).unwrap().unwrap();
    // `{"x": [[[...]]], <the item's own fields>}`
    let mut doc = PREFIX.as_bytes().to_vec();
    doc.extend(std::iter::repeat_n(b'[', 100_000));
    doc.extend(std::iter::repeat_n(b']', 100_000));
    doc.push(b',');
    doc.extend_from_slice(&item[1..]);
    doc.into()
}

#[test]
fn a_deep_cached_item_is_a_500_with_the_offset_and_the_server_survives() {
    const NAME: &str = "a_deep_cached_item_is_a_500_with_the_offset_and_the_server_survives";
    if std::env::var_os("JSONCOST_TEST_CHILD").is_none() {
        // Its output is shown only when it fails (its own test summary would read as this one's).
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([NAME, "--exact", "--nocapture", "--test-threads", "1"])
            .env("JSONCOST_TEST_CHILD", "1")
            .output()
            .unwrap();
        assert!(
            child.status.success(),
            "the test in a child process: {} (a signal means it aborted)\n{}\n{}",
            child.status,
            String::from_utf8_lossy(&child.stdout),
            String::from_utf8_lossy(&child.stderr)
        );
        return;
    }
    let source = DeepItem {
        inner: MemorySource::default_data(),
        deep: deep_item(),
    };
    let srv = server::start(ServerConfig::with_source(Arc::new(source))).unwrap();
    let addr = srv.addr();

    let refused = common::get(addr, &"typed/sonic-rs".parse::<ServeMode>().unwrap().item_path(1));
    assert_eq!(refused.status, 500);
    let body = refused.json();
    assert_eq!(body["error"], "stored_document");
    // The item's object is level 1: the 127th bracket of its field opens level 128.
    let offset = PREFIX.len() + 126;
    assert_eq!(
        body["message"],
        format!(
            "stored document item 1 does not decode as its shape: sonic-rs would accept nesting past \
             serde_json's limit: rejected by jsoncost's depth guard at 128 (nesting reaches 128 levels at byte {offset})"
        )
    );
    // serde_json skips the unknown field without recursing; passthrough never parses.
    assert_eq!(common::get(addr, &ServeMode::baseline().item_path(1)).status, 200);
    assert_eq!(common::get(addr, &ServeMode::Passthrough.item_path(1)).status, 200);
    // Still serving everyone else.
    assert_eq!(
        common::get(addr, &"typed/sonic-rs".parse::<ServeMode>().unwrap().item_path(2)).status,
        200
    );
    assert_eq!(common::get(addr, "/health").status, 200);
    srv.shutdown().unwrap();
}
