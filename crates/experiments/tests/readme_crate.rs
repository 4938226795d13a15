//! The README's "Measure your own types" lines, verbatim, in a fresh crate `my-service` beside
//! a checkout of jsoncost, built the way a user builds it: outside this workspace (so without
//! its `.cargo/config.toml`), with jsoncost's default features, in a target directory of its
//! own. Then test mode, `--list`, `--help` and a quick measurement, through `cargo test
//! --bench json` (the dev profile: what `cargo test --benches` builds), without debug info
//! (`CARGO_PROFILE_DEV_DEBUG=false`: nothing here reads it, and without it a first build is
//! over a quarter shorter).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The fenced block that follows the first line containing `marker` in the README's section.
fn block_after(section: &str, marker: &str) -> String {
    let at = section
        .find(marker)
        .unwrap_or_else(|| panic!("README: no {marker:?} in the section"));
    let rest = &section[at..];
    let open = rest.find("```").expect("a code block after the marker");
    let body = &rest[open..];
    let body = &body[body.find('\n').expect("a fence line") + 1..];
    body[..body.find("```").expect("a closing fence")].to_string()
}

fn readme_section() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let start = readme.find("## Measure your own types").expect("the README's harness section");
    let end = readme[start + 3..].find("\n## ").map_or(readme.len(), |i| start + 3 + i);
    readme[start..end].to_string()
}

/// Runs `cmd` to its end or `limit` (then kills it and fails), capturing its output.
fn run(cmd: &mut Command, limit: Duration) -> Output {
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("cargo runs");
    let pid = child.id();
    let deadline = Instant::now() + limit;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(out) => return out.unwrap(),
            Err(_) if Instant::now() < deadline => {}
            Err(_) => {
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
                panic!("{cmd:?} still running after {limit:?}: killed");
            }
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_readme_s_lines_build_and_run_in_a_fresh_crate() {
    let section = readme_section();
    let manifest = block_after(&section, "In `Cargo.toml`:");
    let lib = block_after(&section, "In `src/lib.rs`");
    let bench = block_after(&section, "In `benches/json.rs`:");

    // Outside the workspace: cargo reads `.cargo/config.toml` from the working directory up.
    let root = tempfile::Builder::new()
        .prefix("jsoncost-readme-")
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    std::os::unix::fs::symlink(&workspace, root.path().join("jsoncost")).unwrap();
    let krate = root.path().join("my-service");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::create_dir_all(krate.join("benches")).unwrap();
    // What `cargo new my-service --lib` writes, then the README's lines; `[workspace]` keeps it
    // its own workspace wherever the temporary directory is.
    let package = "[package]\nname = \"my-service\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n";
    std::fs::write(krate.join("Cargo.toml"), format!("{package}{manifest}\n[workspace]\n")).unwrap();
    std::fs::write(krate.join("src/lib.rs"), lib).unwrap();
    std::fs::write(krate.join("benches/json.rs"), bench).unwrap();
    // The workspace's versions, so nothing new is fetched; cargo trims what is not used.
    std::fs::copy(workspace.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    // Kept between runs of this test (a first build takes minutes), apart from the workspace's
    // own artifacts, which are built with other flags.
    let target: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-crate-target");

    let cargo = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.current_dir(&krate)
            .args(["test", "--bench", "json", "--quiet"])
            .args(args)
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO_PROFILE_DEV_DEBUG", "false")
            .env("CARGO_TERM_COLOR", "never")
            .env("NO_COLOR", "1");
        for var in [
            "RUSTFLAGS",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_BUILD_RUSTFLAGS",
            "CARGO_BUILD_TARGET_DIR",
        ] {
            cmd.env_remove(var);
        }
        run(&mut cmd, Duration::from_secs(30 * 60))
    };

    // Test mode: every strategy once through the gate.
    let out = cargo(&[]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "test mode failed:\n{stdout}\n{stderr}");
    for line in [
        "gate order/deserialize typed/serde_json ... ok",
        "gate order/deserialize borrowed/sonic-rs ... ok",
        "gate order/deserialize lazy/sonic-rs ... ok",
        "gate order/serialize typed/simd-json ... ok",
    ] {
        assert!(stdout.lines().any(|l| l == line), "no {line:?} in:\n{stdout}");
    }
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("jsoncost: ") && l.ends_with(" passed, 0 failed")),
        "{stdout}"
    );
    // The default features build no other library.
    assert!(!stdout.contains("jiter"), "{stdout}");
    // Built without target-cpu=native on a CPU with AVX2: said, with the fix.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        assert!(stderr.contains("target-cpu=native"), "no SIMD warning on stderr:\n{stderr}");
    }

    let out = cargo(&["--", "--list"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(&out.stdout);
    assert!(listed.lines().any(|l| l == "order/deserialize typed/serde_json"), "{listed}");
    assert!(listed.lines().all(|l| l.starts_with("order/")), "{listed}");

    let out = cargo(&["--", "--help"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("usage: cargo bench --bench NAME -- [OPTIONS] [FILTER...]"));

    // A quick measurement of one strategy, written where asked.
    let results = root.path().join("results.json");
    let out = cargo(&[
        "--",
        "--bench",
        "--quick",
        "--filter",
        "typed/serde_json",
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    // Two tables, the build's note under the first one's title only (and once on stderr).
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        assert_eq!(text(&out.stdout).matches("Built without").count(), 1, "{}", text(&out.stdout));
        assert_eq!(text(&out.stderr).matches("Built without").count(), 1, "{}", text(&out.stderr));
    }
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    let tables: Vec<&str> = written["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["table"].as_str().unwrap())
        .collect();
    assert_eq!(tables, ["order/deserialize", "order/serialize"]);
    for exp in written["experiments"].as_array().unwrap() {
        let rows = exp["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["status"], "ok");
        assert!(rows[0]["mean_ns"].as_f64().is_some_and(|m| m > 0.0));
        assert!(rows[0]["allocs"].as_f64().is_some(), "the counting allocator is installed");
    }
}
