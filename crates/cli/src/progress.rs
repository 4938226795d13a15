//! Progress on stderr (indicatif hides itself when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::time::Duration;

/// One bar for a whole command: position = strategies done, message = what runs now.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new(total: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise} / ~{eta_precise}] {bar:30} {pos}/{len} {wide_msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        // The ticker is a thread: only where the bar is drawn (a terminal), so a pipe or a CI log
        // costs none, and a process short of threads or address space does not panic for it.
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        Progress { bar }
    }

    /// No bar and no ticker thread: for the counted child of `--measure counts`, where a
    /// thread waking on a timer would run between counted operations at moments that differ
    /// from process to process (its allocations and the locks it shares moved some rows'
    /// instruction counts by up to 1%).
    pub fn hidden() -> Self {
        Progress {
            bar: ProgressBar::hidden(),
        }
    }

    pub fn start(&self, what: &str) {
        self.bar.set_message(what.to_string());
    }

    pub fn done_one(&self) {
        self.bar.inc(1);
    }

    pub fn add_total(&self, n: u64) {
        self.bar.inc_length(n);
    }

    /// Prints a line above the bar (warnings, notes).
    pub fn note(&self, line: &str) {
        self.bar.suspend(|| {
            // Nothing to do when stderr is gone: the results are still written.
            let _ = write_line(&mut std::io::stderr().lock(), line);
        });
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Writes `line` and its newline in one `write`: `eprintln!` issues one per formatted piece, and
/// a crash note written from a signal handler between two of them landed mid-line
/// ("micro: 0 sjsoncost aborted …").
fn write_line(out: &mut impl Write, line: &str) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    out.write_all(&bytes)
}

#[cfg(test)]
mod tests {
    use super::write_line;
    use std::io::Write;

    /// Records each `write` call it receives.
    #[derive(Default)]
    struct Calls(Vec<Vec<u8>>);

    impl Write for Calls {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_note_is_one_write_with_its_newline() {
        let mut calls = Calls::default();
        write_line(&mut calls, &format!("{}: {:.0} s", "micro", 0.4)).unwrap();
        assert_eq!(calls.0, [b"micro: 0 s\n".to_vec()]);
    }
}
