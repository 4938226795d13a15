//! The `cargo bench` harness for a user's own types (`harness = false`, as divan and
//! criterion): [`Study`] parses the same flags as the CLI, registers types, measures them
//! through the one Runner and writes what the CLI writes.

use std::ffi::OsString;
use std::path::PathBuf;

use jsoncost_codecs::ZeroCopy;
use jsoncost_engine::{Config, Results, Schedule, alloc};
use jsoncost_report::Format;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::output::{Output, baselines, timestamp_dir};
use crate::store::{StoreOptions, TypedReads};
use crate::stream::Runs;
use crate::stream::array::{self, ArrayOptions, TypedElements};
use crate::types::{Sample, Subject, TypedSubject};
use crate::variants::{VariantStudy, VariantsSubject};
use crate::{Cancel, Error, Filter, Runner};
use jsoncost_stores::Existing;

/// The harness's flags: `--quick`, `--filter GLOB`, `--format table|markdown|json|csv`,
/// `--out FILE`, `--save-baseline NAME`, `--schedule interleaved|sequential`; `--bench` (which
/// cargo passes) is accepted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    pub quick: bool,
    pub filter: Option<String>,
    pub format: Option<Format>,
    pub out: Option<PathBuf>,
    pub save_baseline: Option<String>,
    /// How a table's strategies share the time (default: interleaved rounds).
    pub schedule: Option<Schedule>,
}

const USAGE: &str = "usage: cargo bench --bench NAME -- [--quick] [--filter GLOB] [--format table|markdown|json|csv] [--out FILE] [--save-baseline NAME] [--schedule interleaved|sequential]";

impl Args {
    /// Parses flags (without the program name). Hand-parsed with lexopt: five flags do not
    /// need clap, and a user's bench should not compile it.
    pub fn parse<I: IntoIterator<Item = OsString>>(args: I) -> Result<Args, Error> {
        use lexopt::prelude::*;
        let usage = |e: lexopt::Error| Error::usage(format!("{e}\n{USAGE}"));
        let mut parser = lexopt::Parser::from_args(args);
        let mut a = Args::default();
        while let Some(arg) = parser.next().map_err(usage)? {
            match arg {
                Long("quick") => a.quick = true,
                // cargo bench passes --bench; libtest-style harnesses accept it the same way.
                Long("bench") => {}
                Long("filter") => a.filter = Some(parser.value().map_err(usage)?.string().map_err(usage)?),
                Long("format") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    a.format = Some(v.parse().map_err(|e| Error::usage(format!("--format: {e}")))?);
                }
                Long("out") => a.out = Some(parser.value().map_err(usage)?.into()),
                Long("save-baseline") => {
                    let name = parser.value().map_err(usage)?.string().map_err(usage)?;
                    baselines::check_name(&name)?;
                    a.save_baseline = Some(name);
                }
                Long("schedule") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    a.schedule = Some(v.parse().map_err(|e| Error::usage(format!("--schedule: {e}")))?);
                }
                Long("help") | Short('h') => return Err(Error::usage(USAGE)),
                other => return Err(usage(other.unexpected())),
            }
        }
        Ok(a)
    }
}

/// A study of the user's own types, e.g. in `benches/json.rs`:
///
/// ```no_run
/// # #[derive(serde::Serialize, serde::Deserialize)] struct MyOrder { id: u64 }
/// fn main() {
///     jsoncost::Study::from_args()
///         .typed::<MyOrder>("my-order", br#"{"id": 1}"#)
///         .lazy(&["/id"])
///         .run();
/// }
/// ```
pub struct Study {
    args: Result<Args, Error>,
    subjects: Vec<Box<dyn Subject>>,
    /// Bodies streamed with a user's element type (`stream`).
    streams: Vec<(String, ArrayOptions, TypedElements)>,
    /// The user's own documents read from their store as their type (`store`).
    stores: Vec<(String, StoreOptions, TypedReads)>,
    /// The first registration error, reported by `run` (exit 2).
    error: Option<Error>,
    cancel: Cancel,
}

impl Study {
    /// A study with the process's flags (what `cargo bench -- ...` passes).
    pub fn from_args() -> Study {
        Study::with_args(std::env::args_os().skip(1))
    }

    /// A study with these flags (without the program name).
    pub fn with_args<I, S>(args: I) -> Study
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Study {
            args: Args::parse(args.into_iter().map(Into::into)),
            subjects: Vec::new(),
            streams: Vec::new(),
            stores: Vec::new(),
            error: None,
            cancel: Cancel::never(),
        }
    }

    /// Stops between strategies once `cancel` says so (the library owns no signal handler).
    pub fn cancel(mut self, cancel: Cancel) -> Study {
        self.cancel = cancel;
        self
    }

    /// Registers `T` with a sample document (bytes, or [`Sample::file`]): its deserialize and
    /// serialize tables, named `name/deserialize` and `name/serialize`, with every strategy
    /// that applies to any serde type.
    pub fn typed<T: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> TypeStudy<T> {
        let subject = TypedSubject::<T>::new(name, sample);
        TypeStudy { study: self, subject }
    }

    /// Registers a body to stream: the array at `pointer` (RFC 6901, `""` for a top-level array)
    /// of the JSON document in `file`, read again by every whole run. Its table, named `name`, has
    /// the stream experiment's DOM and skipping rows and `incremental-typed/<lib>` for `E`,
    /// every row gated element by element against the exact reference.
    pub fn stream<E: Serialize + DeserializeOwned + 'static>(mut self, name: &str, file: impl Into<PathBuf>, pointer: &str) -> Study {
        let options = ArrayOptions {
            file: file.into(),
            pointer: pointer.to_string(),
            chunk_kib: 64,
            max_element_bytes: jsoncost_stream::DEFAULT_MAX_ELEMENT_BYTES,
            max_buffered_mib: crate::stream::DEFAULT_MAX_BUFFERED_MIB,
            runs: Runs::at_least(5),
            quick: false,
        };
        self.streams.push((name.to_string(), options, TypedElements::of::<E>()));
        self
    }

    /// Registers the user's own documents in their store (`url`, as the CLI's `--store`; `at`
    /// where they are): read by id, up to 10,000 of them, as `T` through each library
    /// (`typed/<lib>`, `typed/serde_json` the baseline) and the strategies that need no type,
    /// every row gated against the exact parse of the first document. The table is
    /// `<store kind>/<name>`.
    pub fn store<T: Serialize + DeserializeOwned + 'static>(mut self, name: &str, url: &str, at: Existing) -> Study {
        let options = StoreOptions {
            url: Some(url.to_string()),
            pg_column: jsoncost_stores::PgColumn::Json,
            docs: 10_000,
            shape: crate::store::StoreShape::Order,
            reload: false,
            seed: jsoncost_shapes::DEFAULT_SEED,
            existing: Some(at),
            fields: Vec::new(),
        };
        self.stores.push((name.to_string(), options, TypedReads::of::<T>()));
        self
    }

    /// Registers a group of model variants of `P` over one sample (bytes, or
    /// [`Sample::file`]): the table `name/variants`, rows `<variant>/<library>`, baseline
    /// `plain/serde_json` (the sample decoded as `P`). Each variant is gated, untimed, by its
    /// conversion to `P` against the exact reference as `P` sees it:
    ///
    /// ```no_run
    /// # use serde::Deserialize;
    /// #[derive(serde::Serialize, Deserialize)]
    /// struct Plain { id: u64, kind: String }
    /// #[derive(Deserialize)]
    /// struct Boxed { id: u64, kind: Box<str> }
    /// impl From<Boxed> for Plain {
    ///     fn from(b: Boxed) -> Plain { Plain { id: b.id, kind: b.kind.into() } }
    /// }
    /// jsoncost::Study::from_args()
    ///     .variants::<Plain>("my-model", br#"{"id": 1, "kind": "a"}"#)
    ///     .variant::<Boxed>("box-str")
    ///     .run();
    /// ```
    pub fn variants<P: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> VariantStudy<P> {
        VariantStudy::new(self, VariantsSubject::new(name, sample))
    }

    pub(crate) fn add(mut self, subject: Result<Box<dyn Subject>, Error>) -> Study {
        match subject {
            Ok(s) => self.subjects.push(s),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Measures, prints and writes; exits the process with the CLI's exit codes (0 ok, 2 bad
    /// input, 3 environment, 130 interrupted).
    pub fn run(self) -> ! {
        let code = match self.measure() {
            Ok(_) => 0,
            Err(e) => {
                eprintln!("error: {e}");
                e.exit_code()
            }
        };
        std::process::exit(code)
    }

    /// Measures, prints and writes, and returns the results instead of exiting.
    pub fn measure(mut self) -> Result<Results, Error> {
        let args = self.args?;
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.subjects.is_empty() && self.streams.is_empty() && self.stores.is_empty() {
            return Err(Error::usage(
                "no type registered: call .typed::<T>(name, sample), .variants::<P>(name, sample) or .stream::<E>(name, file, pointer) before .run()",
            ));
        }
        let filter = Filter::new("--filter", args.filter.as_deref())?;
        let (results_path, report_dir) = match &args.out {
            Some(p) => (p.clone(), None),
            None => {
                let dir = timestamp_dir();
                std::fs::create_dir_all(&dir).map_err(|e| Error::environment(format!("cannot create {}: {e}", dir.display())))?;
                (dir.join("results.json"), Some(dir))
            }
        };
        let baseline = args.save_baseline.as_deref().map(baselines::prepare).transpose()?;
        let mut output = Output::new(args.format.unwrap_or(Format::Table), args.quick, Some(results_path.clone()))?;
        if args.quick {
            eprintln!("quick run: fewer, shorter iterations; figures are rough");
        }
        if !alloc::is_installed() {
            eprintln!(
                "note: allocation not measured: install the counting allocator in this bench \
                 (#[global_allocator] static ALLOC: jsoncost::CountingAllocator = jsoncost::CountingAllocator::system();)"
            );
        }
        let mut config = if args.quick { Config::quick() } else { Config::full() };
        if let Some(schedule) = args.schedule {
            config.schedule = schedule;
        }
        let measured = {
            let mut runner = Runner::new(config, filter, self.cancel.clone(), &mut output);
            crate::types::measure(&self.subjects, &mut runner).and_then(|()| {
                for (name, options, typed) in &self.streams {
                    let options = ArrayOptions {
                        quick: args.quick,
                        ..options.clone()
                    };
                    array::run_with(&options, name, Some(typed), &mut runner)?;
                }
                for (name, options, typed) in &self.stores {
                    if let Some(at) = &options.existing {
                        crate::store::run_existing(options, at, Some(name), Some(typed), &mut runner)?;
                    }
                }
                Ok(())
            })
        };
        // Bad input met before anything was measured (a filter matching nothing): no files.
        if let Err(e @ Error::Usage(_)) = &measured
            && output.results.experiments.is_empty()
        {
            return Err(e.clone());
        }
        output.finish(self.cancel.is_cancelled())?;
        let html = match &report_dir {
            Some(dir) => {
                output.write_reports(dir)?;
                dir.join("report.html")
            }
            None => {
                let html = results_path.with_extension("html");
                output.write_html(&html)?;
                html
            }
        };
        if let Some(path) = &baseline {
            output.write_results(path)?;
            eprintln!("baseline {:?} saved to {}", args.save_baseline.unwrap_or_default(), path.display());
        }
        eprintln!("report: {}", html.display());
        measured?;
        output.outcome()?;
        Ok(output.results)
    }
}

/// A type being registered: `.borrowed()` and `.lazy(..)` add its optional strategies; then
/// register another type or run.
pub struct TypeStudy<T> {
    study: Study,
    subject: Result<TypedSubject<T>, Error>,
}

impl<T: Serialize + DeserializeOwned + 'static> TypeStudy<T> {
    /// Adds `borrowed/*` for `T`'s zero-copy form ([`ZeroCopy`]).
    pub fn borrowed(mut self) -> Self
    where
        T: ZeroCopy,
    {
        self.subject = self.subject.map(TypedSubject::borrowed);
        self
    }

    /// Adds `lazy/sonic-rs`: the projection of these JSON pointers, as a handler that reads only
    /// them.
    pub fn lazy<S: AsRef<str>>(mut self, fields: &[S]) -> Self {
        self.subject = self.subject.and_then(|s| s.lazy(fields));
        self
    }

    /// Adds `typed/simd-json-derive` and its reuse and writer forms: `T` also derives
    /// `simd_json_derive::{Serialize, Deserialize}` (the workspace's pinned version).
    pub fn simd_json_derive(mut self) -> Self
    where
        T: for<'i> jsoncost_codecs::derived::simd_json_derive::Deserialize<'i> + jsoncost_codecs::derived::simd_json_derive::Serialize,
    {
        self.subject = self.subject.map(TypedSubject::simd_json_derive);
        self
    }

    /// Adds `iterator/jiter`: `T`'s own decoder over jiter's pull parser (implement
    /// `jsoncost_codecs::jiter_decode::FromJiter`).
    pub fn jiter_iterator(mut self) -> Self
    where
        T: jsoncost_codecs::jiter_decode::FromJiter,
    {
        self.subject = self.subject.map(TypedSubject::jiter_iterator);
        self
    }

    /// Adds `typed/nanoserde`: `T` also derives `nanoserde::{DeJson, SerJson}`.
    pub fn nanoserde(mut self) -> Self
    where
        T: jsoncost_codecs::derived::nanoserde::DeJson + jsoncost_codecs::derived::nanoserde::SerJson,
    {
        self.subject = self.subject.map(TypedSubject::nanoserde);
        self
    }

    /// Adds `typed/miniserde`: `T` also derives `miniserde::{Deserialize, Serialize}`.
    pub fn miniserde(mut self) -> Self
    where
        T: jsoncost_codecs::derived::miniserde::Deserialize + jsoncost_codecs::derived::miniserde::Serialize,
    {
        self.subject = self.subject.map(TypedSubject::miniserde);
        self
    }

    fn done(self) -> Study {
        self.study.add(self.subject.map(|s| Box::new(s) as Box<dyn Subject>))
    }

    /// Registers another type.
    pub fn typed<U: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> TypeStudy<U> {
        self.done().typed::<U>(name, sample)
    }

    /// See [`Study::stream`].
    pub fn stream<E: Serialize + DeserializeOwned + 'static>(self, name: &str, file: impl Into<PathBuf>, pointer: &str) -> Study {
        self.done().stream::<E>(name, file, pointer)
    }

    /// See [`Study::variants`].
    pub fn variants<P: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> VariantStudy<P> {
        self.done().variants::<P>(name, sample)
    }

    /// See [`Study::store`].
    pub fn store<U: Serialize + DeserializeOwned + 'static>(self, name: &str, url: &str, at: Existing) -> Study {
        self.done().store::<U>(name, url, at)
    }

    /// See [`Study::cancel`].
    pub fn cancel(self, cancel: Cancel) -> Study {
        self.done().cancel(cancel)
    }

    /// See [`Study::run`].
    pub fn run(self) -> ! {
        self.done().run()
    }

    /// See [`Study::measure`].
    pub fn measure(self) -> Result<Results, Error> {
        self.done().measure()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, Error> {
        Args::parse(args.iter().map(OsString::from))
    }

    #[test]
    fn the_cli_flags_parse_and_cargo_s_bench_flag_is_accepted() {
        let a = parse(&[
            "--bench",
            "--quick",
            "--filter",
            "typed/*",
            "--format",
            "json",
            "--out",
            "r.json",
            "--save-baseline",
            "main",
            "--schedule",
            "sequential",
        ])
        .unwrap();
        assert_eq!(
            a,
            Args {
                quick: true,
                filter: Some("typed/*".into()),
                format: Some(Format::Json),
                out: Some("r.json".into()),
                save_baseline: Some("main".into()),
                schedule: Some(Schedule::Sequential),
            }
        );
        assert_eq!(parse(&["--bench"]).unwrap(), Args::default());
    }

    #[test]
    fn bad_flags_are_usage_errors_that_say_what_is_wrong() {
        let e = parse(&["--quik"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("invalid option '--quik'\nusage: "), "{e}");
        assert_eq!(
            parse(&["--format", "html"]).unwrap_err().to_string(),
            "--format: unknown format `html`; valid formats: table, markdown, json, csv"
        );
        assert!(
            parse(&["--filter"])
                .unwrap_err()
                .to_string()
                .starts_with("missing argument for option '--filter'")
        );
        assert_eq!(parse(&["--save-baseline", "../x"]).unwrap_err().exit_code(), 2);
        assert_eq!(
            parse(&["--schedule", "paired"]).unwrap_err().to_string(),
            "--schedule: unknown schedule \"paired\": expected sequential or interleaved"
        );
    }
}
