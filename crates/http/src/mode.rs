//! The serialization modes of the GET routes and the paths that select them.

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use jsoncost_codecs::decoders::{decoders, encoders};
use jsoncost_codecs::libraries::{Decoder, Encoder};
use jsoncost_shapes::{Item, ListItem};

/// How a GET route turns stored bytes into a response body.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServeMode {
    /// Deserialize into the shapes type and serialize again with one library.
    Typed(TypedMode),
    /// Send the stored bytes as they are (a list is joined into a JSON array without parsing).
    Passthrough,
}

/// A typed mode: its library's place among the codecs. A byte, not the codec itself: each
/// route's handler future holds its mode and is allocated per request, so a wider mode would
/// add to every request's allocated bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypedMode(u8);

impl TypedMode {
    /// The library's read and write.
    pub fn codec(self) -> &'static Codec {
        &CODECS[usize::from(self.0)]
    }
}

/// One library's read and write of the reference API's types, from the codecs' registry.
#[derive(Clone, Copy)]
pub struct Codec {
    /// An item's read and write.
    pub item: (Decoder<Item>, Encoder<Item>),
    /// A list entry's read, and the list's write.
    pub list: (Decoder<ListItem>, Encoder<Vec<ListItem>>),
}

impl Codec {
    /// The library's name (`serde_json`, `sonic-rs` ...).
    pub fn library(&self) -> &'static str {
        self.item.1.library
    }
}

/// The codecs of the typed modes: each library of the codecs' registry that both reads and
/// writes a serde type, in the registry's order (serde_json first). Built once per process.
static CODECS: LazyLock<Vec<Codec>> = LazyLock::new(|| {
    let item_reads = decoders::<Item>();
    let list_reads = decoders::<ListItem>();
    let list_writes = encoders::<Vec<ListItem>>();
    encoders::<Item>()
        .into_iter()
        .filter_map(|write_item| {
            let library = write_item.library;
            let read_item = item_reads.iter().find(|d| d.library == library)?;
            let read_list = list_reads.iter().find(|d| d.library == library)?;
            let write_list = list_writes.iter().find(|e| e.library == library)?;
            Some(Codec {
                item: (*read_item, write_item),
                list: (*read_list, *write_list),
            })
        })
        .collect()
});

impl ServeMode {
    /// Every mode, baseline (`typed/serde_json`) first: `typed/<library>` for each library of
    /// the codecs' registry that both reads and writes a serde type, then `passthrough`.
    pub fn all() -> Vec<ServeMode> {
        let typed = (0..CODECS.len()).map(|i| ServeMode::Typed(TypedMode(u8::try_from(i).expect("fewer than 256 libraries"))));
        typed.chain([ServeMode::Passthrough]).collect()
    }

    /// The baseline mode, `typed/serde_json` (the registry's first library).
    pub fn baseline() -> ServeMode {
        ServeMode::Typed(TypedMode(0))
    }

    /// The mode as a strategy: its style and library (`passthrough` calls none). Its name, as
    /// tables and results give it, is also its path prefix.
    pub fn id(self) -> jsoncost_engine::StrategyId {
        use jsoncost_engine::StrategyId;
        match self {
            ServeMode::Typed(typed) => StrategyId::new("typed", typed.codec().library()),
            ServeMode::Passthrough => StrategyId::named("passthrough"),
        }
    }

    /// `typed/serde_json`, `passthrough` ...: [`ServeMode::id`]'s name.
    pub fn name(self) -> String {
        self.id().name().to_string()
    }

    /// `/{mode}/items/{id}`: one cached item.
    pub fn item_path(self, id: u64) -> String {
        format!("/{self}/items/{id}")
    }

    /// `/{mode}/items?count={count}`: a list of `count` entries read from the source.
    pub fn list_path(self, count: usize) -> String {
        format!("/{self}/items?count={count}")
    }
}

impl fmt::Debug for ServeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServeMode({})", self.name())
    }
}

/// The telemetry upload route.
pub const TELEMETRY_PATH: &str = "/telemetry";

/// The media type of every JSON body the server answers and the load generators send.
pub const JSON_CONTENT_TYPE: &str = "application/json";
/// The liveness route.
pub const HEALTH_PATH: &str = "/health";

impl fmt::Display for ServeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id().name())
    }
}

/// A mode name that is none of [`ServeMode::all`]'s.
#[derive(Debug, thiserror::Error)]
#[error("unknown mode {given:?}; valid modes: {valid}")]
pub struct UnknownMode {
    /// The name given.
    pub given: String,
    /// The modes' names, comma-separated.
    pub valid: String,
}

impl FromStr for ServeMode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let all = ServeMode::all();
        all.iter().find(|m| m.id().name() == s).copied().ok_or_else(|| UnknownMode {
            given: s.to_string(),
            valid: all.iter().map(|m| m.name()).collect::<Vec<_>>().join(", "),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mode_is_two_bytes_wide() {
        // Each route's handler future holds its mode and is allocated per request: a wider
        // mode (its codec by value) adds to every request's allocations, which the http tables
        // report as the server's.
        assert_eq!(std::mem::size_of::<ServeMode>(), 2);
    }

    #[test]
    fn a_modes_identity_is_named_as_its_path_prefix() {
        let named: Vec<(String, Option<String>)> = ServeMode::all()
            .iter()
            .map(|m| (m.id().name().to_string(), m.id().library().map(str::to_string)))
            .collect();
        let expected = [
            ("typed/serde_json", Some("serde_json")),
            ("typed/sonic-rs", Some("sonic-rs")),
            ("typed/simd-json", Some("simd-json")),
            ("passthrough", None),
        ]
        .map(|(n, l)| (n.to_string(), l.map(str::to_string)));
        assert_eq!(named, expected);
        assert!(ServeMode::all().iter().all(|m| m.name().parse::<ServeMode>().unwrap() == *m));
        assert_eq!(
            "typed/jiter".parse::<ServeMode>().unwrap_err().to_string(),
            "unknown mode \"typed/jiter\"; valid modes: typed/serde_json, typed/sonic-rs, typed/simd-json, passthrough"
        );
    }
}
