//! Every strategy agrees with the baseline on every shape, and the gate catches one that does not.

use jsoncost_codecs::gate::{Reference, Verdict};
use jsoncost_codecs::jiter_decode::{self, FromJiter};
use jsoncost_codecs::toolkit::{self, OpStrategy};
use jsoncost_codecs::verify;
use jsoncost_codecs::{BorrowedForm, BoxedStrategy, Contract, Effort, StrategyId, TypeOptions, document, typed};
use jsoncost_shapes::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

fn all_pass(reference: &Reference, mut strategies: Vec<BoxedStrategy<'_>>) -> Vec<String> {
    let mut names = Vec::new();
    for s in strategies.iter_mut() {
        match verify(s.as_mut(), reference) {
            Verdict::Pass(f) => assert!(f.is_exact(), "{}: {f:?}", s.name()),
            Verdict::Fail(m) => panic!("{}: {m}", s.name()),
        }
        s.run().unwrap();
        names.push(s.name().to_string());
    }
    names
}

fn round_trip<T: Serialize + DeserializeOwned + BorrowedForm<T> + FromJiter>(value: T, lazy: &[&str]) {
    let bytes = serde_json::to_vec(&value).unwrap();
    let reference = Reference::from_json(&bytes).unwrap();
    let mut options = TypeOptions::default().borrowed::<T, T>().lazy(lazy);
    options.derived.push(jiter_decode::strategies::<T, T>);
    let names = all_pass(&reference, typed::deserialize_strategies::<T>(&bytes, &options));
    assert_eq!(names[0], "typed/serde_json");
    assert_eq!(names.len(), 24);
    // The other libraries, each through the gate with every number exact.
    for other in [
        "iterator/jiter",
        "typed/jiter",
        "borrowed/jiter",
        "dom-borrowed/serde_json_borrow",
        "dom-borrowed/jiter",
        "dom-borrowed-reuse/jiter",
        "dom/jiter",
        "dom-reuse/jiter",
    ] {
        assert!(names.iter().any(|n| n == other), "{other} missing from {names:?}");
    }
    // Without the optional parts: no borrowed/* and no lazy row.
    let names = all_pass(&reference, typed::deserialize_strategies::<T>(&bytes, &TypeOptions::default()));
    assert_eq!(names.len(), 18);
    assert!(
        !names.iter().any(|n| n.starts_with("borrowed/") || n.starts_with("lazy/")),
        "{names:?}"
    );
    let names = all_pass(&Reference::of(&value).unwrap(), typed::serialize_strategies::<T>(&value).unwrap());
    assert_eq!(names.len(), 10);
    assert!(names.iter().any(|n| n == "dom-borrowed/serde_json_borrow"), "{names:?}");
    // The typed deserializers give back the value itself.
    let back: T = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(serde_json::to_vec(&back).unwrap(), bytes);
}

#[test]
fn every_strategy_round_trips_every_shape() {
    let mut g = Generator::new(DEFAULT_SEED);
    round_trip(g.data(1), &["/Id", "/Name"]);
    round_trip(g.order(1, ORDER_LINES), &["/id", "/total"]);
    round_trip(g.order(2, ORDER_LARGE_LINES), &["/id"]);
    round_trip(g.item(3), &["/id", "/price"]);
    round_trip(g.items48(1), &["/0/id", "/47/id"]);
}

#[test]
fn document_strategies_agree_on_any_json() {
    let doc = br#"{"a": [1, 2.5, {"b": "x\"y\u00e9"}], "c": null, "d": true, "e": -12}"#;
    let reference = Reference::from_json(doc).unwrap();
    let names = all_pass(
        &reference,
        document::deserialize_strategies(doc, &["/a/2/b".to_string(), "/e".to_string()]),
    );
    assert_eq!(names.last().unwrap(), "lazy/sonic-rs");
    all_pass(&reference, document::serialize_strategies(doc).unwrap());
}

/// A library that cannot hold the document in its DOM (simd-json and a 30-digit integer) fails
/// its own serialize row, with its message; the payload and the other rows are not refused.
#[test]
fn a_dom_one_library_cannot_build_fails_only_its_row() {
    let doc = br#"{"id": 123456789012345678901234567890, "name": "a"}"#;
    let reference = Reference::of(&serde_json::from_slice::<serde_json::Value>(doc).unwrap()).unwrap();
    let mut strategies = document::serialize_strategies(doc).unwrap();
    let verdicts: Vec<(String, Result<(), String>)> = strategies
        .iter_mut()
        .map(|s| {
            let verdict = match verify(s.as_mut(), &reference) {
                Verdict::Pass(_) => Ok(()),
                Verdict::Fail(m) => Err(m),
            };
            (s.name().to_string(), verdict)
        })
        .collect();
    let failed: Vec<&(String, Result<(), String>)> = verdicts.iter().filter(|(_, v)| v.is_err()).collect();
    assert_eq!(failed.len(), 1, "{verdicts:?}");
    assert_eq!(failed[0].0, "dom/simd-json");
    assert_eq!(
        failed[0].1,
        Err("simd-json cannot read the document into its DOM: InvalidNumber at character 27 ('1')".to_string())
    );
    assert_eq!(verdicts[0], ("dom/serde_json".to_string(), Ok(())));
    // The baseline's own DOM is the payload's: a document it cannot read is refused.
    assert!(document::serialize_strategies(b"[1, 2").is_err());
}

#[test]
fn the_gate_catches_a_wrong_strategy_and_a_failing_one() {
    let value = Generator::new(1).data(7);
    let bytes = serde_json::to_vec(&value).unwrap();
    let reference = Reference::from_json(&bytes).unwrap();
    // Deliberately wrong: parses, then changes the name.
    let mut wrong = OpStrategy::boxed(
        StrategyId::new("typed", "off-by-one"),
        Contract::TypedValue,
        Effort::Swap,
        None,
        |s| {
            let mut d: Data = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
            d.id += 1;
            toolkit::emit(s, &d)
        },
    );
    match verify(wrong.as_mut(), &reference) {
        Verdict::Fail(m) => assert_eq!(m, "output differs from the exact reference at /Id: expected 7, got 8"),
        Verdict::Pass(_) => panic!("a wrong strategy passed the gate"),
    }
    let mut failing = OpStrategy::boxed(StrategyId::new("typed", "broken"), Contract::TypedValue, Effort::Swap, None, |s| {
        let d: Data = serde_json::from_slice(b"{\"Id\": 1}").map_err(|e| e.to_string())?;
        toolkit::emit(s, &d)
    });
    match verify(failing.as_mut(), &reference) {
        Verdict::Fail(m) => assert_eq!(m, "missing field `Name` at line 1 column 9"),
        Verdict::Pass(_) => panic!("a failing strategy passed the gate"),
    }
}

#[test]
fn the_jiter_decoders_skip_unknown_keys_and_name_a_missing_field() {
    let text = br#"{"Id": 1, "Extra": [1, {"a": "\u00e9"}], "Name": "n", "Timestamp": "2025-02-17T13:45:53.2140627+00:00"}"#;
    let d = Data::from_jiter(&mut jiter::Jiter::new(text)).unwrap();
    assert_eq!((d.id, d.name.as_str()), (1, "n"));
    let missing = br#"{"Id": 1, "Timestamp": "2025-02-17T13:45:53.2140627+00:00"}"#;
    assert_eq!(
        Data::from_jiter(&mut jiter::Jiter::new(missing)).unwrap_err(),
        "missing field `Name`"
    );
    let trailing = [&text[..], b" x"].concat();
    let mut s = jiter_decode::strategies::<Data, Data>(&trailing);
    let e = s[0].check().unwrap_err().message;
    assert!(e.contains("trailing characters"), "{e}");
}
