//! Loading results files (and what is said when they are bad) and atomic writes.

use crate::common;

use std::path::Path;

use common::{fixture, fixture_path};
use jsoncost_report::ReportError;
use jsoncost_report::files::{load, write_output, write_results};

fn load_text(text: &str) -> (std::path::PathBuf, ReportError, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    std::fs::write(&path, text).unwrap();
    let err = load(&path).expect_err("should not load");
    (path, err, dir)
}

#[test]
fn the_fixture_loads() {
    let r = load(&fixture_path()).unwrap();
    assert_eq!(r.experiments.len(), 5);
    assert_eq!(r.machine.cores, 2);
}

/// The fixture was written before rows carried their strategy's identity and typed http
/// figures: each row's identity is read from its method, the http figures from `extra`, and
/// written again both are fields of their own, read back the same.
#[test]
fn an_older_files_rows_get_their_identity_and_keep_it_through_a_round_trip() {
    use jsoncost_engine::{ExperimentKind, StrategyId};
    let r = load(&fixture_path()).unwrap();
    let ids: Vec<(ExperimentKind, StrategyId)> = r
        .experiments
        .iter()
        .flat_map(|e| e.rows.iter().map(move |row| (e.kind, row.strategy.clone())))
        .collect();
    let want = [
        (ExperimentKind::Micro, StrategyId::new("dom", "sonic-rs")),
        (ExperimentKind::Micro, StrategyId::new("typed", "serde_json")),
        (ExperimentKind::Micro, StrategyId::new("typed", "simd-json")),
        (ExperimentKind::Micro, StrategyId::new("typed", "sonic-rs")),
        (ExperimentKind::Micro, StrategyId::new("typed", "serde_json")),
        (ExperimentKind::Store, StrategyId::named("floor")),
        (ExperimentKind::Store, StrategyId::new("typed", "sonic-rs")),
        (ExperimentKind::Store, StrategyId::new("typed", "serde_json")),
        (ExperimentKind::Store, StrategyId::named("default")),
        (ExperimentKind::Stream, StrategyId::new("incremental", "serde_json")),
        (ExperimentKind::Stream, StrategyId::new("buffered", "serde_json")),
        (ExperimentKind::Http, StrategyId::new("typed", "sonic-rs")),
        (ExperimentKind::Http, StrategyId::new("typed", "serde_json")),
        (ExperimentKind::Http, StrategyId::new("dom", "serde_json")),
    ];
    assert_eq!(ids, want);
    assert!(
        r.experiments
            .iter()
            .flat_map(|e| &e.rows)
            .all(|row| row.method == row.strategy.name())
    );
    let http: Vec<Option<f64>> = r.experiments[4]
        .rows
        .iter()
        .map(|row| row.http.as_ref().and_then(|h| h.req_per_s))
        .collect();
    assert_eq!(http, [Some(24310.5), Some(20420.0), Some(15010.2)]);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("again.json");
    write_results(&path, &r).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("\"extra\""), "{text}");
    assert_eq!(text.matches("\"strategy\"").count(), want.len());
    assert_eq!(load(&path).unwrap(), r);
}

#[test]
fn a_truncated_file_says_where_it_ends() {
    let full = std::fs::read_to_string(fixture_path()).unwrap();
    // The first 200 bytes end inside line 9, `    "target_features": ["`, after its 25th character.
    let (path, err, _dir) = load_text(&full[..200]);
    assert_eq!(full[..200].lines().nth(8), Some("    \"target_features\": [\""));
    assert!(matches!(err, ReportError::Truncated { line: 9, column: 25, .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "results file {} is truncated: the JSON ends early at line 9, column 25",
            path.display()
        )
    );
}

#[test]
fn not_json_gives_line_column_and_the_parser_message() {
    let (path, err, _dir) = load_text("{\n  \"schema_version\": 1,\n  oops\n}\n");
    assert_eq!(
        err.to_string(),
        format!(
            "results file {} is not JSON: key must be a string at line 3, column 3",
            path.display()
        )
    );
    let (_, err, _dir) = load_text("jsoncost results\n");
    assert!(matches!(err, ReportError::NotJson { line: 1, column: 1, .. }), "{err:?}");
    let (_, err, _dir) = load_text("\u{feff}{}");
    assert!(matches!(err, ReportError::NotJson { .. }), "{err:?}");
}

#[test]
fn another_schema_version_names_both_versions() {
    let text = std::fs::read_to_string(fixture_path())
        .unwrap()
        .replacen("\"schema_version\": 1", "\"schema_version\": 2", 1);
    let (path, err, _dir) = load_text(&text);
    assert_eq!(
        err.to_string(),
        format!(
            "results file {} has schema_version 2, but this build of jsoncost reads schema_version 1",
            path.display()
        )
    );
    let (_, err, _dir) = load_text("{\"schema_version\": \"1\"}");
    assert_eq!(
        err.to_string().split_once(" has ").unwrap().1,
        "schema_version \"1\", but this build of jsoncost reads schema_version 1"
    );
}

#[test]
fn json_that_is_not_a_results_file_is_named_so() {
    let (path, err, _dir) = load_text("[1, 2, 3]");
    assert_eq!(
        err.to_string(),
        format!(
            "results file {} is not a jsoncost results file: it has no top-level schema_version field",
            path.display()
        )
    );
    let (path, err, _dir) = load_text("{\"schema_version\": 1,\n \"jsoncost_version\": 7}");
    assert_eq!(
        err.to_string(),
        format!(
            "results file {} does not match the results schema: invalid type: integer `7`, expected a string at line 2, column 22",
            path.display()
        )
    );
}

#[test]
fn empty_missing_and_directory_paths_are_io_or_empty_errors() {
    let (path, err, _dir) = load_text(" \n");
    assert_eq!(err.to_string(), format!("results file {} is empty", path.display()));

    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let err = load(&missing).unwrap_err();
    assert!(
        matches!(&err, ReportError::Io { cause, .. } if cause.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("cannot read results file {}: ", missing.display()))
    );

    let err = load(dir.path()).unwrap_err();
    assert!(matches!(err, ReportError::Io { .. }), "{err:?}");
}

#[test]
fn write_output_replaces_the_file_and_leaves_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.md");
    std::fs::write(&path, "old").unwrap();
    write_output(&path, b"new contents").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("report.md")]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
    }
}

#[test]
fn write_output_into_a_missing_directory_fails_without_creating_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent/results.json");
    let err = write_output(&path, b"x").unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    assert!(!Path::new(&dir.path().join("absent")).exists());
}

#[test]
fn written_results_load_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    write_results(&path, &fixture()).unwrap();
    assert_eq!(load(&path).unwrap(), fixture());
}

#[test]
fn a_read_is_bounded_while_reading_not_by_the_file_size() {
    // /dev/zero has size 0 and never ends: the bound must hold as the bytes arrive.
    let err = jsoncost_report::files::read_limited(Path::new("/dev/zero"), 1000).unwrap_err();
    assert!(
        matches!(err, jsoncost_report::files::ReadError::TooLarge { limit: 1000 }),
        "{err:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, b"12345").unwrap();
    assert_eq!(jsoncost_report::files::read_limited(&path, 5).unwrap(), b"12345");
    assert!(jsoncost_report::files::read_limited(&path, 4).is_err());
}

#[test]
fn an_io_error_is_said_once() {
    // Its text is in the message; were it also the source, `{:#}` would print it twice.
    let dir = tempfile::tempdir().unwrap();
    let err = load(dir.path()).unwrap_err();
    assert!(std::error::Error::source(&err).is_none(), "{err:?}");
    assert_eq!(err.to_string().matches("(os error 21)").count(), 1, "{err}");
}

#[test]
fn control_characters_in_a_results_files_strings_are_written_out_not_kept() {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixture_path()).unwrap()).unwrap();
    let escape = "\u{1b}]0;owned\u{7}\u{1b}[31mred\u{9b}2J\r";
    v["machine"]["cpu"] = serde_json::json!(format!("cpu{escape}"));
    v["experiments"][0]["table"] = serde_json::json!(format!("t{escape}"));
    v["experiments"][0]["rows"][0]["method"] = serde_json::json!(format!("m{escape}\nnext\tcol"));
    v["experiments"][0]["params"][format!("k{escape}")] = serde_json::json!(format!("v{escape}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.json");
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    let r = load(&path).unwrap();
    let shown = r"\u{1b}]0;owned\u{7}\u{1b}[31mred\u{9b}2J\u{d}";
    assert_eq!(r.machine.cpu, format!("cpu{shown}"));
    assert_eq!(r.experiments[0].table, format!("t{shown}"));
    // Newline and tab are kept (error messages hold lines).
    assert_eq!(r.experiments[0].rows[0].method, format!("m{shown}\nnext\tcol"));
    assert_eq!(
        r.experiments[0].params[&format!("k{shown}")],
        serde_json::json!(format!("v{shown}"))
    );
    // Numbers survive exactly; a file without control characters loads as it is.
    let plain = load(&fixture_path()).unwrap();
    assert_eq!(r.experiments[0].rows[0].mean_ns, plain.experiments[0].rows[0].mean_ns);
    assert_eq!(r.experiments[1..], plain.experiments[1..]);
}
