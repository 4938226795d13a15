//! The machine and build that measure, recorded in every results file.

use crate::model::Machine;

/// CPU features that matter to the JSON libraries, as compiled in (not merely as the CPU has
/// them): sonic-rs and simd-json choose their SIMD paths at compile time.
pub fn compiled_target_features() -> Vec<String> {
    let mut v = Vec::new();
    macro_rules! feat {
        ($($f:literal),*) => { $( if cfg!(target_feature = $f) { v.push($f.to_string()); } )* };
    }
    feat!(
        "sse2",
        "ssse3",
        "sse4.1",
        "sse4.2",
        "popcnt",
        "pclmulqdq",
        "avx",
        "avx2",
        "bmi1",
        "bmi2",
        "lzcnt",
        "fma",
        "avx512f",
        "avx512bw",
        "avx512vl",
        "aes",
        "neon"
    );
    v
}

/// The CPU features whose compile-time presence (`cfg(target_feature)`) chooses sonic-rs's and
/// simd-json's code paths: their AVX2 / SSE4.2 and carry-less-multiply (`pclmulqdq`) kernels, and
/// the bit scans and counts (`bmi1`, `bmi2`, `popcnt`) their structural indexes run on. AVX-512
/// is left out: sonic-rs uses it only with its `avx512` cargo feature, which is off here.
/// On aarch64, NEON is part of the target and always compiled in.
#[cfg(target_arch = "x86_64")]
pub const SIMD_FEATURES: &[&str] = &["sse4.2", "pclmulqdq", "avx2", "bmi1", "bmi2", "popcnt"];
#[cfg(not(target_arch = "x86_64"))]
pub const SIMD_FEATURES: &[&str] = &["neon"];

/// The [`SIMD_FEATURES`] this CPU has, detected at run time (whatever the build was compiled
/// with), in that list's order.
pub fn detected_simd_features() -> Vec<String> {
    SIMD_FEATURES.iter().filter(|f| detected(f)).map(|f| f.to_string()).collect()
}

#[cfg(target_arch = "x86_64")]
fn detected(feature: &str) -> bool {
    // The macro takes literals only.
    match feature {
        "sse4.2" => std::arch::is_x86_feature_detected!("sse4.2"),
        "pclmulqdq" => std::arch::is_x86_feature_detected!("pclmulqdq"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "bmi1" => std::arch::is_x86_feature_detected!("bmi1"),
        "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
        "popcnt" => std::arch::is_x86_feature_detected!("popcnt"),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detected(feature: &str) -> bool {
    // NEON is part of the aarch64 target: the build has it wherever it runs.
    feature == "neon" && cfg!(target_feature = "neon")
}

/// The features of `detected` (the CPU's) that are not in `compiled` (the build's), in
/// `detected`'s order: what the JSON libraries could use here and this build does not.
pub fn missing_target_features(compiled: &[String], detected: &[String]) -> Vec<String> {
    detected.iter().filter(|f| !compiled.contains(f)).cloned().collect()
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// Describes this machine and build.
pub fn current() -> Machine {
    let compiled = compiled_target_features();
    let cpu = detected_simd_features();
    let missing = missing_target_features(&compiled, &cpu);
    Machine {
        cpu: cpu_name(),
        cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        os: std::env::consts::OS.to_string(),
        rustc: env!("JSONCOST_RUSTC_VERSION").to_string(),
        target_features: compiled,
        cpu_simd_features: Some(cpu),
        target_features_complete: Some(missing.is_empty()),
        missing_target_features: missing,
        allocator: crate::alloc::allocator(),
        // The libraries' build is known only where they are linked (`jsoncost_codecs::build`).
        build: None,
    }
}

/// Now, as RFC 3339 UTC with seconds.
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| time::OffsetDateTime::now_utc());
    now.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn missing_features_are_those_the_cpu_has_and_the_build_lacks() {
        // A default x86-64 build (SSE2 only) on a CPU with AVX2, BMI2 and PCLMUL.
        let cpu = list(&["sse4.2", "pclmulqdq", "avx2", "bmi1", "bmi2", "popcnt"]);
        assert_eq!(missing_target_features(&list(&["sse2"]), &cpu), cpu);
        // `target-cpu=native`: nothing missing.
        let native = list(&[
            "sse2",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "popcnt",
            "pclmulqdq",
            "avx",
            "avx2",
            "bmi1",
            "bmi2",
        ]);
        assert_eq!(missing_target_features(&native, &cpu), Vec::<String>::new());
        // Built for a newer CPU than the one running it: nothing the CPU has is missing.
        assert_eq!(missing_target_features(&native, &list(&["sse4.2", "popcnt"])), Vec::<String>::new());
        // Part of it (`-C target-feature=+avx2`), in the CPU's order.
        assert_eq!(
            missing_target_features(&list(&["sse2", "avx", "avx2"]), &cpu),
            list(&["sse4.2", "pclmulqdq", "bmi1", "bmi2", "popcnt"])
        );
        // aarch64: NEON is in the target.
        assert_eq!(missing_target_features(&list(&["neon"]), &list(&["neon"])), Vec::<String>::new());
    }

    #[test]
    fn a_file_without_the_build_loads_and_one_with_it_keeps_it() {
        let old = r#"{"cpu":"c","cores":2,"os":"linux","rustc":"1.95.0","target_features":["sse2"]}"#;
        let m: Machine = serde_json::from_str(old).unwrap();
        assert_eq!(m.build, None);
        assert!(!serde_json::to_string(&m).unwrap().contains("build"));
        let with = r#"{"cpu":"c","cores":2,"os":"linux","rustc":"1.95.0","target_features":["sse2"],
            "build":{"libraries":[{"name":"serde_json","version":"1.0.154"}],"serde_json_features":["float_roundtrip"],
            "opt_level":"3","debug_assertions":false,"panic":"unwind","target_cpu":"native"}}"#;
        let m: Machine = serde_json::from_str(with).unwrap();
        let b = m.build.clone().unwrap();
        assert_eq!(
            (b.libraries[0].version.as_str(), b.serde_json_features.as_slice(), b.lto),
            ("1.0.154", &["float_roundtrip".to_string()][..], None)
        );
        assert_eq!(serde_json::from_str::<Machine>(&serde_json::to_string(&m).unwrap()).unwrap(), m);
    }

    #[test]
    fn this_build_records_what_it_lacks_of_what_the_cpu_has() {
        let m = current();
        let cpu = m.cpu_simd_features.clone().unwrap();
        assert!(cpu.iter().all(|f| SIMD_FEATURES.contains(&f.as_str())), "{cpu:?}");
        assert_eq!(m.missing_target_features, missing_target_features(&m.target_features, &cpu));
        assert_eq!(m.builds_for_this_cpu(), Some(m.missing_target_features.is_empty()));
    }
}
