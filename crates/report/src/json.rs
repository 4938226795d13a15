//! JSON output: the results model itself, pretty printed.

use serde::Serialize;

/// Pretty JSON with a final newline.
pub(crate) fn pretty<T: Serialize>(value: &T) -> String {
    // The model has only string map keys and serde_json writes non-finite floats as null, so
    // serialisation cannot fail.
    let mut out = serde_json::to_string_pretty(value).expect("the result model always serialises");
    out.push('\n');
    out
}
