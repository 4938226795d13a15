//! The common form strategy outputs are compared in: a `serde_json::Value` of the whole
//! decoded document, or of a projection (a few JSON pointers) for lazy strategies.

use serde::Serialize;
use serde_json::Value;

/// A strategy's outcome, comparable across libraries.
#[derive(Debug, Clone, PartialEq)]
pub enum Canonical {
    /// The whole document.
    Full(Value),
    /// Selected fields: (JSON pointer, value).
    Projection(Vec<(String, Value)>),
}

impl Canonical {
    /// The canonical form of anything serializable (typed values and every library's DOM).
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<Canonical, String> {
        serde_json::to_value(value)
            .map(Canonical::Full)
            .map_err(|e| format!("cannot convert the output to a comparable value: {e}"))
    }

    /// The canonical form of serialized output: re-parsed with serde_json.
    pub fn of_json_bytes(bytes: &[u8]) -> Result<Canonical, String> {
        serde_json::from_slice(bytes)
            .map(Canonical::Full)
            .map_err(|e| format!("the output is not valid JSON: {e}"))
    }

    /// Compares `self` (a strategy's outcome) with the baseline's; `Err` describes the first
    /// difference. A projection is compared with the same pointers of a full baseline.
    pub fn agrees_with(&self, baseline: &Canonical) -> Result<(), String> {
        match (self, baseline) {
            (Canonical::Full(a), Canonical::Full(b)) => match first_difference(b, a, String::new()) {
                None => Ok(()),
                Some(d) => Err(d),
            },
            (Canonical::Projection(fields), Canonical::Full(b)) => {
                for (pointer, got) in fields {
                    match b.pointer(pointer) {
                        Some(expected) if expected == got => {}
                        Some(expected) => return Err(format!("at {pointer}: expected {}, got {}", short(expected), short(got))),
                        None => return Err(format!("at {pointer}: the baseline has no such field")),
                    }
                }
                Ok(())
            }
            (a, b) if a == b => Ok(()),
            _ => Err("outputs of different forms cannot be compared".to_string()),
        }
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

/// The first place where `got` differs from `expected`, as a JSON pointer and both values.
pub fn first_difference(expected: &Value, got: &Value, path: String) -> Option<String> {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e {
                match g.get(k) {
                    None => return Some(format!("at {path}/{k}: missing in the output")),
                    Some(gv) => {
                        if let Some(d) = first_difference(ev, gv, format!("{path}/{k}")) {
                            return Some(d);
                        }
                    }
                }
            }
            g.keys()
                .find(|k| !e.contains_key(*k))
                .map(|k| format!("at {path}/{k}: unexpected field in the output"))
        }
        (Value::Array(e), Value::Array(g)) => {
            if e.len() != g.len() {
                return Some(format!("at {}: expected {} elements, got {}", or_root(&path), e.len(), g.len()));
            }
            e.iter()
                .zip(g)
                .enumerate()
                .find_map(|(i, (ev, gv))| first_difference(ev, gv, format!("{path}/{i}")))
        }
        (e, g) if e == g => None,
        (e, g) => Some(format!("at {}: expected {}, got {}", or_root(&path), short(e), short(g))),
    }
}

fn or_root(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_are_located_by_pointer() {
        let a = Canonical::Full(json!({"a": [1, {"b": 2.5}], "c": "x"}));
        let b = Canonical::Full(json!({"a": [1, {"b": 2.6}], "c": "x"}));
        assert_eq!(b.agrees_with(&a).unwrap_err(), "at /a/1/b: expected 2.5, got 2.6");
        assert!(a.agrees_with(&a.clone()).is_ok());
        let missing = Canonical::Full(json!({"a": [1, {"b": 2.5}]}));
        assert_eq!(missing.agrees_with(&a).unwrap_err(), "at /c: missing in the output");
        let short_arr = Canonical::Full(json!({"a": [1], "c": "x"}));
        assert_eq!(short_arr.agrees_with(&a).unwrap_err(), "at /a: expected 2 elements, got 1");
    }

    #[test]
    fn projections_compare_against_the_full_baseline() {
        let base = Canonical::Full(json!({"id": "o-1", "total": 12.5}));
        let ok = Canonical::Projection(vec![("/id".into(), json!("o-1"))]);
        assert!(ok.agrees_with(&base).is_ok());
        let bad = Canonical::Projection(vec![("/total".into(), json!(13.0))]);
        assert_eq!(bad.agrees_with(&base).unwrap_err(), "at /total: expected 12.5, got 13.0");
    }
}
