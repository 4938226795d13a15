//! The library's errors are the engine's (`jsoncost_engine::error`, which the conductor's are
//! too), re-exported at the root from here; and how a source chain is worded.

pub use jsoncost_engine::error::{Error, NoMatch, Result};

/// An error and its sources, as one line ("what: why: why").
#[cfg_attr(not(any(feature = "store", feature = "http")), allow(dead_code))]
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        // Some errors repeat their source in their own message.
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}
