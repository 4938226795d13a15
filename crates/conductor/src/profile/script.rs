//! `perf script`'s text, read into samples: each sample's time and its stack, root first, with
//! Rust symbols demangled (rustc-demangle, without their hashes).
//!
//! Read here rather than with a collapsing crate (inferno's `collapse::perf`): folded stacks
//! drop each sample's time, and the share's interval is computed over time slices. The format
//! read is the one [`SCRIPT_FIELDS`] asks for: a header line `TID TIME:` then one line per
//! frame, leaf first, `ADDRESS SYMBOL (DSO)`, then a blank line.

/// The fields `perf script` is asked for (`-F`).
pub const SCRIPT_FIELDS: &str = "tid,time,ip,sym,dso";

/// One sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Its time on perf's clock (CLOCK_MONOTONIC, as `perf record -k monotonic` records), ns.
    pub time_ns: u64,
    /// Its stack, the root first; an unresolved frame is `[unknown]`.
    pub frames: Vec<String>,
    /// The leaf frame is the kernel's.
    pub kernel: bool,
}

/// The name of a frame perf could not resolve.
pub const UNKNOWN: &str = "[unknown]";

/// `symbol` demangled without its hash when it is a Rust symbol, as it is otherwise; `;` (the
/// folded format's separator) replaced.
pub fn demangle(symbol: &str) -> String {
    let name = match rustc_demangle::try_demangle(symbol) {
        Ok(d) => format!("{d:#}"),
        Err(_) => symbol.to_string(),
    };
    name.replace(';', ":")
}

/// Parses a frame line `ADDRESS SYMBOL (DSO)` into (symbol, dso). `SYMBOL` may hold spaces
/// (`<T as Trait>::m`) and may end in `+0x12` (an offset, dropped).
fn frame(line: &str) -> Option<(String, &str)> {
    let line = line.trim();
    let (address, rest) = line.split_once(char::is_whitespace)?;
    if !address.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let rest = rest.trim();
    let (symbol, dso) = match rest.rfind(" (") {
        Some(at) if rest.ends_with(')') => (&rest[..at], &rest[at + 2..rest.len() - 1]),
        _ => (rest, ""),
    };
    let symbol = match symbol.rsplit_once("+0x") {
        Some((s, off)) if off.bytes().all(|b| b.is_ascii_hexdigit()) => s,
        _ => symbol,
    };
    let symbol = if symbol.is_empty() { UNKNOWN } else { symbol };
    Some((demangle(symbol), dso))
}

/// A header line's time, ns: the token ending in `:` that reads as seconds.
fn header_time(line: &str) -> Option<u64> {
    line.split_whitespace().find_map(|t| {
        let secs = t.strip_suffix(':')?;
        let (whole, frac) = secs.split_once('.')?;
        let whole: u64 = whole.parse().ok()?;
        // Up to 9 digits of fraction, as nanoseconds.
        let digits = &frac[..frac.len().min(9)];
        let frac_ns: u64 = format!("{digits:0<9}").parse().ok()?;
        Some(whole * 1_000_000_000 + frac_ns)
    })
}

/// Every sample in `text`.
pub fn parse(text: &str) -> Vec<Sample> {
    read(text.as_bytes())
}

/// Every sample `perf script` writes to `reader`, read line by line as it comes. A line that is
/// neither a header nor a frame is skipped (perf's warnings); a sample without frames is kept
/// (its stack is one `[unknown]`).
pub fn read(reader: impl std::io::BufRead) -> Vec<Sample> {
    let mut out = Vec::new();
    let mut current: Option<(u64, Vec<String>, bool)> = None;
    let finish = |current: &mut Option<(u64, Vec<String>, bool)>, out: &mut Vec<Sample>| {
        if let Some((time_ns, mut frames, kernel)) = current.take() {
            if frames.is_empty() {
                frames.push(UNKNOWN.to_string());
            }
            frames.reverse();
            out.push(Sample { time_ns, frames, kernel });
        }
    };
    for line in reader.lines() {
        let Ok(line) = line else { break };
        let line = line.as_str();
        if line.trim().is_empty() {
            finish(&mut current, &mut out);
            continue;
        }
        // perf indents frames with a tab, and right-aligns a header's thread id with spaces.
        let indented = line.starts_with('\t');
        match (&mut current, indented) {
            (Some((_, frames, kernel)), true) => {
                if let Some((symbol, dso)) = frame(line) {
                    if frames.is_empty() {
                        *kernel = dso.starts_with("[kernel");
                    }
                    frames.push(symbol);
                }
            }
            (_, false) => {
                finish(&mut current, &mut out);
                if let Some(t) = header_time(line) {
                    current = Some((t, Vec::new(), false));
                }
            }
            (None, true) => {}
        }
    }
    finish(&mut current, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
  4242 12345.678901234: 
\t    55d5c1e2a3b4 _ZN10serde_json3ser9to_writer17h0123456789abcdefE+0x34 (/srv/my-server)
\t    55d5c1e2a000 <my_server::Order as serde::ser::Serialize>::serialize (/srv/my-server)
\t    55d5c1e20000 main (/srv/my-server)

  4243 12345.679901234: 
\t ffffffff8100 __schedule ([kernel.kallsyms])
\t    55d5c1e20000 [unknown] ([unknown])

perf: some warning
  4243 12345.680000000: 
";

    #[test]
    fn samples_read_with_their_time_and_stack_root_first_symbols_demangled() {
        let s = parse(TEXT);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].time_ns, 12_345_678_901_234);
        assert_eq!(
            s[0].frames,
            vec![
                "main",
                "<my_server::Order as serde::ser::Serialize>::serialize",
                "serde_json::ser::to_writer"
            ]
        );
        assert!(!s[0].kernel);
        assert_eq!(s[1].frames, vec![UNKNOWN, "__schedule"]);
        assert!(s[1].kernel);
        assert_eq!(
            (s[2].time_ns, s[2].frames.as_slice()),
            (12_345_680_000_000, &[UNKNOWN.to_string()][..])
        );
    }

    #[test]
    fn a_separator_in_a_name_cannot_split_a_folded_stack() {
        assert_eq!(demangle("a;b"), "a:b");
        assert_eq!(
            demangle("_ZN4core3ptr13drop_in_place17h0000000000000000E"),
            "core::ptr::drop_in_place"
        );
    }
}
