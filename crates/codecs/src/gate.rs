//! The correctness gate: before a strategy is timed, its output is checked against an exact
//! reference derived from the source text by [`crate::exact`] (never from a library under
//! test, so the baseline is checked like every other strategy). How its numbers compare is a
//! result ([`Fidelity`]: floats 1 ulp off, the sign of zero lost, integers read as floats);
//! only a value that differs otherwise, or an error, fails the row, which is then never timed.

use std::io::Read;

use jsoncost_engine::{Fidelity, StrategyId};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::canonical::Canonical;
use crate::canonical::compare;
use crate::exact::{self, Outside, ParseStop};
use crate::member_order::MemberOrder;

/// What the gate decided for one strategy.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The output holds the reference's values, with this fidelity: may be timed.
    Pass(Fidelity),
    /// Failed or gave different values: shown as failed with this message.
    Fail(String),
}

/// The exact value every strategy of a table is checked against.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    value: Value,
    /// Its members' order as its text has them (a written value's: its serialization's), for
    /// writers' outputs; `None` where serde_json cannot walk the text.
    members: Option<MemberOrder>,
}

impl Reference {
    /// The exact parse of a table's source text (a deserialize table's input, a stored document).
    pub fn from_json(bytes: &[u8]) -> Result<Reference, exact::ParseError> {
        exact::parse(bytes).map(|value| Reference {
            value,
            members: MemberOrder::of_json(bytes),
        })
    }

    /// The value a serialize table writes, converted without any text in between.
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<Reference, String> {
        // The order a serializer writes the value in (a struct's fields as declared), read
        // from its text: the `Value` below may hold its keys sorted.
        let members = serde_json::to_vec(value).ok().and_then(|text| MemberOrder::of_json(&text));
        let Canonical::Full(value) = Canonical::of(value)? else {
            unreachable!("Canonical::of gives a full value")
        };
        Ok(Reference { value, members })
    }

    /// The reference's value, as `serde_json::Value` holds it.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The reference without the values at `pointers` (what a model does not keep, e.g. an
    /// `IgnoredAny` field); an error names a pointer the reference does not have.
    pub fn leaving_out(mut self, pointers: &[String]) -> Result<Reference, String> {
        for p in pointers {
            if !crate::canonical::remove_pointer(&mut self.value, p) {
                return Err(format!("at {p}: the reference has no such field to leave out"));
            }
        }
        if let Some(members) = &mut self.members {
            members.leaving_out(pointers);
        }
        Ok(self)
    }

    /// The reference as a type `T` sees it: what `T` leaves out (fields it does not declare) or
    /// re-renders (a timestamp's format) is left out or re-rendered here too, so a strategy
    /// decoding into `T` is compared with what `T` can hold. The exact numbers are kept: the
    /// value goes into `T` without text in between.
    pub fn through<T: Serialize + DeserializeOwned>(&self) -> Result<Reference, String> {
        // The members' order stays the text's: what `T` leaves out is not compared.
        through::<T>(self.value.clone(), "").map(|value| Reference {
            value,
            members: self.members.clone(),
        })
    }
}

/// Compares an output `strategy` already gave with `reference` (for callers that must see the
/// check's own failure, e.g. whether it was fatal).
pub fn judge(strategy: &StrategyId, out: &Canonical, reference: &Reference) -> Verdict {
    match out.compare_with(&reference.value) {
        Ok(mut fidelity) => {
            if let (Some(got), Some(expected)) = (out.member_order(), &reference.members) {
                let compared = got.compare(expected);
                fidelity.objects = compared.objects;
                fidelity.objects_reordered = compared.reordered;
            }
            Verdict::Pass(explained(strategy, fidelity))
        }
        Err(diff) => Verdict::Fail(format!("output differs from the exact reference {diff}")),
    }
}

/// Checks a streamed document's output without holding the reference whole: the document is
/// read again from `source`, each element of the array at `pointer` parsed exactly and viewed
/// through the element type `E` (so what `E` drops or re-renders, e.g. a timestamp's format,
/// is seen the same way on both sides), and compared with the next of `elements`. `outside`,
/// when given, is the rest of the output (the array left empty) and is compared with the rest
/// of the document viewed through `D`.
///
/// Memory: one element of each side at a time, and of the rest of the document only what the
/// comparison reads: nothing without `outside`; with it, the top-level members `D` declares
/// when it is a struct (its fields; everything when it reads any member, as a map or a
/// flattened struct does, and members of deeper objects on the path are not kept, so a `D`
/// reading them fails the comparison). The rest is read exactly all the same, so a document
/// the reference refuses fails whatever it holds ([`exact::parse_streamed`]).
pub fn verify_streamed<D, E, R>(
    strategy: &StrategyId,
    source: R,
    pointer: &str,
    outside: Option<&D>,
    elements: &mut dyn Iterator<Item = Result<E, String>>,
) -> Verdict
where
    D: Serialize + DeserializeOwned,
    E: Serialize + DeserializeOwned,
    R: Read,
{
    let mut fidelity = Fidelity::default();
    let mut path = String::from(pointer);
    let members: Option<Vec<String>> = match outside {
        None => Some(Vec::new()),
        Some(_) => fields_of::<D>().map(|fields| fields.iter().map(|f| format!("/{}", crate::pointer::escape(f))).collect()),
    };
    let kept = members.as_deref().map_or(Outside::All, Outside::Members);
    let walked = exact::parse_streamed(source, pointer, kept, |i, reference| {
        let got = match elements.next() {
            None => return Err(format!("at {pointer}: the output ends after {i} elements")),
            Some(Err(e)) => return Err(e),
            Some(Ok(got)) => got,
        };
        let len = path.len();
        path.push_str(&format!("/{i}"));
        let compared = through::<E>(reference, &path).and_then(|expected| {
            let got = serde_json::to_value(&got).map_err(|e| format!("cannot convert the output to a comparable value: {e}"))?;
            compare(&expected, &got, &mut path, &mut fidelity).map_err(|d| format!("output differs from the exact reference {d}"))
        });
        path.truncate(len);
        compared
    });
    let rest = match walked {
        Ok(rest) => rest,
        Err(ParseStop::Element(message)) => return Verdict::Fail(message),
        Err(ParseStop::Reference(e)) => return Verdict::Fail(format!("the exact reference cannot read the input: {e}")),
    };
    if let Some(more) = elements.next() {
        return Verdict::Fail(match more {
            Err(e) => e,
            Ok(_) => format!("at {pointer}: the output has more elements than the input"),
        });
    }
    if let Some(outside) = outside {
        let compared = through::<D>(rest, "").and_then(|expected| {
            let got = serde_json::to_value(outside).map_err(|e| format!("cannot convert the output to a comparable value: {e}"))?;
            compare(&expected, &got, &mut String::new(), &mut fidelity).map_err(|d| format!("output differs from the exact reference {d}"))
        });
        if let Err(message) = compared {
            return Verdict::Fail(message);
        }
    }
    Verdict::Pass(explained(strategy, fidelity))
}

/// The members `T` reads from a JSON object, when it says: a struct's fields. `None` when it
/// reads any member (a map, `Value`, a struct with a flattened field) or is not an object.
fn fields_of<T: DeserializeOwned>() -> Option<&'static [&'static str]> {
    use serde::de::{Error, Visitor};
    /// A deserializer that only listens: a struct names its fields to it, then it refuses.
    struct Probe(Option<&'static [&'static str]>);
    impl<'de> serde::Deserializer<'de> for &mut Probe {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(Self::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = Some(fields);
            Err(Self::Error::custom("fields taken"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut probe = Probe(None);
    let _ = T::deserialize(&mut probe);
    probe.0
}

/// The reference value as the type `T` holds it: exact numbers reach `T` as they are
/// (`from_value` parses no text), then `T` writes them back.
fn through<T: Serialize + DeserializeOwned>(reference: Value, at: &str) -> Result<Value, String> {
    let typed: T = serde_json::from_value(reference).map_err(|e| {
        format!(
            "at {}: the input does not fit the output's type: {e}",
            if at.is_empty() { "/" } else { at }
        )
    })?;
    serde_json::to_value(&typed).map_err(|e| format!("cannot convert the reference to a comparable value: {e}"))
}

/// Why serde_json, the typed baseline, could not decode `input` (the sample `name`) into
/// `type_name`, blaming what is at fault: the sample when it is not JSON (the exact reference's
/// message and byte offset); serde_json when the sample is valid JSON that it refuses (its own
/// message and position: a float near `f64::MAX` it rounds out of range without
/// `float_roundtrip`, nesting beyond its 128 levels); the type when the JSON is valid and does
/// not fit it.
pub fn explain_decode_error(input: &[u8], name: &str, type_name: &str, error: &serde_json::Error) -> String {
    use serde_json::error::Category;
    if let Err(e) = exact::parse(input) {
        return format!("the sample of {name} is not valid JSON: {e}");
    }
    match error.classify() {
        Category::Syntax | Category::Eof => format!(
            "the sample of {name} is valid JSON that serde_json, the baseline library, rejects: {error} (byte {}); \
             jsoncost's exact parser reads it, so the type {type_name} is not the cause",
            byte_offset(input, error.line(), error.column())
        ),
        Category::Data | Category::Io => format!("the sample of {name} is not a {type_name}: {error}"),
    }
}

/// The byte offset of serde_json's (line, column): lines count from 1, and the column is the
/// number of bytes of its line before the position.
fn byte_offset(input: &[u8], line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        input
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)
            .map_or(input.len(), |(i, _)| i + 1)
    };
    (line_start + column).min(input.len())
}

/// The configuration a library is measured in, when it explains an inexact result: serde_json
/// is built without `float_roundtrip` (a cargo feature; turning it on would change every
/// serde_json row), so its float parsing is not correctly rounded; serde_json_borrow builds its
/// DOM with serde_json's parser, so the same holds for it.
fn explained(strategy: &StrategyId, mut fidelity: Fidelity) -> Fidelity {
    if fidelity.floats_inexact > 0
        && matches!(strategy.library(), Some("serde_json" | "serde_json_borrow"))
        && !crate::build::has_serde_json_feature("float_roundtrip")
    {
        fidelity.cause = Some("serde_json without float_roundtrip".to_string());
    }
    fidelity
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_model_does_not_keep_is_left_out_of_both_sides() {
        let r = Reference::from_json(br#"{"a": {"b/c": 1, "d": 2}, "e": [1]}"#).unwrap();
        let left = r.clone().leaving_out(&["/a/b~1c".to_string()]).unwrap();
        assert_eq!(left.value(), &serde_json::json!({"a": {"d": 2}, "e": [1]}));
        assert_eq!(
            r.clone().leaving_out(&["/x".to_string()]).unwrap_err(),
            "at /x: the reference has no such field to leave out"
        );
        // An array element is not removed (it would renumber the rest).
        assert!(r.clone().leaving_out(&["/e/0".to_string()]).is_err());
        let out = Canonical::Full(serde_json::json!({"a": {"b/c": 9, "d": 2}, "e": [1]})).leaving_out(&["/a/b~1c".to_string()]);
        assert_eq!(out.compare_with(left.value()).map(|f| f.numbers), Ok(2));
    }

    fn decode_error<T: DeserializeOwned>(input: &str) -> String {
        let e = serde_json::from_str::<T>(input).err().expect("serde_json refuses the input");
        explain_decode_error(input.as_bytes(), "push-event", std::any::type_name::<T>(), &e)
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Event {
        id: u64,
        weight: f64,
    }

    #[test]
    fn a_decode_error_blames_the_sample_the_library_or_the_type() {
        // Valid JSON (the correctly rounded value is f64::MAX) that serde_json without
        // float_roundtrip rounds out of range: serde_json is at fault, not the type.
        let input = r#"{"id": 1, "weight": 1.7976931348623158e308}"#;
        assert_eq!(
            decode_error::<Event>(input),
            "the sample of push-event is valid JSON that serde_json, the baseline library, rejects: number out of range \
             at line 1 column 42 (byte 42); jsoncost's exact parser reads it, so the type \
             jsoncost_codecs::gate::tests::Event is not the cause"
        );
        assert_eq!(&input[..42], r#"{"id": 1, "weight": 1.7976931348623158e308"#);
        // Nesting deeper than serde_json's 128 levels, on the second line.
        let deep = format!("{{\"id\": 1,\n\"weight\": {}{}}}", "[".repeat(200), "]".repeat(200));
        let message = decode_error::<serde_json::Value>(&deep);
        assert!(
            message.starts_with("the sample of push-event is valid JSON that serde_json, the baseline library, rejects: recursion limit exceeded at line 2 column 137 (byte 147);"),
            "{message}"
        );
        // Line 2 starts at byte 10: its 137th byte is the 128th '['.
        assert_eq!((&deep[..10], deep[10..147].matches('[').count()), ("{\"id\": 1,\n", 127));
        // Valid JSON that is not the type: the type.
        assert_eq!(
            decode_error::<Event>(r#"{"id": "7", "weight": 1.5}"#),
            "the sample of push-event is not a jsoncost_codecs::gate::tests::Event: invalid type: string \"7\", expected u64 at line 1 column 10"
        );
        // Not JSON: the sample, by the exact reference's byte offset.
        assert_eq!(
            decode_error::<Event>(r#"{"id": 7, "weight": 1.5,}"#),
            "the sample of push-event is not valid JSON: expected '\"' (a key), found '}' at byte 24"
        );
    }

    #[test]
    fn the_cause_is_named_for_serde_json_floats_only() {
        let f = Fidelity {
            numbers: 3,
            floats_inexact: 1,
            ..Fidelity::default()
        };
        assert_eq!(
            explained(&StrategyId::new("dom", "serde_json"), f.clone()).cause.as_deref(),
            Some("serde_json without float_roundtrip")
        );
        // A style named like the library is not the library.
        assert_eq!(explained(&StrategyId::named("serde_json"), f.clone()).cause, None);
        assert_eq!(explained(&StrategyId::new("dom", "sonic-rs"), f).cause, None);
        let zero = Fidelity {
            numbers: 1,
            zero_sign_lost: 1,
            ..Fidelity::default()
        };
        assert_eq!(explained(&StrategyId::new("dom", "serde_json"), zero).cause, None);
    }
}
