//! What `compare` and `ab` print alike: a table of per-row verdicts, the rows that could not be
//! compared, the summary and an optional note; each format lays it out.

use crate::view::Align;

pub(crate) struct Verdicts<'a> {
    /// `compare`, `ab`: the markdown heading's command.
    pub command: &'static str,
    pub columns: &'a [(&'static str, Align)],
    pub rows: Vec<Vec<String>>,
    pub not_compared: Vec<String>,
    pub summary: String,
    pub regression: bool,
    /// A last paragraph (compare's note on unpaired comparisons).
    pub note: Option<String>,
}
