//! The one place jsoncost keeps files of its own under the temporary directory: a directory
//! per user, `<temp dir>/jsoncost-<euid>`, created 0700 and checked on every use (a real
//! directory, not a symlink, owned by this user, writable by no one else), so no other local
//! user can plant a link or a file in it. The temporary directory itself (`$TMPDIR`, else
//! `/tmp`) must exist: it is never created. Files in it are created with [`create_new`]
//! (`O_EXCL|O_NOFOLLOW`, 0600); scratch directories named with the pid that made them
//! ([`scratch_dir`]) are reclaimed by a later run once that pid is gone ([`reclaim`]).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Why the private directory cannot be used. Every message names the path.
#[derive(Debug, thiserror::Error)]
pub enum PrivateDirError {
    /// The temporary directory (`$TMPDIR`) is missing or not a directory; it is not created.
    #[error("the temporary directory {path} ($TMPDIR, else /tmp) {reason}")]
    TempDir {
        /// The temporary directory.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The private directory exists but is not safe to use.
    #[error("refusing {path}: {reason}; remove it or set TMPDIR to a directory of your own")]
    Unsafe {
        /// The directory.
        path: PathBuf,
        /// Why it is refused.
        reason: String,
    },
    /// Creating or inspecting it failed.
    #[error("{operation} {path}: {cause}")]
    Io {
        /// What was being done.
        operation: &'static str,
        /// The directory.
        path: PathBuf,
        /// The OS error.
        cause: io::Error,
    },
}

/// `<temp dir>/jsoncost-<euid>`, created or checked.
pub fn dir() -> Result<PathBuf, PrivateDirError> {
    dir_in(&std::env::temp_dir())
}

/// `<base>/jsoncost-<euid>`, created 0700 if missing, then checked: a directory (not a link),
/// owned by this process's effective user, neither group- nor world-writable. `base` must
/// exist.
pub fn dir_in(base: &Path) -> Result<PathBuf, PrivateDirError> {
    match std::fs::metadata(base) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(PrivateDirError::TempDir {
                path: base.to_path_buf(),
                reason: "is not a directory".into(),
            });
        }
        Err(e) => {
            return Err(PrivateDirError::TempDir {
                path: base.to_path_buf(),
                reason: format!("cannot be used: {e}"),
            });
        }
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let euid = unsafe { libc::geteuid() };
    let path = base.join(format!("jsoncost-{euid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(cause) => {
            return Err(PrivateDirError::Io {
                operation: "creating directory",
                path,
                cause,
            });
        }
    }
    check(&path, euid)?;
    Ok(path)
}

/// Refuses `path` unless it is a directory (not a link) of `euid` that no one else can write.
/// The temporary directory is sticky (`/tmp` is 1777), so once checked the entry cannot be
/// renamed or replaced by another user.
fn check(path: &Path, euid: u32) -> Result<(), PrivateDirError> {
    let unsafe_dir = |reason: String| PrivateDirError::Unsafe {
        path: path.to_path_buf(),
        reason,
    };
    let m = std::fs::symlink_metadata(path).map_err(|cause| PrivateDirError::Io {
        operation: "inspecting",
        path: path.to_path_buf(),
        cause,
    })?;
    if m.file_type().is_symlink() {
        return Err(unsafe_dir("it is a symbolic link".into()));
    }
    if !m.is_dir() {
        return Err(unsafe_dir("it is not a directory".into()));
    }
    if m.uid() != euid {
        return Err(unsafe_dir(format!("it is owned by uid {}, not by this user (uid {euid})", m.uid())));
    }
    let mode = m.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(unsafe_dir(format!("it is writable by others (mode {mode:o})")));
    }
    Ok(())
}

/// Creates `path` anew for writing, mode 0600: fails if anything (a file, a planted symlink) is
/// already there, and never follows a link.
pub fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// A fresh scratch directory `<dir>/<prefix>-<pid>-<n>` (0700), `n` the first free number, so
/// that [`reclaim`] can tell a dead process's leftovers by the pid in the name.
pub fn scratch_dir(dir: &Path, prefix: &str) -> io::Result<PathBuf> {
    let pid = std::process::id();
    // Bounded: a process makes a handful of these, and a name taken means a leftover of a
    // process with the same pid, which `reclaim` removes on the next run.
    for n in 0..10_000u32 {
        let path = dir.join(format!("{prefix}-{pid}-{n}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{}: no free {prefix}-{pid}-N name", dir.display()),
    ))
}

/// Removes the entries `<prefix>-<pid>-*` of `dir` whose process is gone (a conductor killed
/// before it could clean up): `kill(pid, 0)` answering ESRCH. A pid that is alive (possibly
/// reused) keeps its entries. Returns how many were removed; errors are ignored (best effort:
/// another run may be removing the same leftovers).
pub fn reclaim(dir: &Path, prefix: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten().take(100_000) {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|n| n.strip_prefix('-'))
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if pid <= 0 || pid_alive(pid) {
            continue;
        }
        let path = entry.path();
        let gone = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        if gone.is_ok() {
            removed += 1;
        }
    }
    removed
}

fn pid_alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{chown, symlink};

    fn base() -> PathBuf {
        let b = std::env::temp_dir().join(format!(
            "jsoncost-private-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&b);
        std::fs::create_dir(&b).unwrap();
        b
    }

    fn euid() -> u32 {
        unsafe { libc::geteuid() }
    }

    #[test]
    fn the_directory_is_created_private_and_reused() {
        let b = base();
        let d = dir_in(&b).unwrap();
        assert_eq!(d, b.join(format!("jsoncost-{}", euid())));
        assert_eq!(std::fs::metadata(&d).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(dir_in(&b).unwrap(), d);
        std::fs::remove_dir_all(&b).unwrap();
    }

    #[test]
    fn a_planted_symlink_is_refused_and_not_followed() {
        let b = base();
        let victim = b.join("victim");
        std::fs::create_dir(&victim).unwrap();
        let d = b.join(format!("jsoncost-{}", euid()));
        symlink(&victim, &d).unwrap();
        let e = dir_in(&b).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "refusing {}: it is a symbolic link; remove it or set TMPDIR to a directory of your own",
                d.display()
            )
        );
        // A link planted at a file's name is not followed either.
        let target = b.join("victim-file");
        std::fs::write(&target, b"precious").unwrap();
        let link = b.join("planted");
        symlink(&target, &link).unwrap();
        assert_eq!(create_new(&link).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");
        std::fs::remove_dir_all(&b).unwrap();
    }

    #[test]
    fn a_directory_of_another_user_or_writable_by_others_is_refused() {
        let b = base();
        let d = b.join(format!("jsoncost-{}", euid()));
        std::fs::DirBuilder::new().mode(0o700).create(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(
            dir_in(&b).unwrap_err().to_string(),
            format!(
                "refusing {}: it is writable by others (mode 777); remove it or set TMPDIR to a directory of your own",
                d.display()
            )
        );
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
        // Giving a directory away needs root (as the tests run in CI); elsewhere this half is
        // not checkable.
        if euid() == 0 {
            chown(&d, Some(65534), Some(65534)).unwrap();
            assert_eq!(
                dir_in(&b).unwrap_err().to_string(),
                format!(
                    "refusing {}: it is owned by uid 65534, not by this user (uid 0); remove it or set TMPDIR to a directory of your own",
                    d.display()
                )
            );
        }
        std::fs::remove_dir_all(&b).unwrap();
    }

    #[test]
    fn a_missing_temp_dir_is_an_error_naming_it_and_not_created() {
        let missing = Path::new("/nonexistent/dir");
        assert_eq!(
            dir_in(missing).unwrap_err().to_string(),
            "the temporary directory /nonexistent/dir ($TMPDIR, else /tmp) cannot be used: No such file or directory (os error 2)"
        );
        assert!(!missing.exists());
    }

    #[test]
    fn scratch_of_a_dead_pid_is_reclaimed_and_a_live_ones_kept() {
        let b = base();
        let mine = scratch_dir(&b, "ab").unwrap();
        assert_eq!(mine, b.join(format!("ab-{}-0", std::process::id())));
        assert_eq!(scratch_dir(&b, "ab").unwrap(), b.join(format!("ab-{}-1", std::process::id())));
        // A pid past the kernel's pid_max belongs to no process.
        let dead = b.join("ab-2147483646-0");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("b.json"), b"{}").unwrap();
        std::fs::write(b.join("ab-2147483646-base.stderr"), b"").unwrap();
        std::fs::write(b.join("other-2147483646-0"), b"").unwrap();
        assert_eq!(reclaim(&b, "ab"), 2);
        assert!(!dead.exists());
        assert!(mine.exists());
        assert!(b.join("other-2147483646-0").exists());
        std::fs::remove_dir_all(&b).unwrap();
    }
}
