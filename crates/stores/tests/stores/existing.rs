//! A user's own documents, where jsoncost did not load them: listed and read as raw bytes from
//! a SQLite or redb table (always), a Redis key pattern and a PostgreSQL table (when the
//! JSONCOST_TEST_* URLs are set); what is wrongly named is exit 2 with what and where.

use crate::common;

use common::{open_store, server_url};
use jsoncost_stores::{Access, Existing, LoadMarker, OpenOptions, Store, StoreError};

fn read_only() -> OpenOptions {
    OpenOptions {
        access: Access::ReadOnly,
        ..OpenOptions::default()
    }
}

/// Opened read-only, a store refuses what would write or needs jsoncost's own tables.
fn assert_refuses_writes(store: &mut dyn Store) {
    let marker = LoadMarker {
        docs: 1,
        description: "x".into(),
    };
    let e = store
        .load("c", &mut std::iter::once(("1".to_string(), b"{}".to_vec())), &marker)
        .unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!(
            "{} is open read-only (to read your own documents); loading \"c\" needs it opened to load",
            store.describe()
        )
    );
    assert!(matches!(store.loaded("c"), Err(StoreError::ReadOnly { .. })));
}

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
        (
            rows("orders; drop table orders", "body"),
            "--table \"orders; drop table orders\": must be a SQL name",
        ),
        (Existing::Keys { pattern: "o:*".into() }, "--keys PATTERN is for Redis"),
    ] {
        let e = store.existing_ids(&wrong, 10).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
}

/// A user's SQLite file read read-only: not a byte of it changes (no WAL switch, no tables
/// created), nothing is created beside it, and a missing file is named, not created.
#[test]
fn a_sqlite_file_read_read_only_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own.db");
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute_batch("CREATE TABLE orders (id INTEGER PRIMARY KEY, body TEXT)").unwrap();
    c.execute("INSERT INTO orders VALUES (1, ?1)", [doc(1)]).unwrap();
    drop(c);
    let before = (std::fs::read(&path).unwrap(), std::fs::metadata(&path).unwrap().modified().unwrap());
    let url = format!("sqlite:{}", path.display());
    {
        let mut store = open_store(&url, &read_only());
        let at = rows("orders", "body");
        assert_eq!(store.existing_ids(&at, 10).unwrap(), ["1"]);
        assert_eq!(read(store.as_mut(), &at, "1").unwrap(), doc(1).as_bytes());
        assert_refuses_writes(store.as_mut());
    }
    let after = (std::fs::read(&path).unwrap(), std::fs::metadata(&path).unwrap().modified().unwrap());
    assert!(before == after, "the file changed");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "files were created beside it");

    let missing = dir.path().join("absent.db");
    let e = jsoncost_stores::open(&format!("sqlite:{}", missing.display()), &read_only())
        .err()
        .unwrap();
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().ends_with(&format!("{} does not exist", missing.display())), "{e}");
    assert!(!missing.exists());
}

#[test]
fn a_redb_file_read_read_only_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own.redb");
    {
        let db = redb::Database::create(&path).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(redb::TableDefinition::<&str, &[u8]>::new("mine"))
            .unwrap()
            .insert("k", doc(1).as_bytes())
            .unwrap();
        txn.commit().unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    {
        let mut store = open_store(&format!("redb:{}", path.display()), &read_only());
        let at = Existing::Table { table: "mine".into() };
        assert_eq!(store.existing_ids(&at, 10).unwrap(), ["k"]);
        assert_eq!(read(store.as_mut(), &at, "k").unwrap(), doc(1).as_bytes());
        assert_refuses_writes(store.as_mut());
    }
    assert!(std::fs::read(&path).unwrap() == before, "the file changed");
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
    // A key of another type among those matched is that document's failure: bad data.
    redis::Commands::hset::<_, _, _, ()>(&mut con, format!("{prefix}:hash"), "f", "v").unwrap();
    let e = read(store.as_mut(), &at, &format!("{prefix}:hash")).unwrap_err();
    assert!(e.is_document_error(), "{e}");
    assert_eq!(e.exit_code(), 2);
    assert_eq!(
        e.to_string(),
        format!("document \"{prefix}:hash\" in keys \"{prefix}:*\" does not decode: the key holds a hash, not a string")
    );
    redis::Commands::del::<_, ()>(&mut con, format!("{prefix}:hash")).unwrap();
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
    assert_eq!(
        e.to_string(),
        format!(
            "{}: table absent_{suffix} (id, body): relation \"absent_{suffix}\" does not exist",
            store.describe()
        )
    );
    rt.block_on(client.batch_execute(&format!("DROP TABLE {jsonb}; DROP TABLE {text};")))
        .unwrap();
}

/// A role with only SELECT on its table, in a database where it may create nothing: reading
/// its documents read-only works, runs no DDL (the database still holds that one table), and
/// refuses a load without touching the server.
#[test]
fn a_postgres_role_with_only_select_reads_its_table_and_nothing_is_created() {
    let Some(url) = server_url("JSONCOST_TEST_PG_URL", "a_postgres_role_with_only_select_reads_its_table") else {
        return;
    };
    let suffix = std::process::id();
    let (db, role) = (format!("jsoncost_ro_{suffix}"), format!("jsoncost_ro_{suffix}"));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let connect = |url: &str| {
        let (client, connection) = rt.block_on(tokio_postgres::connect(url, tokio_postgres::NoTls)).unwrap();
        rt.spawn(connection);
        client
    };
    let admin = connect(&url);
    // One statement each: CREATE/DROP DATABASE refuse a transaction block.
    for sql in [format!("CREATE DATABASE {db}"), format!("CREATE ROLE {role} LOGIN")] {
        rt.block_on(admin.batch_execute(&sql)).unwrap();
    }
    // The same server, another database and user: `postgres://USER@HOST:PORT/DB` taken apart.
    let (scheme, rest) = url.split_once("://").unwrap();
    let (user, rest) = rest.rsplit_once('@').unwrap_or(("postgres", rest));
    let host = rest.split(['/', '?']).next().unwrap();
    let in_db = format!("{scheme}://{user}@{host}/{db}");
    let as_role = format!("{scheme}://{role}@{host}/{db}");
    let owner = connect(&in_db);
    let mut setup = format!(
        "REVOKE ALL ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO {role};
         CREATE TABLE orders (id bigint PRIMARY KEY, body jsonb); GRANT SELECT ON orders TO {role};"
    );
    for i in 0..5u64 {
        setup.push_str(&format!("INSERT INTO orders VALUES ({i}, '{}');", doc(i)));
    }
    rt.block_on(owner.batch_execute(&setup)).unwrap();
    {
        let mut store = open_store(&as_role, &read_only());
        let at = rows("orders", "body");
        assert_eq!(store.existing_ids(&at, 10).unwrap().len(), 5);
        let body = read(store.as_mut(), &at, "3").unwrap();
        assert_eq!(serde_json::from_slice::<serde_json::Value>(&body).unwrap()["name"], "doc 3");
        assert_refuses_writes(store.as_mut());
    }
    // Opened to load, the same role cannot create jsoncost's tables: what read-only spared it.
    let e = jsoncost_stores::open(&as_role, &OpenOptions::default()).err().unwrap();
    assert!(e.to_string().contains("permission denied"), "{e}");
    let tables: Vec<String> = rt
        .block_on(owner.query("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public'", &[]))
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(tables, ["orders"]);
    drop(owner);
    for sql in [format!("DROP DATABASE {db} WITH (FORCE)"), format!("DROP ROLE {role}")] {
        rt.block_on(admin.batch_execute(&sql)).unwrap();
    }
}
