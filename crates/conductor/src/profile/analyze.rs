//! Samples into a profile: which were taken during the load, what share of them is JSON work
//! (with its interval over time slices), per direction, per call site, and the folded stacks.

use std::collections::{BTreeSet, HashMap};

use jsoncost_engine::paired::PAIRED_CONFIDENCE;
use jsoncost_engine::profile::{CALL_SITES, CallSite, Direction, FOLDED_MIN_SHARE, FoldedStack, Sampled, Share, batched_share};

use super::attribute::{attribute, display_name};
use super::script::{Sample, UNKNOWN};

/// When the load ran, on perf's clock (CLOCK_MONOTONIC), ns: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The load's start.
    pub start_ns: u64,
    /// Its end.
    pub end_ns: u64,
}

/// Per slice: all samples, JSON samples, and JSON samples per direction.
#[derive(Default, Clone)]
struct SliceTally {
    all: f64,
    json: f64,
    by: [f64; 4],
}

fn direction_index(d: Direction) -> usize {
    Direction::ALL.iter().position(|x| *x == d).unwrap_or(3)
}

/// The slice a sample at `t` falls in, if in a window: each window is cut into slices of
/// `slice_ns`, and `offsets[w]` is window `w`'s first.
fn slice_of(t: u64, windows: &[Window], slice_ns: u64, offsets: &[usize]) -> Option<usize> {
    let (w, window) = windows.iter().enumerate().find(|(_, w)| w.start_ns <= t && t < w.end_ns)?;
    Some(offsets[w] + ((t - window.start_ns) / slice_ns) as usize)
}

/// Call sites grouped by their caller and direction, each named by its most frequent entry:
/// inlining makes the outermost JSON frame vary from sample to sample under one handler (the
/// entry `from_slice` inlined, its callees seen instead), where the caller is what the reader
/// acts on. Most samples first.
fn group_by_caller(sites: HashMap<(String, Option<String>, Direction), u64>) -> Vec<CallSite> {
    let mut groups: HashMap<(Option<String>, Direction), (u64, String, u64)> = HashMap::new();
    for ((entry, caller, direction), count) in sites {
        let g = groups.entry((caller, direction)).or_insert((0, String::new(), 0));
        g.0 += count;
        if count > g.2 || (count == g.2 && entry < g.1) {
            (g.1, g.2) = (entry, count);
        }
    }
    let mut out: Vec<CallSite> = groups
        .into_iter()
        .map(|((caller, direction), (count, entry, _))| CallSite {
            entry,
            caller,
            direction,
            count,
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.entry.cmp(&b.entry)));
    out
}

/// Analyses the `samples` that fall in `windows`, batched for the interval in slices of
/// `slice_ns` of each window.
pub fn analyze(samples: &[Sample], windows: &[Window], slice_ns: u64) -> Sampled {
    let slice_ns = slice_ns.max(1);
    // Each window's first slice index.
    let mut offsets = Vec::with_capacity(windows.len());
    let mut total_slices = 0usize;
    for w in windows {
        offsets.push(total_slices);
        total_slices += w.end_ns.saturating_sub(w.start_ns).div_ceil(slice_ns).max(1) as usize;
    }
    let mut tallies = vec![SliceTally::default(); total_slices];
    let (mut n, mut kernel, mut unresolved) = (0u64, 0u64, 0u64);
    let mut sites: HashMap<(String, Option<String>, Direction), u64> = HashMap::new();
    let mut folded: HashMap<String, u64> = HashMap::new();
    let mut json_names: BTreeSet<&str> = BTreeSet::new();
    for s in samples {
        let Some(slice) = slice_of(s.time_ns, windows, slice_ns, &offsets) else {
            continue;
        };
        n += 1;
        kernel += s.kernel as u64;
        if s.frames.iter().all(|f| f == UNKNOWN) {
            unresolved += 1;
        }
        let tally = &mut tallies[slice];
        tally.all += 1.0;
        let frames: Vec<&str> = s.frames.iter().map(String::as_str).collect();
        if let Some(a) = attribute(&frames) {
            tally.json += 1.0;
            tally.by[direction_index(a.direction)] += 1.0;
            let key = (
                display_name(frames[a.entry]),
                a.caller.map(|c| display_name(frames[c])),
                a.direction,
            );
            *sites.entry(key).or_default() += 1;
            json_names.extend(a.json.iter().map(|&i| frames[i]));
        }
        *folded.entry(s.frames.join(";")).or_default() += 1;
    }
    let share = |part: &dyn Fn(&SliceTally) -> f64| {
        let parts: Vec<f64> = tallies.iter().map(part).collect();
        let wholes: Vec<f64> = tallies.iter().map(|t| t.all).collect();
        Share {
            count: parts.iter().sum::<f64>() as u64,
            interval: batched_share(&parts, &wholes, PAIRED_CONFIDENCE),
        }
    };
    let json = share(&|t| t.json);
    let directions = Direction::ALL
        .iter()
        .map(|&d| (d, share(&|t| t.by[direction_index(d)])))
        .filter(|(_, s)| s.count > 0)
        .collect();
    let mut call_sites = group_by_caller(sites);
    call_sites.truncate(CALL_SITES);
    let least = (n as f64 * FOLDED_MIN_SHARE).ceil() as u64;
    let mut folded: Vec<FoldedStack> = folded
        .into_iter()
        .filter(|(_, c)| *c >= least.max(1))
        .map(|(stack, count)| FoldedStack { stack, count })
        .collect();
    folded.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.stack.cmp(&b.stack)));
    let drawn: BTreeSet<&str> = folded.iter().flat_map(|f| f.stack.split(';')).collect();
    let json_frames = json_names.intersection(&drawn).map(|f| f.to_string()).collect();
    Sampled {
        samples: n,
        kernel_samples: kernel,
        unresolved_samples: unresolved,
        slices: tallies.iter().filter(|t| t.all > 0.0).count(),
        json,
        directions,
        call_sites,
        folded,
        json_frames,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: u64, frames: &[&str]) -> Sample {
        Sample {
            time_ns: t,
            frames: frames.iter().map(|s| s.to_string()).collect(),
            kernel: false,
        }
    }

    #[test]
    fn only_samples_in_the_windows_count_batched_by_slices() {
        let write = ["main", "my::list", "serde_json::ser::to_writer"];
        let parse = ["main", "my::create", "serde_json::de::from_slice"];
        let parse_inlined = ["main", "my::create", "serde_json::read::SliceRead::parse_str"];
        let idle = ["main", "my::list", "memcpy"];
        let samples = vec![
            sample(5, &write), // before the window
            sample(100, &write),
            sample(110, &idle),
            sample(150, &parse),
            sample(155, &parse_inlined),
            sample(160, &idle),
            sample(199, &write),
            sample(200, &write), // after
        ];
        let a = analyze(
            &samples,
            &[Window {
                start_ns: 100,
                end_ns: 200,
            }],
            50,
        );
        assert_eq!((a.samples, a.slices), (6, 2));
        // Slice 1: 1 of 2 JSON; slice 2: 3 of 4 JSON.
        assert_eq!(a.json.count, 4);
        let i = a.json.interval.unwrap();
        assert!((i.estimate - 4.0 / 6.0).abs() < 1e-12);
        assert_eq!(
            a.directions.iter().map(|(d, s)| (*d, s.count)).collect::<Vec<_>>(),
            vec![(Direction::Parse, 2), (Direction::Write, 2)]
        );
        // Both parses are one call site, under my::create, named by the first of its equally
        // frequent entries; equal counts list by entry.
        let sites: Vec<(&str, Option<&str>, u64)> = a
            .call_sites
            .iter()
            .map(|s| (s.entry.as_str(), s.caller.as_deref(), s.count))
            .collect();
        assert_eq!(
            sites,
            vec![
                ("serde_json::de::from_slice", Some("my::create"), 2),
                ("serde_json::ser::to_writer", Some("my::list"), 2)
            ]
        );
        assert_eq!(
            a.folded,
            vec![
                FoldedStack {
                    stack: "main;my::list;memcpy".into(),
                    count: 2
                },
                FoldedStack {
                    stack: "main;my::list;serde_json::ser::to_writer".into(),
                    count: 2
                },
                FoldedStack {
                    stack: "main;my::create;serde_json::de::from_slice".into(),
                    count: 1
                },
                FoldedStack {
                    stack: "main;my::create;serde_json::read::SliceRead::parse_str".into(),
                    count: 1
                },
            ]
        );
        assert_eq!(
            a.json_frames,
            vec![
                "serde_json::de::from_slice",
                "serde_json::read::SliceRead::parse_str",
                "serde_json::ser::to_writer"
            ]
        );
    }

    #[test]
    fn a_server_without_json_has_a_zero_share() {
        let samples: Vec<Sample> = (0..10).map(|i| sample(i * 10, &["main", "my::hash"])).collect();
        let a = analyze(&samples, &[Window { start_ns: 0, end_ns: 100 }], 20);
        assert_eq!((a.samples, a.json.count), (10, 0));
        assert_eq!(a.json.interval.unwrap().estimate, 0.0);
        assert!(a.call_sites.is_empty() && a.directions.is_empty());
    }
}
