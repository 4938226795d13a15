//! jsoncost's own files under the temporary directory live in a per-user private directory,
//! `$TMPDIR/jsoncost-<euid>`: one another user owns (or that others can write) is refused with
//! a message naming it, a missing `$TMPDIR` is an error naming it and is not created.

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};

fn jsoncost(tmpdir: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    c.env("NO_COLOR", "1").env("TMPDIR", tmpdir).stdin(Stdio::null());
    c
}

fn euid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// Exit code and the last line of stderr (the error; `--quick`'s note comes before it) of
/// `cmd`, stdout discarded.
fn run(mut cmd: Command) -> (Option<i32>, String) {
    let out = cmd.stdout(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    (out.status.code(), stderr.lines().last().unwrap_or_default().to_string())
}

#[test]
fn a_private_dir_another_user_owns_or_others_can_write_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let private = tmp.path().join(format!("jsoncost-{}", euid()));
    std::fs::DirBuilder::new().mode(0o700).create(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o777)).unwrap();
    let store = || {
        let mut c = jsoncost(tmp.path());
        c.args(["store", "--quick", "--docs", "10"]);
        c
    };
    let stream = || {
        let mut c = jsoncost(tmp.path());
        c.args(["stream", "--quick", "--readings", "10"]);
        c
    };
    let refused = |reason: &str| {
        format!(
            "error: refusing {}: {reason}; remove it or set TMPDIR to a directory of your own",
            private.display()
        )
    };
    for cmd in [store(), stream()] {
        assert_eq!(run(cmd), (Some(3), refused("it is writable by others (mode 777)")));
    }
    assert_eq!(std::fs::read_dir(&private).unwrap().count(), 0);
    // Giving the directory to another user needs root (as CI runs the tests).
    if euid() == 0 {
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::chown(&private, Some(65534), Some(65534)).unwrap();
        let reason = "it is owned by uid 65534, not by this user (uid 0)";
        for cmd in [store(), stream()] {
            assert_eq!(run(cmd), (Some(3), refused(reason)));
        }
        assert_eq!(std::fs::read_dir(&private).unwrap().count(), 0);
    }
}

#[test]
fn a_missing_tmpdir_is_an_error_naming_it_and_is_not_created() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nonexistent/dir");
    let mut c = jsoncost(&missing);
    c.args(["stream", "--quick", "--readings", "10"]);
    assert_eq!(
        run(c),
        (
            Some(3),
            format!(
                "error: the temporary directory {} ($TMPDIR, else /tmp) cannot be used: No such file or directory (os error 2)",
                missing.display()
            )
        )
    );
    assert!(!tmp.path().join("nonexistent").exists());
}
