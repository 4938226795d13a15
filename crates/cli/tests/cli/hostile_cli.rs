//! Hostile data and a shared machine, as a user meets them: a
//! damaged redb file, a 100,000-deep value in a stream body and in a stored document, and two
//! jsoncost processes on the default store. Every case runs the binary as a child process, so
//! an abort shows as a signal (no exit code) instead of taking the test runner down.

use assert_cmd::Command;
use jsoncost_engine::ExperimentKind;
use jsoncost_engine::{MeasuredTable, Results, Status};
use jsoncost_shapes::{DEFAULT_SEED, ORDER_LINES};
use jsoncost_stores::{OpenOptions, OrderDocs, ensure_loaded, open};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

const GUARD: &str = "sonic-rs would accept nesting past serde_json's limit: rejected by jsoncost's depth guard at 128";

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(Duration::from_secs(180));
    c
}

/// Runs `c` and returns (exit code, stderr); a signal fails the test.
fn run(c: &mut Command) -> (i32, String) {
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {:?}\n{stderr}", out.status));
    (code, stderr)
}

fn results(path: &Path) -> Results {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn row<'a>(e: &'a MeasuredTable, method: &str) -> &'a jsoncost_engine::Row {
    e.rows
        .iter()
        .find(|r| r.method == method)
        .unwrap_or_else(|| panic!("no row {method}"))
}

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

/// `count` order documents as the store experiment loads them, each written by `edit(id, body)`.
fn load_orders(url: &str, count: u64, edit: impl Fn(&str, Vec<u8>) -> Vec<u8>) {
    let docs = OrderDocs {
        count,
        lines: ORDER_LINES,
        seed: DEFAULT_SEED,
    };
    let mut store = open(url, &OpenOptions::default()).unwrap();
    ensure_loaded(store.as_mut(), "order", &docs.marker(), true, || {
        docs.documents().map(|(id, body)| {
            let body = edit(&id, body);
            (id, body)
        })
    })
    .unwrap();
}

/// A redb file of 200 documents with 32 KiB at offset 64 KiB overwritten with 0xff.
fn damaged_redb(dir: &Path) -> PathBuf {
    let path = dir.join("damaged.redb");
    load_orders(&format!("redb:{}", path.display()), 200, |_, b| b);
    let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.seek(SeekFrom::Start(64 * 1024)).unwrap();
    file.write_all(&[0xff; 32 * 1024]).unwrap();
    path
}

fn assert_one_clear_error(stderr: &str, path: &Path) {
    let expected = format!("error: {} is damaged: ", path.display());
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"), "{stderr}");
}

#[test]
fn a_damaged_redb_store_is_exit_3_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = damaged_redb(dir.path());
    let url = format!("redb:{}", path.display());

    let (code, stderr) = run(jsoncost().args(["store", "--quick", "--docs", "200", "--store", &url]));
    assert_eq!(code, 3, "{stderr}");
    assert_one_clear_error(&stderr, &path);

    let (code, stderr) = run(jsoncost().args(["serve", "--addr", "127.0.0.1:0", "--store", &url]));
    assert_eq!(code, 3, "{stderr}");
    assert_one_clear_error(&stderr, &path);

    // `run` writes what it measured before the store failed.
    let out = dir.path().join("out");
    let (code, stderr) = run(jsoncost()
        .args([
            "run",
            "--quick",
            "--only",
            "micro,store",
            "--filter",
            "typed/serde_json",
            "--store",
            &url,
            "--out",
        ])
        .arg(&out));
    assert_eq!(code, 3, "{stderr}");
    assert_one_clear_error(&stderr, &path);
    let written = results(&out.join("results.json"));
    // The micro tables measured before the store failed, then the store's failure as its error
    // table (one failed row naming the file), nothing measured from the damaged store.
    let (micro, rest): (Vec<_>, Vec<_>) = written.experiments.iter().partition(|e| e.kind == ExperimentKind::Micro);
    assert!(!micro.is_empty());
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!((rest[0].kind, rest[0].table.as_str()), (ExperimentKind::Store, "error"));
    let message = rest[0].rows[0].error_message.as_deref().unwrap_or_default();
    assert!(
        !rest[0].rows[0].is_ok() && message.contains(&path.display().to_string()),
        "{message}"
    );
}

/// `store` over 20 order documents, those `deep` picks carrying an unknown field 100,000
/// arrays deep: `{"x": [[[...]]], <the order's fields>}`.
fn store_deep(dir: &Path, deep: impl Fn(&str) -> bool) -> (i32, String, PathBuf) {
    let url = format!("redb:{}", dir.join("deep.redb").display());
    let field = nested(100_000);
    load_orders(&url, 20, |id, body| {
        if !deep(id) {
            return body;
        }
        let mut doc = format!(r#"{{"x":{field},"#).into_bytes();
        doc.extend_from_slice(&body[1..]);
        doc
    });
    let out = dir.join("store.json");
    let (code, stderr) = run(jsoncost()
        .args(["store", "--quick", "--debug-mode", "--docs", "20", "--store", &url, "--out"])
        .arg(&out));
    (code, stderr, out)
}

/// The first `order-NNNNNNNN` id in `text`.
fn first_order_id(text: &str) -> Option<String> {
    let at = text.find("order-")?;
    let id = text.get(at..at + 14)?;
    id[6..].bytes().all(|b| b.is_ascii_digit()).then(|| id.to_string())
}

#[test]
fn a_deep_stored_document_fails_the_sonic_rs_rows_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // Every document deep: the gate's own document is refused by the exact reference, before
    // any library sees it (bad input, with the document and the offset).
    let (code, stderr, _) = store_deep(dir.path(), |_| true);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(" at byte "), "{stderr}");
    let gated = first_order_id(&stderr).unwrap_or_else(|| panic!("no document named: {stderr}"));

    // Every document deep but the gate's: only the timed reads meet them, so the depth guard
    // checks those first, untimed.
    let (code, stderr, out) = store_deep(dir.path(), |id| id != gated);
    assert_eq!(code, 0, "{stderr}");
    let table = &results(&out).experiments[0];
    // sonic-rs would skip the field (0.5.12), but the depth guard holds it to serde_json's
    // limit: both of its rows are refused, untimed. The order's object is level 1: byte 5
    // opens level 2, byte 131 level 128.
    for refused in ["typed/sonic-rs", "lazy/sonic-rs"] {
        let sonic = row(table, refused);
        assert_eq!(sonic.status, Status::Failed);
        let message = sonic.error_message.as_deref().unwrap();
        assert!(message.starts_with("document \"order-"), "{message}");
        assert!(
            message.ends_with(&format!("{GUARD} (nesting reaches 128 levels at byte 131); not timed")),
            "{message}"
        );
        assert_eq!(sonic.mean_ns, None, "never timed");
    }
    // serde_json and facet-json skip the unknown field without recursing; the floor does not parse.
    for ok in ["default", "typed/serde_json", "typed/facet-json", "borrowed/serde_json", "floor"] {
        assert_eq!(row(table, ok).status, Status::Ok, "{ok}: {:?}", row(table, ok).error_message);
    }
    // Unguarded libraries meet their own limit while timed (simd-json's 1024 even in a skipped
    // field, serde_json's 128 in its DOM): their rows fail with their error.
    for refused in ["typed/simd-json", "default-dom"] {
        assert_eq!(row(table, refused).status, Status::Failed, "{refused}");
    }
}

const READING: &str = r#"{"Timestamp":"2025-01-01T00:00:00Z","Temperature":21.5,"Humidity":40.0"#;

/// The start of a body whose second reading has an unknown field `"x"`.
fn stream_head() -> String {
    format!(r#"{{"DeviceId":"d-1","Readings":[{READING}}},{READING},"x":"#)
}

/// `stream` over three readings, the second with an unknown field `depth` arrays deep.
fn stream_deep(dir: &Path, depth: usize) -> (i32, String, PathBuf) {
    let body = format!("{}{}}},{READING}}}]}}", stream_head(), nested(depth));
    let file = dir.join("deep.json");
    std::fs::write(&file, &body).unwrap();
    let out = dir.join("stream.json");
    let (code, stderr) = run(jsoncost()
        .args(["stream", "--quick", "--runs", "2", "--file"])
        .arg(&file)
        .arg("--out")
        .arg(&out));
    (code, stderr, out)
}

#[test]
fn a_100000_deep_stream_body_is_bad_input_with_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stderr, _) = stream_deep(dir.path(), 100_000);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("deep.json") && stderr.contains(" at byte "), "{stderr}");
}

#[test]
fn a_deep_stream_body_fails_the_sonic_rs_rows_with_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let head = stream_head();
    let (code, stderr, out) = stream_deep(dir.path(), 300);
    assert_eq!(code, 0, "{stderr}");
    let table = &results(&out).experiments[0];
    // The document is level 1, Readings level 2, the reading 3: its field's 125th bracket
    // opens level 128 of the document; of the reading alone (the framer's element) the 127th.
    let buffered = head.len() + 124;
    let element = head.len() + 126;
    let message = |m: &str| row(table, m).error_message.clone().unwrap_or_default();
    assert!(message("buffered/sonic-rs").ends_with(&format!("{GUARD} (nesting reaches 128 levels at byte {buffered}); not run")));
    for m in [
        "incremental/sonic-rs",
        "incremental-aggregate/sonic-rs",
        "incremental-async/sonic-rs",
    ] {
        assert!(
            message(m).ends_with(&format!("{GUARD} (nesting reaches 128 levels) at byte {element} (element 1)")),
            "{m}: {}",
            message(m)
        );
    }
    for ok in ["buffered/serde_json", "incremental/serde_json", "reader/serde_json"] {
        assert_eq!(row(table, ok).status, Status::Ok, "{ok}: {:?}", row(table, ok).error_message);
    }
}

/// `jsoncost serve` on 127.0.0.1:0 with `tmp` as its temp dir, once it is serving.
fn serve(tmp: &Path) -> Child {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("TMPDIR", tmp)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().map(|l| l.unwrap()).unwrap_or_default();
    assert!(first.starts_with("serving on "), "serve did not start: {first:?}");
    // Keep reading (and dropping) its stderr so it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    child
}

#[test]
fn two_processes_share_the_default_store() {
    let tmp = tempfile::tempdir().unwrap();
    let mut server = serve(tmp.path());
    // SAFETY: geteuid cannot fail.
    let private = tmp.path().join(format!("jsoncost-{}", unsafe { libc::geteuid() }));
    let default = private.join("store.redb");

    // The default is in use by `serve`: the run takes the next free file and says so.
    let (code, stderr) = run(jsoncost()
        .env("TMPDIR", tmp.path())
        .args(["store", "--quick", "--docs", "30", "--store-filter", "floor"]));
    let second = private.join("store-2.redb");
    let outcome = (code, stderr.clone());
    // An explicit path that is locked names the holder and suggests another path.
    let explicit = run(jsoncost()
        .env("TMPDIR", tmp.path())
        .args(["store", "--quick", "--docs", "30", "--store"])
        .arg(format!("redb:{}", default.display())));
    server.kill().unwrap();
    server.wait().unwrap();

    assert_eq!(outcome.0, 0, "{}", outcome.1);
    assert!(
        stderr.contains(&format!(
            "store: redb:{} is in use by another process; using redb:{}",
            default.display(),
            second.display()
        )),
        "{stderr}"
    );
    let (code, stderr) = explicit;
    assert_eq!(code, 3, "{stderr}");
    let holder = format!("error: {} is locked by another process (pid {}: ", default.display(), server.id());
    assert!(stderr.contains(&holder), "{stderr}");
    assert!(
        stderr.contains(" serve --addr 127.0.0.1:0); stop that process or use another path, e.g. --store redb:"),
        "{stderr}"
    );
}
