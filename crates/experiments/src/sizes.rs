//! Payload size as a dimension: the sizes a sweep measures (`--sizes 1KB,4KB,64KB`) and the
//! subject of one size, whose tables carry their size and their sweep as typed params so the
//! report groups them without reading table names.

use std::fmt;
use std::str::FromStr;

use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::{BoxedStrategy, Direction};
use serde_json::{Map, Value, json};

use crate::types::Subject;

/// The params a swept table carries: its sweep's name (`order`), the operation (`deserialize`)
/// and, for a generated document, the size asked for in bytes; `payload_bytes` is the size
/// measured.
pub const SWEEP_PARAM: &str = "sweep";
/// See [`SWEEP_PARAM`].
pub const OPERATION_PARAM: &str = "operation";
/// See [`SWEEP_PARAM`].
pub const SIZE_TARGET_PARAM: &str = "size_target";

/// The most sizes one sweep takes: each is two tables of every strategy.
pub const MAX_SIZES: usize = 16;

/// A payload size: a whole number of bytes, KB or MB, 1024-based as every size jsoncost
/// prints (`1KB` = 1024 bytes, `1MB` = 1,048,576; `KiB`/`MiB` are read the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PayloadSize(u64);

/// The largest size a sweep generates: 256 MB, what `--max-payload-mib` allows by default.
pub const MAX_SIZE_BYTES: u64 = crate::input::MAX_PAYLOAD_MIB << 20;

impl PayloadSize {
    /// `bytes` bytes.
    pub fn bytes(bytes: u64) -> PayloadSize {
        PayloadSize(bytes)
    }

    /// The size in bytes.
    pub fn get(self) -> u64 {
        self.0
    }

    /// The size as a table name carries it: `100B`, `4KB`, `1MB`, `1536B`.
    pub fn label(self) -> String {
        self.to_string()
    }
}

/// A size that does not parse: what was given and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid size {given:?}: {why} (a whole number with B, KB or MB, e.g. 100B, 4KB, 1MB; 1KB = 1024 bytes)")]
pub struct SizeParseError {
    given: String,
    why: &'static str,
}

impl FromStr for PayloadSize {
    type Err = SizeParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |why| SizeParseError { given: s.to_string(), why };
        let t = s.trim();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let (number, unit) = t.split_at(digits);
        if number.is_empty() {
            return Err(err("no number"));
        }
        let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
            "b" => 1,
            "kb" | "kib" => 1 << 10,
            "mb" | "mib" => 1 << 20,
            "" => return Err(err("no unit")),
            _ => return Err(err("unknown unit")),
        };
        let n: u64 = number.parse().map_err(|_| err("too large"))?;
        let bytes = n.checked_mul(scale).ok_or_else(|| err("too large"))?;
        if bytes == 0 {
            return Err(err("zero bytes"));
        }
        if bytes > MAX_SIZE_BYTES {
            return Err(err("above 256 MB"));
        }
        Ok(PayloadSize(bytes))
    }
}

impl fmt::Display for PayloadSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            b if b % (1 << 20) == 0 => write!(f, "{}MB", b >> 20),
            b if b % (1 << 10) == 0 => write!(f, "{}KB", b >> 10),
            b => write!(f, "{b}B"),
        }
    }
}

/// A list of sizes, as `--sizes` takes it: sorted, without repeats, at most [`MAX_SIZES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sizes(pub Vec<PayloadSize>);

impl FromStr for Sizes {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_sizes(s).map(Sizes)
    }
}

/// A comma-separated list of sizes, each checked, at most [`MAX_SIZES`], sorted and without
/// repeats.
pub fn parse_sizes(list: &str) -> Result<Vec<PayloadSize>, String> {
    let mut sizes: Vec<PayloadSize> = list
        .split(',')
        .map(|s| s.parse::<PayloadSize>().map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    sizes.sort();
    sizes.dedup();
    if sizes.len() > MAX_SIZES {
        return Err(format!("{} sizes: a sweep takes at most {MAX_SIZES}", sizes.len()));
    }
    Ok(sizes)
}

/// One size of a sweep: a subject measured as itself, its tables named `<sweep>-<size>/<op>`
/// and carrying the sweep, the operation and the size as params.
pub struct SizedSubject {
    inner: Box<dyn Subject>,
    sweep: String,
    name: String,
    target: Option<PayloadSize>,
}

impl SizedSubject {
    /// `inner` as the size `target` of the sweep `sweep` (a generated document), named
    /// `<sweep>-<target>`.
    pub fn generated(sweep: &str, target: PayloadSize, inner: Box<dyn Subject>) -> SizedSubject {
        SizedSubject {
            name: format!("{sweep}-{}", target.label()),
            inner,
            sweep: sweep.to_string(),
            target: Some(target),
        }
    }

    /// `inner`, one sample of the sweep `sweep` (a document of the user's), named
    /// `<sweep>-<its size>`.
    pub fn sample(sweep: &str, inner: Box<dyn Subject>) -> SizedSubject {
        let size = PayloadSize(inner.sample().len() as u64);
        SizedSubject {
            name: format!("{sweep}-{}", size.label()),
            inner,
            sweep: sweep.to_string(),
            target: None,
        }
    }
}

impl Subject for SizedSubject {
    fn name(&self) -> &str {
        &self.name
    }
    fn params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert("shape".into(), json!(self.sweep));
        params.insert("payload_bytes".into(), json!(self.sample().len()));
        params.insert(SWEEP_PARAM.into(), json!(self.sweep));
        if let Some(t) = self.target {
            params.insert(SIZE_TARGET_PARAM.into(), json!(t.get()));
        }
        params
    }
    fn table_params(&self, direction: Direction) -> Map<String, Value> {
        let mut params = self.params();
        params.insert(OPERATION_PARAM.into(), json!(direction.as_str()));
        params
    }
    fn sample(&self) -> &[u8] {
        self.inner.sample()
    }
    fn directions(&self) -> &'static [Direction] {
        self.inner.directions()
    }
    fn reference(&self, direction: Direction) -> Result<Reference, String> {
        self.inner.reference(direction)
    }
    fn expected_failures(&self) -> &[crate::types::ExpectedFailure] {
        self.inner.expected_failures()
    }
    fn strategies(&self, direction: Direction) -> Vec<BoxedStrategy<'_>> {
        self.inner.strategies(direction)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_1024_based_and_print_back() {
        let sizes = parse_sizes("1MB,100B,4KB,64KiB,1kb,4KB").unwrap();
        let bytes: Vec<u64> = sizes.iter().map(|s| s.get()).collect();
        assert_eq!(bytes, [100, 1024, 4096, 65_536, 1_048_576]);
        let labels: Vec<String> = sizes.iter().map(|s| s.label()).collect();
        assert_eq!(labels, ["100B", "1KB", "4KB", "64KB", "1MB"]);
        assert_eq!(PayloadSize::bytes(1536).label(), "1536B");
    }

    #[test]
    fn a_size_that_does_not_parse_says_why() {
        let e = |s: &str| parse_sizes(s).unwrap_err();
        assert_eq!(
            e("4GB"),
            "invalid size \"4GB\": unknown unit (a whole number with B, KB or MB, e.g. 100B, 4KB, 1MB; 1KB = 1024 bytes)"
        );
        assert!(e("KB").starts_with("invalid size \"KB\": no number"));
        assert!(e("12").starts_with("invalid size \"12\": no unit"));
        assert!(e("0B").starts_with("invalid size \"0B\": zero bytes"));
        assert!(e("300MB").starts_with("invalid size \"300MB\": above 256 MB"));
        assert!(e("99999999999999999999B").starts_with("invalid size \"99999999999999999999B\": too large"));
        assert!(e("1.5KB").starts_with("invalid size \"1.5KB\": unknown unit"));
    }
}
