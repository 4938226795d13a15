//! JUnit XML: each table a suite, each row a case, failed rows and regressions failures; the
//! document reads back as XML whatever a message holds.

use crate::common;

use common::{fixture, golden};
use jsoncost_engine::{ExperimentKind, MeasuredTable, Row};
use jsoncost_report::compare::compare;
use jsoncost_report::{Format, render, render_experiment};

/// Every element of `xml`, by name, in order (quick-xml reads it, so it is well formed).
fn elements(xml: &str) -> Vec<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut names = Vec::new();
    loop {
        match reader.read_event().expect("well-formed XML") {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => names.push(e.name().as_ref().to_string()),
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    names
}

#[test]
fn junit_report_matches_golden_with_a_case_per_row_and_failed_rows_failing() {
    let results = fixture();
    let xml = render(&results, Format::Junit, false);
    golden("report.junit.xml", &xml);
    let names = elements(&xml);
    let rows: usize = results.experiments.iter().map(|e| e.rows.len()).sum();
    let failed: usize = results
        .experiments
        .iter()
        .map(|e| e.rows.iter().filter(|r| !r.is_ok()).count())
        .sum();
    let advice = jsoncost_report::advisor::advise(&results).len();
    assert_eq!(names.iter().filter(|n| *n == "testcase").count(), rows + advice);
    assert_eq!(names.iter().filter(|n| *n == "failure").count(), failed);
    assert!(failed > 0, "the fixture has a failed row");
}

#[test]
fn a_message_with_markup_and_control_characters_stays_one_well_formed_failure() {
    let mut exp = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
    let mut ok = Row::new("typed/serde_json");
    ok.mean_ns = Some(120.0);
    ok.allocated_bytes = Some(40.0);
    exp.rows.push(ok);
    exp.rows.push(Row::failed(
        "typed/simd-json",
        "field Name: expected \"<Ada & co>\"\u{1}\ngot 'Ada'".to_string(),
    ));
    let xml = render_experiment(&exp, Format::Junit, false);
    assert_eq!(
        xml,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <testsuites name=\"jsoncost\" tests=\"2\" failures=\"1\" skipped=\"0\">\n  \
         <testsuite name=\"micro data/deserialize\" tests=\"2\" failures=\"1\" skipped=\"0\">\n    \
         <testcase classname=\"micro data/deserialize\" name=\"typed/serde_json\">\n      \
         <system-out>mean 120.0 ns, allocated 40 B</system-out>\n    \
         </testcase>\n    \
         <testcase classname=\"micro data/deserialize\" name=\"typed/simd-json\">\n      \
         <failure message=\"field Name: expected &quot;&lt;Ada &amp; co&gt;&quot;\">field Name: expected &quot;&lt;Ada &amp; co&gt;&quot;\ngot &apos;Ada&apos;</failure>\n    \
         </testcase>\n  \
         </testsuite>\n\
         </testsuites>\n"
    );
    assert_eq!(elements(&xml).iter().filter(|n| *n == "failure").count(), 1);
}

#[test]
fn a_comparison_fails_the_regressed_row_and_passes_the_rest() {
    let base = fixture();
    let mut new = fixture();
    let row = new.experiments[0].rows.iter_mut().find(|r| r.method == "dom/sonic-rs").unwrap();
    row.mean_ns = row.mean_ns.map(|m| m * 1.5);
    row.median_ns = row.mean_ns;
    let c = compare(&base, &new, 0.05);
    assert!(c.has_regression());
    let xml = Format::Junit.exporter().comparison(&c);
    let names = elements(&xml);
    assert_eq!(
        names.iter().filter(|n| *n == "testcase").count(),
        c.rows.len() + c.not_compared.len()
    );
    assert_eq!(names.iter().filter(|n| *n == "failure").count(), 1, "{xml}");
    assert!(
        xml.contains(
            "<testcase classname=\"compare.micro data/deserialize\" name=\"dom/sonic-rs\">\n      <failure message=\"regression: time\">"
        ),
        "{xml}"
    );
}
