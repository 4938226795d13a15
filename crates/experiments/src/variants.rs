//! Model variants: what the model costs. One document decoded through
//! different serde models of the same values (`#[serde(flatten)]`, tagged and untagged enums,
//! date-times parsed or kept as text, an unused sub-object skipped or kept raw,
//! `deny_unknown_fields`, `String` vs `Box<str>` vs `&str`), each row `<variant>/<library>`.
//!
//! Every variant is a [`Variant`] of the group's plain type `P`: a type that decodes the
//! document and converts to `P`, untimed, for the gate. Its strategy is an ordinary
//! [`Strategy`](jsoncost_codecs::Strategy) gated by [`Through`] on `P`: the decoded variant,
//! converted to `P`, is compared with the exact reference viewed through `P` (less the pointers
//! the variant does not keep), so a variant that loses or changes a value is a failed row naming
//! the difference, and is never timed. The built-in table (`order_model`, feature `shapes`) and
//! a user's group ([`crate::Study::variants`]) are the same [`VariantsSubject`].

use std::hint::black_box;
use std::marker::PhantomData;

use jsoncost_codecs::toolkit::{OpStrategy, Slot, Through};
use jsoncost_codecs::{BoxedStrategy, Canonical, Contract, Direction, Effort, StrategyId};
use jsoncost_shapes::variants::{self as shapes, OrderModel};
use jsoncost_stream::Library;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::types::{Sample, Subject};

/// A model variant of the plain type `P`: what it decodes (`Decoded`, which may borrow from the
/// input) and how that becomes a `P` for the gate (untimed). A type that is `DeserializeOwned +
/// Into<P>` needs no impl: register it with [`VariantStudy::variant`](crate::VariantStudy::variant).
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Order {
///     id: u64,
/// }
///
/// // A model through a map of values: a conversion that can fail.
/// struct TextId;
/// impl jsoncost::Variant<Order> for TextId {
///     type Decoded<'de> = serde_json::Map<String, serde_json::Value>;
///     fn to_plain(m: Self::Decoded<'_>) -> Result<Order, String> {
///         let id = m.get("id").and_then(|v| v.as_u64()).ok_or("no numeric id")?;
///         Ok(Order { id })
///     }
/// }
/// // Registered with `.variants::<Order>(..).variant_of::<TextId>("map")`.
/// assert_eq!(<TextId as jsoncost::Variant<Order>>::to_plain(serde_json::from_str(r#"{"id": 7}"#).unwrap()).unwrap().id, 7);
/// ```
pub trait Variant<P>: 'static {
    /// What the variant decodes the document into.
    type Decoded<'de>: Deserialize<'de>;
    /// The same values as `P`; an error fails the row (the variant cannot say what it read).
    fn to_plain(decoded: Self::Decoded<'_>) -> Result<P, String>;
}

/// An owned variant converted with `Into<P>`.
pub struct Owned<V>(PhantomData<fn() -> V>);

impl<P, V: DeserializeOwned + Into<P> + 'static> Variant<P> for Owned<V> {
    type Decoded<'de> = V;
    fn to_plain(decoded: V) -> Result<P, String> {
        Ok(decoded.into())
    }
}

type Build = for<'a> fn(StrategyId, Library, &'a [u8], Contract, Vec<String>) -> BoxedStrategy<'a>;

/// One registered variant: its rows are `<name>/<library>`.
struct VariantRow {
    name: String,
    /// `None`: the group's libraries.
    libraries: Option<Vec<Library>>,
    /// Its own rendering of the same values, when its layout differs (adjacently tagged).
    input: Option<Vec<u8>>,
    left_out: Vec<String>,
    contract: Contract,
    build: Build,
}

/// Decodes with `library` into `M::Decoded`, as a user would with that library's serde entry
/// point (simd-json parses in place: its copy of the input is part of the operation).
fn variant_strategy<'a, P, M>(
    id: StrategyId,
    library: Library,
    input: &'a [u8],
    contract: Contract,
    left_out: Vec<String>,
) -> BoxedStrategy<'a>
where
    P: Serialize + DeserializeOwned + 'static,
    M: Variant<P>,
{
    let n = Some(input.len() as u64);
    // The plain type under another library is a swap; every other variant changes the type.
    let effort = if contract == Contract::OtherModel {
        Effort::Model
    } else {
        Effort::Swap
    };
    let inner = match library {
        Library::SerdeJson => OpStrategy::boxed(id, contract, effort, n, move |s| {
            finish::<P, M>(s, serde_json::from_slice::<M::Decoded<'_>>(input).map_err(|e| e.to_string())?)
        }),
        Library::SonicRs => OpStrategy::boxed(id, contract, effort, n, move |s| {
            finish::<P, M>(s, sonic_rs::from_slice::<M::Decoded<'_>>(input).map_err(|e| e.to_string())?)
        }),
        Library::SimdJson => OpStrategy::boxed(id, contract, effort, n, move |s| {
            let mut buf = input.to_vec();
            finish::<P, M>(
                s,
                simd_json::serde::from_slice::<M::Decoded<'_>>(&mut buf).map_err(|e| e.to_string())?,
            )
        }),
    };
    Through::<P>::leaving_out(inner, left_out)
}

/// Timing: the decoded value is only kept from the optimizer (and dropped, as every typed
/// strategy's is). Gate: converted to `P` and handed over in canonical form.
fn finish<P: Serialize, M: Variant<P>>(slot: Slot<'_>, decoded: M::Decoded<'_>) -> Result<(), String> {
    match slot {
        Some(s) => *s = Some(Canonical::of(&M::to_plain(decoded)?)?),
        None => {
            black_box(&decoded);
        }
    }
    Ok(())
}

/// A group of variants of `P` over one sample: the table `<name>/variants`, baseline
/// `plain/serde_json` (the sample decoded as `P`).
pub struct VariantsSubject<P> {
    name: String,
    input: Vec<u8>,
    libraries: Vec<Library>,
    rows: Vec<VariantRow>,
    of: PhantomData<fn() -> P>,
}

impl<P: Serialize + DeserializeOwned + 'static> VariantsSubject<P> {
    /// A group named `name` over `sample`, with its `plain` rows; bad input (exit 2) when the
    /// sample is not a `P`. Libraries: serde_json, sonic-rs and simd-json unless
    /// [`libraries`](Self::libraries) says otherwise.
    pub fn new(name: impl Into<String>, sample: impl Into<Sample>) -> Result<Self, Error> {
        let name = name.into();
        let input = sample.into().read(&name)?;
        let type_name = std::any::type_name::<P>();
        serde_json::from_slice::<P>(&input).map_err(|e| Error::usage(format!("the sample of {name} is not a {type_name}: {e}")))?;
        let group = VariantsSubject {
            name,
            input,
            libraries: Library::ALL.to_vec(),
            rows: Vec::new(),
            of: PhantomData,
        };
        let mut group = group.variant_of::<Owned<P>>("plain")?;
        // The baseline is the type itself; every other variant changes the type.
        group.last().contract = Contract::TypedValue;
        Ok(group)
    }

    /// The libraries of every variant without its own ([`on`](Self::on)).
    pub fn libraries(mut self, libraries: &[Library]) -> Result<Self, Error> {
        self.libraries = non_empty(&self.name, "the group", libraries)?;
        Ok(self)
    }

    /// Adds `V`, a type decoding the sample that converts `Into<P>`.
    pub fn variant<V: DeserializeOwned + Into<P> + 'static>(self, name: &str) -> Result<Self, Error> {
        self.variant_of::<Owned<V>>(name)
    }

    /// Adds the variant `M` (for one that borrows from the input, or whose conversion can fail).
    pub fn variant_of<M: Variant<P>>(mut self, name: &str) -> Result<Self, Error> {
        if name.is_empty() || name.contains('/') || name.chars().any(char::is_whitespace) {
            return Err(Error::usage(format!(
                "{}: invalid variant name {name:?}: it names rows <variant>/<library>, so it must be non-empty, without '/' or spaces",
                self.name
            )));
        }
        if self.rows.iter().any(|r| r.name == name) {
            return Err(Error::usage(format!("{}: the variant {name:?} is registered twice", self.name)));
        }
        self.rows.push(VariantRow {
            name: name.to_string(),
            libraries: None,
            input: None,
            left_out: Vec::new(),
            contract: Contract::OtherModel,
            build: variant_strategy::<P, M>,
        });
        Ok(self)
    }

    fn last(&mut self) -> &mut VariantRow {
        self.rows.last_mut().expect("the plain row is always there")
    }

    /// The last variant only with these libraries (a type only one library reads, such as
    /// serde_json's `RawValue`: absent elsewhere, not failed).
    pub fn on(mut self, libraries: &[Library]) -> Result<Self, Error> {
        let what = format!("the variant {:?}", self.last().name);
        let libraries = non_empty(&self.name, &what, libraries)?;
        self.last().libraries = Some(libraries);
        Ok(self)
    }

    /// The last variant reads `sample`, its own rendering of the same values (a layout the
    /// others do not read, such as adjacently tagged enums); it is still checked against the
    /// group's sample as `P` sees it.
    pub fn reading(mut self, sample: impl Into<Sample>) -> Result<Self, Error> {
        let what = format!("{} {}", self.name, self.rows.last().map_or("", |r| r.name.as_str()));
        let input = sample.into().read(&what)?;
        self.last().input = Some(input);
        Ok(self)
    }

    /// The last variant does not keep the values at these JSON pointers (an `IgnoredAny`
    /// field): the gate compares the rest. Bad input when the sample has no such object member.
    pub fn leaving_out<S: AsRef<str>>(mut self, pointers: &[S]) -> Result<Self, Error> {
        let mut doc: Value = serde_json::from_slice(&self.input).map_err(|e| Error::usage(format!("the sample of {}: {e}", self.name)))?;
        for p in pointers {
            let p = p.as_ref();
            if !jsoncost_codecs::canonical::remove_pointer(&mut doc, p) {
                return Err(Error::usage(format!(
                    "{}: the sample has no object member at {p:?} to leave out",
                    self.name
                )));
            }
        }
        self.last().left_out = pointers.iter().map(|p| p.as_ref().to_string()).collect();
        Ok(self)
    }

    /// The last variant's value borrows from the input (`&str`, `Cow<str>` fields): its rows
    /// deliver a borrowed value (`Contract::BorrowedValue`), as `borrowed/*` rows do.
    pub fn borrowing(mut self) -> Self {
        self.last().contract = Contract::BorrowedValue;
        self
    }
}

fn non_empty(group: &str, what: &str, libraries: &[Library]) -> Result<Vec<Library>, Error> {
    if libraries.is_empty() {
        return Err(Error::usage(format!("{group}: {what} has no library")));
    }
    Ok(libraries.to_vec())
}

impl<P: Serialize + DeserializeOwned + 'static> Subject for VariantsSubject<P> {
    fn name(&self) -> &str {
        &self.name
    }
    fn params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert("shape".into(), json!(self.name));
        params.insert("payload_bytes".into(), json!(self.input.len()));
        params.insert("operation".into(), json!(Direction::Deserialize.as_str()));
        // The rows that read their own rendering of the values, and its size.
        let own: Map<String, Value> = self
            .rows
            .iter()
            .filter_map(|r| r.input.as_ref().map(|i| (r.name.clone(), json!(i.len()))))
            .collect();
        if !own.is_empty() {
            params.insert("own_payload_bytes".into(), Value::Object(own));
        }
        params
    }
    fn sample(&self) -> &[u8] {
        &self.input
    }
    fn directions(&self) -> &'static [Direction] {
        &[Direction::Deserialize]
    }
    fn table(&self, _direction: Direction) -> String {
        format!("{}/variants", self.name)
    }
    fn strategies(&self, direction: Direction) -> Vec<BoxedStrategy<'_>> {
        if direction != Direction::Deserialize {
            return Vec::new();
        }
        let mut out = Vec::new();
        for row in &self.rows {
            let input = row.input.as_deref().unwrap_or(&self.input);
            for &library in row.libraries.as_deref().unwrap_or(&self.libraries) {
                out.push((row.build)(
                    StrategyId::new(row.name.clone(), library.as_str()),
                    library,
                    input,
                    row.contract,
                    row.left_out.clone(),
                ));
            }
        }
        out
    }
}

/// Declares a marker for an `OrderModel` variant whose conversion is `to_plain` (fallible: a
/// date-time kept as text is parsed).
macro_rules! order_variant {
    ($(#[$doc:meta])* $marker:ident, $decoded:ty) => {
        $(#[$doc])*
        pub struct $marker;

        impl Variant<OrderModel> for $marker {
            type Decoded<'de> = $decoded;
            fn to_plain(decoded: Self::Decoded<'_>) -> Result<OrderModel, String> {
                decoded.to_plain()
            }
        }
    };
}

order_variant!(
    /// Events as `#[serde(tag = "type")]`.
    Tagged,
    shapes::OrderModelTagged
);
order_variant!(
    /// Events as `#[serde(tag = "type", content = "content")]`.
    Adjacent,
    shapes::OrderModelAdjacent
);
order_variant!(
    /// Events as `#[serde(untagged)]`.
    Untagged,
    shapes::OrderModelUntagged
);
order_variant!(
    /// Date-times as `String`.
    DateString,
    shapes::OrderModelDateString
);
order_variant!(
    /// Date-times as `Cow<str>`, borrowed.
    DateCow,
    shapes::OrderModelDateCow<'de>
);
order_variant!(
    /// The address as `Box<RawValue>`.
    Raw,
    shapes::OrderModelRaw
);
order_variant!(
    /// The address as `IgnoredAny`.
    Ignored,
    shapes::OrderModelIgnored
);
order_variant!(
    /// Every string a `Box<str>`.
    BoxStr,
    shapes::OrderModelBoxStr
);
order_variant!(
    /// Every string a `&str`.
    BorrowedStr,
    shapes::OrderModelBorrowed<'de>
);

/// sonic-rs's counterpart of `RawValue`: the unused address as a `LazyValue` borrowed from the
/// input (validated, not decoded, not copied). A newtype so it can convert into the plain
/// address (`ToAddress` and `LazyValue` are both foreign here); `transparent` hands sonic-rs's
/// own deserializer straight to `LazyValue`, which works only there.
#[derive(Deserialize)]
#[serde(transparent)]
pub struct SonicLazy<'a>(#[serde(borrow)] sonic_rs::LazyValue<'a>);

impl shapes::ToAddress for SonicLazy<'_> {
    /// The kept bytes parsed now (untimed), so the gate compares what was kept.
    fn to_address(self) -> Result<jsoncost_shapes::Address, String> {
        serde_json::from_str(self.0.as_raw_str()).map_err(|e| format!("the kept shipping_address is not an address: {e}"))
    }
}

order_variant!(
    /// The address as sonic-rs's `LazyValue`.
    Lazy,
    OrderModel<String, shapes::Stamp, shapes::Event, SonicLazy<'de>>
);

/// The built-in table `order-model/variants`: the `order-model` document for `seed` through
/// every variant with serde_json and sonic-rs (24 rows: run stays fast). simd-json's serde path
/// takes every variant but `RawValue` and `LazyValue` too (tested); a user's group measures it
/// by default. With the feature `shapes` (the built-in shapes, which the CLI builds).
#[cfg(feature = "shapes")]
pub fn order_model(seed: u64) -> Result<VariantsSubject<OrderModel>, Error> {
    order_model_on(seed, &[Library::SerdeJson, Library::SonicRs])
}

#[cfg(feature = "shapes")]
fn order_model_on(seed: u64, libraries: &[Library]) -> Result<VariantsSubject<OrderModel>, Error> {
    VariantsSubject::<OrderModel>::new("order-model", shapes::order_model_document(seed))?
        .libraries(libraries)?
        .variant::<shapes::OrderModelFlattened>("flatten")?
        .variant_of::<Tagged>("internally-tagged")?
        .variant_of::<Adjacent>("adjacently-tagged")?
        .reading(shapes::adjacent_document(seed))?
        .variant_of::<Untagged>("untagged")?
        .variant_of::<DateString>("datetime-string")?
        .variant_of::<DateCow>("datetime-cow")?
        .borrowing()
        // serde_json's RawValue works only through serde_json's own deserializer, sonic-rs's
        // LazyValue only through sonic-rs's; simd-json's serde path has neither: each is
        // absent where it does not work.
        .variant_of::<Raw>("raw-value")?
        .on(&[Library::SerdeJson])?
        .variant_of::<Lazy>("lazy-value")?
        .on(&[Library::SonicRs])?
        .borrowing()
        .variant_of::<Ignored>("ignored-any")?
        .leaving_out(&["/shipping_address"])?
        .variant::<shapes::OrderModelStrict>("deny-unknown-fields")?
        .variant_of::<BoxStr>("box-str")?
        .variant_of::<BorrowedStr>("borrowed-str")
        .map(VariantsSubject::borrowing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use crate::filter::Filter;
    use crate::runner::Runner;
    use crate::sink::Recorder;
    use jsoncost_engine::{MeasureConfig, Status};
    use jsoncost_shapes::DEFAULT_SEED;
    use std::time::Duration;

    #[test]
    #[cfg(feature = "shapes")]
    fn every_built_in_variant_reads_the_document_as_the_plain_value() {
        let subject = order_model(DEFAULT_SEED).unwrap();
        assert_eq!(subject.table(Direction::Deserialize), "order-model/variants");
        assert!(subject.strategies(Direction::Serialize).is_empty());
        let reference = subject.reference(Direction::Deserialize).unwrap();
        let mut strategies = subject.strategies(Direction::Deserialize);
        let names: Vec<&str> = strategies.iter().map(|s| s.name()).collect();
        let mut expected = Vec::new();
        for v in [
            "plain",
            "flatten",
            "internally-tagged",
            "adjacently-tagged",
            "untagged",
            "datetime-string",
            "datetime-cow",
            "raw-value",
            "ignored-any",
            "deny-unknown-fields",
            "box-str",
            "borrowed-str",
        ] {
            expected.push(format!("{v}/serde_json"));
            if v == "raw-value" {
                expected.push("lazy-value/sonic-rs".to_string());
            } else {
                expected.push(format!("{v}/sonic-rs"));
            }
        }
        assert_eq!(names, expected);
        for s in &mut strategies {
            let fidelity = s.verify(Some(&reference)).unwrap_or_else(|e| panic!("{}: {e}", s.name()));
            // Every number of the document is compared, exactly (20 lines × 4, total, priority,
            // the customer's two, one payment amount), none lost to a re-rendering.
            assert_eq!(
                fidelity,
                jsoncost_engine::Fidelity {
                    numbers: 85,
                    ..Default::default()
                },
                "{}",
                s.name()
            );
            let borrowed = ["borrowed-str", "datetime-cow", "lazy-value"].contains(&s.id().style());
            let contract = if borrowed {
                Contract::BorrowedValue
            } else if s.id().style() == "plain" {
                Contract::TypedValue
            } else {
                Contract::OtherModel
            };
            assert_eq!(s.contract(), contract, "{}", s.name());
        }
        // The adjacently tagged rows read their own rendering, and the params say its size.
        let own = subject.params()["own_payload_bytes"]["adjacently-tagged"].as_u64().unwrap();
        assert_eq!(own, shapes::adjacent_document(DEFAULT_SEED).len() as u64);
        assert!(own > subject.sample().len() as u64);
    }

    #[test]
    #[cfg(feature = "shapes")]
    fn simd_json_s_serde_path_reads_every_variant_but_the_other_libraries_raw_values() {
        let subject = order_model_on(DEFAULT_SEED, &[Library::SimdJson]).unwrap();
        let reference = subject.reference(Direction::Deserialize).unwrap();
        let mut strategies = subject.strategies(Direction::Deserialize);
        let simd: Vec<String> = strategies
            .iter()
            .map(|s| s.name().to_string())
            .filter(|n| n.ends_with("/simd-json"))
            .collect();
        assert_eq!(simd.len(), 11, "{simd:?}");
        for s in &mut strategies {
            s.verify(Some(&reference)).unwrap_or_else(|e| panic!("{}: {e}", s.name()));
        }
    }

    /// Reads the plain model but reports a priority one too high.
    struct WrongPriority;

    impl Variant<OrderModel> for WrongPriority {
        type Decoded<'de> = OrderModel;
        fn to_plain(mut decoded: OrderModel) -> Result<OrderModel, String> {
            decoded.priority += 1;
            Ok(decoded)
        }
    }

    fn run(subject: VariantsSubject<OrderModel>) -> Recorder {
        let mut rec = Recorder::default();
        let config = MeasureConfig {
            alloc_ops: 3,
            ..MeasureConfig::whole_runs(3, 4, Duration::from_secs(5), true)
        };
        let subjects: Vec<Box<dyn Subject>> = vec![Box::new(subject)];
        let mut runner = Runner::new(config, Filter::default(), Cancel::never(), &mut rec);
        crate::types::measure(&subjects, &mut runner).unwrap();
        rec
    }

    #[test]
    fn a_variant_that_changes_or_drops_a_value_is_a_failed_row_naming_it_and_never_timed() {
        let seed = DEFAULT_SEED;
        let plain = shapes::order_model(seed);
        let subject = VariantsSubject::<OrderModel>::new("order-model", shapes::order_model_document(seed))
            .unwrap()
            .libraries(&[Library::SerdeJson])
            .unwrap()
            .variant_of::<WrongPriority>("wrong-priority")
            .unwrap()
            // IgnoredAny without saying the address is left out: the empty address differs.
            .variant_of::<Ignored>("drops-address")
            .unwrap()
            .variant_of::<Ignored>("ignored-any")
            .unwrap()
            .leaving_out(&["/shipping_address"])
            .unwrap();
        let rec = run(subject);
        let table = &rec.tables[0];
        assert_eq!(table.table, "order-model/variants");
        let row = |m: &str| table.rows.iter().find(|r| r.method == m).unwrap();
        let wrong = row("wrong-priority/serde_json");
        assert_eq!(wrong.status, Status::Failed);
        assert_eq!(
            wrong.error_message.as_deref(),
            Some(
                format!(
                    "output differs from the exact reference at /priority: expected {}, got {}",
                    plain.priority,
                    plain.priority + 1
                )
                .as_str()
            )
        );
        assert_eq!(wrong.mean_ns, None);
        let dropped = row("drops-address/serde_json");
        assert_eq!(dropped.status, Status::Failed);
        assert_eq!(
            dropped.error_message.as_deref(),
            Some(
                format!(
                    "output differs from the exact reference at /shipping_address/city: expected \"{}\", got \"\"",
                    plain.shipping_address.city
                )
                .as_str()
            )
        );
        assert_eq!(dropped.mean_ns, None);
        for ok in ["plain/serde_json", "ignored-any/serde_json"] {
            let r = row(ok);
            assert_eq!(r.status, Status::Ok, "{ok}: {:?}", r.error_message);
            assert!(r.mean_ns.is_some(), "{ok} is timed");
        }
        assert!(row("plain/serde_json").baseline);
    }

    #[test]
    fn registration_errors_name_the_group_and_what_is_wrong() {
        let doc = shapes::order_model_document(1);
        let group = || VariantsSubject::<OrderModel>::new("g", doc.clone()).unwrap();
        let e = |r: Result<VariantsSubject<OrderModel>, Error>| r.err().unwrap().to_string();
        assert_eq!(
            e(group().variant_of::<Tagged>("plain")),
            "g: the variant \"plain\" is registered twice"
        );
        assert!(e(group().variant_of::<Tagged>("a/b")).starts_with("g: invalid variant name \"a/b\""));
        assert_eq!(
            e(group().variant_of::<Ignored>("i").and_then(|g| g.leaving_out(&["/nope"]))),
            "g: the sample has no object member at \"/nope\" to leave out"
        );
        assert_eq!(e(group().libraries(&[])), "g: the group has no library");
        let not = VariantsSubject::<OrderModel>::new("g", r#"{"id": 1}"#).err().unwrap();
        assert_eq!(not.exit_code(), 2);
        assert!(
            not.to_string()
                .starts_with("the sample of g is not a jsoncost_shapes::variants::OrderModel"),
            "{not}"
        );
    }
}
