//! The serialization modes of the GET routes and the paths that select them.

use std::fmt;
use std::str::FromStr;

/// How a GET route turns stored bytes into a response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServeMode {
    /// Deserialize into the shapes type and serialize again with serde_json.
    TypedSerdeJson,
    /// Deserialize into the shapes type and serialize again with sonic-rs.
    TypedSonicRs,
    /// Send the stored bytes as they are (a list is joined into a JSON array without parsing).
    Passthrough,
}

impl ServeMode {
    /// Every mode, baseline (`typed/serde_json`) first.
    pub const ALL: [ServeMode; 3] = [ServeMode::TypedSerdeJson, ServeMode::TypedSonicRs, ServeMode::Passthrough];

    /// The strategy name used in tables and results (`typed/serde_json`, ...), also the path prefix.
    pub fn as_str(self) -> &'static str {
        match self {
            ServeMode::TypedSerdeJson => "typed/serde_json",
            ServeMode::TypedSonicRs => "typed/sonic-rs",
            ServeMode::Passthrough => "passthrough",
        }
    }

    /// The mode as a strategy: its style and library (`passthrough` calls none); its name is
    /// [`ServeMode::as_str`].
    pub fn id(self) -> jsoncost_engine::StrategyId {
        use jsoncost_engine::StrategyId;
        match self {
            ServeMode::TypedSerdeJson => StrategyId::new("typed", "serde_json"),
            ServeMode::TypedSonicRs => StrategyId::new("typed", "sonic-rs"),
            ServeMode::Passthrough => StrategyId::named("passthrough"),
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

impl fmt::Display for ServeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is none of [`ServeMode`]'s (holds the name given).
#[derive(Debug, thiserror::Error)]
#[error("unknown mode {0:?}; valid modes: typed/serde_json, typed/sonic-rs, passthrough")]
pub struct UnknownMode(pub String);

impl FromStr for ServeMode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ServeMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownMode(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_modes_identity_is_named_as_its_path_prefix() {
        let named: Vec<(String, Option<String>)> = ServeMode::ALL
            .iter()
            .map(|m| (m.id().name().to_string(), m.id().library().map(str::to_string)))
            .collect();
        let expected = [
            ("typed/serde_json", Some("serde_json")),
            ("typed/sonic-rs", Some("sonic-rs")),
            ("passthrough", None),
        ]
        .map(|(n, l)| (n.to_string(), l.map(str::to_string)));
        assert_eq!(named, expected);
        assert!(ServeMode::ALL.iter().all(|m| m.id().name() == m.as_str()));
    }
}
