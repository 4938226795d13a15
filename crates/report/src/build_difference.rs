//! How two results files differ in build (`machine`: the libraries' versions, serde_json's
//! features, the target features, the profile, the compiler, the allocator), named before any
//! figure is blamed on the machine's drift: a build difference moves rows for good, and
//! `compare` would otherwise read it as drift and `ab` as the code's change.

use jsoncost_engine::{Build, Machine};

/// The JSON libraries whose code paths the target features choose.
const SIMD_LIBRARIES: &[&str] = &["sonic-rs", "simd-json"];

/// One way the two builds differ, and whose rows it moves (`None`: every row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// What differs, in words: "serde_json feature float_roundtrip (on in new)".
    pub what: String,
    /// The libraries whose rows it moves, or `None` for every row.
    pub rows_of: Option<Vec<String>>,
}

fn only_in(a: &[String], b: &[String]) -> Vec<String> {
    a.iter().filter(|x| !b.contains(x)).cloned().collect()
}

/// Every build difference between `base` and `new`, in a fixed order. Facts a file does not
/// record (older files) are not compared.
pub fn differences(base: &Machine, new: &Machine, names: [&str; 2]) -> Vec<Difference> {
    let [b_name, n_name] = names;
    let mut out = Vec::new();
    let mut push = |what: String, rows_of: Option<&[&str]>| {
        out.push(Difference {
            what,
            rows_of: rows_of.map(|libs| libs.iter().map(|l| l.to_string()).collect()),
        })
    };
    if let (Some(b), Some(n)) = (&base.build, &new.build) {
        for f in features_differ(b, n) {
            let side = if n.serde_json_features.contains(&f) { n_name } else { b_name };
            push(format!("serde_json feature {f} (on in {side})"), Some(&["serde_json"]));
        }
        for lib in &b.libraries {
            if let Some(other) = n.libraries.iter().find(|l| l.name == lib.name)
                && other.version != lib.version
            {
                push(
                    format!("{} {} in {b_name}, {} in {n_name}", lib.name, lib.version, other.version),
                    Some(&[lib.name.as_str()]),
                );
            }
        }
        let opt = |v: &Option<String>, default: &str| v.clone().unwrap_or_else(|| default.to_string());
        let settings = [
            ("target-cpu", opt(&b.target_cpu, "default"), opt(&n.target_cpu, "default")),
            ("opt-level", opt(&b.opt_level, "?"), opt(&n.opt_level, "?")),
            ("lto", opt(&b.lto, "the manifest's"), opt(&n.lto, "the manifest's")),
            ("panic", opt(&b.panic, "?"), opt(&n.panic, "?")),
            (
                "debug assertions",
                if b.debug_assertions { "on" } else { "off" }.to_string(),
                if n.debug_assertions { "on" } else { "off" }.to_string(),
            ),
        ];
        for (name, bv, nv) in settings {
            if bv != nv {
                push(format!("{name} {bv} in {b_name}, {nv} in {n_name}"), None);
            }
        }
    }
    let (more, fewer) = (
        only_in(&new.target_features, &base.target_features),
        only_in(&base.target_features, &new.target_features),
    );
    if !more.is_empty() || !fewer.is_empty() {
        let mut parts = Vec::new();
        if !more.is_empty() {
            parts.push(format!("{} only in {n_name}", more.join(", ")));
        }
        if !fewer.is_empty() {
            parts.push(format!("{} only in {b_name}", fewer.join(", ")));
        }
        push(format!("target features ({})", parts.join("; ")), Some(SIMD_LIBRARIES));
    }
    if !base.rustc.is_empty() && !new.rustc.is_empty() && base.rustc != new.rustc {
        push(format!("rustc {} in {b_name}, {} in {n_name}", base.rustc, new.rustc), None);
    }
    if let (Some(b), Some(n)) = (base.allocator, new.allocator)
        && b != n
    {
        push(format!("allocator {b} in {b_name}, {n} in {n_name}"), None);
    }
    out
}

fn features_differ(b: &Build, n: &Build) -> Vec<String> {
    let mut f = only_in(&n.serde_json_features, &b.serde_json_features);
    f.extend(only_in(&b.serde_json_features, &n.serde_json_features));
    f
}

/// The sentence naming the build differences, or `None` when the builds match as far as the
/// files tell: "The two files differ in build: serde_json feature float_roundtrip (on in new);
/// shifts in serde_json rows may be the build, not the code." `what` names the two sides'
/// holders ("files", "programs").
pub fn note(base: &Machine, new: &Machine, what: &str, names: [&str; 2]) -> Option<String> {
    let diffs = differences(base, new, names);
    if diffs.is_empty() {
        return None;
    }
    let list: Vec<&str> = diffs.iter().map(|d| d.what.as_str()).collect();
    let rows = if diffs.iter().any(|d| d.rows_of.is_none()) {
        "every row".to_string()
    } else {
        let mut libs: Vec<&str> = Vec::new();
        for lib in diffs.iter().flat_map(|d| d.rows_of.iter().flatten()) {
            if !libs.contains(&lib.as_str()) {
                libs.push(lib);
            }
        }
        let text = match libs.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => libs.join(""),
        };
        format!("{text} rows")
    };
    Some(format!(
        "The two {what} differ in build: {}; shifts in {rows} may be the build, not the code.",
        list.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::LibraryVersion;

    fn machine(features: &[&str], serde_json: &[&str], version: &str) -> Machine {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Machine {
            rustc: "1.95.0".into(),
            target_features: list(features),
            build: Some(Build {
                libraries: vec![
                    LibraryVersion {
                        name: "serde_json".into(),
                        version: "1.0.154".into(),
                    },
                    LibraryVersion {
                        name: "sonic-rs".into(),
                        version: version.into(),
                    },
                ],
                serde_json_features: list(serde_json),
                opt_level: Some("3".into()),
                panic: Some("unwind".into()),
                ..Build::default()
            }),
            ..Machine::default()
        }
    }

    #[test]
    fn the_note_names_each_difference_and_the_rows_it_moves() {
        let base = machine(&["sse2"], &[], "0.5.10");
        assert_eq!(note(&base, &base, "files", ["base", "new"]), None);
        let roundtrip = machine(&["sse2"], &["float_roundtrip"], "0.5.10");
        assert_eq!(
            note(&base, &roundtrip, "files", ["base", "new"]).unwrap(),
            "The two files differ in build: serde_json feature float_roundtrip (on in new); shifts in serde_json rows may be \
             the build, not the code."
        );
        let native = machine(&["sse2", "avx2", "bmi2"], &[], "0.5.12");
        assert_eq!(
            note(&roundtrip, &native, "files", ["base", "new"]).unwrap(),
            "The two files differ in build: serde_json feature float_roundtrip (on in base); sonic-rs 0.5.10 in base, 0.5.12 \
             in new; target features (avx2, bmi2 only in new); shifts in serde_json, sonic-rs and simd-json rows may be the \
             build, not the code."
        );
        let mut lto = base.clone();
        lto.build.as_mut().unwrap().lto = Some("fat".into());
        assert_eq!(
            note(&base, &lto, "programs", ["default", "lto"]).unwrap(),
            "The two programs differ in build: lto the manifest's in default, fat in lto; shifts in every row may be the \
             build, not the code."
        );
        // An older file records no build: only what both record is compared.
        let old = Machine {
            build: None,
            ..base.clone()
        };
        assert_eq!(note(&old, &roundtrip, "files", ["base", "new"]), None);
    }

    fn results(machine: Machine) -> jsoncost_engine::Results {
        let mut e = jsoncost_engine::MeasuredTable::new(jsoncost_engine::ExperimentKind::Micro, "canada/deserialize");
        for (m, ns) in [("typed/serde_json", 100.0), ("typed/sonic-rs", 50.0), ("dom/serde_json", 200.0)] {
            let mut r = jsoncost_engine::Row::new(m);
            r.mean_ns = Some(ns);
            e.rows.push(r);
        }
        jsoncost_engine::Results {
            schema_version: 1,
            jsoncost_version: "0.1.0".into(),
            machine,
            started_at: "2026-12-05T00:00:00Z".into(),
            quick: true,
            interrupted: false,
            rates: Default::default(),
            experiments: vec![e],
            allocators: Vec::new(),
        }
    }

    #[test]
    fn compare_and_ab_name_the_build_before_the_drift() {
        let sse2 = machine(&["sse2"], &[], "0.5.10");
        let native = machine(&["sse2", "avx2"], &["float_roundtrip"], "0.5.10");
        let c = crate::compare::compare(&results(sse2.clone()), &results(native.clone()), 0.05);
        let note = c.verdicts().note.unwrap();
        assert!(
            note.starts_with(
                "The two files differ in build: serde_json feature float_roundtrip (on in new); target features (avx2 only in \
                 new); shifts in serde_json, sonic-rs and simd-json rows may be the build, not the code. Unpaired comparison:"
            ),
            "{note}"
        );
        let same = crate::compare::compare(&results(sse2.clone()), &results(sse2.clone()), 0.05);
        assert!(same.verdicts().note.unwrap().starts_with("Unpaired comparison:"));
        let run = crate::ab::Run {
            base: results(sse2),
            new: results(native),
            lockstep: false,
            other_cpu: None,
        };
        assert_eq!(
            crate::ab::ab(&[run], 0.05).verdicts().note.unwrap(),
            "The two programs differ in build: serde_json feature float_roundtrip (on in new); target features (avx2 only in \
             new); shifts in serde_json, sonic-rs and simd-json rows may be the build, not the code."
        );
    }
}
