//! Resident set size from /proc (Linux): the peak can be reset (`clear_refs` 5), so a peak can
//! be read for one untimed run. Elsewhere every function returns `None`/`false`.

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the process's peak RSS (VmHWM) to its current RSS; false when unsupported.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

/// The process's peak RSS in bytes since start or the last [`reset_peak`].
pub fn peak_bytes() -> Option<u64> {
    status_kib("VmHWM:").map(|k| k * 1024)
}

/// The process's current RSS in bytes.
pub fn current_bytes() -> Option<u64> {
    status_kib("VmRSS:").map(|k| k * 1024)
}

/// A row's RSS, read over one untimed run: the process's peak, and how far it rose above the
/// RSS the run started at (after [`PeakWindow::open`] trimmed the heap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RssPeak {
    /// The process's peak RSS during the run, bytes.
    pub peak_bytes: u64,
    /// How far the peak rose above the RSS at the window's opening, bytes.
    pub growth_bytes: u64,
}

/// An open RSS window. Opening it first hands the allocator's free pages back to the kernel
/// (`alloc::release_free_memory`: glibc's `malloc_trim`, and mimalloc's or jemalloc's own purge
/// when one of them serves): glibc keeps the pages of freed large blocks resident (its mmap
/// threshold rises after a large free), so without it a row's peak carries what the rows before
/// it freed. The baseline is then what the process really holds, and the growth is the row's
/// own. A fresh child per row would also do it, but would need every strategy (and a user's
/// types in a `cargo bench` harness) rebuilt in the child; growth above a trimmed baseline needs
/// nothing of them.
pub struct PeakWindow {
    baseline_bytes: u64,
}

impl PeakWindow {
    /// `None` where /proc cannot report or reset the peak.
    pub fn open() -> Option<PeakWindow> {
        crate::alloc::release_free_memory();
        let baseline_bytes = current_bytes()?;
        reset_peak().then_some(PeakWindow { baseline_bytes })
    }

    /// Reads the peak since [`PeakWindow::open`]; `None` where /proc cannot report it.
    pub fn close(self) -> Option<RssPeak> {
        let peak_bytes = peak_bytes()?;
        Some(RssPeak {
            peak_bytes,
            growth_bytes: peak_bytes.saturating_sub(self.baseline_bytes),
        })
    }
}
