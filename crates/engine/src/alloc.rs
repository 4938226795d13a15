//! The allocation diagnoser: a counting global allocator.
//!
//! Install it in a binary (or a test binary) with
//! `#[global_allocator] static A: CountingAllocator = CountingAllocator::system();`
//! and measure with [`thread_measure`] (allocations made by the calling thread only) or
//! [`ProcessMeasure`] (allocations made by every thread, e.g. a multi-threaded server).
//!
//! What is counted, while a measurement is open:
//! - every `alloc` and `alloc_zeroed`: one allocation of the requested size;
//! - every `realloc`: one allocation of its *new* size (as BenchmarkDotNet and divan count it);
//!   live bytes move by `new - old`;
//! - every `dealloc`: no allocation, live bytes fall by the freed size.
//!
//! Sizes are the sizes requested by the program (the `Layout`), not what the underlying
//! allocator rounds them up to, so the counts are the same whichever allocator serves them.
//! Peak is the highest live byte count reached during the
//! measurement, relative to the live bytes when it started (memory allocated before and freed
//! during the measurement can make the running live count negative; that is correct, but it
//! means a process-wide peak is lowered when other threads free older memory meanwhile: count
//! only enrolled threads, or measure on one thread, when the peak must be exact).
//!
//! What it costs: when no measurement is open, each allocator call adds one relaxed atomic load
//! and one thread-local read (about a nanosecond). During a thread measurement it adds a few
//! thread-local updates; during a process measurement, three or four relaxed atomic RMWs that
//! contend across cores. The engine therefore counts only in its untimed Allocation pass, never
//! while timing.
//!
//! **The allocator underneath.** `CountingAllocator::selected()` counts over a
//! [`SelectedAllocator`]: the system allocator, mimalloc or jemalloc (cargo features `mimalloc`
//! and `jemalloc`), named by the [`ENV`] variable and fixed at the process's first allocation.
//! A process has one global allocator for its whole life, so comparing allocators takes one
//! process per allocator; choosing at run time lets those processes be the same binary, which
//! `jsoncost alloc` runs in lockstep (a binary per allocator would differ in code layout too,
//! and the counting layer, the same code over each, keeps Allocated exact under all three).
//! The choice costs one relaxed load and a predictable branch per call, alike for every
//! allocator. Results record which one served (`machine.allocator`, [`allocator`]).
//!
//! Written by hand rather than taken from a crate because it is the product itself: the tallies
//! must be per thread *and* per process, with peak tracking, and documented exactly.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, AtomicU64, Ordering::Relaxed};

use serde::{Deserialize, Serialize};

/// A global allocator the counting allocator can forward to, as results name it
/// (`machine.allocator`, the allocator tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Allocator {
    /// Rust's `std::alloc::System`: glibc's malloc on Linux.
    System,
    /// mimalloc (the `mimalloc` crate, cargo feature `mimalloc`).
    Mimalloc,
    /// jemalloc (the `tikv-jemallocator` crate, cargo feature `jemalloc`).
    Jemalloc,
}

impl Allocator {
    /// Every allocator, the system's first: the order tables list them in.
    pub const ALL: [Allocator; 3] = [Allocator::System, Allocator::Mimalloc, Allocator::Jemalloc];

    /// The name `JSONCOST_ALLOCATOR` and the result files use: `system`, `mimalloc`, `jemalloc`.
    pub fn as_str(self) -> &'static str {
        match self {
            Allocator::System => "system",
            Allocator::Mimalloc => "mimalloc",
            Allocator::Jemalloc => "jemalloc",
        }
    }

    /// Whether this build can forward to it (the engine's cargo features `mimalloc`,
    /// `jemalloc`; the CLI's and jsoncost's feature `allocators` turns both on).
    pub const fn is_built(self) -> bool {
        match self {
            Allocator::System => true,
            Allocator::Mimalloc => cfg!(feature = "mimalloc"),
            Allocator::Jemalloc => cfg!(feature = "jemalloc"),
        }
    }

    /// The allocators this build can forward to.
    pub fn built() -> Vec<Allocator> {
        Allocator::ALL.into_iter().filter(|a| a.is_built()).collect()
    }

    /// The value of [`ENV`] that selects it, padded to one length: two programs whose
    /// environments differ only by their allocator then have environments of one size (a
    /// program's environment sits on its stack, and another size would move its stack's
    /// alignment between the two).
    pub fn env_value(self) -> &'static str {
        match self {
            Allocator::System => "system  ",
            Allocator::Mimalloc => "mimalloc",
            Allocator::Jemalloc => "jemalloc",
        }
    }

    /// Its name in `bytes` (ASCII whitespace around it ignored); empty is the system's.
    fn parse_bytes(bytes: &[u8]) -> Option<Allocator> {
        let name = bytes.trim_ascii();
        if name.is_empty() {
            return Some(Allocator::System);
        }
        Allocator::ALL.into_iter().find(|a| a.as_str().as_bytes() == name)
    }

    /// 1, 2, 3: the non-zero code kept in the allocator's atomics (0 = none yet).
    const fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(code: u8) -> Option<Allocator> {
        Allocator::ALL.into_iter().find(|a| a.code() == code)
    }
}

impl std::fmt::Display for Allocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Allocator {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Allocator::parse_bytes(s.as_bytes()).ok_or_else(|| format!("unknown allocator {s:?}; valid: system, mimalloc, jemalloc"))
    }
}

/// The environment variable naming the allocator a [`SelectedAllocator`] forwards to:
/// `system` (also when unset or empty), `mimalloc` or `jemalloc`.
pub const ENV: &str = "JSONCOST_ALLOCATOR";

/// A global allocator forwarding to the one [`ENV`] names. The name is read once, with
/// getenv(3), on the first call (the process's first allocation, before `main` and before any
/// other thread exists) and never again: memory must be freed by the allocator that gave it.
/// A name that is unknown or not built selects the system allocator and is kept as
/// [`selection_error`], which the program reports at start (`jsoncost` exits 2).
pub struct SelectedAllocator;

const UNRESOLVED: u8 = 0;
const SYSTEM: u8 = Allocator::System.code();
#[cfg(feature = "mimalloc")]
const MIMALLOC: u8 = Allocator::Mimalloc.code();
#[cfg(feature = "jemalloc")]
const JEMALLOC: u8 = Allocator::Jemalloc.code();

/// The selected allocator's code, once resolved.
static SELECTION: AtomicU8 = AtomicU8::new(UNRESOLVED);
/// Why [`ENV`] was not followed: 0 it was, [`UNKNOWN_NAME`], or the code of an allocator this
/// build lacks.
static REFUSED: AtomicU8 = AtomicU8::new(0);
const UNKNOWN_NAME: u8 = 0xFF;

#[inline]
fn selection() -> u8 {
    match SELECTION.load(Relaxed) {
        UNRESOLVED => resolve_selection(),
        code => code,
    }
}

#[cold]
fn resolve_selection() -> u8 {
    // getenv(3), not std::env::var_os: that one allocates its result, here inside the allocator.
    // SAFETY: a NUL-terminated name; getenv returns null or a NUL-terminated string in the
    // environment, read before any thread can change it (see the type's documentation).
    let value = unsafe { libc::getenv(c"JSONCOST_ALLOCATOR".as_ptr()) };
    let (choice, refused) = if value.is_null() {
        (SYSTEM, 0)
    } else {
        // SAFETY: non-null, NUL-terminated (above).
        match Allocator::parse_bytes(unsafe { std::ffi::CStr::from_ptr(value) }.to_bytes()) {
            Some(a) if a.is_built() => (a.code(), 0),
            Some(a) => (SYSTEM, a.code()),
            None => (SYSTEM, UNKNOWN_NAME),
        }
    };
    // Two threads resolving at once read the same environment; the first to store wins and
    // both use its choice.
    match SELECTION.compare_exchange(UNRESOLVED, choice, Relaxed, Relaxed) {
        Ok(_) => {
            REFUSED.store(refused, Relaxed);
            choice
        }
        Err(chosen) => chosen,
    }
}

/// Calls `$method` of the selected allocator.
macro_rules! forward {
    ($method:ident($($arg:expr),*)) => {
        match selection() {
            #[cfg(feature = "mimalloc")]
            // SAFETY: the caller's contract, passed on unchanged.
            MIMALLOC => unsafe { mimalloc::MiMalloc.$method($($arg),*) },
            #[cfg(feature = "jemalloc")]
            // SAFETY: as above.
            JEMALLOC => unsafe { tikv_jemallocator::Jemalloc.$method($($arg),*) },
            // SAFETY: as above.
            _ => unsafe { System.$method($($arg),*) },
        }
    };
}

// SAFETY: every call goes to the one allocator selected for the process's whole life, so memory
// is always freed or grown by the allocator that gave it.
unsafe impl GlobalAlloc for SelectedAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        forward!(alloc(layout))
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        forward!(alloc_zeroed(layout))
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        forward!(dealloc(ptr, layout))
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        forward!(realloc(ptr, layout, new_size))
    }
}

/// Why a process does not run the allocator [`ENV`] asked for (it runs the system's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectionError {
    /// The variable names no allocator.
    Unknown(String),
    /// An allocator this build does not have.
    NotBuilt(Allocator),
}

impl std::fmt::Display for SelectionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelectionError::Unknown(value) => {
                write!(f, "{ENV}={value:?} names no allocator; valid: system, mimalloc, jemalloc")
            }
            SelectionError::NotBuilt(a) => write!(
                f,
                "{ENV}={a}: this build has no {a} (it has {}); build with the cargo feature `allocators` (on by default in the jsoncost binary, opt-in in the jsoncost library)",
                Allocator::built().iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

impl std::error::Error for SelectionError {}

/// The request of [`ENV`] a [`SelectedAllocator`] could not follow, if any (`None` too when no
/// `SelectedAllocator` serves this process).
pub fn selection_error() -> Option<SelectionError> {
    match REFUSED.load(Relaxed) {
        0 => None,
        UNKNOWN_NAME => Some(SelectionError::Unknown(
            std::env::var_os(ENV).map(|v| v.to_string_lossy().into_owned()).unwrap_or_default(),
        )),
        code => Allocator::from_code(code).map(SelectionError::NotBuilt),
    }
}

/// A global allocator that forwards to `A` and counts allocations while a measurement is open.
pub struct CountingAllocator<A = System> {
    inner: A,
    /// What `inner` is, for [`allocator`].
    named: Inner,
}

#[derive(Clone, Copy)]
enum Inner {
    Named(Allocator),
    /// A [`SelectedAllocator`]: whichever it selected.
    Selected,
    /// An allocator of the program's own.
    Unnamed,
}

impl CountingAllocator<System> {
    /// The counting allocator over the system allocator.
    pub const fn system() -> Self {
        Self {
            inner: System,
            named: Inner::Named(Allocator::System),
        }
    }
}

impl CountingAllocator<SelectedAllocator> {
    /// The counting allocator over the allocator [`ENV`] selects (see [`SelectedAllocator`]):
    /// `#[global_allocator] static A: CountingAllocator<SelectedAllocator> = CountingAllocator::selected();`
    pub const fn selected() -> Self {
        Self {
            inner: SelectedAllocator,
            named: Inner::Selected,
        }
    }
}

impl<A> CountingAllocator<A> {
    /// The counting allocator over another allocator (results record no allocator name).
    pub const fn new(inner: A) -> Self {
        Self {
            inner,
            named: Inner::Unnamed,
        }
    }

    /// What [`INSTALLED`] records of this allocator: the code of the allocator serving, with
    /// [`SELECTABLE`] when it was selected.
    #[inline]
    fn installed_code(&self) -> u8 {
        match self.named {
            Inner::Named(a) => a.code(),
            Inner::Selected => SELECTION.load(Relaxed) | SELECTABLE,
            Inner::Unnamed => UNNAMED,
        }
    }
}

/// Set in [`INSTALLED`] when the counting allocator forwards to a [`SelectedAllocator`].
const SELECTABLE: u8 = 0x80;
/// [`INSTALLED`] of a counting allocator over an allocator of the program's own.
const UNNAMED: u8 = 0x7F;

/// 0 until a `CountingAllocator` serves an allocation; then which allocator it forwards to
/// ([`CountingAllocator::installed_code`]).
static INSTALLED: AtomicU8 = AtomicU8::new(0);
static PROCESS_ON: AtomicBool = AtomicBool::new(false);
/// When set, a process measurement counts only threads that called [`enroll_current_thread`].
static ONLY_ENROLLED: AtomicBool = AtomicBool::new(false);
static P_BYTES: AtomicU64 = AtomicU64::new(0);
static P_COUNT: AtomicU64 = AtomicU64::new(0);
static P_LIVE: AtomicI64 = AtomicI64::new(0);
static P_PEAK: AtomicI64 = AtomicI64::new(0);
/// One process measurement at a time: the process tallies are shared.
static PROCESS_LOCK: Mutex<()> = Mutex::new(());

struct ThreadTally {
    on: Cell<bool>,
    enrolled: Cell<bool>,
    bytes: Cell<u64>,
    count: Cell<u64>,
    live: Cell<i64>,
    peak: Cell<i64>,
}

thread_local! {
    // Const-initialised and without Drop: touching it never allocates nor registers a destructor,
    // so it is safe to use from inside the allocator.
    static TALLY: ThreadTally = const {
        ThreadTally { on: Cell::new(false), enrolled: Cell::new(false), bytes: Cell::new(0), count: Cell::new(0), live: Cell::new(0), peak: Cell::new(0) }
    };
}

#[inline]
fn record(new_bytes: usize, live_delta: i64, is_alloc: bool) {
    if PROCESS_ON.load(Relaxed) && (!ONLY_ENROLLED.load(Relaxed) || TALLY.try_with(|t| t.enrolled.get()).unwrap_or(false)) {
        if is_alloc {
            P_BYTES.fetch_add(new_bytes as u64, Relaxed);
            P_COUNT.fetch_add(1, Relaxed);
        }
        let live = P_LIVE.fetch_add(live_delta, Relaxed) + live_delta;
        P_PEAK.fetch_max(live, Relaxed);
    }
    let _ = TALLY.try_with(|t| {
        if t.on.get() {
            if is_alloc {
                t.bytes.set(t.bytes.get() + new_bytes as u64);
                t.count.set(t.count.get() + 1);
            }
            let live = t.live.get() + live_delta;
            t.live.set(live);
            if live > t.peak.get() {
                t.peak.set(live);
            }
        }
    });
}

// SAFETY: forwards every call unchanged to the inner allocator; counting has no effect on memory.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { self.inner.alloc(layout) };
        if !p.is_null() {
            INSTALLED.store(self.installed_code(), Relaxed);
            record(layout.size(), layout.size() as i64, true);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { self.inner.alloc_zeroed(layout) };
        if !p.is_null() {
            INSTALLED.store(self.installed_code(), Relaxed);
            record(layout.size(), layout.size() as i64, true);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { self.inner.dealloc(ptr, layout) };
        record(0, -(layout.size() as i64), false);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            record(new_size, new_size as i64 - layout.size() as i64, true);
        }
        p
    }
}

/// What one measurement saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AllocStats {
    /// Bytes requested (alloc, alloc_zeroed, and realloc's new size).
    pub bytes: u64,
    /// Number of allocations (alloc, alloc_zeroed, realloc).
    pub count: u64,
    /// Highest live heap bytes above the starting point.
    pub peak_bytes: u64,
    /// Live bytes at the end relative to the start (negative if more was freed than allocated).
    pub net_live_bytes: i64,
}

/// True once a `CountingAllocator` has served an allocation in this process, i.e. it is the
/// global allocator. Without it every measurement reads zero, so callers report "n/a" instead.
pub fn is_installed() -> bool {
    installed() != 0
}

/// [`INSTALLED`], after one allocation through whatever the global allocator is.
fn installed() -> u8 {
    if INSTALLED.load(Relaxed) == 0 {
        std::hint::black_box(Box::new(0u8));
    }
    INSTALLED.load(Relaxed)
}

/// The allocator under the installed `CountingAllocator`: `None` when none is installed or it
/// forwards to an allocator of the program's own. Recorded as `machine.allocator`.
pub fn allocator() -> Option<Allocator> {
    Allocator::from_code(installed() & !SELECTABLE)
}

/// Whether the installed `CountingAllocator` forwards to a [`SelectedAllocator`], so this
/// binary run again with [`ENV`] set runs another allocator (what `--allocators` needs).
pub fn is_selectable() -> bool {
    installed() & SELECTABLE != 0
}

/// Hands the free memory of the allocator serving this process back to the kernel, and glibc's
/// (which C code uses whatever the global allocator is), so an RSS read next is what the
/// process holds rather than what earlier work freed: `malloc_trim`, mimalloc's `mi_collect`,
/// jemalloc's purge of every arena.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own arenas under their locks; any thread may call it.
    unsafe {
        libc::malloc_trim(0);
    }
    match allocator() {
        #[cfg(feature = "mimalloc")]
        // SAFETY: mi_collect only frees mimalloc's own unused memory; any thread may call it.
        Some(Allocator::Mimalloc) => unsafe { libmimalloc_sys::mi_collect(true) },
        #[cfg(feature = "jemalloc")]
        Some(Allocator::Jemalloc) => {
            // "arena.<MALLCTL_ARENAS_ALL>.purge": every arena's unused dirty pages, at once.
            // SAFETY: a NUL-terminated control name, no old or new value.
            unsafe {
                tikv_jemalloc_sys::mallctl(
                    c"arena.4096.purge".as_ptr(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    0,
                );
            }
        }
        _ => {}
    }
}

/// Counts the allocations the calling thread makes while `f` runs. Nests: an outer measurement
/// also sees what an inner one counted.
pub fn thread_measure<R>(f: impl FnOnce() -> R) -> (R, AllocStats) {
    let (was_on, bytes0, count0, live0, peak0) = TALLY.with(|t| {
        let s = (t.on.get(), t.bytes.get(), t.count.get(), t.live.get(), t.peak.get());
        t.peak.set(t.live.get());
        t.on.set(true);
        s
    });
    let r = f();
    let stats = TALLY.with(|t| {
        let stats = AllocStats {
            bytes: t.bytes.get() - bytes0,
            count: t.count.get() - count0,
            peak_bytes: (t.peak.get() - live0).max(0) as u64,
            net_live_bytes: t.live.get() - live0,
        };
        t.on.set(was_on);
        t.peak.set(t.peak.get().max(peak0));
        stats
    });
    (r, stats)
}

/// An open measurement of every thread's allocations. Only one is open at a time (a second
/// `start` waits for the first to finish).
pub struct ProcessMeasure {
    _lock: std::sync::MutexGuard<'static, ()>,
    bytes0: u64,
    count0: u64,
    live0: i64,
}

/// Marks the calling thread as one whose allocations [`ProcessMeasure::start_enrolled`] counts,
/// e.g. from a server runtime's `on_thread_start`, so a load generator in the same process is
/// not counted as the server's.
pub fn enroll_current_thread() {
    TALLY.with(|t| t.enrolled.set(true));
}

/// Runs `f` with the calling thread enrolled (see [`enroll_current_thread`]), then restores
/// what it was: a thread that measures one operation this way may later drive a load against
/// a server whose enrolled threads are being counted.
pub fn while_enrolled<R>(f: impl FnOnce() -> R) -> R {
    let was = TALLY.with(|t| t.enrolled.replace(true));
    let r = f();
    TALLY.with(|t| t.enrolled.set(was));
    r
}

impl ProcessMeasure {
    /// Starts counting allocations of all threads.
    pub fn start() -> Self {
        Self::begin(false)
    }

    /// Starts counting allocations of enrolled threads only (see [`enroll_current_thread`]).
    pub fn start_enrolled() -> Self {
        Self::begin(true)
    }

    fn begin(only_enrolled: bool) -> Self {
        let lock = PROCESS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let live0 = P_LIVE.load(Relaxed);
        P_PEAK.store(live0, Relaxed);
        let m = Self {
            _lock: lock,
            bytes0: P_BYTES.load(Relaxed),
            count0: P_COUNT.load(Relaxed),
            live0,
        };
        ONLY_ENROLLED.store(only_enrolled, Relaxed);
        PROCESS_ON.store(true, Relaxed);
        m
    }

    /// What has been counted so far; the measurement stays open.
    pub fn read(&self) -> AllocStats {
        AllocStats {
            bytes: P_BYTES.load(Relaxed) - self.bytes0,
            count: P_COUNT.load(Relaxed) - self.count0,
            peak_bytes: (P_PEAK.load(Relaxed) - self.live0).max(0) as u64,
            net_live_bytes: P_LIVE.load(Relaxed) - self.live0,
        }
    }

    /// Stops counting and returns the totals.
    pub fn finish(self) -> AllocStats {
        PROCESS_ON.store(false, Relaxed);
        self.read()
    }
}

impl Drop for ProcessMeasure {
    fn drop(&mut self) {
        PROCESS_ON.store(false, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_padded_or_not_and_the_variable_is_the_one_read() {
        for a in Allocator::ALL {
            assert_eq!(a.as_str().parse::<Allocator>(), Ok(a));
            assert_eq!(a.env_value().parse::<Allocator>(), Ok(a));
            assert_eq!(a.env_value().len(), Allocator::Mimalloc.env_value().len());
            assert_eq!(Allocator::from_code(a.code()), Some(a));
            assert_eq!(serde_json::to_string(&a).unwrap(), format!("\"{a}\""));
        }
        assert_eq!("".parse::<Allocator>(), Ok(Allocator::System));
        assert_eq!(
            "tcmalloc".parse::<Allocator>().unwrap_err(),
            "unknown allocator \"tcmalloc\"; valid: system, mimalloc, jemalloc"
        );
        assert_eq!(c"JSONCOST_ALLOCATOR".to_str(), Ok(ENV));
        assert!(Allocator::System.is_built());
        assert_eq!(Allocator::built().first(), Some(&Allocator::System));
    }

    #[test]
    fn an_allocator_not_built_is_named_with_what_the_build_has() {
        let e = SelectionError::NotBuilt(Allocator::Jemalloc).to_string();
        assert!(
            e.starts_with("JSONCOST_ALLOCATOR=jemalloc: this build has no jemalloc (it has system"),
            "{e}"
        );
        assert!(e.contains("cargo feature `allocators`"), "{e}");
    }
}
