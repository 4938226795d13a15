//! The order of each object's members as a text has them, so the gate can say when a writer
//! puts them in another order than its input (a DOM kept in a sorted or hashed map writes
//! sorted or shuffled keys; serde_json's `preserve_order` keeps the input's). JSON leaves
//! member order free (RFC 8259 §4), so this is never a failure, but it is what the code
//! delivers: a client diffing bodies, a snapshot test or a signature over the body sees it.
//!
//! Read from the text itself, not from a `serde_json::Value`: without `preserve_order` a
//! `Value` sorts its keys, and with it every `Value` in the build keeps them, the gate's own
//! included, so a `Value` would show the build's order, not the writer's.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::pointer::{push_token, unescape};

/// The key serde_json hands a number under with its feature `arbitrary_precision` (a number
/// is then a one-member map to a visitor): a number, not an object.
const ARBITRARY_PRECISION_NUMBER: &str = "$serde_json::private::Number";

/// Each object's keys in the order of the text, by the object's JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberOrder(BTreeMap<String, Vec<String>>);

/// How a text's member order compares with the reference's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OrderCompared {
    /// Objects both texts have, at the same pointer.
    pub objects: u64,
    /// Of those, the objects whose shared keys come in another order.
    pub reordered: u64,
}

impl MemberOrder {
    /// The member order of the JSON text `bytes`; `None` when serde_json cannot walk it (deeper
    /// than its recursion limit, or not JSON: the gate's own parse says why).
    pub fn of_json(bytes: &[u8]) -> Option<MemberOrder> {
        let mut order = MemberOrder::default();
        let mut de = serde_json::Deserializer::from_slice(bytes);
        Walk {
            path: &mut String::new(),
            order: &mut order,
        }
        .deserialize(&mut de)
        .ok()?;
        de.end().ok()?;
        Some(order)
    }

    /// The order without the members at `pointers` (what a model does not keep).
    pub fn leaving_out(&mut self, pointers: &[String]) {
        for p in pointers {
            self.0.retain(|at, _| at != p && !at.starts_with(&format!("{p}/")));
            if let Some((parent, token)) = p.rsplit_once('/') {
                let key = unescape(token);
                if let Some(keys) = self.0.get_mut(parent) {
                    keys.retain(|k| *k != key);
                }
            }
        }
    }

    /// Compares `self` (a writer's output) with `reference`: for each object both have, whether
    /// the keys both have come in the same order (keys only one side has are compared by the
    /// value check, not here).
    pub fn compare(&self, reference: &MemberOrder) -> OrderCompared {
        let mut compared = OrderCompared::default();
        for (at, got) in &self.0 {
            let Some(expected) = reference.0.get(at) else {
                continue;
            };
            compared.objects += 1;
            let shared =
                |of: &Vec<String>, with: &Vec<String>| -> Vec<String> { of.iter().filter(|k| with.contains(k)).cloned().collect() };
            if shared(got, expected) != shared(expected, got) {
                compared.reordered += 1;
            }
        }
        compared
    }
}

/// One value of the text at `path`, recording every object's keys into `order`.
struct Walk<'a> {
    path: &'a mut String,
    order: &'a mut MemberOrder,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        Ok(())
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            let len = self.path.len();
            self.path.push_str(&format!("/{i}"));
            let more = seq.next_element_seed(Walk {
                path: self.path,
                order: self.order,
            })?;
            self.path.truncate(len);
            if more.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if keys.is_empty() && key == ARBITRARY_PRECISION_NUMBER {
                map.next_value::<IgnoredAny>()?;
                return Ok(());
            }
            let len = self.path.len();
            push_token(self.path, &key);
            map.next_value_seed(Walk {
                path: self.path,
                order: self.order,
            })?;
            self.path.truncate(len);
            keys.push(key);
        }
        self.order.0.insert(self.path.clone(), keys);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(text: &str) -> MemberOrder {
        MemberOrder::of_json(text.as_bytes()).expect("walks")
    }

    #[test]
    fn each_object_s_keys_are_read_in_the_text_s_order_by_pointer() {
        let o = order(r#"{"z": 1, "a": {"y/x": [ {"q": 1, "p": 2} ], "b": 2.5e10}, "m": [1, "s", null]}"#);
        let expected: BTreeMap<String, Vec<String>> = [("", vec!["z", "a", "m"]), ("/a", vec!["y/x", "b"]), ("/a/y~1x/0", vec!["q", "p"])]
            .into_iter()
            .map(|(p, keys)| (p.to_string(), keys.into_iter().map(String::from).collect()))
            .collect();
        assert_eq!(o.0, expected);
    }

    #[test]
    fn a_writer_that_sorts_or_drops_keys_is_compared_on_the_keys_both_have() {
        let reference = order(r#"{"id": 1, "customer": {"name": "a", "email": "b"}, "lines": [{"sku": "x", "qty": 2}]}"#);
        assert_eq!(
            order(r#"{"id": 1, "customer": {"name": "a", "email": "b"}, "lines": [{"sku": "x", "qty": 2}]}"#).compare(&reference),
            OrderCompared { objects: 3, reordered: 0 }
        );
        // Sorted, as a DOM in a sorted map writes it: the root and the customer reordered, the
        // line ("qty" < "sku") too.
        assert_eq!(
            order(r#"{"customer": {"email": "b", "name": "a"}, "id": 1, "lines": [{"qty": 2, "sku": "x"}]}"#).compare(&reference),
            OrderCompared { objects: 3, reordered: 3 }
        );
        // A key left out keeps the rest in order.
        assert_eq!(
            order(r#"{"id": 1, "lines": [{"sku": "x", "qty": 2}]}"#).compare(&reference),
            OrderCompared { objects: 2, reordered: 0 }
        );
    }

    #[test]
    fn leaving_out_a_member_drops_it_and_what_it_holds() {
        let mut o = order(r#"{"a": {"b": {"c": 1}, "d": 2}, "e~f": {"g": 1}}"#);
        o.leaving_out(&["/a/b".to_string(), "/e~0f".to_string()]);
        let expected: BTreeMap<String, Vec<String>> = [("", vec!["a"]), ("/a", vec!["d"])]
            .into_iter()
            .map(|(p, keys)| (p.to_string(), keys.into_iter().map(String::from).collect()))
            .collect();
        assert_eq!(o.0, expected);
    }

    #[test]
    fn a_text_too_deep_or_not_json_has_no_order() {
        assert_eq!(MemberOrder::of_json(b"{\"a\": 1,}"), None);
        assert_eq!(MemberOrder::of_json(b"{} x"), None);
        assert_eq!(MemberOrder::of_json(&[b'['; 200]), None);
    }
}
