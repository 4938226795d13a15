//! The serialization modes of the GET routes and the paths that select them.

use std::fmt;
use std::str::FromStr;

/// How a GET route turns stored bytes into a response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Deserialize into the shapes type and serialize again with serde_json.
    TypedSerdeJson,
    /// Deserialize into the shapes type and serialize again with sonic-rs.
    TypedSonicRs,
    /// Send the stored bytes as they are (a list is joined into a JSON array without parsing).
    Passthrough,
}

impl Mode {
    /// Every mode, baseline (`typed/serde_json`) first.
    pub const ALL: [Mode; 3] = [Mode::TypedSerdeJson, Mode::TypedSonicRs, Mode::Passthrough];

    /// The strategy name used in tables and results (`typed/serde_json`, ...), also the path prefix.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::TypedSerdeJson => "typed/serde_json",
            Mode::TypedSonicRs => "typed/sonic-rs",
            Mode::Passthrough => "passthrough",
        }
    }

    /// `/{mode}/items/{id}`: one cached item.
    pub fn item_path(self, id: u64) -> String {
        format!("/{}/items/{id}", self.as_str())
    }

    /// `/{mode}/items?count={count}`: a list of `count` entries read from the source.
    pub fn list_path(self, count: usize) -> String {
        format!("/{}/items?count={count}", self.as_str())
    }
}

/// The telemetry upload route.
pub const TELEMETRY_PATH: &str = "/telemetry";

/// The media type of every JSON body the server answers and the load generators send.
pub const JSON_CONTENT_TYPE: &str = "application/json";
/// The liveness route.
pub const HEALTH_PATH: &str = "/health";

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is none of [`Mode`]'s (holds the name given).
#[derive(Debug, thiserror::Error)]
#[error("unknown mode {0:?}; valid modes: typed/serde_json, typed/sonic-rs, passthrough")]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownMode(s.to_string()))
    }
}
