//! The stream experiment over any array of any document (`stream --file F --pointer /path`):
//! the whole document parsed into each library's DOM (`buffered/…`) against the incremental
//! deserializer giving one element at a time as each library's DOM (`incremental/…`), or
//! skipped with `IgnoredAny` (`incremental-skip/…`: the framing and validation alone). With the
//! user's own element type (`Study::stream`), `incremental-typed/…` deserializes each element
//! into it, and `buffered-typed/…` reads the whole file and decodes the array at the pointer
//! straight into `Vec<E>` (the typed baseline). Memory stays bounded in the incremental rows:
//! each element is dropped once parsed, as a handler that processes elements one by one would.

use jsoncost_codecs::exact;
use jsoncost_codecs::gate::{self, Verdict};
use jsoncost_codecs::{Contract, Effort, Strategy, StrategyId};
use jsoncost_engine::{ExperimentKind, Fidelity};
use jsoncost_stream::{Library, Pointer};
use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::{Map, json};
use std::path::{Path, PathBuf};

use super::whole_run::{Runs, WholeRun, guard_file, open, over_buffered_cap, read_all, readable, run_config, skip_buffered};
use crate::error::Error;
use crate::runner::{Runner, Table, TableStop};
use crate::summary;

/// An array inside a document the user already has.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayOptions {
    /// The JSON document.
    pub file: PathBuf,
    /// RFC 6901 pointer to the array (`""` for a top-level array).
    pub pointer: String,
    /// Bytes read at a time, in KiB.
    pub chunk_kib: u64,
    /// The largest element accepted, in bytes.
    pub max_element_bytes: usize,
    /// Largest file the buffered rows read whole, in MiB (see `StreamOptions::max_buffered_mib`).
    pub max_buffered_mib: u64,
    /// Whole runs per strategy.
    pub runs: Runs,
    /// Fewer whole runs.
    pub quick: bool,
}

/// A row here: a whole run yields the elements it went through.
type ArrayStrategy = WholeRun<u64>;

/// The element a pointer token names in an array (RFC 6901: `0` or digits without a leading
/// zero), as every step into an array here reads it.
fn index(token: &str) -> Option<usize> {
    jsoncost_stream::array_index(token).and_then(|i| usize::try_from(i).ok())
}

/// A document's array at a pointer, for each library's DOM.
trait Dom: Serialize + DeserializeOwned + 'static {
    fn member(&self, token: &str) -> Option<&Self>;
    fn elements(&self) -> Option<&[Self]>;
}

impl Dom for serde_json::Value {
    fn member(&self, token: &str) -> Option<&Self> {
        match self {
            serde_json::Value::Array(a) => a.get(index(token)?),
            v => v.get(token),
        }
    }
    fn elements(&self) -> Option<&[Self]> {
        self.as_array().map(Vec::as_slice)
    }
}

impl Dom for sonic_rs::Value {
    fn member(&self, token: &str) -> Option<&Self> {
        use sonic_rs::JsonValueTrait;
        if self.is_array() {
            self.get(index(token)?)
        } else {
            self.get(token)
        }
    }
    fn elements(&self) -> Option<&[Self]> {
        use sonic_rs::JsonContainerTrait;
        self.as_array().map(|a| a.as_slice())
    }
}

impl Dom for simd_json::OwnedValue {
    fn member(&self, token: &str) -> Option<&Self> {
        use simd_json::prelude::*;
        match self.as_array() {
            Some(a) => a.get(index(token)?),
            None => self.get(token),
        }
    }
    fn elements(&self) -> Option<&[Self]> {
        use simd_json::prelude::*;
        self.as_array().map(Vec::as_slice)
    }
}

/// The array at `pointer` in a parsed document, or what is there instead.
fn array_at<'v, D: Dom>(doc: &'v D, pointer: &Pointer) -> Result<&'v [D], String> {
    let mut v = doc;
    for t in pointer.tokens() {
        v = v.member(t).ok_or_else(|| format!("pointer {} not found", pointer.as_str()))?;
    }
    v.elements().ok_or_else(|| format!("pointer {} names no array", pointer.as_str()))
}

/// A whole-document parse into `D` with `parse`, then the array.
fn buffered<D: Dom>(
    (id, effort): (StrategyId, Effort),
    path: &Path,
    pointer: &Pointer,
    bytes: u64,
    parse: fn(&mut [u8]) -> Result<D, String>,
) -> ArrayStrategy {
    let (p, ptr) = (path.to_path_buf(), pointer.clone());
    let run_one = move || -> Result<D, String> { parse(&mut read_all(&p, bytes)?) };
    let timed = run_one.clone();
    let ptr2 = ptr.clone();
    let (p2, checked) = (path.to_path_buf(), id.clone());
    WholeRun {
        effort,
        contract: Contract::Dom,
        run: Box::new(move || {
            let doc = timed()?;
            Ok(array_at(&doc, &ptr2)?.len() as u64)
        }),
        check: Box::new(move || {
            let doc = match run_one() {
                Ok(d) => d,
                Err(e) => return Verdict::Fail(e),
            };
            let elements = match array_at(&doc, &ptr) {
                Ok(a) => a,
                Err(e) => return Verdict::Fail(e),
            };
            verify::<serde_json::Value>(&checked, &p2, ptr.as_str(), &mut elements.iter().map(as_json))
        }),
        id,
        bytes,
        refused: None,
    }
}

/// A DOM element as the plain JSON value it serializes to (exactly: numbers stay f64, u64 or
/// i64), which is how the gate sees it: a DOM keeps everything, so the reference is not viewed
/// through a type.
fn as_json<T: Serialize>(element: &T) -> Result<serde_json::Value, String> {
    serde_json::to_value(element).map_err(|e| format!("cannot convert the element to a comparable value: {e}"))
}

/// [`as_json`] of an element the gate may consume.
fn dom_json<T: Serialize>(element: T) -> Result<serde_json::Value, String> {
    as_json(&element)
}

/// A typed element as it is: the gate views the reference through its type.
fn itself<E>(element: E) -> Result<E, String> {
    Ok(element)
}

/// The incremental deserializer with `config`'s library, each element parsed into `E` and
/// dropped; checked as `view` shows it (`dom_json` for a DOM, the element itself for a type).
fn incremental<E, V>(
    id: StrategyId,
    path: &Path,
    config: jsoncost_stream::Config,
    bytes: u64,
    view: fn(E) -> Result<V, String>,
) -> ArrayStrategy
where
    E: DeserializeOwned + 'static,
    V: Serialize + DeserializeOwned + 'static,
{
    let (p, c) = (path.to_path_buf(), config.clone());
    let (p2, c2, checked) = (path.to_path_buf(), config, id.clone());
    WholeRun {
        effort: Effort::Code,
        contract: Contract::Dom,
        run: Box::new(move || {
            let mut n = 0;
            for e in c.reader::<E, _>(open(&p)?) {
                std::hint::black_box(e.map_err(|e| e.to_string())?);
                n += 1;
            }
            Ok(n)
        }),
        check: Box::new(move || match open(&p2) {
            Err(e) => Verdict::Fail(e),
            Ok(f) => {
                let pointer = c2.pointer.as_str().to_string();
                let mut elements = c2.reader::<E, _>(f).map(|e| e.map_err(|e| e.to_string()).and_then(view));
                verify::<V>(&checked, &p2, &pointer, &mut elements)
            }
        }),
        id,
        bytes,
        refused: None,
    }
}

/// The incremental deserializer skipping each element (`IgnoredAny`): checked by the count of
/// elements, since nothing else is kept.
fn skipping(id: StrategyId, path: &Path, config: jsoncost_stream::Config, bytes: u64) -> ArrayStrategy {
    let (p, pointer) = (path.to_path_buf(), config.pointer.as_str().to_string());
    let count = move || -> Result<u64, String> {
        let mut n = 0;
        for e in config.reader::<IgnoredAny, _>(open(&p)?) {
            e.map_err(|e| e.to_string())?;
            n += 1;
        }
        Ok(n)
    };
    let counted = count.clone();
    let p2 = path.to_path_buf();
    WholeRun {
        effort: Effort::Code,
        contract: Contract::Aggregate,
        run: Box::new(count),
        check: Box::new(move || match (counted(), reference_count(&p2, &pointer)) {
            (Err(e), _) | (_, Err(e)) => Verdict::Fail(e),
            (Ok(got), Ok(expected)) if got != expected => {
                Verdict::Fail(format!("at {pointer}: went through {got} elements, the input has {expected}"))
            }
            (Ok(_), Ok(_)) => Verdict::Pass(Fidelity::default()),
        }),
        id,
        bytes,
        refused: None,
    }
}

/// The number of elements of the array at `pointer`, by the exact reference.
fn reference_count(path: &Path, pointer: &str) -> Result<u64, String> {
    let mut n = 0;
    exact::parse_streamed(open(path)?, pointer, exact::Outside::Members(&[]), |_, _| {
        n += 1;
        Ok::<(), String>(())
    })
    .map_err(|e| match e {
        exact::ParseStop::Reference(e) => format!("the exact reference cannot read the input: {e}"),
        exact::ParseStop::Element(e) => e,
    })?;
    Ok(n)
}

/// `elements` against the exact reference, read again from `path` one element at a time.
fn verify<E: Serialize + DeserializeOwned>(
    strategy: &StrategyId,
    path: &Path,
    pointer: &str,
    elements: &mut dyn Iterator<Item = Result<E, String>>,
) -> Verdict {
    match open(path) {
        Err(e) => Verdict::Fail(e),
        Ok(f) => gate::verify_streamed::<serde_json::Value, E, _>(strategy, f, pointer, None, elements),
    }
}

fn json_value(bytes: &mut [u8]) -> Result<serde_json::Value, String> {
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

fn sonic_value(bytes: &mut [u8]) -> Result<sonic_rs::Value, String> {
    sonic_rs::from_slice(bytes).map_err(|e| e.to_string())
}

fn simd_value(bytes: &mut [u8]) -> Result<simd_json::OwnedValue, String> {
    simd_json::to_owned_value(bytes).map_err(|e| e.to_string())
}

/// A user's element type as strategies: `incremental-typed/<lib>` and `buffered-typed/<lib>`
/// for each library, each element deserialized into the type (and gated through it).
pub(crate) struct TypedElements(fn(&Path, &jsoncost_stream::Config, u64) -> Vec<ArrayStrategy>);

impl TypedElements {
    pub(crate) fn of<E: Serialize + DeserializeOwned + 'static>() -> TypedElements {
        TypedElements(typed_rows::<E>)
    }
}

fn typed_rows<E: Serialize + DeserializeOwned + 'static>(path: &Path, config: &jsoncost_stream::Config, bytes: u64) -> Vec<ArrayStrategy> {
    let libraries = [Library::SerdeJson, Library::SonicRs, Library::SimdJson];
    let mut rows: Vec<ArrayStrategy> = libraries
        .into_iter()
        .map(|lib| buffered_typed::<E>(lib, path, &config.pointer, bytes))
        .collect();
    rows.extend(libraries.into_iter().map(|lib| {
        let id = StrategyId::new("incremental-typed", lib.as_str());
        let mut s = incremental::<E, E>(id, path, config.clone().library(lib), bytes, itself);
        s.contract = Contract::TypedValue;
        s
    }));
    rows.extend(peers::rows::<E>(path, config.pointer.as_str(), config.pointer.tokens(), bytes));
    rows
}

mod peers;

/// `buffered-typed/<lib>`: the whole file read, then the array at the pointer decoded straight
/// into `Vec<E>` by `lib`'s serde deserializer (everything around it skipped, no DOM): what a
/// handler reading the body into its own type does, and the typed baseline the
/// `incremental-typed/*` rows are weighed against.
fn buffered_typed<E: Serialize + DeserializeOwned + 'static>(lib: Library, path: &Path, pointer: &Pointer, bytes: u64) -> ArrayStrategy {
    let (p, tokens) = (path.to_path_buf(), pointer.tokens().to_vec());
    let decode = move || -> Result<Vec<E>, String> {
        let mut body = read_all(&p, bytes)?;
        let seed = at_pointer::AtPointer::<E>::new(&tokens);
        match lib {
            Library::SerdeJson => {
                let mut de = serde_json::Deserializer::from_slice(&body);
                let v = serde::de::DeserializeSeed::deserialize(seed, &mut de).map_err(|e| e.to_string())?;
                de.end().map_err(|e| e.to_string())?;
                Ok(v)
            }
            Library::SonicRs => {
                let mut de = sonic_rs::Deserializer::from_slice(&body);
                let v = serde::de::DeserializeSeed::deserialize(seed, &mut de).map_err(|e| e.to_string())?;
                de.end().map_err(|e| e.to_string())?;
                Ok(v)
            }
            Library::SimdJson => {
                let mut de = simd_json::Deserializer::from_slice(&mut body).map_err(|e| e.to_string())?;
                serde::de::DeserializeSeed::deserialize(seed, &mut de).map_err(|e| e.to_string())
            }
        }
    };
    let timed = decode.clone();
    let (p2, shown, id) = (
        path.to_path_buf(),
        pointer.as_str().to_string(),
        StrategyId::new("buffered-typed", lib.as_str()),
    );
    let checked = id.clone();
    WholeRun {
        effort: Effort::Swap,
        contract: Contract::TypedValue,
        run: Box::new(move || Ok(std::hint::black_box(timed()?).len() as u64)),
        check: Box::new(move || match decode() {
            Err(e) => Verdict::Fail(e),
            Ok(elements) => verify::<E>(&checked, &p2, &shown, &mut elements.into_iter().map(Ok)),
        }),
        id,
        bytes,
        refused: None,
    }
}

/// A serde seed that walks a JSON pointer and decodes the array there as `Vec<E>`, skipping
/// (`IgnoredAny`) every other member and element: serde_json, sonic-rs and simd-json all drive
/// it, so the buffered typed rows need no DOM and no wrapper type per pointer. Written here:
/// serde has no pointer-directed deserialization and no crate does this for any deserializer.
mod at_pointer {
    use std::fmt;
    use std::marker::PhantomData;

    use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

    pub(super) struct AtPointer<'p, E> {
        tokens: &'p [String],
        element: PhantomData<E>,
    }

    impl<'p, E> AtPointer<'p, E> {
        pub(super) fn new(tokens: &'p [String]) -> Self {
            AtPointer {
                tokens,
                element: PhantomData,
            }
        }
    }

    impl<'de, E: DeserializeOwned> DeserializeSeed<'de> for AtPointer<'_, E> {
        type Value = Vec<E>;
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Vec<E>, D::Error> {
            match self.tokens.split_first() {
                None => <Vec<E> as serde::Deserialize>::deserialize(d),
                Some((token, rest)) => d.deserialize_any(Step {
                    token,
                    rest,
                    element: PhantomData,
                }),
            }
        }
    }

    struct Step<'p, E> {
        token: &'p str,
        rest: &'p [String],
        element: PhantomData<E>,
    }

    impl<'de, E: DeserializeOwned> Visitor<'de> for Step<'_, E> {
        type Value = Vec<E>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "an object or array holding {:?}", self.token)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<E>, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<String>()? {
                if found.is_none() && key == self.token {
                    found = Some(map.next_value_seed(AtPointer::<E>::new(self.rest))?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            found.ok_or_else(|| de::Error::custom(format!("no member {:?}", self.token)))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<E>, A::Error> {
            let index = super::index(self.token).ok_or_else(|| de::Error::custom(format!("{:?} is not an array index", self.token)))?;
            let mut found = None;
            let mut i = 0;
            loop {
                if i == index {
                    match seq.next_element_seed(AtPointer::<E>::new(self.rest))? {
                        Some(v) => found = Some(v),
                        None => break,
                    }
                } else if seq.next_element::<IgnoredAny>()?.is_none() {
                    break;
                }
                i += 1;
            }
            found.ok_or_else(|| de::Error::custom(format!("no element {index}")))
        }
    }
}

/// The strategies, `buffered/serde_json` (the baseline) first; `too_deep`: the depth guard's
/// verdict on the file for sonic-rs, held to serde_json's 128 levels.
fn strategies(path: &Path, config: &jsoncost_stream::Config, bytes: u64, too_deep: Option<String>) -> Vec<ArrayStrategy> {
    let pointer = &config.pointer;
    let mut sonic = buffered(
        (StrategyId::new("buffered", "sonic-rs"), Effort::Model),
        path,
        pointer,
        bytes,
        sonic_value,
    );
    sonic.refused = too_deep;
    let mut v = vec![
        buffered(
            (StrategyId::new("buffered", "serde_json"), Effort::Swap),
            path,
            pointer,
            bytes,
            json_value,
        ),
        sonic,
        buffered(
            (StrategyId::new("buffered", "simd-json"), Effort::Model),
            path,
            pointer,
            bytes,
            simd_value,
        ),
    ];
    for lib in [Library::SerdeJson, Library::SonicRs, Library::SimdJson] {
        let c = config.clone().library(lib);
        let id = StrategyId::new("incremental", lib.as_str());
        v.push(match lib {
            Library::SerdeJson => incremental::<serde_json::Value, _>(id, path, c.clone(), bytes, dom_json),
            Library::SonicRs => incremental::<sonic_rs::Value, _>(id, path, c.clone(), bytes, dom_json),
            Library::SimdJson => incremental::<simd_json::OwnedValue, _>(id, path, c.clone(), bytes, dom_json),
        });
        v.push(skipping(StrategyId::new("incremental-skip", lib.as_str()), path, c, bytes));
    }
    v
}

/// The table's row names, in order, without opening the file (`--list`): the rows are
/// closures over the path, which nothing here runs.
pub(crate) fn row_names(pointer: &str, typed: Option<&TypedElements>) -> Result<Vec<String>, Error> {
    let config = jsoncost_stream::Config::new(pointer).map_err(|e| Error::usage(format!("--pointer {pointer:?}: {e}")))?;
    let path = Path::new("");
    let mut list = strategies(path, &config, 0, None);
    if let Some(TypedElements(rows)) = typed {
        list.extend(rows(path, &config, 0));
    }
    Ok(list.into_iter().map(|s| s.id.name().to_string()).collect())
}

/// Runs the array table through `runner` (whole runs).
pub fn run(options: &ArrayOptions, runner: &mut Runner<'_>) -> Result<(), Error> {
    run_with(options, "array", None, runner)
}

/// [`run`] as table `table`, with the rows of a user's element type when given.
pub(crate) fn run_with(options: &ArrayOptions, table: &str, typed: Option<&TypedElements>, runner: &mut Runner<'_>) -> Result<(), Error> {
    let path = &options.file;
    let shown = path.display();
    let config = jsoncost_stream::Config::new(&options.pointer)
        .map_err(|e| Error::usage(format!("--pointer {:?}: {e}", options.pointer)))?
        .chunk_size((options.chunk_kib * 1024) as usize)
        .max_element_bytes(options.max_element_bytes)
        // No row reads the values around the array: none is kept, so any document streams in
        // bounded memory.
        .keep(std::iter::empty::<String>());
    let bytes = readable(path)?;
    let too_deep = if runner.filter().matches("buffered/sonic-rs") {
        guard_file(path, Library::SonicRs)?
    } else {
        None
    };
    let mut list = strategies(path, &config, bytes, too_deep);
    if let Some(TypedElements(rows)) = typed {
        list.extend(rows(path, &config, bytes));
    }
    if let Some(why) = over_buffered_cap(bytes, options.max_buffered_mib) {
        runner.sink().note(&format!("stream: buffered rows skipped: {why}"));
        skip_buffered(&mut list, &why);
    }
    runner.filter().check_matches_any(list.iter().map(|s| s.name()))?;
    // A baseline that fails on the file leaves nothing to be relative to: bad input, with where
    // the incremental parser places the problem.
    runner.sink().status(&format!("stream: {} (check run)", list[0].name()));
    let baseline = match list[0].verify(None) {
        Ok(fidelity) => fidelity,
        Err(e) => {
            let mut message = format!(
                "{shown} at {:?}: the baseline {} fails on it, so nothing is measured: {}",
                options.pointer,
                list[0].name(),
                jsoncost_stream::shorten_message(&e.message)
            );
            // Where the problem is: the exact reference's walk to the pointer asked for, when
            // it fails (a pointer that names nothing, a document that is not JSON); else the
            // incremental parser's. Not the incremental parser first: on the way to a pointer
            // that names nothing it may stop earlier, at a value it has to hold whole that is
            // over its maximum, a problem of another path.
            let located = match reference_count(path, &options.pointer) {
                Err(e) => Some(e),
                Ok(_) => match list
                    .iter_mut()
                    .find(|s| s.id == StrategyId::new("incremental-skip", "serde_json"))
                    .map(|s| (s.run)())
                {
                    Some(Err(e)) => Some(format!("the incremental parser: {e}")),
                    _ => None,
                },
            };
            if let Some(located) = located {
                message.push_str(&format!(" ({located})"));
            }
            return Err(Error::Usage(message));
        }
    };
    let elements = reference_count(path, &options.pointer).map_err(|e| Error::usage(format!("{shown}: {e}")))?;
    let total = list.iter().filter(|s| runner.filter().matches(s.name())).count() as u64;
    runner.sink().planned(total);
    let mut params = Map::new();
    params.insert("file".into(), json!(shown.to_string()));
    params.insert("pointer".into(), json!(options.pointer));
    params.insert("payload_bytes".into(), json!(bytes));
    params.insert("elements".into(), json!(elements));
    params.insert("chunk_kib".into(), json!(options.chunk_kib));
    let strategies = list
        .drain(..)
        .map(|s| Box::new(s) as jsoncost_codecs::BoxedStrategy<'static>)
        .collect();
    let mut table = Table::self_checked(ExperimentKind::Stream, table, params, strategies).summarized_by(summary::of_stream);
    table.baseline_verified = Some(baseline);
    let config = run_config(options.runs, options.quick, runner);
    match runner.with_config(config, |r| r.run(table)) {
        Ok(_) => {}
        Err(TableStop::Fatal(m)) => return Err(Error::environment(m)),
        Err(stop) => return Err(stop.into()),
    }
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use crate::filter::Filter;
    use crate::sink::Recorder;
    use jsoncost_engine::MeasureConfig;
    use std::time::Duration;

    /// The seed walks objects and arrays to the pointer, skips every decoy, and reads the same
    /// through each library's serde deserializer.
    #[test]
    fn the_pointer_seed_decodes_the_array_at_the_pointer_through_each_library() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Item {
            id: u64,
        }
        let doc =
            r#"{"items": "decoy", "data": [{"items": [{"id": 9}]}, {"x": {"items": [1]}, "items": [{"id": 1}, {"id": 2}]}], "z": [[]]}"#;
        let tokens: Vec<String> = ["data", "1", "items"].map(String::from).to_vec();
        let want = vec![Item { id: 1 }, Item { id: 2 }];
        let seed = || at_pointer::AtPointer::<Item>::new(&tokens);
        let mut de = serde_json::Deserializer::from_str(doc);
        assert_eq!(serde::de::DeserializeSeed::deserialize(seed(), &mut de).unwrap(), want);
        let mut de = sonic_rs::Deserializer::from_slice(doc.as_bytes());
        assert_eq!(serde::de::DeserializeSeed::deserialize(seed(), &mut de).unwrap(), want);
        let mut bytes = doc.as_bytes().to_vec();
        let mut de = simd_json::Deserializer::from_slice(&mut bytes).unwrap();
        assert_eq!(serde::de::DeserializeSeed::deserialize(seed(), &mut de).unwrap(), want);
        let missing: Vec<String> = ["data", "5"].map(String::from).to_vec();
        let mut de = serde_json::Deserializer::from_str(doc);
        let e = serde::de::DeserializeSeed::deserialize(at_pointer::AtPointer::<Item>::new(&missing), &mut de).unwrap_err();
        assert!(e.to_string().starts_with("no element 5"), "{e}");
        // RFC 6901: `01` names no element, through the seed and every DOM alike.
        let leading_zero: Vec<String> = ["data", "01"].map(String::from).to_vec();
        let mut de = serde_json::Deserializer::from_str(doc);
        let e = serde::de::DeserializeSeed::deserialize(at_pointer::AtPointer::<Item>::new(&leading_zero), &mut de).unwrap_err();
        assert!(e.to_string().starts_with(r#""01" is not an array index"#), "{e}");
        let data: serde_json::Value = serde_json::from_str(r#"[[1],[2,3]]"#).unwrap();
        assert_eq!((data.member("1"), data.member("01")), (Some(&serde_json::json!([2, 3])), None));
        let data: sonic_rs::Value = sonic_rs::from_str(r#"[[1],[2,3]]"#).unwrap();
        assert!(data.member("1").is_some() && data.member("01").is_none());
        let data: simd_json::OwnedValue = simd_json::to_owned_value(&mut b"[[1],[2,3]]".to_vec()).unwrap();
        assert!(data.member("1").is_some() && data.member("01").is_none());
    }

    fn run_on(document: &str, pointer: &str) -> Result<(), Error> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("doc.json");
        std::fs::write(&file, document).unwrap();
        let options = ArrayOptions {
            file,
            pointer: pointer.into(),
            chunk_kib: 1,
            max_element_bytes: 1024,
            max_buffered_mib: crate::stream::DEFAULT_MAX_BUFFERED_MIB,
            runs: Runs::exactly(1),
            quick: true,
        };
        let mut rec = Recorder::default();
        let config = MeasureConfig::whole_runs(1, 1, Duration::from_secs(5), true);
        let mut runner = Runner::new(config, Filter::default(), Cancel::never(), &mut rec);
        run(&options, &mut runner)
    }

    #[test]
    fn a_pointer_that_names_nothing_is_named_not_a_value_on_another_path() {
        // /data/items is larger than the incremental parser's maximum (1024 bytes): it would
        // stop there, on its way to /data/itemz.
        let items: Vec<String> = (0..100)
            .map(|i| format!(r#"{{"id": {i}, "name": "xxxxxxxxxxxxxxxxxxxx"}}"#))
            .collect();
        let doc = format!(r#"{{"data": {{"items": [{}], "meta": 1}}}}"#, items.join(", "));
        // The exact reference places it at the object that lacks the member.
        let data = doc.find(": {").unwrap() + 2;
        let err = run_on(&doc, "/data/itemz").unwrap_err();
        assert!(matches!(err, Error::Usage(_)), "{err:?}");
        let message = err.to_string();
        let (_, said) = message.split_once(": the baseline").unwrap();
        assert_eq!(
            said,
            format!(
                " buffered/serde_json fails on it, so nothing is measured: pointer /data/itemz not found \
                 (the exact reference cannot read the input: pointer \"/data/itemz\" not found: no member \"itemz\" at byte {data})"
            )
        );
        assert!(!message.contains("/data/items"), "{message}");
    }
}
