//! The build's SIMD features against this CPU's, said once per process on stderr: a crate
//! built without `-C target-cpu=native` measures sonic-rs's and simd-json's portable code, and
//! nothing else would tell the reader (the tables' headers and results.json say it too).

use std::sync::Once;

use jsoncost_engine::Machine;

static WARNED: Once = Once::new();

/// Prints the build's note ([`jsoncost_report::simd_note`]) to stderr, the first time only.
pub(crate) fn warn_once(machine: &Machine) {
    if let Some(note) = jsoncost_report::simd_note(machine) {
        WARNED.call_once(|| eprintln!("warning: {note}"));
    }
}
