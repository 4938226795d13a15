//! The libraries with a derive of their own (simd-json-derive, nanoserde, miniserde, facet-json) on a type
//! that derives theirs and serde's, through the same gate as every strategy: each round-trips,
//! and how exactly it keeps the numbers is recorded, not assumed.

use std::collections::BTreeMap;

use jsoncost_codecs::gate::{Reference, Verdict};
use jsoncost_codecs::verify;
use jsoncost_codecs::{BoxedStrategy, TypeOptions, derived, typed};
use jsoncost_engine::Fidelity;

/// A record a user might own: nested structs, a vector, integers up to u64, floats, escapes.
#[derive(
    Debug,
    Clone,
    PartialEq,
    serde::Serialize,
    serde::Deserialize,
    simd_json_derive::Serialize,
    simd_json_derive::Deserialize,
    nanoserde::SerJson,
    nanoserde::DeJson,
    miniserde::Serialize,
    miniserde::Deserialize,
    facet::Facet,
)]
struct Shipment {
    id: u64,
    reference: String,
    weight_kg: f64,
    fragile: bool,
    legs: Vec<Leg>,
}

#[derive(
    Debug,
    Clone,
    PartialEq,
    serde::Serialize,
    serde::Deserialize,
    simd_json_derive::Serialize,
    simd_json_derive::Deserialize,
    nanoserde::SerJson,
    nanoserde::DeJson,
    miniserde::Serialize,
    miniserde::Deserialize,
    facet::Facet,
)]
struct Leg {
    from: String,
    to: String,
    km: f64,
    stops: u32,
}

fn options() -> TypeOptions {
    TypeOptions {
        derived: vec![
            derived::simd_json_derive_deserialize::<Shipment>,
            derived::nanoserde_deserialize::<Shipment>,
            derived::miniserde_deserialize::<Shipment>,
            derived::facet_json_deserialize::<Shipment>,
        ],
        ..TypeOptions::default()
    }
}

fn verdicts(reference: &Reference, mut strategies: Vec<BoxedStrategy<'_>>) -> BTreeMap<String, Verdict> {
    strategies
        .iter_mut()
        .filter(|s| {
            matches!(
                s.id().library(),
                Some("simd-json-derive" | "nanoserde" | "miniserde" | "facet-json")
            )
        })
        .map(|s| {
            let v = verify(s.as_mut(), reference);
            if let Verdict::Pass(_) = v {
                s.run().unwrap();
            }
            (s.name().to_string(), v)
        })
        .collect()
}

fn inexact_at(pointer: &str, exact: &str, got: &str) -> jsoncost_engine::NumberDifference {
    jsoncost_engine::NumberDifference {
        kind: jsoncost_engine::DifferenceKind::InexactFloat,
        pointer: pointer.into(),
        exact: exact.into(),
        got: got.into(),
    }
}

fn exact(numbers: u64) -> Verdict {
    Verdict::Pass(Fidelity {
        numbers,
        ..Fidelity::default()
    })
}

/// Six numbers: u64::MAX, and floats whose correctly rounded value serde_json's default parser
/// misses by an ulp (the fidelity test's texts) beside plain ones.
const DOC: &str = r#"{"id": 18446744073709551615, "reference": "SH-1 \"fast\" \u00e9", "weight_kg": 43.474709000000132,
  "fragile": true, "legs": [{"from": "Lyon", "to": "Turin", "km": 50.090049175062276, "stops": 2},
  {"from": "Turin", "to": "Milan", "km": 143.0625, "stops": 0}]}"#;

#[test]
fn each_derive_library_round_trips_a_user_type_through_the_gate() {
    let reference = Reference::from_json(DOC.as_bytes()).unwrap();
    let got = verdicts(&reference, typed::deserialize_strategies::<Shipment>(DOC.as_bytes(), &options()));
    let want: BTreeMap<String, Verdict> = [
        ("typed/simd-json-derive", exact(6)),
        ("typed-reuse/simd-json-derive", exact(6)),
        ("typed/nanoserde", exact(6)),
        ("typed/facet-json", exact(6)),
        // miniserde's float parsing is not correctly rounded either: both texts 1 ulp off.
        (
            "typed/miniserde",
            Verdict::Pass(Fidelity {
                numbers: 6,
                floats_inexact: 2,
                max_ulps: 1,
                first: vec![
                    inexact_at("/legs/0/km", "50.090049175062276", "50.09004917506227"),
                    inexact_at("/weight_kg", "43.47470900000013", "43.474709000000125"),
                ],
                ..Fidelity::default()
            }),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(got, want);

    let value: Shipment = serde_json::from_str(DOC).unwrap();
    let reference = Reference::of(&value).unwrap();
    let mut ser = derived::simd_json_derive_serialize(&value);
    ser.extend(derived::nanoserde_serialize(&value));
    ser.extend(derived::miniserde_serialize(&value));
    ser.extend(derived::facet_json_serialize(&value));
    let got = verdicts(&reference, ser);
    // Each derive writes the fields as declared, as serde does: the 3 objects in order.
    let in_order = Verdict::Pass(Fidelity {
        numbers: 6,
        objects: 3,
        ..Fidelity::default()
    });
    let want: BTreeMap<String, Verdict> = [
        "typed/simd-json-derive",
        "typed-writer/simd-json-derive",
        "typed/nanoserde",
        "typed/miniserde",
        "typed/facet-json",
    ]
    .map(|name| (name, in_order.clone()))
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(got, want);
}

/// The built-in shapes through their plain copies (`jsoncost_shapes::derived`), as the micro
/// experiment registers them: every row passes the gate; its fidelity is what each library
/// does with the generated numbers.
fn shape_rows<Shape, P>(shape: &Shape) -> (BTreeMap<String, Verdict>, BTreeMap<String, Verdict>)
where
    Shape: serde::Serialize + serde::de::DeserializeOwned,
    P: for<'i> simd_json_derive::Deserialize<'i>
        + simd_json_derive::Serialize
        + nanoserde::DeJson
        + nanoserde::SerJson
        + miniserde::Deserialize
        + miniserde::Serialize
        + facet::Facet<'static>
        + serde::Serialize
        + serde::de::DeserializeOwned,
{
    use jsoncost_codecs::derived::{Plain, PlainValue};
    let bytes = serde_json::to_vec(shape).unwrap();
    let options = TypeOptions {
        derived: derived::all_deserialize::<P>().to_vec(),
        ..TypeOptions::default()
    };
    let de = verdicts(
        &Reference::from_json(&bytes).unwrap(),
        typed::deserialize_strategies::<Shape>(&bytes, &options),
    );
    let plain = Plain(serde_json::from_slice::<P>(&bytes).unwrap());
    let ser = verdicts(&Reference::of(shape).unwrap(), plain.serialize_strategies());
    (de, ser)
}

#[test]
fn the_built_in_shapes_round_trip_through_each_derive_library() {
    use jsoncost_shapes::{DEFAULT_SEED, Generator, ORDER_LINES};
    let mut g = Generator::new(DEFAULT_SEED);
    let data = g.data(12345);
    let order = g.order(1, ORDER_LINES);
    for (label, (de, ser), numbers) in [
        ("data", shape_rows::<_, jsoncost_shapes::derived::Data>(&data), 1),
        ("order", shape_rows::<_, jsoncost_shapes::derived::Order>(&order), 0),
    ] {
        assert_eq!(de.len(), 5, "{label}: {de:?}");
        assert_eq!(ser.len(), 5, "{label}: {ser:?}");
        for (name, v) in de.iter().chain(&ser) {
            match v {
                Verdict::Pass(f) => assert!(f.is_exact() && (numbers == 0 || f.numbers == numbers), "{label} {name}: {f:?}"),
                Verdict::Fail(m) => panic!("{label} {name}: {m}"),
            }
        }
    }
}
