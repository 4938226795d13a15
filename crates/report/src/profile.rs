//! The words of a profiled server (`Row::profile`): the verdict's opening share, where the JSON
//! work went, and what each figure counts. Every format reads these.

use jsoncost_engine::profile::{CallSite, Direction, Sampled, ServerProfile};
use jsoncost_engine::{MeasuredTable, Row};

use crate::units;

/// The first row of `exp` with a profile.
pub fn profiled(exp: &MeasuredTable) -> Option<(&Row, &ServerProfile)> {
    exp.rows.iter().find_map(|r| r.profile.as_deref().map(|p| (r, p)))
}

/// `41.0% (99% interval 38.2%–43.9%)`: JSON's share of the samples with its interval, or the
/// counts alone without one.
fn share_with_interval(s: &Sampled) -> String {
    match s.json.interval {
        Some(i) => format!(
            "{} (99% interval {}–{})",
            units::percent(i.estimate),
            units::percent(i.low),
            units::percent(i.high)
        ),
        None => format!(
            "{} ({} of {} samples; too few slices for an interval)",
            units::percent(s.fraction(s.json.count)),
            s.json.count,
            s.samples
        ),
    }
}

/// `my::list (via serde_json::ser::to_writer)`: the caller, the handler a reader acts on, and
/// the JSON entry most of its samples went through.
pub fn site(s: &CallSite) -> String {
    match &s.caller {
        Some(caller) => format!("{caller} (via {})", s.entry),
        None => format!("{} (its caller not unwound)", s.entry),
    }
}

/// The verdict's opening line: "JSON is 41.0% of your server's CPU (99% interval …; parse
/// 12.0%, write 29.0%); 27.0% in handlers::list (via serde_json::to_writer)."
pub fn share_sentence(p: &ServerProfile) -> String {
    let s = &p.sampled;
    if s.samples == 0 {
        return "No sample of the server was taken during the load: it did not run on a CPU (is the PID the server's?)".to_string();
    }
    let of = if p.kernel { "CPU" } else { "user-space CPU" };
    let cpu = p
        .cpu_ns_per_request
        .map_or(String::new(), |ns| format!(" of {} per request", units::time(ns)));
    let directions: Vec<String> = s
        .directions
        .iter()
        .map(|(d, share)| format!("{} {}", d.as_str(), units::percent(s.fraction(share.count))))
        .collect();
    let split = if directions.is_empty() {
        String::new()
    } else {
        format!("; {}", directions.join(", "))
    };
    let mut out = format!("JSON is {} of your server's {of}{cpu}{split}", share_with_interval(s));
    if let Some(top) = s.call_sites.first() {
        out.push_str(&format!("; {} in {}", units::percent(s.fraction(top.count)), site(top)));
    }
    out.push('.');
    out
}

/// The call sites as lines: `27.0%  write  my::list (via serde_json::ser::to_writer)`.
pub fn call_site_lines(p: &ServerProfile) -> Vec<String> {
    let s = &p.sampled;
    s.call_sites
        .iter()
        .map(|c| {
            format!(
                "{:>6}  {:<5}  {}",
                units::percent(s.fraction(c.count)),
                c.direction.as_str(),
                site(c)
            )
        })
        .collect()
}

/// What the share counts, for the reader comparing it with another figure.
pub fn counts_what(p: &ServerProfile) -> String {
    let mut out = format!(
        "Sampled with perf ({} at {} Hz, {} stacks): {} samples of process {} during the load, in {} slices of {} ms; a sample is JSON when a frame on its stack is a JSON library's, serde's, or an impl of serde's traits (the work they call, allocation included, counts; what the handler does around them does not).",
        p.event,
        p.frequency_hz,
        p.unwinding.as_str(),
        p.sampled.samples,
        p.pid,
        p.sampled.slices,
        units::count(p.slice_ms),
    );
    if let Some(free) = p.sampled.direction(Direction::Free) {
        out.push_str(&format!(
            " Dropping a JSON library's values outside a parse or a write is {} of them (free).",
            units::percent(p.sampled.fraction(free.count))
        ));
    }
    for a in &p.advice {
        out.push(' ');
        out.push_str(a);
        out.push('.');
    }
    out
}

/// One profile for the tests of every renderer: 1,000 samples, 41% JSON.
#[cfg(test)]
pub(crate) mod fixture {
    use jsoncost_engine::Interval;
    use jsoncost_engine::profile::{CallSite, Direction, FoldedStack, Sampled, ServerProfile, Share, Unwinding};

    pub(crate) fn profile() -> ServerProfile {
        ServerProfile {
            pid: 7,
            command: None,
            event: "cpu-clock".into(),
            frequency_hz: 499,
            unwinding: Unwinding::Dwarf,
            kernel: true,
            slice_ms: 100.0,
            cpu_ns_per_request: Some(269_900.0),
            requests: 5000,
            advice: vec![],
            flamegraph: None,
            sampled: Sampled {
                slices: 40,
                samples: 1000,
                kernel_samples: 100,
                unresolved_samples: 0,
                json: Share {
                    count: 410,
                    interval: Some(Interval {
                        estimate: 0.41,
                        low: 0.382,
                        high: 0.439,
                        n: 40,
                    }),
                },
                directions: vec![
                    (
                        Direction::Parse,
                        Share {
                            count: 120,
                            interval: None,
                        },
                    ),
                    (
                        Direction::Write,
                        Share {
                            count: 290,
                            interval: None,
                        },
                    ),
                ],
                call_sites: vec![CallSite {
                    entry: "serde_json::ser::to_writer".into(),
                    caller: Some("my::list".into()),
                    direction: Direction::Write,
                    count: 270,
                }],
                folded: vec![
                    FoldedStack {
                        stack: "main;my::list;serde_json::ser::to_writer".into(),
                        count: 410,
                    },
                    FoldedStack {
                        stack: "main;my::list;memcpy".into(),
                        count: 590,
                    },
                ],
                json_frames: vec!["serde_json::ser::to_writer".into()],
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::fixture::profile;
    use jsoncost_engine::Interval;
    use jsoncost_engine::profile::Share;

    #[test]
    fn the_share_sentence_opens_with_the_share_its_interval_split_and_top_call_site() {
        assert_eq!(
            share_sentence(&profile()),
            "JSON is 41.0% (99% interval 38.2%–43.9%) of your server's CPU of 269.9 µs per request; parse 12.0%, write 29.0%; 27.0% in my::list (via serde_json::ser::to_writer)."
        );
        assert_eq!(
            call_site_lines(&profile()),
            vec![" 27.0%  write  my::list (via serde_json::ser::to_writer)"]
        );
    }

    #[test]
    fn a_server_without_json_is_zero_percent_not_an_error() {
        let mut p = profile();
        p.sampled.json = Share {
            count: 0,
            interval: Some(Interval {
                estimate: 0.0,
                low: 0.0,
                high: 0.0,
                n: 40,
            }),
        };
        p.sampled.directions.clear();
        p.sampled.call_sites.clear();
        assert_eq!(
            share_sentence(&p),
            "JSON is 0.0% (99% interval 0.0%–0.0%) of your server's CPU of 269.9 µs per request."
        );
    }
}
