//! Cancellation: the caller decides when (the CLI's Ctrl-C handler); the library owns no
//! signal handler and only asks between strategies.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Asked between strategies (and by long loads): true once the run should stop.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicBool, Ordering};
///
/// let stop = Arc::new(AtomicBool::new(false));
/// let cancel = jsoncost::Cancel::flag(stop.clone());
/// assert!(!cancel.is_cancelled());
/// stop.store(true, Ordering::SeqCst); // e.g. from a Ctrl-C handler
/// assert!(cancel.is_cancelled());
/// // A study asks it between strategies: `Study::from_args().cancel(cancel)`.
/// ```
#[derive(Clone)]
pub struct Cancel {
    check: Arc<dyn Fn() -> bool + Send + Sync>,
}

impl Cancel {
    /// Never cancelled.
    pub fn never() -> Self {
        Cancel::when(|| false)
    }

    /// Cancelled once `f` returns true (e.g. a Ctrl-C flag's reader).
    pub fn when(f: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        Cancel { check: Arc::new(f) }
    }

    /// Cancelled once `flag` is set.
    pub fn flag(flag: Arc<AtomicBool>) -> Self {
        Cancel::when(move || flag.load(Ordering::SeqCst))
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        (self.check)()
    }
}

impl Default for Cancel {
    fn default() -> Self {
        Cancel::never()
    }
}

impl fmt::Debug for Cancel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancel").field("cancelled", &self.is_cancelled()).finish()
    }
}
