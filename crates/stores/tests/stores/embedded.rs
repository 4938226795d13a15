//! redb and SQLite: always run, each test on a file of its own.

use crate::common;

use common::{DOCS, assert_corrupt_is_decode_error, assert_wrong_shape_is_decode_error, exercise, open_store};
use jsoncost_stores::{OpenOptions, StoreKind, default_redb_path, default_store_url, ensure_loaded};

fn url(scheme: &str, dir: &tempfile::TempDir, file: &str) -> String {
    format!("{scheme}:{}", dir.path().join(file).display())
}

#[test]
fn redb_loads_and_reads_every_way() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open_store(&url("redb", &dir, "nested/dir/store.redb"), &OpenOptions::default());
    assert_eq!(store.kind(), StoreKind::Redb);
    assert!(store.describe().starts_with("redb:") && store.describe().ends_with("store.redb"));
    exercise(store.as_mut(), "order", true);
}

#[test]
fn sqlite_loads_and_reads_every_way() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open_store(&url("sqlite", &dir, "store.db"), &OpenOptions::default());
    assert_eq!(store.kind(), StoreKind::Sqlite);
    exercise(store.as_mut(), "order", true);
}

#[test]
fn loads_survive_reopening_the_file() {
    for scheme in ["redb", "sqlite"] {
        let dir = tempfile::tempdir().unwrap();
        let url = url(scheme, &dir, "store");
        {
            let mut store = open_store(&url, &OpenOptions::default());
            ensure_loaded(store.as_mut(), "order", &DOCS.marker(), false, || DOCS.documents()).unwrap();
        }
        let mut store = open_store(&url, &OpenOptions::default());
        assert_eq!(store.loaded("order").unwrap(), Some(DOCS.marker()), "{scheme}");
        let order = store.read_default("order", &jsoncost_stores::OrderDocs::id(3)).unwrap();
        assert_eq!(order.id, "order-00000003");
    }
}

#[test]
fn collections_are_independent() {
    let dir = tempfile::tempdir().unwrap();
    for scheme in ["redb", "sqlite"] {
        let mut store = open_store(&url(scheme, &dir, scheme), &OpenOptions::default());
        let large = jsoncost_stores::OrderDocs {
            count: 3,
            lines: jsoncost_shapes::ORDER_LARGE_LINES,
            seed: 5,
        };
        ensure_loaded(store.as_mut(), "order", &DOCS.marker(), false, || DOCS.documents()).unwrap();
        ensure_loaded(store.as_mut(), "order-large", &large.marker(), false, || large.documents()).unwrap();
        assert_eq!(
            store.read_default("order-large", "order-00000002").unwrap().lines.len(),
            jsoncost_shapes::ORDER_LARGE_LINES
        );
        assert_eq!(
            store.read_default("order", "order-00000002").unwrap().lines.len(),
            jsoncost_shapes::ORDER_LINES
        );
        assert_eq!(store.loaded("order").unwrap(), Some(DOCS.marker()), "{scheme}");
    }
}

#[test]
fn corrupt_documents_fail_with_the_id_and_parser_message() {
    let dir = tempfile::tempdir().unwrap();
    for scheme in ["redb", "sqlite"] {
        let mut store = open_store(&url(scheme, &dir, scheme), &OpenOptions::default());
        assert_corrupt_is_decode_error(store.as_mut(), "corrupt");
        assert_wrong_shape_is_decode_error(store.as_mut(), "wrong-shape");
    }
}

#[test]
fn the_default_store_is_redb_under_the_temp_dir() {
    let path = default_redb_path().unwrap();
    assert_eq!(path, jsoncost_engine::private_dir::dir().unwrap().join("store.redb"));
    assert!(path.starts_with(std::env::temp_dir()));
    assert_eq!(default_store_url().unwrap(), format!("redb:{}", path.display()));
}

#[test]
fn an_unwritable_path_is_an_environment_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"not a directory").unwrap();
    for scheme in ["redb", "sqlite"] {
        // A path below a regular file cannot be created.
        let err = jsoncost_stores::open(&format!("{scheme}:{}/sub/store", file.display()), &OpenOptions::default())
            .err()
            .unwrap();
        assert_eq!(err.exit_code(), 3, "{scheme}: {err}");
        assert!(err.to_string().contains(&file.display().to_string()), "{err}");
    }
}

/// A redb file with 200 documents, then 32 KiB at offset 64 KiB overwritten with 0xff (what
/// a disk fault or a stray write leaves).
fn corrupt_redb(dir: &tempfile::TempDir) -> std::path::PathBuf {
    use std::io::{Seek, SeekFrom, Write};
    let path = dir.path().join("damaged.redb");
    let docs = jsoncost_stores::OrderDocs { count: 200, ..DOCS };
    {
        let mut store = open_store(&format!("redb:{}", path.display()), &OpenOptions::default());
        ensure_loaded(store.as_mut(), "order", &docs.marker(), false, || docs.documents()).unwrap();
    }
    let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.seek(SeekFrom::Start(64 * 1024)).unwrap();
    file.write_all(&[0xff; 32 * 1024]).unwrap();
    path
}

#[test]
fn a_damaged_redb_file_is_an_environment_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = corrupt_redb(&dir);
    let err = jsoncost_stores::open(&format!("redb:{}", path.display()), &OpenOptions::default())
        .err()
        .expect("a damaged file must not open");
    assert!(matches!(err, jsoncost_stores::StoreError::Corrupt { .. }), "{err:?}");
    assert_eq!(err.exit_code(), 3);
    let message = err.to_string();
    assert!(message.starts_with(&format!("{} is damaged: ", path.display())), "{message}");
    assert!(
        message.ends_with("delete it (jsoncost loads the documents again) or restore a copy"),
        "{message}"
    );
}

#[test]
fn a_redb_file_open_elsewhere_is_locked_with_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let url = url("redb", &dir, "held.redb");
    let _holder = open_store(&url, &OpenOptions::default());
    let err = jsoncost_stores::open(&url, &OpenOptions::default())
        .err()
        .expect("the file is held");
    assert!(matches!(err, jsoncost_stores::StoreError::Locked { .. }), "{err:?}");
    assert_eq!(err.exit_code(), 3);
    let suggestion = dir.path().join(format!("held-{}.redb", std::process::id()));
    assert_eq!(
        err.to_string(),
        format!(
            "{} is locked by another process; stop that process or use another path, e.g. --store redb:{}",
            dir.path().join("held.redb").display(),
            suggestion.display()
        )
    );
}
