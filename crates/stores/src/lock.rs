//! Who holds a store file's lock, for the error that says so. redb locks its file while a
//! process has it open; Linux lists file locks, with the holder's pid where the lock has one,
//! in /proc/locks. Read by hand: it is one line format, and no crate reads it.

use std::path::{Path, PathBuf};

use crate::error::StoreError;

/// The error for `path` being open in another process: names the holder when it can be known
/// and suggests a path of this process's own.
pub(crate) fn locked(path: &Path) -> StoreError {
    let holder = holder_pid(path)
        .map(|pid| match command_line(pid) {
            Some(cmd) => format!("another process (pid {pid}: {cmd})"),
            None => format!("another process (pid {pid})"),
        })
        .unwrap_or_else(|| "another process".to_string());
    StoreError::Locked {
        path: path.to_path_buf(),
        holder,
        suggestion: sibling(path, &std::process::id().to_string()).display().to_string(),
    }
}

/// `dir/store.redb` → `dir/store-{tag}.redb`.
pub(crate) fn sibling(path: &Path, tag: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "store".into(), |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{tag}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{tag}"),
    };
    path.with_file_name(name)
}

#[cfg(target_os = "linux")]
fn holder_pid(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let own = std::process::id();
    locks.lines().find_map(|line| {
        let pid = lock_holder(line, meta.dev(), meta.ino())?;
        (pid != own).then_some(pid)
    })
}

#[cfg(not(target_os = "linux"))]
fn holder_pid(_path: &Path) -> Option<u32> {
    None
}

/// The pid a /proc/locks line gives for the file (`dev`, `ino`), when it names one: e.g.
/// `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF` (device as hex major:minor). Open file
/// description locks show pid -1: no holder is known from them.
fn lock_holder(line: &str, dev: u64, ino: u64) -> Option<u32> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    // A blocked waiter's line has "->" after the number.
    let fields = if fields.get(1) == Some(&"->") { &fields[1..] } else { &fields[..] };
    let (pid, file) = (fields.get(4)?, fields.get(5)?);
    let mut parts = file.split(':');
    let major = u64::from_str_radix(parts.next()?, 16).ok()?;
    let minor = u64::from_str_radix(parts.next()?, 16).ok()?;
    let inode: u64 = parts.next()?.parse().ok()?;
    // glibc's encoding of a dev_t into major and minor numbers.
    let (dev_major, dev_minor) = (((dev >> 32) & !0xfff) | ((dev >> 8) & 0xfff), ((dev >> 12) & !0xff) | (dev & 0xff));
    if (major, minor, inode) != (dev_major, dev_minor, ino) {
        return None;
    }
    pid.parse::<u32>().ok().filter(|&p| p > 0)
}

/// The process's command line, shortened, when it can be read.
fn command_line(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let words: Vec<String> = raw
        .split(|&b| b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    let mut cmd = words.join(" ");
    if cmd.is_empty() {
        return None;
    }
    if cmd.chars().count() > 80 {
        cmd = cmd.chars().take(77).collect::<String>() + "...";
    }
    Some(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_proc_locks_line() {
        // dev 0x0801 = major 8, minor 1.
        let line = "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF";
        assert_eq!(lock_holder(line, 0x0801, 1234), Some(4242));
        assert_eq!(lock_holder(line, 0x0801, 1235), None, "another inode");
        assert_eq!(lock_holder(line, 0x0802, 1234), None, "another device");
        assert_eq!(lock_holder("2: OFDLCK ADVISORY  WRITE -1 08:01:1234 0 0", 0x0801, 1234), None);
        assert_eq!(
            lock_holder("3: -> FLOCK  ADVISORY  WRITE 77 08:01:1234 0 EOF", 0x0801, 1234),
            Some(77)
        );
        assert_eq!(lock_holder("garbage", 0x0801, 1234), None);
    }

    #[test]
    fn siblings_keep_the_extension() {
        assert_eq!(sibling(Path::new("/t/j/store.redb"), "2"), PathBuf::from("/t/j/store-2.redb"));
        assert_eq!(sibling(Path::new("/t/j/store"), "9"), PathBuf::from("/t/j/store-9"));
    }
}
