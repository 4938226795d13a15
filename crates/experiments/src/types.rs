//! A serde type registered for measurement: its sample document, the value decoded from it,
//! and the optional parts of its deserialize table. The built-in shapes and a user's own types
//! are registered the same way and measured by the same code.

#[cfg(feature = "more-libraries")]
use jsoncost_codecs::derived::{self, facet, miniserde, nanoserde, simd_json_derive};
use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::toolkit::{OpStrategy, Through, emit, emit_bytes};
use jsoncost_codecs::{BorrowedForm, BoxedStrategy, Contract, Direction, Effort, StrategyId, TypeOptions, typed};
use jsoncost_engine::ExperimentKind;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::error::Error;
use crate::runner::{Runner, Table};

/// A sample document: JSON text, or a file read when the study starts.
///
/// ```
/// use jsoncost::Sample;
///
/// let inline = Sample::json(r#"{"id": 7, "customer": "Ada"}"#);
/// assert!(matches!(inline, Sample::Bytes(ref b) if b.starts_with(b"{")));
/// let on_disk = Sample::file("benches/data/order.json"); // read when the study starts
/// assert!(matches!(on_disk, Sample::File(_)));
/// ```
#[derive(Debug, Clone)]
pub enum Sample {
    /// The JSON text itself.
    Bytes(Vec<u8>),
    /// A file holding it, read when the study starts.
    File(PathBuf),
}

impl Sample {
    /// The JSON text itself: `Sample::json(r#"{"id": 1}"#)`.
    pub fn json(text: impl AsRef<[u8]>) -> Sample {
        Sample::Bytes(text.as_ref().to_vec())
    }

    /// A file holding the JSON text: `Sample::file("benches/data/push.json")` (relative to the
    /// directory `cargo bench` runs in: the package's root).
    pub fn file(path: impl Into<PathBuf>) -> Sample {
        Sample::File(path.into())
    }

    pub(crate) fn read(self, name: &str) -> Result<Vec<u8>, Error> {
        match self {
            Sample::Bytes(b) => Ok(b),
            Sample::File(p) => read_file(&p).map_err(|e| Error::usage(format!("the sample of {name}: {e}"))),
        }
    }
}

/// At most [`crate::input::MAX_PAYLOAD_MIB`], through `read_limited`, so a FIFO, a device or
/// a huge file is refused rather than waited on or read into memory whole.
fn read_file(p: &Path) -> Result<Vec<u8>, String> {
    let max = crate::input::MAX_PAYLOAD_MIB;
    if p.is_dir() {
        return Err(format!("{} is a directory, not a JSON file", p.display()));
    }
    jsoncost_report::files::read_limited(p, max << 20).map_err(|e| match e {
        jsoncost_report::files::ReadError::TooLarge { .. } => {
            format!("{} holds more than {max} MiB, the most a sample may", p.display())
        }
        e => format!("cannot read {}: {e}", p.display()),
    })
}

impl From<Vec<u8>> for Sample {
    fn from(b: Vec<u8>) -> Sample {
        Sample::Bytes(b)
    }
}

impl From<&[u8]> for Sample {
    fn from(b: &[u8]) -> Sample {
        Sample::Bytes(b.to_vec())
    }
}

impl<const N: usize> From<&[u8; N]> for Sample {
    fn from(b: &[u8; N]) -> Sample {
        Sample::Bytes(b.to_vec())
    }
}

/// The JSON text itself (as [`Sample::json`]); a file's path is [`Sample::file`].
impl From<&str> for Sample {
    fn from(s: &str) -> Sample {
        Sample::Bytes(s.as_bytes().to_vec())
    }
}

/// When a sample given as text that is not JSON names a file: how to read the file instead.
pub(crate) fn file_hint(input: &[u8]) -> String {
    let Ok(text) = std::str::from_utf8(input) else {
        return String::new();
    };
    let text = text.trim();
    if text.len() > 4096 || text.starts_with(['{', '[', '"']) || !Path::new(text).is_file() {
        return String::new();
    }
    format!(" (the text {text:?} names a file: give Sample::file({text:?}) to read it)")
}

/// A registered type, erased: what the micro experiment measures.
pub trait Subject {
    /// The table prefix, e.g. `my-order` → `my-order/deserialize`.
    fn name(&self) -> &str;
    /// The tables' params (`shape`, `payload_bytes` ...): `compare` compares only tables
    /// measured with the same.
    fn params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert("shape".into(), json!(self.name()));
        params.insert("payload_bytes".into(), json!(self.sample().len()));
        params
    }
    /// One direction's params: [`Subject::params`] unless the subject adds to them (a swept
    /// size names its operation).
    fn table_params(&self, direction: Direction) -> Map<String, Value> {
        let _ = direction;
        self.params()
    }
    /// The sample document.
    fn sample(&self) -> &[u8];
    /// The directions it has tables for (both, unless it only decodes: model variants).
    fn directions(&self) -> &'static [Direction] {
        &[Direction::Deserialize, Direction::Serialize]
    }
    /// One direction's table name, e.g. `my-order/deserialize`.
    fn table(&self, direction: Direction) -> String {
        format!("{}/{}", self.name(), direction.as_str())
    }
    /// The exact value one direction's strategies are checked against: the sample's exact
    /// parse (deserialize), or the value being written (serialize).
    fn reference(&self, direction: Direction) -> Result<Reference, String> {
        let _ = direction;
        Reference::from_json(self.sample()).map_err(|e| format!("the exact reference cannot read the input: {e}"))
    }
    /// The strategies of one direction, baseline first.
    fn strategies(&self, direction: Direction) -> Vec<BoxedStrategy<'_>>;
    /// The failures its registration declares expected (test mode counts them as such).
    fn expected_failures(&self) -> &[ExpectedFailure] {
        &[]
    }
}

/// A library as `.libraries(..)` takes it: a [`jsoncost_stream::Library`] or its name as rows
/// carry it (`"jiter"`, `"simd-json-derive"`).
///
/// ```
/// use jsoncost::{Library, LibraryName};
///
/// assert_eq!(Library::SonicRs.library_name(), "sonic-rs");
/// assert_eq!("simd-json-derive".library_name(), "simd-json-derive");
/// // Either kind in `.libraries(..)`: `.libraries(&[Library::SerdeJson, Library::SonicRs])`.
/// ```
pub trait LibraryName {
    /// The name after the `/` of a row's `style/library`.
    fn library_name(&self) -> &str;
}

impl LibraryName for jsoncost_stream::Library {
    fn library_name(&self) -> &str {
        self.as_str()
    }
}

impl LibraryName for &str {
    fn library_name(&self) -> &str {
        self
    }
}

/// A failure a registration declares expected: the rows a glob matches (their `style/library`,
/// or `table::style/library`) fail, for `reason` (a library's known limit on this data).
#[derive(Debug, Clone)]
pub struct ExpectedFailure {
    /// The glob as given.
    pub pattern: String,
    /// Why they fail, as test mode says it.
    pub reason: String,
    matcher: globset::GlobMatcher,
}

impl ExpectedFailure {
    /// The rows `pattern` matches expected to fail for `reason`; `what` names the declaration
    /// in errors (bad input: an empty reason, a pattern that is not a glob).
    pub(crate) fn new(what: &str, pattern: &str, reason: &str) -> Result<ExpectedFailure, Error> {
        if reason.trim().is_empty() {
            return Err(Error::usage(format!("{what}: give the reason it fails, as test mode will say it")));
        }
        let matcher = globset::Glob::new(pattern)
            .map_err(|e| Error::usage(format!("{what}: {e}")))?
            .compile_matcher();
        Ok(ExpectedFailure {
            pattern: pattern.to_string(),
            reason: reason.to_string(),
            matcher,
        })
    }

    /// Whether the row `method` of `table` is one of those expected to fail.
    pub fn matches(&self, table: &str, method: &str) -> bool {
        self.matcher.is_match(method) || self.matcher.is_match(format!("{table}::{method}"))
    }
}

/// The rows of a registration to run: of these libraries and styles (`None`: all).
#[derive(Debug, Clone, Default)]
struct Selection {
    libraries: Option<Vec<String>>,
    styles: Option<Vec<String>>,
}

impl Selection {
    /// Whether the strategy `id` is selected; the baseline always is (it is what the other rows
    /// are checked with and compared to).
    fn keeps(&self, index: usize, id: &StrategyId) -> bool {
        index == 0
            || (self
                .libraries
                .as_ref()
                .is_none_or(|l| l.iter().any(|x| Some(x.as_str()) == id.library()))
                && self.styles.as_ref().is_none_or(|s| s.iter().any(|x| x == id.style())))
    }
}

/// A team's own decode path ([`TypedSubject::custom_deserialize`]); shared by the sizes of a
/// sweep.
pub type CustomDecode<T> = Rc<dyn Fn(&[u8]) -> Result<T, String>>;

/// A team's own encode path ([`TypedSubject::custom_serialize`]).
pub type CustomEncode<T> = Rc<dyn Fn(&T) -> Result<Vec<u8>, String>>;

/// A type `T` with its sample decoded once (the serialize strategies write it back).
pub struct TypedSubject<T> {
    name: String,
    input: Vec<u8>,
    value: T,
    options: TypeOptions,
    /// The serialize strategies of libraries whose own derive `T` has.
    derived_serialize: Vec<for<'v> fn(&'v T) -> Vec<BoxedStrategy<'v>>>,
    /// `T`'s value as a plain copy deriving the other libraries' traits (the built-in shapes).
    #[cfg(feature = "more-libraries")]
    plain: Option<Box<dyn derived::PlainValue>>,
    /// The libraries and styles its registration runs.
    selection: Selection,
    /// The team's own decode paths, rows of the deserialize table.
    custom_deserialize: Vec<(StrategyId, CustomDecode<T>)>,
    /// The team's own encode paths, rows of the serialize table.
    custom_serialize: Vec<(StrategyId, CustomEncode<T>)>,
    /// The failures its registration declares expected.
    expected: Vec<ExpectedFailure>,
}

impl<T: Serialize + DeserializeOwned> TypedSubject<T> {
    /// Registers `T` with `sample`; bad input (exit 2) when the sample is not a `T`, or a `T`
    /// that does not serialize.
    pub fn new(name: impl Into<String>, sample: impl Into<Sample>) -> Result<Self, Error> {
        let name = name.into();
        let input = sample.into().read(&name)?;
        let type_name = std::any::type_name::<T>();
        let value: T = serde_json::from_slice(&input).map_err(|e| {
            let why = jsoncost_codecs::gate::explain_decode_error(&input, &name, type_name, &e);
            Error::usage(format!("{why}{}", file_hint(&input)))
        })?;
        serde_json::to_vec(&value).map_err(|e| Error::usage(format!("{name}: a {type_name} does not serialize: {e}")))?;
        Ok(TypedSubject {
            name,
            input,
            value,
            options: TypeOptions::default(),
            derived_serialize: Vec::new(),
            #[cfg(feature = "more-libraries")]
            plain: None,
            selection: Selection::default(),
            expected: Vec::new(),
            custom_deserialize: Vec::new(),
            custom_serialize: Vec::new(),
        })
    }

    /// A custom row's identity from the name a team gives it: `style/library`, as every row's,
    /// and not one the table has. The one place a name is read into parts: it is user input.
    fn custom_id(&self, name: &str) -> Result<StrategyId, Error> {
        let parts = name
            .split_once('/')
            .filter(|(s, l)| !s.is_empty() && !l.is_empty() && !l.contains('/'))
            .filter(|_| !name.chars().any(char::is_whitespace));
        let Some((style, library)) = parts else {
            return Err(Error::usage(format!(
                "{}: invalid custom row name {name:?}: rows are named style/library (e.g. \"path-to-error/serde_json\"), without spaces",
                self.name
            )));
        };
        if self.all_methods().iter().any(|m| m == name) {
            return Err(Error::usage(format!("{}: the row {name:?} is registered already", self.name)));
        }
        Ok(StrategyId::new(style.to_string(), library.to_string()))
    }

    /// Adds the row `name` to the deserialize table: the team's own decode path from the
    /// sample's bytes to a `T`, gated as `typed/*` is (against the exact parse of the sample
    /// as `T` sees it), measured and judged with the rest at effort `code`.
    pub fn custom_deserialize<E: std::fmt::Display>(
        self,
        name: &str,
        decode: impl Fn(&[u8]) -> Result<T, E> + 'static,
    ) -> Result<Self, Error> {
        self.with_custom_decode(name, Rc::new(move |b: &[u8]| decode(b).map_err(|e| e.to_string())))
    }

    /// [`TypedSubject::custom_deserialize`] with the path shared (by the sizes of a sweep).
    pub fn with_custom_decode(mut self, name: &str, decode: CustomDecode<T>) -> Result<Self, Error> {
        let id = self.custom_id(name)?;
        self.custom_deserialize.push((id, decode));
        Ok(self)
    }

    /// Adds the row `name` to the serialize table: the team's own encode path from a `T` to
    /// JSON bytes, gated on what the bytes parse to (against the value), measured and judged
    /// with the rest at effort `code`.
    pub fn custom_serialize<E: std::fmt::Display>(
        self,
        name: &str,
        encode: impl Fn(&T) -> Result<Vec<u8>, E> + 'static,
    ) -> Result<Self, Error> {
        self.with_custom_encode(name, Rc::new(move |v: &T| encode(v).map_err(|e| e.to_string())))
    }

    /// [`TypedSubject::custom_serialize`] with the path shared (by the sizes of a sweep).
    pub fn with_custom_encode(mut self, name: &str, encode: CustomEncode<T>) -> Result<Self, Error> {
        let id = self.custom_id(name)?;
        self.custom_serialize.push((id, encode));
        Ok(self)
    }

    /// Every strategy name of both directions, whatever the selection, sorted, without repeats.
    fn all_methods(&self) -> Vec<String> {
        let mut all: Vec<String> = [Direction::Deserialize, Direction::Serialize]
            .into_iter()
            .flat_map(|d| self.unselected(d).iter().map(|s| s.name().to_string()).collect::<Vec<_>>())
            .collect();
        all.sort();
        all.dedup();
        all
    }

    /// Checks `names` against the `part` (its style or its library) of every strategy of a
    /// library.
    fn check_names(&self, what: &str, plural: &str, part: fn(&StrategyId) -> &str, names: &[String]) -> Result<(), Error> {
        let mut known: Vec<String> = [Direction::Deserialize, Direction::Serialize]
            .into_iter()
            .flat_map(|d| self.unselected(d).iter().map(|s| s.id().clone()).collect::<Vec<_>>())
            .filter(|id| id.library().is_some())
            .map(|id| part(&id).to_string())
            .collect();
        known.sort();
        known.dedup();
        if names.is_empty() {
            return Err(Error::usage(format!("{}: .{plural}(..) names none: give one or more", self.name)));
        }
        match names.iter().find(|n| !known.contains(n)) {
            Some(n) => Err(Error::usage(format!(
                "{}: .{plural}(..): no strategy of {what} {n:?}; the {plural} are: {}",
                self.name,
                known.join(", ")
            ))),
            None => Ok(()),
        }
    }

    /// Runs only these libraries' rows (the baseline `typed/serde_json` always runs).
    pub fn libraries<L: LibraryName>(mut self, libraries: &[L]) -> Result<Self, Error> {
        let names: Vec<String> = libraries.iter().map(|l| l.library_name().to_string()).collect();
        self.check_names("library", "libraries", |id| id.library().unwrap_or_default(), &names)?;
        self.selection.libraries = Some(names);
        Ok(self)
    }

    /// Runs only these styles' rows (`typed`, `dom`, `borrowed` ...; the baseline always runs).
    pub fn styles<S: AsRef<str>>(mut self, styles: &[S]) -> Result<Self, Error> {
        let names: Vec<String> = styles.iter().map(|s| s.as_ref().to_string()).collect();
        self.check_names("style", "styles", StrategyId::style, &names)?;
        self.selection.styles = Some(names);
        Ok(self)
    }

    /// Declares the rows `pattern` matches (a glob over `style/library`, or over
    /// `table::style/library` for one table) expected to fail, for `reason`.
    pub fn expect_failure(mut self, pattern: &str, reason: &str) -> Result<Self, Error> {
        let what = format!("{}: .expect_failure({pattern:?}, ..)", self.name);
        let expected = ExpectedFailure::new(&what, pattern, reason)?;
        let tables = [Direction::Deserialize, Direction::Serialize].map(|d| self.table(d));
        let all = self.all_methods();
        if !all.iter().any(|m| tables.iter().any(|t| expected.matches(t, m))) {
            return Err(Error::usage(format!(
                "{what} matches no strategy; the strategies are: {}",
                all.join(", ")
            )));
        }
        self.expected.push(expected);
        Ok(self)
    }

    #[cfg(feature = "more-libraries")]
    /// Adds simd-json-derive's, nanoserde's, miniserde's and facet-json's strategies through
    /// `P`, a plain copy of `T` that derives their traits (`jsoncost_shapes::derived`): its deserializers
    /// read the sample into a `P`, its serializers write `T`'s value converted to a `P` once.
    /// Bad input (exit 2) when the value does not fit `P`.
    pub fn plain_copy<P>(mut self) -> Result<Self, Error>
    where
        P: for<'i> simd_json_derive::Deserialize<'i>
            + simd_json_derive::Serialize
            + nanoserde::DeJson
            + nanoserde::SerJson
            + miniserde::Deserialize
            + miniserde::Serialize
            + facet::Facet<'static>
            + Serialize
            + DeserializeOwned
            + 'static,
    {
        let plain: P = serde_json::to_vec(&self.value)
            .and_then(|b| serde_json::from_slice(&b))
            .map_err(|e| Error::usage(format!("{}: the value is not a {}: {e}", self.name, std::any::type_name::<P>())))?;
        self.options.derived.extend(derived::all_deserialize::<P>());
        self.plain = Some(Box::new(derived::Plain(plain)));
        Ok(self)
    }

    #[cfg(feature = "more-libraries")]
    /// Adds simd-json-derive's strategies: `T` also derives `simd_json_derive::Serialize` and
    /// `Deserialize` (simd-json's fastest typed path).
    pub fn simd_json_derive(mut self) -> Self
    where
        T: for<'i> simd_json_derive::Deserialize<'i> + simd_json_derive::Serialize,
    {
        self.options.derived.push(derived::simd_json_derive_deserialize::<T>);
        self.derived_serialize.push(derived::simd_json_derive_serialize::<T>);
        self
    }

    #[cfg(feature = "more-libraries")]
    /// Adds `iterator/jiter`: `T`'s hand decoder over jiter's pull parser
    /// ([`jsoncost_codecs::jiter_decode::FromJiter`]; the built-in shapes have one).
    pub fn jiter_iterator_with<D: jsoncost_codecs::jiter_decode::JiterDecoder<T>>(mut self) -> Self {
        self.options.derived.push(jsoncost_codecs::jiter_decode::strategies::<T, D>);
        self
    }

    /// `iterator/jiter` for a type with its own [`jsoncost_codecs::jiter_decode::FromJiter`]
    /// (the built-in shapes).
    #[cfg(feature = "more-libraries")]
    pub fn jiter_iterator(self) -> Self
    where
        T: jsoncost_codecs::jiter_decode::FromJiter,
    {
        self.jiter_iterator_with::<T>()
    }

    #[cfg(feature = "more-libraries")]
    /// Adds nanoserde's strategies: `T` also derives `nanoserde::DeJson` and `SerJson`.
    pub fn nanoserde(mut self) -> Self
    where
        T: nanoserde::DeJson + nanoserde::SerJson,
    {
        self.options.derived.push(derived::nanoserde_deserialize::<T>);
        self.derived_serialize.push(derived::nanoserde_serialize::<T>);
        self
    }

    #[cfg(feature = "more-libraries")]
    /// Adds miniserde's strategies: `T` also derives `miniserde::Deserialize` and `Serialize`.
    pub fn miniserde(mut self) -> Self
    where
        T: miniserde::Deserialize + miniserde::Serialize,
    {
        self.options.derived.push(derived::miniserde_deserialize::<T>);
        self.derived_serialize.push(derived::miniserde_serialize::<T>);
        self
    }

    #[cfg(feature = "more-libraries")]
    /// Adds facet-json's strategies: `T` also derives `facet::Facet`.
    pub fn facet_json(mut self) -> Self
    where
        T: facet::Facet<'static>,
    {
        self.options.derived.push(derived::facet_json_deserialize::<T>);
        self.derived_serialize.push(derived::facet_json_serialize::<T>);
        self
    }

    /// Adds the `borrowed/*` strategies of `T`'s zero-copy form `F`.
    pub fn borrowed_as<F: BorrowedForm<T>>(mut self) -> Self {
        self.options = self.options.borrowed::<T, F>();
        self
    }

    /// Adds `lazy/sonic-rs` over these JSON pointers (each must be in the sample).
    pub fn lazy<S: AsRef<str>>(mut self, fields: &[S]) -> Result<Self, Error> {
        let doc: Value = serde_json::from_slice(&self.input).map_err(|e| Error::usage(format!("the sample of {}: {e}", self.name)))?;
        for f in fields {
            let f = f.as_ref();
            if !(f.is_empty() || f.starts_with('/')) {
                return Err(Error::usage(format!(
                    "{}: invalid JSON pointer {f:?}: it must be empty or start with '/'",
                    self.name
                )));
            }
            if doc.pointer(f).is_none() {
                return Err(Error::usage(format!("{}: the sample has no field at {f}", self.name)));
            }
        }
        self.options = self.options.lazy(fields);
        Ok(self)
    }
}

impl<T: Serialize + DeserializeOwned> Subject for TypedSubject<T> {
    fn name(&self) -> &str {
        &self.name
    }
    fn sample(&self) -> &[u8] {
        &self.input
    }
    fn reference(&self, direction: Direction) -> Result<Reference, String> {
        match direction {
            Direction::Deserialize => {
                Reference::from_json(&self.input).map_err(|e| format!("the exact reference cannot read the input: {e}"))
            }
            Direction::Serialize => Reference::of(&self.value),
        }
    }
    fn strategies(&self, direction: Direction) -> Vec<BoxedStrategy<'_>> {
        self.unselected(direction)
            .into_iter()
            .enumerate()
            .filter(|(i, s)| self.selection.keeps(*i, s.id()))
            .map(|(_, s)| s)
            .collect()
    }
    fn expected_failures(&self) -> &[ExpectedFailure] {
        &self.expected
    }
}

impl<T: Serialize + DeserializeOwned> TypedSubject<T> {
    /// Every strategy of one direction, before the registration's selection.
    fn unselected(&self, direction: Direction) -> Vec<BoxedStrategy<'_>> {
        let mut v = self.builtin(direction);
        let input = self.input.as_slice();
        let n = Some(input.len() as u64);
        match direction {
            Direction::Deserialize => v.extend(self.custom_deserialize.iter().map(|(name, decode)| {
                let decode = &**decode;
                let row = OpStrategy::boxed(name.clone(), Contract::TypedValue, Effort::Code, n, move |s| {
                    emit(s, &decode(input)?)
                });
                // Gated on what `T` sees of the reference, as the typed rows are.
                Through::<T>::boxed(row)
            })),
            Direction::Serialize => {
                let value = &self.value;
                // The bytes the baseline writes, as the built-in rows' MB/s count them.
                let n = serde_json::to_vec(value).ok().map(|b| b.len() as u64);
                v.extend(self.custom_serialize.iter().map(|(name, encode)| {
                    let encode = &**encode;
                    OpStrategy::boxed(name.clone(), Contract::BytesFromTyped, Effort::Code, n, move |s| {
                        emit_bytes(s, &encode(value)?)
                    })
                }))
            }
        }
        v
    }

    /// The strategies jsoncost has for `T` in one direction.
    fn builtin(&self, direction: Direction) -> Vec<BoxedStrategy<'_>> {
        match direction {
            Direction::Deserialize => typed::deserialize_strategies::<T>(&self.input, &self.options),
            // Checked in `new`: the value serializes.
            Direction::Serialize => {
                let mut v = typed::serialize_strategies(&self.value).unwrap_or_default();
                for derived in &self.derived_serialize {
                    v.extend(derived(&self.value));
                }
                #[cfg(feature = "more-libraries")]
                if let Some(plain) = &self.plain {
                    v.extend(plain.serialize_strategies());
                }
                v
            }
        }
    }
}

/// Every (subject, direction) table, in order.
fn plans<'s>(subjects: &[&'s dyn Subject]) -> Vec<(&'s dyn Subject, Direction)> {
    subjects.iter().flat_map(|s| s.directions().iter().map(|d| (*s, *d))).collect()
}

/// Measures every subject's deserialize and serialize tables through `runner`.
pub fn measure(subjects: &[Box<dyn Subject>], runner: &mut Runner<'_>) -> Result<(), Error> {
    let subjects: Vec<&dyn Subject> = subjects.iter().map(|s| s.as_ref()).collect();
    measure_each(&subjects, runner)
}

/// [`measure`] over borrowed subjects (the harness measures one at a time).
pub(crate) fn measure_each(subjects: &[&dyn Subject], runner: &mut Runner<'_>) -> Result<(), Error> {
    let plans = plans(subjects);
    let mut names = Vec::new();
    let mut total = 0;
    for (s, d) in &plans {
        let strategies = s.strategies(*d);
        total += runner.timed_count(&strategies);
        names.extend(strategies.iter().map(|s| s.name().to_string()));
    }
    runner.filter().check_matches_any(names.iter().map(String::as_str))?;
    runner.sink().planned(total);
    for (s, d) in plans {
        if runner.is_cancelled() {
            return Err(Error::Interrupted);
        }
        let name = s.table(d);
        let reference = s.reference(d).map_err(|e| Error::usage(format!("{name}: {e}")))?;
        let table = Table::new(ExperimentKind::Micro, name, s.table_params(d), reference, s.strategies(d));
        runner.run(table).map_err(Error::from)?;
    }
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

#[cfg(all(test, feature = "more-libraries"))]
mod tests {
    use super::*;

    #[test]
    fn a_sample_file_that_is_a_device_a_directory_or_missing_is_refused_naming_it() {
        let read = |p: &str| Sample::file(p).read("order").unwrap_err().to_string();
        assert_eq!(
            read("/dev/zero"),
            "the sample of order: /dev/zero holds more than 256 MiB, the most a sample may"
        );
        assert_eq!(read("/tmp"), "the sample of order: /tmp is a directory, not a JSON file");
        assert!(read("/nonexistent/x.json").starts_with("the sample of order: cannot read /nonexistent/x.json: "));
    }

    #[derive(
        serde::Serialize,
        serde::Deserialize,
        simd_json_derive::Serialize,
        simd_json_derive::Deserialize,
        nanoserde::SerJson,
        nanoserde::DeJson,
        miniserde::Serialize,
        miniserde::Deserialize,
        facet::Facet,
    )]
    struct Mine {
        id: u64,
        name: String,
    }

    #[test]
    fn a_user_type_s_own_derives_add_their_libraries_to_both_tables() {
        let subject = TypedSubject::<Mine>::new("mine", r#"{"id": 7, "name": "x"}"#)
            .unwrap()
            .simd_json_derive()
            .nanoserde()
            .miniserde()
            .facet_json();
        let names = |d| subject.strategies(d).iter().map(|s| s.name().to_string()).collect::<Vec<_>>();
        let de = names(Direction::Deserialize);
        for n in [
            "typed/simd-json-derive",
            "typed-reuse/simd-json-derive",
            "typed/nanoserde",
            "typed/miniserde",
            "typed/facet-json",
            "typed/jiter",
        ] {
            assert!(de.iter().any(|x| x == n), "{n} missing from {de:?}");
        }
        let ser = names(Direction::Serialize);
        for n in [
            "typed/simd-json-derive",
            "typed-writer/simd-json-derive",
            "typed/nanoserde",
            "typed/miniserde",
            "typed/facet-json",
        ] {
            assert!(ser.iter().any(|x| x == n), "{n} missing from {ser:?}");
        }
        // Without them, none of their rows.
        let plain = TypedSubject::<Mine>::new("mine", r#"{"id": 7, "name": "x"}"#).unwrap();
        assert!(
            !plain
                .strategies(Direction::Deserialize)
                .iter()
                .any(|s| s.id().library() == Some("nanoserde"))
        );
    }
}
