//! Redis, Redis Cluster and PostgreSQL (json and jsonb): run when their JSONCOST_TEST_* URL is
//! set (scripts/services.sh), otherwise say on stderr that they were skipped and why.

use crate::common;

use common::{assert_corrupt_is_decode_error, assert_wrong_shape_is_decode_error, exercise, open_store, server_url};
use jsoncost_stores::{OpenOptions, PgColumn, StoreError, StoreKind};

fn pg(column: PgColumn) -> OpenOptions {
    OpenOptions {
        pg_column: column,
        ..OpenOptions::default()
    }
}

#[test]
fn redis_loads_and_reads_every_way() {
    let Some(url) = server_url("JSONCOST_TEST_REDIS_URL", "redis_loads_and_reads_every_way") else {
        return;
    };
    let mut store = open_store(&url, &OpenOptions::default());
    assert_eq!(store.kind(), StoreKind::Redis);
    assert_eq!(store.describe(), url);
    exercise(store.as_mut(), "test-order", true);
    eprintln!("RAN redis_loads_and_reads_every_way against {url}");
}

#[test]
fn redis_corrupt_documents_fail_with_the_id_and_parser_message() {
    let Some(url) = server_url("JSONCOST_TEST_REDIS_URL", "redis_corrupt_documents") else {
        return;
    };
    let mut store = open_store(&url, &OpenOptions::default());
    assert_corrupt_is_decode_error(store.as_mut(), "test-corrupt");
    assert_wrong_shape_is_decode_error(store.as_mut(), "test-wrong-shape");
}

#[test]
fn redis_cluster_loads_and_reads_every_way() {
    let Some(url) = server_url("JSONCOST_TEST_REDIS_CLUSTER_URL", "redis_cluster_loads_and_reads_every_way") else {
        return;
    };
    let mut store = open_store(&url, &OpenOptions::default());
    assert_eq!(store.kind(), StoreKind::RedisCluster);
    assert_eq!(store.describe(), url);
    exercise(store.as_mut(), "test-order", true);
    eprintln!("RAN redis_cluster_loads_and_reads_every_way against {url}");
}

#[test]
fn redis_cluster_corrupt_documents_fail_with_the_id_and_parser_message() {
    let Some(url) = server_url("JSONCOST_TEST_REDIS_CLUSTER_URL", "redis_cluster_corrupt_documents") else {
        return;
    };
    let mut store = open_store(&url, &OpenOptions::default());
    assert_corrupt_is_decode_error(store.as_mut(), "test-corrupt");
}

#[test]
fn postgres_json_loads_and_reads_every_way() {
    let Some(url) = server_url("JSONCOST_TEST_PG_URL", "postgres_json_loads_and_reads_every_way") else {
        return;
    };
    let mut store = open_store(&url, &pg(PgColumn::Json));
    assert_eq!(store.kind(), StoreKind::Postgres { column: PgColumn::Json });
    // `json` keeps the input text byte for byte.
    exercise(store.as_mut(), "test-order", true);
    eprintln!("RAN postgres_json_loads_and_reads_every_way against {url}");
}

#[test]
fn postgres_jsonb_loads_and_reads_every_way() {
    let Some(url) = server_url("JSONCOST_TEST_PG_URL", "postgres_jsonb_loads_and_reads_every_way") else {
        return;
    };
    let mut store = open_store(&url, &pg(PgColumn::Jsonb));
    assert_eq!(store.kind(), StoreKind::Postgres { column: PgColumn::Jsonb });
    // `jsonb` re-renders the text: compare parsed values.
    exercise(store.as_mut(), "test-order", false);
    eprintln!("RAN postgres_jsonb_loads_and_reads_every_way against {url}");
}

#[test]
fn postgres_json_and_jsonb_collections_are_separate() {
    let Some(url) = server_url("JSONCOST_TEST_PG_URL", "postgres_json_and_jsonb_collections_are_separate") else {
        return;
    };
    let mut json = open_store(&url, &pg(PgColumn::Json));
    let mut jsonb = open_store(&url, &pg(PgColumn::Jsonb));
    let one = jsoncost_stores::OrderDocs { count: 1, ..common::DOCS };
    jsoncost_stores::ensure_loaded(json.as_mut(), "test-separate", &one.marker(), true, || one.documents()).unwrap();
    let two = jsoncost_stores::OrderDocs { count: 2, ..common::DOCS };
    jsoncost_stores::ensure_loaded(jsonb.as_mut(), "test-separate", &two.marker(), true, || two.documents()).unwrap();
    assert_eq!(json.loaded("test-separate").unwrap(), Some(one.marker()));
    assert_eq!(jsonb.loaded("test-separate").unwrap(), Some(two.marker()));
}

#[test]
fn postgres_rejects_invalid_json_on_load_and_reports_wrong_shapes_on_read() {
    let Some(url) = server_url("JSONCOST_TEST_PG_URL", "postgres_rejects_invalid_json") else {
        return;
    };
    for column in [PgColumn::Json, PgColumn::Jsonb] {
        let mut store = open_store(&url, &pg(column));
        let docs = vec![("order-broken".to_string(), b"{\"id\": oops}".to_vec())];
        let marker = jsoncost_stores::LoadMarker {
            docs: 1,
            description: "corrupt".into(),
        };
        let err = store.load("test-invalid", &mut docs.into_iter(), &marker).unwrap_err();
        assert!(matches!(err, StoreError::Backend { .. }), "{err:?}");
        assert!(err.to_string().contains("invalid input syntax for type json"), "{err}");
        // The failed load changed nothing: the collection reads as not loaded.
        assert_eq!(store.loaded("test-invalid").unwrap(), None);
        assert_wrong_shape_is_decode_error(store.as_mut(), "test-wrong-shape");
    }
}
