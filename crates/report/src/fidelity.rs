//! How a row's output compared with the exact reference, in words: one phrase per kind of
//! difference, shared by every format (table and markdown notes, HTML, CSV, the advisor).

use jsoncost_engine::{DifferenceKind, Fidelity, MeasuredTable, Row};

use crate::units;

/// "exact", or the differences: "inexact floats: 37 of 3,000 numbers 1 ulp off (serde_json
/// without float_roundtrip); sign of zero lost: 1 of 3,000 numbers (-0 read as 0)".
pub fn describe(f: &Fidelity) -> String {
    phrases(f, false)
}

/// [`describe`] with the first numbers of each kind that differ, where the file names them:
/// "inexact floats: 5 of 31 numbers 1 ulp off (serde_json without float_roundtrip), first at
/// /a/0 (exact 0.1, got 0.10000000000000002), ...".
pub fn describe_with_numbers(f: &Fidelity) -> String {
    phrases(f, true)
}

fn phrases(f: &Fidelity, numbers: bool) -> String {
    match (f.is_exact(), member_order(f)) {
        (true, None) => "exact".to_string(),
        (true, Some(order)) => format!("exact values; {order}"),
        (false, None) => number_phrases(f, numbers),
        (false, Some(order)) => format!("{}; {order}", number_phrases(f, numbers)),
    }
}

/// Whether the output holds the reference's values exactly and, where its text was read, its
/// members in the input's order.
pub fn is_faithful(f: &Fidelity) -> bool {
    f.is_exact() && f.objects_reordered == 0
}

/// "members in another order than the input's: 2 of 3 objects", when a written output's
/// objects were compared and some differ.
pub fn member_order(f: &Fidelity) -> Option<String> {
    (f.objects_reordered > 0).then(|| {
        format!(
            "members in another order than the input's: {} of {} objects",
            units::count(f.objects_reordered as f64),
            units::count(f.objects as f64)
        )
    })
}

/// The numbers' phrases of a [`Fidelity`] that is not exact.
pub fn number_phrases(f: &Fidelity, numbers: bool) -> String {
    let of = |n: u64| format!("{} of {} numbers", units::count(n as f64), units::count(f.numbers as f64));
    let first = |kind: DifferenceKind| -> String {
        let named: Vec<String> = f
            .named(kind)
            .map(|d| {
                let at = if d.pointer.is_empty() { "/" } else { d.pointer.as_str() };
                format!("{at} (exact {}, got {})", d.exact, d.got)
            })
            .collect();
        if !numbers || named.is_empty() {
            String::new()
        } else {
            format!(", first at {}", named.join(", "))
        }
    };
    let mut parts = Vec::new();
    if f.floats_inexact > 0 {
        // Files from before the distance was kept counted 1-ulp differences only.
        let off = match f.max_ulps {
            0 | 1 => "1 ulp off".to_string(),
            n => format!("up to {n} ulp off"),
        };
        let mut p = format!("inexact floats: {} {off}", of(f.floats_inexact));
        if let Some(cause) = &f.cause {
            p.push_str(&format!(" ({cause})"));
        }
        p.push_str(&first(DifferenceKind::InexactFloat));
        parts.push(p);
    }
    if f.zero_sign_lost > 0 {
        parts.push(format!(
            "sign of zero lost: {} (-0 read as 0){}",
            of(f.zero_sign_lost),
            first(DifferenceKind::ZeroSignLost)
        ));
    }
    if f.integers_changed > 0 {
        parts.push(format!(
            "integers changed: {} (read as floats or floats as integers){}",
            of(f.integers_changed),
            first(DifferenceKind::IntegerChanged)
        ));
    }
    parts.join("; ")
}

/// A row's fidelity in a cell: empty when it was not checked against an exact reference.
pub(crate) fn cell(row: &Row) -> String {
    row.fidelity.as_ref().map(describe).unwrap_or_default()
}

/// The notes under a table: one per row whose output is not exact or reorders members; the baseline's says that
/// it keeps its role.
pub(crate) fn notes(exp: &MeasuredTable) -> Vec<String> {
    exp.rows
        .iter()
        .filter_map(|row| {
            let f = row.fidelity.as_ref().filter(|f| !is_faithful(f))?;
            let role = if row.baseline {
                " (the baseline: Ratio and Alloc Ratio stay relative to it)"
            } else {
                ""
            };
            Some(format!("Fidelity of {}{role}: {}.", row.method, describe_with_numbers(f)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_phrase() {
        let mut f = Fidelity {
            numbers: 3000,
            ..Fidelity::default()
        };
        assert_eq!(describe(&f), "exact");
        f.floats_inexact = 37;
        f.cause = Some("serde_json without float_roundtrip".into());
        assert_eq!(
            describe(&f),
            "inexact floats: 37 of 3,000 numbers 1 ulp off (serde_json without float_roundtrip)"
        );
        f.floats_inexact = 0;
        f.zero_sign_lost = 1;
        f.integers_changed = 2;
        assert_eq!(
            describe(&f),
            "sign of zero lost: 1 of 3,000 numbers (-0 read as 0); integers changed: 2 of 3,000 numbers (read as floats or floats as integers)"
        );
    }

    #[test]
    fn members_in_another_order_are_said_beside_the_numbers() {
        let mut f = Fidelity {
            numbers: 12,
            objects: 3,
            objects_reordered: 2,
            ..Fidelity::default()
        };
        assert_eq!(
            describe(&f),
            "exact values; members in another order than the input's: 2 of 3 objects"
        );
        assert!(!is_faithful(&f));
        f.floats_inexact = 1;
        assert_eq!(
            describe(&f),
            "inexact floats: 1 of 12 numbers 1 ulp off; members in another order than the input's: 2 of 3 objects"
        );
        f.floats_inexact = 0;
        f.objects_reordered = 0;
        assert_eq!(describe(&f), "exact");
        assert!(is_faithful(&f));
    }

    #[test]
    fn notes_name_the_first_numbers_that_differ() {
        use jsoncost_engine::NumberDifference;
        let named = |kind, pointer: &str, exact: &str, got: &str| NumberDifference {
            kind,
            pointer: pointer.into(),
            exact: exact.into(),
            got: got.into(),
        };
        let f = Fidelity {
            numbers: 31,
            floats_inexact: 5,
            max_ulps: 1,
            integers_changed: 1,
            cause: Some("serde_json without float_roundtrip".into()),
            first: vec![
                named(
                    DifferenceKind::InexactFloat,
                    "/coordinates/0/0",
                    "43.47470900000013",
                    "43.474709000000126",
                ),
                named(DifferenceKind::IntegerChanged, "", "5", "5.0"),
                named(DifferenceKind::InexactFloat, "/more/x", "0.1", "0.10000000000000002"),
            ],
            ..Fidelity::default()
        };
        let mut exp = MeasuredTable::new(jsoncost_engine::ExperimentKind::Micro, "doc/deserialize");
        let mut row = Row::new("dom/serde_json");
        row.fidelity = Some(f.clone());
        exp.rows.push(row);
        assert_eq!(
            notes(&exp),
            [
                "Fidelity of dom/serde_json: inexact floats: 5 of 31 numbers 1 ulp off (serde_json without float_roundtrip), \
              first at /coordinates/0/0 (exact 43.47470900000013, got 43.474709000000126), /more/x (exact 0.1, got \
              0.10000000000000002); integers changed: 1 of 31 numbers (read as floats or floats as integers), first at / \
              (exact 5, got 5.0)."
            ]
        );
        // The short form (table cells, the advice) keeps to the counts.
        assert_eq!(
            describe(&f),
            "inexact floats: 5 of 31 numbers 1 ulp off (serde_json without float_roundtrip); integers changed: 1 of 31 \
             numbers (read as floats or floats as integers)"
        );
    }
}
