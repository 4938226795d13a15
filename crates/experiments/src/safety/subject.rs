//! The libraries and parse paths the safety experiment runs, each written as a user would call
//! that library's public API, with no guard in front (the point is what the library itself
//! does). Runs inside the child process only.

use std::fmt;
use std::str::FromStr;

use jsoncost_codecs::Canonical;
use jsoncost_engine::safety::SafetyPath;
use jsoncost_shapes::Data;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::corpus::Target;

/// A JSON library whose parsers the safety experiment runs on each of its paths; the `Test*`
/// ones are fakes for jsoncost's own tests (a library that aborts, one that never returns),
/// never listed unless asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Parser {
    /// serde_json into a `Value`.
    SerdeJson,
    /// sonic-rs into its `Value`.
    SonicRs,
    /// simd-json into its owned `Value`.
    SimdJson,
    /// serde_json_borrow's borrowed `Value`.
    SerdeJsonBorrow,
    /// jiter into its `JsonValue`.
    Jiter,
    /// A hidden test library that aborts the process.
    TestAbort,
    /// A hidden test library that never returns.
    TestHang,
}

impl Parser {
    /// The real libraries, in table order.
    pub const ALL: [Parser; 5] = [
        Parser::SerdeJson,
        Parser::SonicRs,
        Parser::SimdJson,
        Parser::SerdeJsonBorrow,
        Parser::Jiter,
    ];
    /// The fakes: the CLI adds them to `SafetyOptions::libraries` with the hidden `--safety-test-libraries`.
    pub const TEST: [Parser; 2] = [Parser::TestAbort, Parser::TestHang];

    /// The name rows use.
    pub fn as_str(self) -> &'static str {
        match self {
            Parser::SerdeJson => "serde_json",
            Parser::SonicRs => "sonic-rs",
            Parser::SimdJson => "simd-json",
            Parser::SerdeJsonBorrow => "serde_json_borrow",
            Parser::Jiter => "jiter",
            Parser::TestAbort => "test-abort",
            Parser::TestHang => "test-hang",
        }
    }

    /// The parse paths the library really has (absent, not faked, where it has none).
    pub fn paths(self) -> &'static [SafetyPath] {
        use SafetyPath::*;
        match self {
            Parser::SonicRs => &[Dom, Typed, Lazy, Incremental],
            Parser::SerdeJson | Parser::SimdJson => &[Dom, Typed, Incremental],
            // Their DOMs (jiter's typed decoders are per shape: not for arbitrary hostile input).
            Parser::SerdeJsonBorrow | Parser::Jiter => &[Dom],
            Parser::TestAbort | Parser::TestHang => &[Dom],
        }
    }

    fn stream_library(self) -> Option<jsoncost_stream::Library> {
        match self {
            Parser::SerdeJson => Some(jsoncost_stream::Library::SerdeJson),
            Parser::SonicRs => Some(jsoncost_stream::Library::SonicRs),
            Parser::SimdJson => Some(jsoncost_stream::Library::SimdJson),
            Parser::SerdeJsonBorrow | Parser::Jiter | Parser::TestAbort | Parser::TestHang => None,
        }
    }
}

impl fmt::Display for Parser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Parser {
    type Err = String;
    fn from_str(s: &str) -> Result<Parser, String> {
        Parser::ALL
            .into_iter()
            .chain(Parser::TEST)
            .find(|l| l.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Parser::ALL.iter().map(|l| l.as_str()).collect();
                format!("unknown library {s:?}; valid libraries: {}", names.join(", "))
            })
    }
}

/// A parsed value kept alive until its canonical form is taken (then dropped by the caller, so a
/// crash in a library's destructor is found too).
pub trait Parsed: Sync {
    /// The value in the form the gate compares (outside the timed parse).
    fn canonical(&self) -> Result<Canonical, String>;
}

struct Value<T>(T);

impl<T: Serialize + Sync> Parsed for Value<T> {
    fn canonical(&self) -> Result<Canonical, String> {
        Canonical::of(&self.0)
    }
}

/// A projection: the raw text of each field found, read by the exact reference afterwards.
struct Projection(Vec<(String, Option<String>)>);

impl Parsed for Projection {
    fn canonical(&self) -> Result<Canonical, String> {
        let mut out = Vec::new();
        for (pointer, raw) in &self.0 {
            let raw = raw.as_ref().ok_or_else(|| format!("field {pointer} not found"))?;
            let value = jsoncost_codecs::exact::parse(raw.as_bytes()).map_err(|e| format!("at {pointer}: {e}"))?;
            out.push((pointer.clone(), value));
        }
        Ok(Canonical::Projection(out))
    }
}

/// A parsed value; it may borrow from the input (serde_json_borrow, jiter).
type Boxed<'a> = Box<dyn Parsed + 'a>;

/// jiter's DOM, compared through the codecs' own conversion (it has no `Serialize`).
struct Jiter<'a>(jiter::JsonValue<'a>);

impl Parsed for Jiter<'_> {
    fn canonical(&self) -> Result<Canonical, String> {
        jsoncost_codecs::libraries::jiter::jiter_to_value(&self.0).map(Canonical::Full)
    }
}

fn msg(e: impl fmt::Display) -> String {
    e.to_string()
}

fn typed<T: DeserializeOwned + Serialize + Sync + 'static>(library: Parser, input: &[u8]) -> Result<Boxed<'static>, String> {
    Ok(Box::new(Value(match library {
        Parser::SerdeJson => serde_json::from_slice::<T>(input).map_err(msg)?,
        Parser::SonicRs => sonic_rs::from_slice::<T>(input).map_err(msg)?,
        // simd-json parses in place: the copy is what a user's code makes too.
        Parser::SimdJson => simd_json::serde::from_slice::<T>(&mut input.to_vec()).map_err(msg)?,
        _ => unreachable!("{library} has no typed path"),
    })))
}

/// Parses `input` with `library` on `path` (the typed path into `target`, the lazy one projecting
/// `projection`): the value, or the library's error.
pub fn parse<'a>(library: Parser, path: SafetyPath, input: &'a [u8], target: Target, projection: &str) -> Result<Boxed<'a>, String> {
    match (library, path) {
        (Parser::TestAbort, _) => std::process::abort(),
        (Parser::TestHang, _) => loop {
            // Never returns: the parent's time limit kills the process.
            std::thread::sleep(std::time::Duration::from_secs(1));
        },
        (Parser::SerdeJson, SafetyPath::Dom) => Ok(Box::new(Value(serde_json::from_slice::<serde_json::Value>(input).map_err(msg)?))),
        (Parser::SonicRs, SafetyPath::Dom) => Ok(Box::new(Value(sonic_rs::from_slice::<sonic_rs::Value>(input).map_err(msg)?))),
        (Parser::SimdJson, SafetyPath::Dom) => Ok(Box::new(Value(simd_json::owned::to_value(&mut input.to_vec()).map_err(msg)?))),
        (Parser::SerdeJsonBorrow, SafetyPath::Dom) => Ok(Box::new(Value(
            serde_json::from_slice::<serde_json_borrow::Value<'a>>(input).map_err(msg)?,
        ))),
        // Strict JSON (jiter's NaN/Infinity extension off), as the micro tables measure it.
        (Parser::Jiter, SafetyPath::Dom) => Ok(Box::new(Jiter(jiter::JsonValue::parse(input, false).map_err(msg)?))),
        (_, SafetyPath::Typed) => match target {
            Target::Data => typed::<Data>(library, input),
            Target::Numbers => typed::<Vec<f64>>(library, input),
            Target::Strings => typed::<Vec<String>>(library, input),
        },
        (Parser::SonicRs, SafetyPath::Lazy) => {
            let fields = [projection.to_string()];
            // No sample: the hostile input is not parsed before the library under test, and
            // each case's projection is an index exactly when the case is an array.
            let tree = jsoncost_codecs::toolkit::pointer_tree(&serde_json::Value::Null, &fields)?;
            let found = sonic_rs::get_many(input, &tree).map_err(msg)?;
            Ok(Box::new(Projection(
                fields
                    .into_iter()
                    .zip(found)
                    .map(|(p, v)| (p, v.map(|v| v.as_raw_str().to_string())))
                    .collect(),
            )))
        }
        (_, SafetyPath::Incremental) => {
            let lib = library.stream_library().expect("a real library");
            let config = jsoncost_stream::Config::new("").expect("the top-level pointer").library(lib);
            let elements = config
                .reader::<serde_json::Value, _>(input)
                .collect::<Result<Vec<_>, _>>()
                .map_err(msg)?;
            Ok(Box::new(Value(elements)))
        }
        (library, path) => Err(format!("{library} has no {path} path")),
    }
}

/// Whether the exact reference, viewed as the typed path's `target` sees it, is what `parse`
/// compares with; for the other paths the reference is the document itself.
pub fn view_reference(path: SafetyPath, target: Target, reference: serde_json::Value) -> Result<serde_json::Value, String> {
    fn through<T: DeserializeOwned + Serialize>(v: serde_json::Value) -> Result<serde_json::Value, String> {
        let t: T = serde_json::from_value(v).map_err(|e| format!("the exact value does not fit the type: {e}"))?;
        serde_json::to_value(&t).map_err(msg)
    }
    match (path, target) {
        (SafetyPath::Typed, Target::Data) => through::<Data>(reference),
        (SafetyPath::Typed, Target::Numbers) => through::<Vec<f64>>(reference),
        (SafetyPath::Typed, Target::Strings) => through::<Vec<String>>(reference),
        _ => Ok(reference),
    }
}
