//! Writes go to what a path is (`files::write_output`): a regular or new file atomically, a
//! symlink through its target, a device or a FIFO by opening it, never a directory; and reads
//! of a FIFO never block for ever. Device nodes are made in a temporary directory (mknod, as
//! root) so a broken build cannot replace the machine's /dev/null; /dev/null itself is used
//! where mknod is refused.

#![cfg(unix)]

use std::ffi::CString;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use jsoncost_report::files::{self, Destination, ReadError, check_output, destination, read_limited_within, write_output};

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
}

/// A character device like /dev/null (major 1, minor 3) or /dev/full (1, 7) in `dir`, or the
/// machine's own where mknod is refused.
fn char_device(dir: &Path, name: &str, minor: u32) -> PathBuf {
    let path = dir.join(name);
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string path.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, minor)) } == 0;
    if made { path } else { PathBuf::from(format!("/dev/{name}")) }
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).unwrap().file_type().is_char_device()
}

#[test]
fn a_char_device_is_written_in_place_and_stays_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let null = char_device(dir.path(), "null", 3);
    assert_eq!(destination(&null).unwrap(), Destination::Open(null.clone()));
    check_output(&null).unwrap();
    write_output(&null, b"{}\n").unwrap();
    assert!(is_char_device(&null), "{} is no longer a device", null.display());

    let full = char_device(dir.path(), "full", 7);
    let e = write_output(&full, b"{}\n").unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ENOSPC), "{e}");
    assert!(is_char_device(&full));
    // Nothing else was left in the directory (no temporary file beside the nodes).
    let mut names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert!(names.iter().all(|n| n == "null" || n == "full"), "{names:?}");
}

#[test]
fn the_machines_dev_null_stays_a_device() {
    write_output(Path::new("/dev/null"), b"x").unwrap();
    check_output(Path::new("/dev/null")).unwrap();
    assert!(is_char_device(Path::new("/dev/null")));
}

#[test]
fn a_fifo_is_written_to_its_reader_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    mkfifo(&fifo);
    check_output(&fifo).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&fifo).unwrap().read_to_string(&mut text).unwrap();
            text
        })
    };
    write_output(&fifo, b"results\n").unwrap();
    assert_eq!(reader.join().unwrap(), "results\n");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_fifo_nobody_reads_is_an_error_after_a_bounded_wait() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    mkfifo(&fifo);
    let e = write_output(&fifo, b"x").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
    assert_eq!(
        e.to_string(),
        "no process opened it for reading within 10 s (a FIFO or a socket with no reader)"
    );
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_symlink_is_written_through_and_the_link_stays() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("results-1.json");
    std::fs::write(&target, "old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("latest.json");
    std::os::unix::fs::symlink("results-1.json", &link).unwrap();
    assert_eq!(destination(&link).unwrap(), Destination::Replace(dir.path().join("results-1.json")));
    write_output(&link, b"new").unwrap();
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("results-1.json"));
    assert_eq!(std::fs::read(&target).unwrap(), b"new");
    // The replaced file keeps its permissions.
    assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);

    // A link to a link to a device writes the device.
    let dev = char_device(dir.path(), "null", 3);
    let l1 = dir.path().join("l1");
    let l2 = dir.path().join("l2");
    std::os::unix::fs::symlink(&dev, &l1).unwrap();
    std::os::unix::fs::symlink(&l1, &l2).unwrap();
    write_output(&l2, b"x").unwrap();
    assert!(is_char_device(&dev));
    assert!(std::fs::symlink_metadata(&l2).unwrap().file_type().is_symlink());

    // A dangling link creates its target.
    let dangling = dir.path().join("next.json");
    std::os::unix::fs::symlink("made.json", &dangling).unwrap();
    write_output(&dangling, b"{}").unwrap();
    assert_eq!(std::fs::read(dir.path().join("made.json")).unwrap(), b"{}");
    assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());

    // A loop of links is refused with ELOOP.
    std::os::unix::fs::symlink("loop-b", dir.path().join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", dir.path().join("loop-b")).unwrap();
    let e = write_output(&dir.path().join("loop-a"), b"x").unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ELOOP), "{e}");
}

#[test]
fn a_directory_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let e = write_output(dir.path(), b"x").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::IsADirectory);
    assert_eq!(e.to_string(), "it is a directory");
    assert_eq!(check_output(dir.path()).unwrap_err().kind(), std::io::ErrorKind::IsADirectory);
    // Also through a symlink.
    let link = dir.path().join("d");
    std::os::unix::fs::symlink(dir.path(), &link).unwrap();
    assert_eq!(write_output(&link, b"x").unwrap_err().kind(), std::io::ErrorKind::IsADirectory);
    assert!(std::fs::metadata(dir.path()).unwrap().is_dir());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_new_or_regular_file_is_replaced_atomically_with_0644() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    write_output(&path, b"one").unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
    let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
    write_output(&path, b"two").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    // Renamed over, not written in place: a reader of the old file never sees half a file.
    assert_ne!(std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap()), ino);
}

#[test]
fn dev_stdout_is_opened_not_replaced() {
    // /dev/stdout is a link into /proc (an open descriptor), so it is opened where it is.
    if Path::new("/dev/stdout").exists() {
        assert_eq!(
            destination(Path::new("/dev/stdout")).unwrap(),
            Destination::Open(PathBuf::from("/dev/stdout"))
        );
        assert_eq!(
            destination(Path::new("/dev/fd/2")).unwrap(),
            Destination::Open(PathBuf::from("/dev/fd/2"))
        );
    }
}

#[test]
fn a_fifo_with_no_writer_is_an_error_after_the_idle_wait_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.fifo");
    mkfifo(&fifo);
    let e = read_limited_within(&fifo, 1000, Duration::from_millis(300)).unwrap_err();
    let ReadError::Io(e) = e else { panic!("{e:?}") };
    assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
    assert_eq!(
        e.to_string(),
        "nothing arrived for 0.3 s (not a regular file: a FIFO with no writer, or a writer that stalled)"
    );
}

#[test]
fn a_fifo_whose_writer_comes_later_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.fifo");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            f.write_all(b"{\"a\":").unwrap();
            std::thread::sleep(Duration::from_millis(100));
            f.write_all(b"1}").unwrap();
        })
    };
    assert_eq!(read_limited_within(&fifo, 1000, Duration::from_secs(20)).unwrap(), b"{\"a\":1}");
    writer.join().unwrap();
    // The bound holds for a FIFO too.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            let _ = f.write_all(&[b' '; 5000]);
        })
    };
    let e = files::read_limited_within(&fifo, 1000, Duration::from_secs(20)).unwrap_err();
    assert!(matches!(e, ReadError::TooLarge { limit: 1000 }), "{e:?}");
    writer.join().unwrap();
}
