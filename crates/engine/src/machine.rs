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
    Machine {
        cpu: cpu_name(),
        cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        os: std::env::consts::OS.to_string(),
        rustc: env!("JSONCOST_RUSTC_VERSION").to_string(),
        target_features: compiled_target_features(),
    }
}

/// Now, as RFC 3339 UTC with seconds.
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| time::OffsetDateTime::now_utc());
    now.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}
