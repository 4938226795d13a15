//! No credential reaches the output: a password in a store or target URL is never printed, and
//! a store URL given is used as given, with no note of another process.

use std::process::{Command, Stdio};

fn jsoncost() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    c.env("NO_COLOR", "1").stdin(Stdio::null());
    c
}

/// Exit code, stdout and stderr.
fn run(mut cmd: Command) -> (Option<i32>, String, String) {
    let out = cmd.output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn a_store_url_given_gets_no_note_of_another_process() {
    let dir = tempfile::tempdir().unwrap();
    // Written another way than the store describes itself (`redb:/...`).
    let url = format!("redb://{}", dir.path().join("s.redb").display());
    let mut c = jsoncost();
    c.env("TMPDIR", dir.path())
        .args(["store", "--quick", "--docs", "10", "--store-filter", "floor", "--store", &url]);
    let (code, _, stderr) = run(c);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("in use by another process"), "{stderr}");
}

#[test]
fn a_password_in_a_target_url_is_never_printed() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut c = jsoncost();
    c.args(["http", "-n", "10", "-c", "2", "--study-load", "false", "--format", "json"])
        .arg("--target")
        .arg(format!("http://user:s3cret@127.0.0.1:{port}/x"));
    let (code, stdout, stderr) = run(c);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot connect to http://user@127.0.0.1:{port}/x")),
        "{stderr}"
    );
    assert!(!stdout.contains("s3cret") && !stderr.contains("s3cret"), "{stdout}\n{stderr}");
}
