//! The hostile corpus: deterministic documents built from their names, so the parent passes a
//! name and the child builds the bytes itself (a 64 MiB string never goes through a pipe).

use std::fmt;
use std::str::FromStr;

/// The nesting depths tried.
pub const DEPTHS: [u32; 3] = [1_000, 10_000, 100_000];
/// The big string case's length: 64 MiB.
pub const HUGE_STRING_BYTES: usize = 64 << 20;
/// The many-numbers case's count.
pub const MANY_NUMBERS: usize = 1_000_000;

/// A Data document's fields around a hostile part (the micro study's 3-field record).
const DATA_HEAD: &str = r#"{"Id":1,"Name":"n","Timestamp":"2025-02-17T13:45:53.2140627+00:00""#;

/// One hostile input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Case {
    /// `[[[…]]]`, this deep.
    DeepArray(u32),
    /// `{"a":{"a":…null…}}`, this deep.
    DeepObject(u32),
    /// A Data record with an unknown field `Extra` holding `[[[…]]]` this deep: what a typed
    /// endpoint skips.
    DeepUnknownField(u32),
    /// A Data record whose Name is a 64 MiB string.
    HugeString,
    /// `[0,1,…,9,0,…]`: 1,000,000 one-digit numbers.
    ManyNumbers,
    /// `[1e400]`: beyond f64.
    BigExponent,
    /// `[-0]`.
    NegativeZero,
    /// `[18446744073709551616]`: 2^64, one past u64.
    TwoToThe64,
    /// `[1e-400]`: below the smallest subnormal.
    TinyExponent,
    /// `["\xff"]`: a byte that is not UTF-8 inside a string.
    InvalidUtf8,
    /// `["\ud800"]`: an escaped high surrogate with no low one.
    LoneSurrogate,
    /// A UTF-8 byte order mark before a Data record.
    Bom,
    /// A Data record with `Id` twice.
    DuplicateKeys,
    /// `[1,2,]`.
    TrailingComma,
    /// `[NaN]`.
    NaN,
}

/// The serde type the typed path reads a case into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The built-in `data` shape (`jsoncost_shapes::Data`).
    Data,
    /// `Vec<f64>`.
    Numbers,
    /// `Vec<String>`.
    Strings,
}

impl Case {
    /// Every case, in the order tables list them.
    pub fn all() -> Vec<Case> {
        let mut v = Vec::new();
        for d in DEPTHS {
            v.push(Case::DeepArray(d));
        }
        for d in DEPTHS {
            v.push(Case::DeepObject(d));
        }
        for d in DEPTHS {
            v.push(Case::DeepUnknownField(d));
        }
        v.extend([
            Case::HugeString,
            Case::ManyNumbers,
            Case::BigExponent,
            Case::NegativeZero,
            Case::TwoToThe64,
            Case::TinyExponent,
            Case::InvalidUtf8,
            Case::LoneSurrogate,
            Case::Bom,
            Case::DuplicateKeys,
            Case::TrailingComma,
            Case::NaN,
        ]);
        v
    }

    /// Its name in tables and results.
    pub fn name(self) -> String {
        match self {
            Case::DeepArray(d) => format!("deep-array-{d}"),
            Case::DeepObject(d) => format!("deep-object-{d}"),
            Case::DeepUnknownField(d) => format!("deep-unknown-field-{d}"),
            Case::HugeString => "string-64mib".into(),
            Case::ManyNumbers => "numbers-1m".into(),
            Case::BigExponent => "number-1e400".into(),
            Case::NegativeZero => "number-minus-zero".into(),
            Case::TwoToThe64 => "number-2^64".into(),
            Case::TinyExponent => "number-1e-400".into(),
            Case::InvalidUtf8 => "invalid-utf8".into(),
            Case::LoneSurrogate => "lone-surrogate".into(),
            Case::Bom => "bom".into(),
            Case::DuplicateKeys => "duplicate-keys".into(),
            Case::TrailingComma => "trailing-comma".into(),
            Case::NaN => "nan".into(),
        }
    }

    /// The cases that take seconds rather than milliseconds (64 MiB, a million numbers).
    pub fn is_large(self) -> bool {
        matches!(self, Case::HugeString | Case::ManyNumbers)
    }

    /// The type the typed path reads this case into.
    pub fn target(self) -> Target {
        match self {
            Case::DeepArray(_) | Case::DeepObject(_) | Case::DeepUnknownField(_) | Case::HugeString | Case::Bom | Case::DuplicateKeys => {
                Target::Data
            }
            Case::InvalidUtf8 | Case::LoneSurrogate => Target::Strings,
            _ => Target::Numbers,
        }
    }

    /// The field the lazy path projects (a JSON pointer).
    pub fn projection(self) -> &'static str {
        match self {
            Case::DeepObject(_) => "/a",
            Case::DeepUnknownField(_) | Case::HugeString | Case::Bom | Case::DuplicateKeys => "/Name",
            _ => "/0",
        }
    }

    /// True when the document is a top-level array, which the incremental path streams.
    pub fn is_array(self) -> bool {
        !matches!(
            self,
            Case::DeepObject(_) | Case::DeepUnknownField(_) | Case::HugeString | Case::Bom | Case::DuplicateKeys
        )
    }

    /// The document's bytes; the same on every machine.
    pub fn bytes(self) -> Vec<u8> {
        fn nest(v: &mut Vec<u8>, depth: u32) {
            v.extend(std::iter::repeat_n(b'[', depth as usize));
            v.extend(std::iter::repeat_n(b']', depth as usize));
        }
        let mut v = Vec::new();
        match self {
            Case::DeepArray(d) => nest(&mut v, d),
            Case::DeepObject(d) => {
                for _ in 0..d {
                    v.extend_from_slice(br#"{"a":"#);
                }
                v.extend_from_slice(b"null");
                v.extend(std::iter::repeat_n(b'}', d as usize));
            }
            Case::DeepUnknownField(d) => {
                v.extend_from_slice(DATA_HEAD.as_bytes());
                v.extend_from_slice(br#","Extra":"#);
                nest(&mut v, d);
                v.push(b'}');
            }
            Case::HugeString => {
                v.reserve(HUGE_STRING_BYTES + 100);
                v.extend_from_slice(br#"{"Id":1,"Name":""#);
                v.extend((0..HUGE_STRING_BYTES).map(|i| b'a' + (i % 26) as u8));
                v.extend_from_slice(br#"","Timestamp":"2025-02-17T13:45:53.2140627+00:00"}"#);
            }
            Case::ManyNumbers => {
                v.reserve(MANY_NUMBERS * 2 + 1);
                v.push(b'[');
                for i in 0..MANY_NUMBERS {
                    if i > 0 {
                        v.push(b',');
                    }
                    v.push(b'0' + (i % 10) as u8);
                }
                v.push(b']');
            }
            Case::BigExponent => v.extend_from_slice(b"[1e400]"),
            Case::NegativeZero => v.extend_from_slice(b"[-0]"),
            Case::TwoToThe64 => v.extend_from_slice(b"[18446744073709551616]"),
            Case::TinyExponent => v.extend_from_slice(b"[1e-400]"),
            Case::InvalidUtf8 => v.extend_from_slice(b"[\"\xff\"]"),
            Case::LoneSurrogate => v.extend_from_slice(br#"["\ud800"]"#),
            Case::Bom => {
                v.extend_from_slice(b"\xEF\xBB\xBF");
                v.extend_from_slice(DATA_HEAD.as_bytes());
                v.push(b'}');
            }
            Case::DuplicateKeys => v.extend_from_slice(br#"{"Id":1,"Id":2,"Name":"n","Timestamp":"2025-02-17T13:45:53.2140627+00:00"}"#),
            Case::TrailingComma => v.extend_from_slice(b"[1,2,]"),
            Case::NaN => v.extend_from_slice(b"[NaN]"),
        }
        v
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Case {
    type Err = String;
    fn from_str(s: &str) -> Result<Case, String> {
        Case::all()
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("unknown safety case {s:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a 64: a fixed, dependency-free hash for pinning the large cases' bytes.
    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes
            .iter()
            .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    }

    #[test]
    fn small_cases_have_fixed_bytes() {
        assert_eq!(Case::NegativeZero.bytes(), b"[-0]");
        assert_eq!(Case::TwoToThe64.bytes(), b"[18446744073709551616]");
        assert_eq!(Case::InvalidUtf8.bytes(), b"[\"\xff\"]");
        assert_eq!(Case::LoneSurrogate.bytes(), br#"["\ud800"]"#);
        assert_eq!(&Case::Bom.bytes()[..4], b"\xEF\xBB\xBF{");
        assert_eq!(Case::DeepObject(2).bytes(), br#"{"a":{"a":null}}"#);
        assert_eq!(
            Case::DeepUnknownField(3).bytes(),
            br#"{"Id":1,"Name":"n","Timestamp":"2025-02-17T13:45:53.2140627+00:00","Extra":[[[]]]}"#
        );
    }

    #[test]
    fn large_cases_have_fixed_sizes_and_hashes() {
        let deep = Case::DeepArray(100_000).bytes();
        assert_eq!((deep.len(), fnv1a(&deep)), (200_000, 18_162_084_163_391_202_533));
        let numbers = Case::ManyNumbers.bytes();
        assert_eq!(numbers.len(), 2 * MANY_NUMBERS + 1);
        assert_eq!(&numbers[..12], b"[0,1,2,3,4,5");
        assert_eq!(fnv1a(&numbers), NUMBERS_HASH);
        let huge = Case::HugeString.bytes();
        assert_eq!(huge.len(), HUGE_STRING_BYTES + 66);
        assert_eq!(fnv1a(&huge), HUGE_HASH);
    }

    // Pinned (the deep and numbers hashes were also computed independently, outside Rust).
    const NUMBERS_HASH: u64 = 9_186_568_732_103_965_053;
    const HUGE_HASH: u64 = 10_469_036_904_663_443_359;

    #[test]
    fn every_case_reads_back_from_its_name() {
        for case in Case::all() {
            assert_eq!(case.name().parse::<Case>(), Ok(case));
        }
        assert_eq!(Case::all().len(), 21);
        assert!("deep-array-7".parse::<Case>().is_err());
    }
}
