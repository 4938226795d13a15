//! A user's own documents, where jsoncost did not load them: listed and read as raw bytes from
//! a SQLite or redb table (always), a Redis key pattern and a PostgreSQL table (when the
//! JSONCOST_TEST_* URLs are set); what is wrongly named is exit 2 with what and where.

mod common;

use common::{open_store, server_url};
use jsoncost_stores::{Existing, OpenOptions, Store, StoreError};

fn doc(i: u64) -> String {
    format!(r#"{{"id":{i},"name":"doc {i}","price":{i}.5}}"#)
}

fn read(store: &mut dyn Store, at: &Existing, id: &str) -> Result<Vec<u8>, StoreError> {
    let mut out = Vec::new();
    store.read_existing(at, id, &mut |b| out = b.to_vec())?;
    Ok(out)
}

fn rows(table: &str, column: &str) -> Existing {
    Existing::Rows {
        table: table.into(),
        key: "id".into(),
        column: column.into(),
    }
}

#[test]
fn a_sqlite_table_is_listed_and_read_by_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own.db");
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute_batch("CREATE TABLE orders (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE blobs (id TEXT, doc BLOB)")
        .unwrap();
    for i in 0..5u64 {
        c.execute("INSERT INTO orders VALUES (?1, ?2)", rusqlite::params![i as i64, doc(i)])
            .unwrap();
    }
    c.execute("INSERT INTO blobs VALUES ('a', ?1)", [doc(9).into_bytes()]).unwrap();
    drop(c);
    let mut store = open_store(&format!("sqlite:{}", path.display()), &OpenOptions::default());
    let at = rows("orders", "body");
    assert_eq!(store.existing_ids(&at, 3).unwrap(), ["0", "1", "2"]);
    assert_eq!(store.existing_ids(&at, 100).unwrap().len(), 5);
    assert_eq!(read(store.as_mut(), &at, "4").unwrap(), doc(4).as_bytes());
    assert_eq!(read(store.as_mut(), &rows("blobs", "doc"), "a").unwrap(), doc(9).as_bytes());
    let missing = read(store.as_mut(), &at, "99").unwrap_err();
    assert!(missing.is_document_error(), "{missing}");

    for (wrong, says) in [
        (rows("nope", "body"), "no such table: nope"),
        (rows("orders", "nope"), "no such column"),
        (rows("orders; drop table orders", "body"), "--table must be a SQL name"),
        (Existing::Keys { pattern: "o:*".into() }, "--keys PATTERN is for Redis"),
    ] {
        let e = store.existing_ids(&wrong, 10).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
}

#[test]
fn a_redb_table_is_listed_and_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own.redb");
    {
        let db = redb::Database::create(&path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut t = txn.open_table(redb::TableDefinition::<&str, &[u8]>::new("mine")).unwrap();
            for i in 0..4u64 {
                t.insert(format!("k{i}").as_str(), doc(i).as_bytes()).unwrap();
            }
            let mut other = txn.open_table(redb::TableDefinition::<u64, u64>::new("numbers")).unwrap();
            other.insert(1, 2).unwrap();
        }
        txn.commit().unwrap();
    }
    let mut store = open_store(&format!("redb:{}", path.display()), &OpenOptions::default());
    let at = Existing::Table { table: "mine".into() };
    assert_eq!(store.existing_ids(&at, 10).unwrap(), ["k0", "k1", "k2", "k3"]);
    assert_eq!(read(store.as_mut(), &at, "k2").unwrap(), doc(2).as_bytes());
    for table in ["absent", "numbers"] {
        let e = store.existing_ids(&Existing::Table { table: table.into() }, 10).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{e}");
        assert!(
            e.to_string().contains("jsoncost reads a table of &str keys and &[u8] values"),
            "{e}"
        );
    }
}

#[test]
fn redis_keys_matching_a_pattern_are_listed_and_read() {
    let Some(url) = server_url("JSONCOST_TEST_REDIS_URL", "redis_keys_matching_a_pattern_are_listed_and_read") else {
        return;
    };
    let prefix = format!("jsoncost-test-own-{}", std::process::id());
    let mut con = redis::Client::open(url.as_str()).unwrap().get_connection().unwrap();
    for i in 0..30u64 {
        redis::Commands::set::<_, _, ()>(&mut con, format!("{prefix}:{i}"), doc(i)).unwrap();
    }
    let mut store = open_store(&url, &OpenOptions::default());
    let at = Existing::Keys {
        pattern: format!("{prefix}:*"),
    };
    let mut all = store.existing_ids(&at, 1000).unwrap();
    all.sort();
    assert_eq!(all.len(), 30);
    assert_eq!(store.existing_ids(&at, 7).unwrap().len(), 7);
    assert_eq!(read(store.as_mut(), &at, &format!("{prefix}:3")).unwrap(), doc(3).as_bytes());
    assert!(read(store.as_mut(), &at, &format!("{prefix}:99")).unwrap_err().is_document_error());
    let e = store.existing_ids(&rows("t", "c"), 1).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    for i in 0..30u64 {
        redis::Commands::del::<_, ()>(&mut con, format!("{prefix}:{i}")).unwrap();
    }
}

#[test]
fn a_postgres_table_is_read_by_a_text_or_integer_key() {
    let Some(url) = server_url("JSONCOST_TEST_PG_URL", "a_postgres_table_is_read_by_a_text_or_integer_key") else {
        return;
    };
    let suffix = std::process::id();
    let (jsonb, text) = (format!("own_jsonb_{suffix}"), format!("own_text_{suffix}"));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (client, connection) = rt.block_on(tokio_postgres::connect(&url, tokio_postgres::NoTls)).unwrap();
    rt.spawn(connection);
    let mut setup = format!("CREATE TABLE {jsonb} (id bigint PRIMARY KEY, body jsonb); CREATE TABLE {text} (id text, doc text);");
    for i in 0..10u64 {
        setup.push_str(&format!(
            "INSERT INTO {jsonb} VALUES ({i}, '{}'); INSERT INTO {text} VALUES ('t{i}', '{}');",
            doc(i),
            doc(i)
        ));
    }
    rt.block_on(client.batch_execute(&setup)).unwrap();
    let mut store = open_store(&url, &OpenOptions::default());
    let by_int = rows(&jsonb, "body");
    assert_eq!(store.existing_ids(&by_int, 4).unwrap().len(), 4);
    // jsonb comes back as the server renders it: the same value, spaced.
    let body = String::from_utf8(read(store.as_mut(), &by_int, "3").unwrap()).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&body).unwrap()["name"], "doc 3");
    assert!(read(store.as_mut(), &by_int, "not-a-number").unwrap_err().is_document_error());
    let by_text = rows(&text, "doc");
    assert_eq!(read(store.as_mut(), &by_text, "t7").unwrap(), doc(7).as_bytes());
    let e = store.existing_ids(&rows(&format!("absent_{suffix}"), "body"), 1).unwrap_err();
    assert_eq!(e.exit_code(), 2, "{e}");
    rt.block_on(client.batch_execute(&format!("DROP TABLE {jsonb}; DROP TABLE {text};")))
        .unwrap();
}
