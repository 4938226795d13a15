//! The libraries and parse paths the safety experiment runs: each library's DOM and typed read
//! from the codecs' registry (`jsoncost_codecs::decoders`), its lazy projection and the
//! incremental stream, each called as a user would call that library's public API, with no
//! guard in front (the point is what the library itself does). Runs inside the child process
//! only.

use std::fmt;
use std::str::FromStr;

use jsoncost_codecs::Canonical;
use jsoncost_codecs::decoders::{decoders, dom_decoders};
use jsoncost_codecs::libraries::{Held, Serialized, sonic_rs};
use jsoncost_engine::safety::SafetyPath;
use jsoncost_shapes::Data;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::corpus::Target;

/// A JSON library whose parsers the safety experiment runs on each of its paths: every library
/// with a DOM in the codecs' registry (`decoders::dom_decoders`), named as its rows are; the
/// `Test*` ones are fakes for jsoncost's own tests (a library that aborts, one that never
/// returns), never listed unless asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Parser {
    /// A registered library, by its name (`serde_json`, `jiter` ...).
    Library(&'static str),
    /// A hidden test library that aborts the process.
    TestAbort,
    /// A hidden test library that never returns.
    TestHang,
}

/// The one library with a lazy projection API the safety experiment runs (`get_many`).
const LAZY_LIBRARY: &str = "sonic-rs";

impl Parser {
    /// The real libraries, in table order: the registry's, serde_json first.
    pub fn all() -> Vec<Parser> {
        dom_decoders().into_iter().map(|d| Parser::Library(d.library)).collect()
    }
    /// The fakes: the CLI adds them to `SafetyOptions::libraries` with the hidden `--safety-test-libraries`.
    pub const TEST: [Parser; 2] = [Parser::TestAbort, Parser::TestHang];

    /// The name rows use.
    pub fn as_str(self) -> &'static str {
        match self {
            Parser::Library(name) => name,
            Parser::TestAbort => "test-abort",
            Parser::TestHang => "test-hang",
        }
    }

    /// The parse paths the library really has (absent, not faked, where it has none): its DOM,
    /// its typed read where it has a decoder, the lazy projection, and the incremental stream
    /// where the stream parser can hand it elements.
    pub fn paths(self) -> Vec<SafetyPath> {
        let Parser::Library(name) = self else {
            return vec![SafetyPath::Dom];
        };
        let mut paths = vec![SafetyPath::Dom];
        if decoders::<Data>().iter().any(|d| d.library == name) {
            paths.push(SafetyPath::Typed);
        }
        if name == LAZY_LIBRARY {
            paths.push(SafetyPath::Lazy);
        }
        if self.stream_library().is_some() {
            paths.push(SafetyPath::Incremental);
        }
        paths
    }

    fn stream_library(self) -> Option<jsoncost_stream::Library> {
        self.as_str().parse().ok()
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
        let all = Parser::all();
        all.iter().chain(&Parser::TEST).copied().find(|l| l.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|l| l.as_str()).collect();
            format!("unknown library {s:?}; valid libraries: {}", names.join(", "))
        })
    }
}

/// A projection: the raw text of each field found, read by the exact reference afterwards.
struct Projection(Vec<(String, Option<String>)>);

impl Held for Projection {
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
type Boxed<'a> = Box<dyn Held + 'a>;

fn msg(e: impl fmt::Display) -> String {
    e.to_string()
}

/// A parse of an input into a held value, which may borrow from the input.
pub type ParseFn = Box<dyn for<'a> Fn(&'a [u8]) -> Result<Boxed<'a>, String> + Send>;

/// Names the higher-ranked signature for the compiler, which a closure alone does not get.
fn parse_fn(f: impl for<'a> Fn(&'a [u8]) -> Result<Boxed<'a>, String> + Send + 'static) -> ParseFn {
    Box::new(f)
}

/// The typed read of `library` (its `Decoder` of `T`), or an error saying it has none.
fn typed<T: DeserializeOwned + Serialize + Sync + 'static>(library: &'static str) -> ParseFn {
    match decoders::<T>().into_iter().find(|d| d.library == library) {
        Some(decoder) => parse_fn(move |input| Ok(Box::new(Serialized(decoder.from_slice(input)?)))),
        None => parse_fn(move |_| Err(format!("{library} has no typed path"))),
    }
}

/// What `library` does on `path` (the typed path into `target`, the lazy one projecting
/// `projection`): the value, or the library's error. Looked up in the registry here, before the
/// caller times the parse and counts its allocations, so the parse calls only the library.
pub fn parser(library: Parser, path: SafetyPath, target: Target, projection: String) -> ParseFn {
    match (library, path) {
        (Parser::TestAbort, _) => parse_fn(|_| std::process::abort()),
        (Parser::TestHang, _) => parse_fn(|_| {
            loop {
                // Never returns: the parent's time limit kills the process.
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        }),
        (Parser::Library(name), SafetyPath::Dom) => match dom_decoders().into_iter().find(|d| d.library == name) {
            Some(decoder) => Box::new(decoder.parse),
            None => parse_fn(move |_| Err(format!("{name} has no dom path"))),
        },
        (Parser::Library(name), SafetyPath::Typed) => match target {
            Target::Data => typed::<Data>(name),
            Target::Numbers => typed::<Vec<f64>>(name),
            Target::Strings => typed::<Vec<String>>(name),
        },
        (Parser::Library(LAZY_LIBRARY), SafetyPath::Lazy) => parse_fn(move |input| {
            let fields = [projection.clone()];
            // No sample: the hostile input is not parsed before the library under test, and
            // each case's projection is an index exactly when the case is an array.
            let tree = sonic_rs::pointer_tree(&serde_json::Value::Null, &fields)?;
            let found = sonic_rs::raw_fields(input, &tree)?;
            Ok(Box::new(Projection(fields.into_iter().zip(found).collect())))
        }),
        (Parser::Library(name), SafetyPath::Incremental) => match library.stream_library() {
            Some(lib) => parse_fn(move |input| {
                let config = jsoncost_stream::Config::new("").expect("the top-level pointer").library(lib);
                let elements = config
                    .reader::<serde_json::Value, _>(input)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(msg)?;
                Ok(Box::new(Serialized(elements)))
            }),
            None => parse_fn(move |_| Err(format!("{name} has no incremental path"))),
        },
        (library, path) => parse_fn(move |_| Err(format!("{library} has no {path} path"))),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_libraries_and_their_paths_come_from_the_registry() {
        use SafetyPath::*;
        let paths: Vec<(&str, Vec<SafetyPath>)> = Parser::all().into_iter().map(|p| (p.as_str(), p.paths())).collect();
        assert_eq!(
            paths,
            [
                ("serde_json", vec![Dom, Typed, Incremental]),
                ("sonic-rs", vec![Dom, Typed, Lazy, Incremental]),
                ("simd-json", vec![Dom, Typed, Incremental]),
                ("serde_json_borrow", vec![Dom]),
                ("jiter", vec![Dom]),
            ]
        );
        assert_eq!("jiter".parse::<Parser>(), Ok(Parser::Library("jiter")));
        assert_eq!("test-hang".parse::<Parser>(), Ok(Parser::TestHang));
        assert_eq!(
            "yaml".parse::<Parser>(),
            Err("unknown library \"yaml\"; valid libraries: serde_json, sonic-rs, simd-json, serde_json_borrow, jiter".to_string())
        );
    }
}
