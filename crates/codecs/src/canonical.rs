//! The common form strategy outputs are compared in: a `serde_json::Value` of the whole
//! decoded document, or of a projection (a few JSON pointers) for lazy strategies, and the
//! comparison with the exact reference that classifies how its numbers differ.

use jsoncost_engine::{DifferenceKind, Fidelity, NumberDifference};
use serde::Serialize;
use serde_json::{Number, Value};

use crate::exact;
use crate::member_order::MemberOrder;
use crate::pointer::push_token;

/// A strategy's outcome, comparable across libraries.
#[derive(Debug, Clone, PartialEq)]
pub enum Canonical {
    /// The whole document.
    Full(Value),
    /// Selected fields: (JSON pointer, value).
    Projection(Vec<(String, Value)>),
    /// The whole document as a writer wrote it: its value, and its members' order as the
    /// text has them (which the gate compares with the input's, [`MemberOrder`]).
    Written(Value, MemberOrder),
}

impl Canonical {
    /// The canonical form of anything serializable (typed values and every library's DOM). No
    /// text is parsed: numbers keep the exact values the strategy produced.
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<Canonical, String> {
        serde_json::to_value(value)
            .map(Canonical::Full)
            .map_err(|e| format!("cannot convert the output to a comparable value: {e}"))
    }

    /// The canonical form of serialized output: re-parsed with the exact reference parser, so
    /// the check of a writer does not inherit a reader's rounding, with its members' order
    /// where serde_json can walk the text.
    pub fn of_json_bytes(bytes: &[u8]) -> Result<Canonical, String> {
        let value = exact::parse(bytes).map_err(|e| format!("the output is not valid JSON: {e}"))?;
        Ok(match MemberOrder::of_json(bytes) {
            Some(order) => Canonical::Written(value, order),
            None => Canonical::Full(value),
        })
    }

    /// The members' order of a written output.
    pub fn member_order(&self) -> Option<&MemberOrder> {
        match self {
            Canonical::Written(_, order) => Some(order),
            Canonical::Full(_) | Canonical::Projection(_) => None,
        }
    }

    /// Compares `self` (a strategy's outcome) with the exact `reference` and tallies how its
    /// numbers differ; `Err` names the first value that differs otherwise, by JSON pointer. A
    /// projection is compared with the same pointers of the reference.
    pub fn compare_with(&self, reference: &Value) -> Result<Fidelity, String> {
        let mut fidelity = Fidelity::default();
        match self {
            Canonical::Full(got) | Canonical::Written(got, _) => compare(reference, got, &mut String::new(), &mut fidelity)?,
            Canonical::Projection(fields) => {
                for (pointer, got) in fields {
                    let Some(expected) = reference.pointer(pointer) else {
                        return Err(format!("at {pointer}: the reference has no such field"));
                    };
                    compare(expected, got, &mut pointer.clone(), &mut fidelity)?;
                }
            }
        }
        Ok(fidelity)
    }
}

impl Canonical {
    /// The outcome without the values at `pointers` (a full value's; a projection's fields
    /// with those pointers), for a model that does not keep them.
    pub fn leaving_out(self, pointers: &[String]) -> Canonical {
        match self {
            Canonical::Full(mut v) => {
                for p in pointers {
                    remove_pointer(&mut v, p);
                }
                Canonical::Full(v)
            }
            Canonical::Written(mut v, mut order) => {
                for p in pointers {
                    remove_pointer(&mut v, p);
                }
                order.leaving_out(pointers);
                Canonical::Written(v, order)
            }
            Canonical::Projection(fields) => Canonical::Projection(fields.into_iter().filter(|(p, _)| !pointers.contains(p)).collect()),
        }
    }
}

/// Removes the object member at JSON pointer `pointer` (RFC 6901) from `v`; false when there
/// is none (an array element is not removed: it would renumber its siblings).
pub fn remove_pointer(v: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let key = crate::pointer::unescape(last);
    match v.pointer_mut(parent) {
        Some(Value::Object(m)) => m.remove(&key).is_some(),
        _ => false,
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

/// Walks `expected` (the reference) and `got` together, counting numbers into `fidelity`;
/// `Err` at the first difference that is not one of [`Fidelity`]'s kinds. `path` is the JSON
/// pointer of the values (restored on return).
pub fn compare(expected: &Value, got: &Value, path: &mut String, fidelity: &mut Fidelity) -> Result<(), String> {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e {
                let len = path.len();
                push_token(path, k);
                match g.get(k) {
                    None => return Err(format!("at {path}: missing in the output")),
                    Some(gv) => compare(ev, gv, path, fidelity)?,
                }
                path.truncate(len);
            }
            match g.keys().find(|k| !e.contains_key(*k)) {
                Some(k) => {
                    push_token(path, k);
                    Err(format!("at {path}: unexpected field in the output"))
                }
                None => Ok(()),
            }
        }
        (Value::Array(e), Value::Array(g)) => {
            if e.len() != g.len() {
                return Err(format!("at {}: expected {} elements, got {}", or_root(path), e.len(), g.len()));
            }
            for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                compare(ev, gv, path, fidelity)?;
                path.truncate(len);
            }
            Ok(())
        }
        (Value::Number(e), Value::Number(g)) => {
            fidelity.numbers += 1;
            let kind = match number_fidelity(e, g) {
                Some(NumberFidelity::Exact) => return Ok(()),
                Some(NumberFidelity::Inexact(ulps)) => {
                    fidelity.floats_inexact += 1;
                    fidelity.max_ulps = fidelity.max_ulps.max(ulps);
                    DifferenceKind::InexactFloat
                }
                Some(NumberFidelity::ZeroSignLost) => {
                    fidelity.zero_sign_lost += 1;
                    DifferenceKind::ZeroSignLost
                }
                Some(NumberFidelity::KindChanged) => {
                    fidelity.integers_changed += 1;
                    DifferenceKind::IntegerChanged
                }
                None => return Err(difference(path, expected, got)),
            };
            // serde_json writes an f64 as the shortest text that reads back as it, so the two
            // texts tell the values apart exactly.
            fidelity.name(NumberDifference {
                kind,
                pointer: path.clone(),
                exact: e.to_string(),
                got: g.to_string(),
            });
            Ok(())
        }
        (e, g) if e == g => Ok(()),
        (e, g) => {
            if e.is_number() {
                fidelity.numbers += 1;
            }
            Err(difference(path, e, g))
        }
    }
}

fn difference(path: &str, e: &Value, g: &Value) -> String {
    format!("at {}: expected {}, got {}", or_root(path), short(e), short(g))
}

/// How one number of the output relates to the reference's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumberFidelity {
    Exact,
    /// A float this many ulp away (1 ..= Fidelity::MAX_INEXACT_ULPS).
    Inexact(u64),
    ZeroSignLost,
    KindChanged,
}

/// `None`: a different value. Floats are compared bit for bit (so `-0.0` is not `0.0`).
fn number_fidelity(e: &Number, g: &Number) -> Option<NumberFidelity> {
    use NumberFidelity::*;
    let int = |n: &Number| n.as_u64().map(i128::from).or_else(|| n.as_i64().map(i128::from));
    match (int(e), int(g)) {
        (Some(a), Some(b)) => (a == b).then_some(Exact),
        (Some(a), None) => {
            let gf = g.as_f64()?;
            (gf == a as f64).then_some(KindChanged)
        }
        (None, Some(b)) => {
            let ef = e.as_f64()?;
            if b == 0 && ef == 0.0 && ef.is_sign_negative() {
                Some(ZeroSignLost)
            } else {
                (ef == b as f64).then_some(KindChanged)
            }
        }
        (None, None) => {
            let (a, b) = (e.as_f64()?, g.as_f64()?);
            if a.to_bits() == b.to_bits() {
                Some(Exact)
            } else if a == 0.0 && b == 0.0 && a.is_sign_negative() {
                Some(ZeroSignLost)
            } else if a.is_sign_negative() == b.is_sign_negative() && a.to_bits().abs_diff(b.to_bits()) <= Fidelity::MAX_INEXACT_ULPS {
                // Same sign: the distance of bit patterns is the distance in floats.
                Some(Inexact(a.to_bits().abs_diff(b.to_bits())))
            } else {
                None
            }
        }
    }
}

fn or_root(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fid(numbers: u64, ulp: u64, zero: u64, ints: u64) -> Fidelity {
        Fidelity {
            numbers,
            floats_inexact: ulp,
            max_ulps: ulp.min(1),
            zero_sign_lost: zero,
            integers_changed: ints,
            cause: None,
            ..Fidelity::default()
        }
    }

    fn named(kind: DifferenceKind, pointer: &str, exact: &str, got: &str) -> NumberDifference {
        NumberDifference {
            kind,
            pointer: pointer.into(),
            exact: exact.into(),
            got: got.into(),
        }
    }

    #[test]
    fn differences_are_located_by_pointer() {
        let a = json!({"a": [1, {"b": 2.5}], "c": "x", "d/e": 1});
        let b = Canonical::Full(json!({"a": [1, {"b": 2.6}], "c": "x", "d/e": 1}));
        assert_eq!(b.compare_with(&a).unwrap_err(), "at /a/1/b: expected 2.5, got 2.6");
        assert_eq!(Canonical::Full(a.clone()).compare_with(&a), Ok(fid(3, 0, 0, 0)));
        let missing = Canonical::Full(json!({"a": [1, {"b": 2.5}], "c": "x"}));
        assert_eq!(missing.compare_with(&a).unwrap_err(), "at /d~1e: missing in the output");
        let extra = Canonical::Full(json!({"a": [1, {"b": 2.5}], "c": "x", "d/e": 1, "f": 0}));
        assert_eq!(extra.compare_with(&a).unwrap_err(), "at /f: unexpected field in the output");
        let short_arr = Canonical::Full(json!({"a": [1], "c": "x", "d/e": 1}));
        assert_eq!(short_arr.compare_with(&a).unwrap_err(), "at /a: expected 2 elements, got 1");
        let retyped = Canonical::Full(json!({"a": [1, {"b": "2.5"}], "c": "x", "d/e": 1}));
        assert_eq!(retyped.compare_with(&a).unwrap_err(), "at /a/1/b: expected 2.5, got \"2.5\"");
    }

    #[test]
    fn numbers_are_classified_not_failed_when_the_value_survives() {
        let x = 43.47470900000013_f64;
        let next = f64::from_bits(x.to_bits() + 1);
        let prev = f64::from_bits(x.to_bits() - 1);
        let reference = json!([x, -x, -0.0, -0.0, 5, 9007199254740993u64, 1.0, 0.0]);
        let got = Canonical::Full(json!([prev, -next, 0.0, 0, 5.0, 9007199254740992.0, 1, 0.0]));
        let mut want = fid(8, 2, 2, 3);
        use DifferenceKind::*;
        want.first = vec![
            named(InexactFloat, "/0", "43.47470900000013", "43.474709000000125"),
            named(InexactFloat, "/1", "-43.47470900000013", "-43.47470900000014"),
            named(ZeroSignLost, "/2", "-0.0", "0.0"),
            named(ZeroSignLost, "/3", "-0.0", "0"),
            named(IntegerChanged, "/4", "5", "5.0"),
            named(IntegerChanged, "/5", "9007199254740993", "9007199254740992.0"),
            named(IntegerChanged, "/6", "1.0", "1"),
        ];
        assert_eq!(got.compare_with(&reference), Ok(want));
        // A few ulps are inexact, with the distance kept; further, a sign gained, a changed
        // integer: different values.
        let two = f64::from_bits(x.to_bits() + 2);
        let f = Canonical::Full(json!([two])).compare_with(&json!([x])).unwrap();
        assert_eq!((f.floats_inexact, f.max_ulps), (1, 2));
        let far = f64::from_bits(x.to_bits() + Fidelity::MAX_INEXACT_ULPS + 1);
        assert_eq!(
            Canonical::Full(json!([far])).compare_with(&json!([x])).unwrap_err(),
            format!("at /0: expected {x}, got {far}")
        );
        assert_eq!(
            Canonical::Full(json!([-0.0])).compare_with(&json!([0.0])).unwrap_err(),
            "at /0: expected 0.0, got -0.0"
        );
        assert_eq!(
            Canonical::Full(json!([7])).compare_with(&json!([6])).unwrap_err(),
            "at /0: expected 6, got 7"
        );
        assert_eq!(
            Canonical::Full(json!([1.5])).compare_with(&json!([1])).unwrap_err(),
            "at /0: expected 1, got 1.5"
        );
    }

    #[test]
    fn the_first_three_numbers_of_each_kind_are_named_with_both_values() {
        let x = 0.1_f64;
        let off = f64::from_bits(x.to_bits() + 1);
        let reference = json!({"a": [x, x, {"b~c/d": x}], "z": [x, x], "n": -0.0});
        let got = Canonical::Full(json!({"a": [off, off, {"b~c/d": off}], "z": [off, off], "n": 0}));
        let f = got.compare_with(&reference).unwrap();
        assert_eq!((f.numbers, f.floats_inexact, f.zero_sign_lost), (6, 5, 1));
        let off = off.to_string();
        assert_eq!(
            f.first,
            [
                named(DifferenceKind::InexactFloat, "/a/0", "0.1", &off),
                named(DifferenceKind::InexactFloat, "/a/1", "0.1", &off),
                named(DifferenceKind::InexactFloat, "/a/2/b~0c~1d", "0.1", &off),
                named(DifferenceKind::ZeroSignLost, "/n", "-0.0", "0"),
            ]
        );
        // Added up (a streamed array's elements): still three of a kind.
        let mut total = f.clone();
        total.add(&f);
        assert_eq!(total.floats_inexact, 10);
        assert_eq!(total.named(DifferenceKind::InexactFloat).count(), 3);
        assert_eq!(total.named(DifferenceKind::ZeroSignLost).count(), 2);
    }

    #[test]
    fn projections_compare_against_the_full_reference() {
        let reference = json!({"id": "o-1", "total": 12.5});
        let ok = Canonical::Projection(vec![("/id".into(), json!("o-1"))]);
        assert_eq!(ok.compare_with(&reference), Ok(fid(0, 0, 0, 0)));
        let bad = Canonical::Projection(vec![("/total".into(), json!(13.0))]);
        assert_eq!(bad.compare_with(&reference).unwrap_err(), "at /total: expected 12.5, got 13.0");
        let absent = Canonical::Projection(vec![("/x".into(), json!(1))]);
        assert_eq!(
            absent.compare_with(&reference).unwrap_err(),
            "at /x: the reference has no such field"
        );
    }

    #[test]
    fn serialized_output_is_reparsed_exactly() {
        let Canonical::Written(v, _) = Canonical::of_json_bytes(b"[43.474709000000132]").unwrap() else {
            panic!("a written output keeps its members' order")
        };
        assert_eq!(v[0].as_f64(), Some(43.47470900000013));
    }
}
