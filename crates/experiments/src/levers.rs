//! Build levers: one program built once per build change — a cargo feature of a JSON crate,
//! a CPU level, LTO, `panic = "abort"`, another version of a dependency — each kept under
//! `target/levers/<lever>` (its build reused on the next run; see [`plan`]), then run in
//! lockstep against the default build with [`jsoncost_conductor::ab::run`], every row paired with the
//! default build's. One process cannot compare them: each is a separate build.
//!
//! What a lever changes, and how it is built:
//! - `crate/feature` (`serde_json/float_roundtrip`): `cargo build --features crate/feature`,
//!   so the crate must be a direct dependency of the package built (features unify, so
//!   jsoncost's own serde_json gets it too);
//! - `cpu=LEVEL` (`native`, `x86-64-v2` ...): `CARGO_ENCODED_RUSTFLAGS=-Ctarget-cpu=LEVEL`,
//!   which outranks `.cargo/config.toml`'s rustflags (jsoncost's own sets `target-cpu=native`);
//! - `lto`: `CARGO_PROFILE_RELEASE_LTO=fat` and `CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1`;
//! - `panic=abort`: `CARGO_PROFILE_RELEASE_PANIC=abort` (a library's panic then ends the
//!   process instead of failing its row);
//! - `crate@x.y.z` (`sonic-rs@0.5.12`): a copy of the workspace (files written only when they
//!   differ, so the copy's builds are reused) whose Cargo.lock `cargo update -p crate
//!   --precise x.y.z` moves; the version must meet the manifest's requirement.
//!
//! A lever that fails to build is a [`Built::Failed`] with cargo's message, not an error of
//! the run.

use std::ffi::OsString;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use jsoncost_report::ab::{AbComparison, RowSpread, ab_with};

use crate::error::Error;
use jsoncost_conductor::ab::Settings;

/// One build change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lever {
    /// A cargo feature of a dependency: `serde_json/float_roundtrip`.
    Feature {
        /// The dependency.
        krate: String,
        /// Its feature.
        feature: String,
    },
    /// `-C target-cpu=LEVEL`.
    Cpu(String),
    /// `lto = "fat"`, `codegen-units = 1`.
    Lto,
    /// `panic = "abort"`.
    PanicAbort,
    /// Another version of a dependency: `sonic-rs@0.5.12`.
    Version {
        /// The dependency.
        krate: String,
        /// The version it is pinned to.
        version: String,
    },
}

/// What `--lever` accepts, for messages.
pub const FORMS: &str = "crate/feature (serde_json/float_roundtrip), cpu=LEVEL (native, x86-64, x86-64-v2, x86-64-v3, x86-64-v4), \
                         lto, panic=abort, crate@x.y.z (sonic-rs@0.5.12)";

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl std::str::FromStr for Lever {
    type Err = String;

    fn from_str(text: &str) -> Result<Lever, String> {
        let bad = || format!("{text:?} is not a lever: give {FORMS}");
        match text {
            "lto" => return Ok(Lever::Lto),
            "panic=abort" => return Ok(Lever::PanicAbort),
            _ => {}
        }
        if let Some(level) = text.strip_prefix("cpu=") {
            return if is_name(level) {
                Ok(Lever::Cpu(level.to_string()))
            } else {
                Err(bad())
            };
        }
        if let Some((krate, feature)) = text.split_once('/') {
            return if is_name(krate) && is_name(feature) {
                Ok(Lever::Feature {
                    krate: krate.to_string(),
                    feature: feature.to_string(),
                })
            } else {
                Err(bad())
            };
        }
        if let Some((krate, version)) = text.split_once('@') {
            let semver =
                version.split('.').count() == 3 && version.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
            return if is_name(krate) && semver {
                Ok(Lever::Version {
                    krate: krate.to_string(),
                    version: version.to_string(),
                })
            } else {
                Err(bad())
            };
        }
        Err(bad())
    }
}

impl fmt::Display for Lever {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lever::Feature { krate, feature } => write!(f, "{krate}/{feature}"),
            Lever::Cpu(level) => write!(f, "cpu={level}"),
            Lever::Lto => f.write_str("lto"),
            Lever::PanicAbort => f.write_str("panic=abort"),
            Lever::Version { krate, version } => write!(f, "{krate}@{version}"),
        }
    }
}

/// The CPU features an x86-64 level requires beyond the one below it (the psABI's levels).
fn level_features(level: &str) -> Option<&'static str> {
    Some(match level {
        "x86-64" => "every x86-64 CPU",
        "x86-64-v2" => "CPUs with SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT, CMPXCHG16B and LAHF/SAHF (x86-64-v2: most x86-64 CPUs since 2009)",
        "x86-64-v3" => {
            "CPUs with x86-64-v2's features and AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE and XSAVE (x86-64-v3: Intel since \
             Haswell, 2013; AMD since Excavator, 2015)"
        }
        "x86-64-v4" => "CPUs with x86-64-v3's features and AVX-512 F, BW, CD, DQ and VL (x86-64-v4)",
        _ => return None,
    })
}

impl Lever {
    /// The name of its directory under `target/levers`.
    pub fn slug(&self) -> String {
        self.to_string().replace(['/', '@', '='], "-")
    }

    /// The crate it changes, whose rows judge it (a feature's or a version's); `None` for a
    /// change of the whole build (a CPU level, LTO, the panic strategy).
    pub fn touches(&self) -> Option<&str> {
        match self {
            Lever::Feature { krate, .. } | Lever::Version { krate, .. } => Some(krate),
            Lever::Cpu(_) | Lever::Lto | Lever::PanicAbort => None,
        }
    }

    /// What kind of change it is, for its verdict.
    pub fn kind(&self) -> &'static str {
        match self {
            Lever::Feature { .. } => "a cargo feature",
            Lever::Cpu(_) => "a CPU level",
            Lever::Lto => "link-time optimisation",
            Lever::PanicAbort => "a panic strategy",
            Lever::Version { .. } => "a dependency version",
        }
    }

    /// What shipping it costs beyond the build, for its verdict; `cpu` names this machine's
    /// CPU (what `native` builds for).
    pub fn ships(&self, cpu: &str) -> String {
        match self {
            Lever::Cpu(level) if level == "native" => {
                format!("the binary runs only on CPUs with every feature of this one ({cpu})")
            }
            Lever::Cpu(level) => match level_features(level) {
                Some(on) => format!("the binary runs only on {on}"),
                None => format!("the binary runs only on CPUs with the features of {level}"),
            },
            Lever::Lto => "longer release builds (one codegen unit, whole-program optimisation)".to_string(),
            Lever::PanicAbort => "a panic ends the process (no unwinding: a library's panic is not caught)".to_string(),
            Lever::Feature { .. } => "nothing beyond the build: the feature is on for every user of the crate in the binary".to_string(),
            Lever::Version { krate, version } => format!("a lockfile pinned to {krate} {version}"),
        }
    }
}

/// What the levers build of a package.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A binary (`cargo build --release --bin NAME`): the jsoncost CLI.
    Bin(String),
    /// A bench target (`cargo bench --no-run --bench NAME`): a `cargo bench` harness of a
    /// user's own types, built in the bench profile (which inherits release); its executable
    /// is the one cargo names in its JSON messages.
    Bench(String),
}

/// The program the levers build: a target of a package of a cargo workspace.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// The workspace's root (its Cargo.toml and Cargo.lock).
    pub workspace: PathBuf,
    /// The package built (`-p`).
    pub package: String,
    /// What of it.
    pub target: Target,
    /// The cargo to run (`$CARGO`, else `cargo`).
    pub cargo: OsString,
}

/// The `cargo bench` target this process is, as cargo ran it: its package and crate
/// (`CARGO_PKG_NAME`, `CARGO_MANIFEST_PATH`, which cargo sets for the benches it runs), the
/// workspace it is in (`cargo locate-project --workspace`) and the bench target whose
/// executable this is (`cargo metadata`: a target `my-bench` is built as `my_bench-<hash>`).
pub fn this_bench() -> Result<Project, Error> {
    let not_cargo = || {
        Error::usage(
            "--lever builds this bench again with cargo, which did not start it: run it as cargo bench --bench NAME -- --lever LEVER",
        )
    };
    let manifest = std::env::var_os("CARGO_MANIFEST_PATH").map(PathBuf::from).ok_or_else(not_cargo)?;
    let package = std::env::var("CARGO_PKG_NAME").map_err(|_| not_cargo())?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let exe = std::env::current_exe().map_err(|e| Error::environment(format!("cannot find this bench's executable: {e}")))?;
    let stem = exe.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
    let ask = |args: &[&str]| -> Result<String, Error> {
        let out = Command::new(&cargo)
            .args(args)
            .arg("--manifest-path")
            .arg(&manifest)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Error::environment(format!("cannot run {}: {e}", cargo.to_string_lossy())))?;
        if !out.status.success() {
            return Err(Error::environment(format!(
                "cargo {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let root = ask(&["locate-project", "--workspace", "--message-format", "plain"])?;
    let workspace = Path::new(root.trim())
        .parent()
        .ok_or_else(|| Error::environment(format!("cargo named no workspace directory: {root:?}")))?
        .to_path_buf();
    let metadata = ask(&["metadata", "--no-deps", "--format-version", "1"])?;
    let bench = bench_target(&metadata, &manifest, &stem)?;
    Ok(Project {
        workspace,
        package,
        target: Target::Bench(bench),
        cargo,
    })
}

/// The bench target of the package at `manifest` whose executable's file stem is `stem`
/// (`my_bench-0123456789abcdef`), from `cargo metadata`'s JSON.
fn bench_target(metadata: &str, manifest: &Path, stem: &str) -> Result<String, Error> {
    let built_as = match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) => name,
        _ => stem,
    };
    let metadata: serde_json::Value = serde_json::from_str(metadata).map_err(|e| Error::environment(format!("cargo metadata: {e}")))?;
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest))
        .ok_or_else(|| Error::environment(format!("cargo metadata lists no package at {}", manifest.display())))?;
    let benches: Vec<&str> = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "bench")))
        .filter_map(|t| t["name"].as_str())
        .collect();
    benches
        .iter()
        .find(|name| name.replace('-', "_") == built_as)
        .map(|name| name.to_string())
        .ok_or_else(|| {
            Error::usage(format!(
                "this executable ({stem}) is none of the package's benches ({}): --lever rebuilds a bench target, run it with cargo bench --bench NAME",
                benches.join(", ")
            ))
        })
}

/// One cargo command.
#[derive(Debug, Clone, PartialEq)]
pub struct CargoStep {
    /// Where it runs.
    pub dir: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Added to its environment.
    pub env: Vec<(String, String)>,
}

/// How one build is made: the default build (`lever` `None`) or a lever's.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildPlan {
    /// `default` or the lever's text.
    pub name: String,
    /// `target/levers/<slug>`: everything of this build.
    pub root: PathBuf,
    /// A copy of the workspace to make (or bring up to date) first, for a version lever.
    pub copy_to: Option<PathBuf>,
    /// The cargo commands, in order.
    pub steps: Vec<CargoStep>,
    /// The program built, where its path is known before the build (a binary); a bench's is
    /// read from cargo's messages.
    pub binary: Option<PathBuf>,
    /// Where cargo leaves a binary that [`build`] copies to `binary`: in a target directory
    /// that builds share, the next build's binary takes the same path.
    pub built: Option<PathBuf>,
}

/// The directory every lever's build lives under.
pub fn levers_dir(workspace: &Path) -> PathBuf {
    workspace.join("target").join("levers")
}

/// The plan of the default build (`None`) or of `lever`'s; a lever the target cannot take
/// (`panic=abort` for a bench: cargo ignores `panic` in the bench profile) is a usage error.
pub fn plan(project: &Project, lever: Option<&Lever>) -> Result<BuildPlan, Error> {
    let slug = lever.map_or("default".to_string(), Lever::slug);
    let root = levers_dir(&project.workspace).join(&slug);
    // The default build and a feature lever share the workspace's own target directory (the
    // flags and profile are the same): cargo keeps each feature set's artifacts apart by their
    // hash, so a feature lever rebuilds only the crate and what depends on it, and the default
    // build is the one `cargo build --release` made. Flags, profiles and copies of the
    // workspace would rebuild everything in a shared directory each time: each has its own.
    let shared = matches!(lever, None | Some(Lever::Feature { .. }));
    let target = match shared {
        true => project.workspace.join("target"),
        false => root.join("target"),
    };
    let copy_to = matches!(lever, Some(Lever::Version { .. })).then(|| root.join("workspace"));
    let dir = copy_to.clone().unwrap_or_else(|| project.workspace.clone());
    let (mut args, profile, binary): (Vec<String>, &str, Option<PathBuf>) = match &project.target {
        Target::Bin(bin) => (
            ["build", "--release", "-p", &project.package, "--bin", bin]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            "RELEASE",
            Some(target.join("release").join(bin)),
        ),
        Target::Bench(bench) => {
            if lever == Some(&Lever::PanicAbort) {
                return Err(Error::usage(
                    "panic=abort cannot be a lever of a bench: cargo ignores `panic` in the bench profile",
                ));
            }
            (
                [
                    "bench",
                    "--no-run",
                    "-p",
                    &project.package,
                    "--bench",
                    bench,
                    "--message-format=json-render-diagnostics",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
                "BENCH",
                None,
            )
        }
    };
    args.push("--target-dir".to_string());
    args.push(target.display().to_string());
    let mut env = Vec::new();
    let mut steps = Vec::new();
    let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
    match lever {
        None => {}
        Some(Lever::Feature { krate, feature }) => args.extend(["--features".to_string(), format!("{krate}/{feature}")]),
        // Flags separated by 0x1f, as cargo reads this variable.
        Some(Lever::Cpu(level)) => env.push(pair("CARGO_ENCODED_RUSTFLAGS", &format!("-Ctarget-cpu={level}"))),
        Some(Lever::Lto) => {
            env.push(pair(&format!("CARGO_PROFILE_{profile}_LTO"), "fat"));
            env.push(pair(&format!("CARGO_PROFILE_{profile}_CODEGEN_UNITS"), "1"));
        }
        Some(Lever::PanicAbort) => env.push(pair("CARGO_PROFILE_RELEASE_PANIC", "abort")),
        Some(Lever::Version { krate, version }) => steps.push(CargoStep {
            dir: dir.clone(),
            args: ["update", "-p", krate, "--precise", version]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            env: Vec::new(),
        }),
    }
    steps.push(CargoStep { dir, args, env });
    // A binary in a shared directory is copied out to the build's own; a bench's executable
    // is named by its hash, which differs with the features.
    let (binary, built) = match (binary, shared) {
        (Some(at), true) => (at.file_name().map(|name| root.join(name)), Some(at)),
        (binary, _) => (binary, None),
    };
    Ok(BuildPlan {
        name: lever.map_or("default".to_string(), Lever::to_string),
        binary,
        built,
        root,
        copy_to,
        steps,
    })
}

/// The variable that pads each build's environment (see [`programs`]).
pub const PAD_ENV: &str = "JSONCOST_LEVER_PAD";

/// The default build and a lever's as the two programs of a lockstep run, named `default` and
/// by the lever. Their paths differ in length (`target/levers/default/...` and
/// `target/levers/serde_json-float_roundtrip/...`), and a program's arguments and environment
/// sit on its stack, so each gets [`PAD_ENV`] padded to make path and padding one length: the
/// two stacks then start at one alignment, as `ab` keeps the sides' file names of one length.
pub fn programs(default: &Path, lever: &Lever, built: &Path) -> [jsoncost_conductor::ab::Program; 2] {
    let (a, b) = (default.display().to_string(), built.display().to_string());
    let longest = a.len().max(b.len());
    let make = |name: &str, path: String| {
        let mut p = jsoncost_conductor::ab::Program::new(name, vec![path.clone()]);
        p.env.push((PAD_ENV.to_string(), "x".repeat(longest - path.len())));
        p
    };
    [make("default", a), make(&lever.to_string(), b)]
}

/// The executable of bench `name` in cargo's JSON messages (`--message-format=json`): the
/// last `compiler-artifact` of a bench target of that name.
pub fn bench_executable(messages: &str, name: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .filter(|m| m["target"]["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "bench")))
        .filter_map(|m| m["executable"].as_str().map(PathBuf::from))
        .next_back()
}

/// A build's outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum Built {
    /// The program built.
    Program(PathBuf),
    /// Cargo failed: its message (the error lines and what follows them).
    Failed(String),
}

/// The lines of cargo's output that say why it failed: from its first `error` line on (at most
/// 20), else its last 10.
pub fn failure_message(lines: &[String]) -> String {
    let first = lines.iter().position(|l| l.trim_start().starts_with("error"));
    let kept: Vec<&str> = match first {
        Some(i) => lines[i..].iter().take(20).map(String::as_str).collect(),
        None => lines.iter().rev().take(10).rev().map(String::as_str).collect(),
    };
    kept.join("\n")
}

/// Makes `plan`'s build, cargo's output going to `progress` line by line as it comes.
/// An error is this process's own (cargo cannot be started, the copy cannot be written);
/// cargo failing is [`Built::Failed`].
pub fn build(project: &Project, plan: &BuildPlan, progress: &mut dyn Write) -> Result<Built, Error> {
    if let Some(copy) = &plan.copy_to {
        sync_copy(&project.workspace, copy)
            .map_err(|e| Error::environment(format!("cannot copy the workspace to {}: {e}", copy.display())))?;
    }
    let mut messages = String::new();
    for step in &plan.steps {
        let _ = writeln!(progress, "levers: {}: cargo {}", plan.name, step.args.join(" "));
        let mut child = Command::new(&project.cargo)
            .current_dir(&step.dir)
            .args(&step.args)
            .envs(step.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::environment(format!("cannot run {}: {e}", project.cargo.to_string_lossy())))?;
        // Cargo's JSON messages (a bench's executable) on stdout, read beside stderr so neither
        // pipe fills while the other is read.
        let out = child.stdout.take().map(|mut o| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(&mut o, &mut text);
                text
            })
        });
        let mut lines = Vec::new();
        if let Some(err) = child.stderr.take() {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = writeln!(progress, "{line}");
                lines.push(line);
            }
        }
        messages = out.and_then(|t| t.join().ok()).unwrap_or_default();
        let status = child.wait().map_err(|e| Error::environment(format!("cargo: {e}")))?;
        if !status.success() {
            return Ok(Built::Failed(failure_message(&lines)));
        }
    }
    if let (Some(built), Some(keep)) = (&plan.built, &plan.binary) {
        keep_copy(built, keep).map_err(|e| Error::environment(format!("cannot copy {} to {}: {e}", built.display(), keep.display())))?;
    }
    let binary = match (&plan.binary, &project.target) {
        (Some(path), _) => Some(path.clone()),
        (None, Target::Bench(name)) => bench_executable(&messages, name),
        (None, Target::Bin(_)) => None,
    };
    Ok(match binary {
        Some(path) => Built::Program(path),
        None => Built::Failed("cargo built the bench but named no executable for it".to_string()),
    })
}

/// Puts the default build's program back where cargo leaves it in the shared target directory
/// (`target/release/<bin>`) once feature levers were built there: the last one's binary would
/// otherwise be what the next `target/release/jsoncost` runs. The default build is fresh, so
/// cargo only links it back into place.
pub fn restore_default(project: &Project, progress: &mut dyn Write) -> Result<(), Error> {
    match build(project, &plan(project, None)?, progress)? {
        Built::Program(_) => Ok(()),
        Built::Failed(message) => Err(Error::environment(format!(
            "putting the default build back after the levers failed:\n{message}"
        ))),
    }
}

/// Copies the binary cargo made to `keep` (through a temporary file renamed into place, so a
/// program still running from `keep` keeps its own file).
fn keep_copy(built: &Path, keep: &Path) -> std::io::Result<()> {
    let dir = keep.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::fs::copy(built, tmp.path())?;
    tmp.persist(keep).map_err(|e| e.error)?;
    Ok(())
}

/// Brings `to` up to date with the workspace at `from`, leaving out `target` and `.git`: a file
/// is written only when its bytes differ, so cargo's fingerprints (mtimes) of unchanged
/// sources hold and the copy's build is reused. Symbolic links are left out.
pub fn sync_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let kind = entry.file_type()?;
        let (src, dst) = (entry.path(), to.join(&name));
        if kind.is_dir() {
            sync_copy(&src, &dst)?;
        } else if kind.is_file() {
            let bytes = std::fs::read(&src)?;
            // Cargo.lock is the copy's own once a version lever has moved it.
            if name == "Cargo.lock" && dst.exists() {
                continue;
            }
            if std::fs::read(&dst).ok().as_deref() != Some(bytes.as_slice()) {
                std::fs::write(&dst, bytes)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    #[test]
    fn this_bench_is_the_bench_target_its_executable_was_built_for() {
        let metadata = r#"{"packages": [
            {"name": "other", "manifest_path": "/ws/other/Cargo.toml", "targets": [{"name": "json", "kind": ["bench"]}]},
            {"name": "webhooks", "manifest_path": "/ws/webhooks/Cargo.toml", "targets": [
                {"name": "webhooks", "kind": ["lib"]},
                {"name": "json-costs", "kind": ["bench"]},
                {"name": "json", "kind": ["test"]}
            ]}
        ]}"#;
        let manifest = Path::new("/ws/webhooks/Cargo.toml");
        assert_eq!(
            bench_target(metadata, manifest, "json_costs-0123456789abcdef"),
            Ok("json-costs".to_string())
        );
        assert_eq!(
            bench_target(metadata, manifest, "json-0123456789abcdef"),
            Err(Error::usage(
                "this executable (json-0123456789abcdef) is none of the package's benches (json-costs): --lever rebuilds a bench target, run it with cargo bench --bench NAME"
            ))
        );
        assert_eq!(
            bench_target(metadata, Path::new("/elsewhere/Cargo.toml"), "json_costs-0123456789abcdef"),
            Err(Error::environment("cargo metadata lists no package at /elsewhere/Cargo.toml"))
        );
    }

    #[test]
    fn a_lever_whose_program_fails_is_said_and_the_others_are_still_measured() {
        let mut measured = Measured {
            verdicts: Vec::new(),
            built: 3,
            judged: 0,
            first_error: None,
        };
        let built = vec![("a", 1), ("b", 2), ("c", 3)];
        each_lever(&mut measured, built, &|| false, |name, _| match *name {
            "b" => Err(Error::usage("program b refused the arguments (exit 2)")),
            name => Ok((format!("{name}: measured"), name == "a")),
        });
        assert_eq!(
            measured.verdicts,
            [
                "a: measured",
                "b: not measured: program b refused the arguments (exit 2)",
                "c: measured"
            ]
        );
        assert_eq!(measured.judged, 1);
        assert_eq!(measured.first_error, Some(Error::usage("program b refused the arguments (exit 2)")));
    }

    use super::*;

    fn project() -> Project {
        Project {
            workspace: PathBuf::from("/ws"),
            package: "jsoncost-cli".into(),
            target: Target::Bin("jsoncost".into()),
            cargo: "cargo".into(),
        }
    }

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn levers_parse_and_print_as_given() {
        for text in [
            "serde_json/float_roundtrip",
            "cpu=x86-64-v2",
            "lto",
            "panic=abort",
            "sonic-rs@0.5.12",
        ] {
            assert_eq!(text.parse::<Lever>().unwrap().to_string(), text);
        }
        assert_eq!(
            "serde_json/preserve_order".parse(),
            Ok(Lever::Feature {
                krate: "serde_json".into(),
                feature: "preserve_order".into()
            })
        );
        assert_eq!("cpu=native".parse(), Ok(Lever::Cpu("native".into())));
        for bad in [
            "",
            "lto=thin",
            "cpu=",
            "serde_json/",
            "/x",
            "sonic-rs@0.5",
            "sonic-rs@latest",
            "a b/c",
        ] {
            assert_eq!(bad.parse::<Lever>().unwrap_err(), format!("{bad:?} is not a lever: give {FORMS}"));
        }
    }

    #[test]
    fn each_lever_is_one_cargo_command_line_and_a_feature_lever_shares_the_workspace_s_target() {
        let p = project();
        let default = plan(&p, None).unwrap();
        assert_eq!(default.name, "default");
        assert_eq!(default.root, PathBuf::from("/ws/target/levers/default"));
        // The default build and a feature lever share the workspace's target directory, each
        // binary copied out to its own place.
        assert_eq!(default.binary, Some(PathBuf::from("/ws/target/levers/default/jsoncost")));
        assert_eq!(default.built, Some(PathBuf::from("/ws/target/release/jsoncost")));
        assert_eq!(
            default.steps,
            [CargoStep {
                dir: "/ws".into(),
                args: words("build --release -p jsoncost-cli --bin jsoncost --target-dir /ws/target"),
                env: vec![],
            }]
        );
        let feature = plan(&p, Some(&"serde_json/float_roundtrip".parse().unwrap())).unwrap();
        assert_eq!(feature.root, PathBuf::from("/ws/target/levers/serde_json-float_roundtrip"));
        assert_eq!(
            feature.steps[0].args,
            words("build --release -p jsoncost-cli --bin jsoncost --target-dir /ws/target --features serde_json/float_roundtrip")
        );
        assert_eq!(
            (feature.binary, feature.built),
            (
                Some(PathBuf::from("/ws/target/levers/serde_json-float_roundtrip/jsoncost")),
                Some(PathBuf::from("/ws/target/release/jsoncost"))
            )
        );
        let env = |lever: &str| plan(&p, Some(&lever.parse().unwrap())).unwrap().steps[0].env.clone();
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(env("cpu=x86-64-v2"), [pair("CARGO_ENCODED_RUSTFLAGS", "-Ctarget-cpu=x86-64-v2")]);
        assert_eq!(
            env("lto"),
            [
                pair("CARGO_PROFILE_RELEASE_LTO", "fat"),
                pair("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            ]
        );
        assert_eq!(env("panic=abort"), [pair("CARGO_PROFILE_RELEASE_PANIC", "abort")]);
        assert_eq!(
            plan(&p, Some(&"cpu=x86-64-v2".parse().unwrap())).unwrap().root,
            PathBuf::from("/ws/target/levers/cpu-x86-64-v2")
        );
        // A version: a copy of the workspace whose lock is moved, then the build there.
        let version = plan(&p, Some(&"sonic-rs@0.5.12".parse().unwrap())).unwrap();
        let copy = PathBuf::from("/ws/target/levers/sonic-rs-0.5.12/workspace");
        assert_eq!(version.copy_to.as_ref(), Some(&copy));
        assert_eq!(version.steps.len(), 2);
        assert_eq!(version.steps[0].dir, copy);
        assert_eq!(version.steps[0].args, words("update -p sonic-rs --precise 0.5.12"));
        assert_eq!(version.steps[1].dir, copy);
        assert_eq!(
            (version.binary, version.built),
            (
                Some(PathBuf::from("/ws/target/levers/sonic-rs-0.5.12/target/release/jsoncost")),
                None
            )
        );
    }

    #[test]
    fn a_bench_is_built_in_the_bench_profile_and_found_in_cargos_messages() {
        let p = Project {
            target: Target::Bench("json".into()),
            package: "my-crate".into(),
            ..project()
        };
        let lto = plan(&p, Some(&Lever::Lto)).unwrap();
        assert_eq!(lto.binary, None);
        assert_eq!(
            lto.steps[0].args,
            words(
                "bench --no-run -p my-crate --bench json --message-format=json-render-diagnostics --target-dir \
                 /ws/target/levers/lto/target"
            )
        );
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            lto.steps[0].env,
            [
                pair("CARGO_PROFILE_BENCH_LTO", "fat"),
                pair("CARGO_PROFILE_BENCH_CODEGEN_UNITS", "1")
            ]
        );
        assert_eq!(
            plan(&p, Some(&Lever::PanicAbort)).unwrap_err().to_string(),
            "panic=abort cannot be a lever of a bench: cargo ignores `panic` in the bench profile"
        );
        let messages = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"json","kind":["lib"]},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"json","kind":["bench"]},"executable":"/t/release/deps/json-1a2b"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        assert_eq!(bench_executable(messages, "json"), Some(PathBuf::from("/t/release/deps/json-1a2b")));
        assert_eq!(bench_executable(messages, "other"), None);
    }

    #[test]
    fn both_programs_have_paths_and_padding_of_one_length() {
        let [a, b] = programs(
            Path::new("/ws/target/levers/default/target/release/jsoncost"),
            &Lever::Lto,
            Path::new("/ws/target/levers/lto/target/release/jsoncost"),
        );
        assert_eq!((a.name.as_str(), b.name.as_str()), ("default", "lto"));
        let size = |p: &jsoncost_conductor::ab::Program| p.words[0].len() + p.env[0].1.len();
        assert_eq!((size(&a), size(&b)), (49, 49));
        assert_eq!(a.env, [(PAD_ENV.to_string(), String::new())]);
        assert_eq!(b.env, [(PAD_ENV.to_string(), "xxxx".to_string())]);
    }

    #[test]
    fn shipping_a_cpu_level_names_the_cpus_it_runs_on() {
        let ships = |l: &str| l.parse::<Lever>().unwrap().ships("Fixture CPU");
        assert_eq!(
            ships("cpu=native"),
            "the binary runs only on CPUs with every feature of this one (Fixture CPU)"
        );
        assert!(ships("cpu=x86-64-v2").starts_with("the binary runs only on CPUs with SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT"));
        assert_eq!(ships("cpu=znver4"), "the binary runs only on CPUs with the features of znver4");
    }

    #[test]
    fn a_failed_build_keeps_cargos_error_lines() {
        let lines: Vec<String> = [
            "   Compiling a",
            "error: package `serde_json` does not have feature `nope`",
            "",
            "help: x",
            "more",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            failure_message(&lines),
            "error: package `serde_json` does not have feature `nope`\n\nhelp: x\nmore"
        );
        let no_error: Vec<String> = (0..12).map(|i| format!("line {i}")).collect();
        assert_eq!(failure_message(&no_error).lines().next(), Some("line 2"));
    }

    #[test]
    fn the_copy_writes_only_what_differs_and_leaves_target_and_the_moved_lock() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("ws"), dir.path().join("copy"));
        std::fs::create_dir_all(from.join("src")).unwrap();
        std::fs::create_dir_all(from.join("target/x")).unwrap();
        std::fs::write(from.join("Cargo.toml"), "[package]").unwrap();
        std::fs::write(from.join("Cargo.lock"), "lock 1").unwrap();
        std::fs::write(from.join("src/lib.rs"), "fn a() {}").unwrap();
        sync_copy(&from, &to).unwrap();
        assert!(!to.join("target").exists());
        assert_eq!(std::fs::read_to_string(to.join("src/lib.rs")).unwrap(), "fn a() {}");
        let before = std::fs::metadata(to.join("Cargo.toml")).unwrap().modified().unwrap();
        std::fs::write(to.join("Cargo.lock"), "lock moved").unwrap();
        std::fs::write(from.join("src/lib.rs"), "fn b() {}").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        sync_copy(&from, &to).unwrap();
        assert_eq!(std::fs::read_to_string(to.join("src/lib.rs")).unwrap(), "fn b() {}");
        assert_eq!(std::fs::metadata(to.join("Cargo.toml")).unwrap().modified().unwrap(), before);
        assert_eq!(std::fs::read_to_string(to.join("Cargo.lock")).unwrap(), "lock moved");
    }

    /// A build in the shared target directory is copied out to the lever's own place, where the
    /// next build's binary (at the same path in the target) cannot overwrite it.
    #[test]
    fn a_binary_built_in_the_shared_target_is_kept_in_the_lever_s_directory() {
        use std::os::unix::fs::PermissionsExt;
        let ws = tempfile::tempdir().unwrap();
        // A cargo that writes the binary its `--target-dir` and its features say.
        let cargo = ws.path().join("fake-cargo");
        std::fs::write(
            &cargo,
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in --target-dir) t=$2;; --features) f=$2;; esac; shift; done\n\
             mkdir -p \"$t/release\" && echo \"built with ${f:-default}\" > \"$t/release/jsoncost\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
        let p = Project {
            workspace: ws.path().to_path_buf(),
            cargo: cargo.into(),
            ..project()
        };
        let mut kept = Vec::new();
        for lever in [None, Some("serde_json/float_roundtrip".parse::<Lever>().unwrap())] {
            let plan = plan(&p, lever.as_ref()).unwrap();
            let Built::Program(path) = build(&p, &plan, &mut Vec::new()).unwrap() else {
                panic!("not built")
            };
            kept.push(path);
        }
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();
        assert_eq!(kept[0], ws.path().join("target/levers/default/jsoncost"));
        assert_eq!(read(&kept[0]), "built with default\n");
        assert_eq!(read(&kept[1]), "built with serde_json/float_roundtrip\n");
        // The workspace's own binary is the last lever's until the default build is put back.
        let own = ws.path().join("target/release/jsoncost");
        assert_eq!(read(&own), "built with serde_json/float_roundtrip\n");
        restore_default(&p, &mut Vec::new()).unwrap();
        assert_eq!(read(&own), "built with default\n");
    }

    /// Cargo refuses a feature the crate does not have before it compiles anything: a failed
    /// lever with cargo's message, cheaply.
    #[test]
    fn a_lever_naming_a_feature_that_does_not_exist_fails_with_cargos_message() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let p = Project {
            workspace,
            package: "jsoncost-cli".into(),
            target: Target::Bin("jsoncost".into()),
            cargo: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
        };
        let mut plan = plan(&p, Some(&"serde_json/no_such_feature".parse().unwrap())).unwrap();
        // Not the workspace's target: nothing is built anyway.
        let at = plan.steps[0].args.iter().position(|a| a == "--target-dir").unwrap();
        plan.steps[0].args[at + 1] = scratch.path().display().to_string();
        let mut progress = Vec::new();
        let Built::Failed(message) = build(&p, &plan, &mut progress).unwrap() else {
            panic!("built")
        };
        assert!(message.starts_with("error: ") && message.contains("no_such_feature"), "{message}");
        assert!(
            String::from_utf8(progress)
                .unwrap()
                .starts_with("levers: serde_json/no_such_feature: cargo build --release")
        );
    }
}

/// What [`measure`] did.
#[derive(Debug)]
pub struct Measured {
    /// One per lever measured, failed to build or whose program failed, in order.
    pub verdicts: Vec<String>,
    /// Levers that built.
    pub built: usize,
    /// Levers whose time was judged (the machine quiet enough).
    pub judged: usize,
    /// The first lever's program failure, the run's error once every verdict is said.
    pub first_error: Option<Error>,
}

/// The whole lever study of `project`, as `jsoncost levers` and a harness's `--lever` run it:
/// the default build and each lever's built (cargo's output on `progress`; one that fails to
/// build is a verdict, not an error), then each built lever run in lockstep with the default
/// build under `settings` and judged at `threshold`; `show` gets each lever's paired table as
/// it is measured. An error is the default build's failure or this process's own; a lever
/// whose program fails is said among the verdicts and the others are still measured.
pub fn measure(
    project: &Project,
    levers: &[Lever],
    settings: &Settings,
    threshold: f64,
    interrupted: &dyn Fn() -> bool,
    progress: &mut dyn Write,
    show: &mut dyn FnMut(&Lever, &AbComparison) -> Result<(), Error>,
) -> Result<Measured, Error> {
    let mut build_one = |lever: Option<&Lever>| -> Result<Built, Error> {
        let plan = plan(project, lever)?;
        let _ = writeln!(
            progress,
            "levers: building {} in {} (reused when up to date)",
            plan.name,
            plan.root.display()
        );
        build(project, &plan, progress)
    };
    let default = match build_one(None)? {
        Built::Program(path) => path,
        Built::Failed(message) => return Err(Error::environment(format!("the default build failed:\n{message}"))),
    };
    let mut measured = Measured {
        verdicts: Vec::new(),
        built: 0,
        judged: 0,
        first_error: None,
    };
    let mut built = Vec::new();
    for lever in levers {
        match build_one(Some(lever))? {
            Built::Program(path) => built.push((lever, path)),
            Built::Failed(message) => measured
                .verdicts
                .push(format!("{lever}: failed to build, not measured:\n{message}")),
        }
    }
    // A feature lever of a binary is built in the workspace's own target: put the default
    // binary back where the last lever's build left its own (a bench's executables are named
    // by their features' hash, and stay apart).
    if matches!(project.target, Target::Bin(_)) && levers.iter().any(|l| matches!(l, Lever::Feature { .. })) {
        restore_default(project, progress)?;
    }
    measured.built = built.len();
    let cpu_name = jsoncost_engine::machine::current().cpu;
    each_lever(&mut measured, built, interrupted, |lever, path| {
        let settings = Settings {
            label: format!("levers {lever}"),
            ..settings.clone()
        };
        let [base, new] = programs(&default, lever, path);
        let runs = jsoncost_conductor::ab::run(&settings, [&base, &new], interrupted)?;
        let first = ab_with(&runs, threshold, RowSpread::Keep)
            .allowing_missing(true)
            .on_cpu(settings.cpu);
        let comparison = jsoncost_conductor::ab::confirmed(first, &settings, [&base, &new], RowSpread::Keep, interrupted)?;
        show(lever, &comparison)?;
        let verdict = jsoncost_report::levers::verdict(
            &lever.to_string(),
            lever.kind(),
            &lever.ships(&cpu_name),
            lever.touches(),
            &runs,
            &comparison,
        );
        Ok((verdict, comparison.busy().is_none()))
    });
    Ok(measured)
}

/// Each built lever `(lever, program)` measured in turn by `measure` (its verdict, and whether
/// its time was judged) until an interruption, into `measured`: a lever whose program fails
/// (it refuses the arguments, it cannot read the payload in that build) is said among the
/// verdicts and the others are still measured.
fn each_lever<L: fmt::Display, P>(
    measured: &mut Measured,
    built: Vec<(L, P)>,
    interrupted: &dyn Fn() -> bool,
    mut measure: impl FnMut(&L, &P) -> Result<(String, bool), Error>,
) {
    for (lever, program) in built {
        if interrupted() {
            break;
        }
        match measure(&lever, &program) {
            Ok((verdict, judged)) => {
                measured.verdicts.push(verdict);
                measured.judged += usize::from(judged);
            }
            Err(e) => {
                measured.verdicts.push(format!("{lever}: not measured: {e}"));
                measured.first_error.get_or_insert(e);
            }
        }
    }
}
