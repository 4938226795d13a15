//! Structure of the HTML report: self-contained, escaped, and every chart with the bars it
//! announces.

use crate::common;

use common::fixture;
use jsoncost_report::html;

/// Each `<svg …>…</svg>` of the page with its `data-chart` and `data-bars` values.
fn charts(page: &str) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(start) = rest.find("<svg ") {
        let end = rest[start..].find("</svg>").expect("every svg is closed") + start + "</svg>".len();
        let svg = &rest[start..end];
        let attr = |name: &str| {
            let key = format!("{name}=\"");
            let from = svg.find(&key).unwrap_or_else(|| panic!("svg without {name}: {svg}")) + key.len();
            svg[from..from + svg[from..].find('"').unwrap()].to_string()
        };
        out.push((attr("data-chart"), attr("data-bars").parse().unwrap(), svg.to_string()));
        rest = &rest[end..];
    }
    out
}

/// The page cut into experiment sections: (id, html).
fn sections(page: &str) -> Vec<(String, String)> {
    page.split("<section class=\"experiment\" id=\"")
        .skip(1)
        .map(|s| {
            let id = s[..s.find('"').unwrap()].to_string();
            (id, s[..s.find("</section>").unwrap()].to_string())
        })
        .collect()
}

#[test]
fn every_chart_has_the_bars_it_announces_and_the_bars_expected_from_the_rows() {
    let page = html::render(&fixture());
    let found: Vec<(String, Vec<(String, usize)>)> = sections(&page)
        .into_iter()
        .map(|(id, body)| {
            let charts = charts(&body);
            for (kind, bars, svg) in &charts {
                assert_eq!(svg.matches("class=\"bar").count(), *bars, "{id} {kind}: {svg}");
            }
            (id, charts.into_iter().map(|(k, b, _)| (k, b)).collect())
        })
        .collect();
    let expect = |id: &str, charts: &[(&str, usize)]| (id.to_string(), charts.iter().map(|(k, b)| (k.to_string(), *b)).collect());
    assert_eq!(
        found,
        vec![
            // 3 rows, one failed: no bar for it.
            expect("t1-data-deserialize", &[("mean", 2), ("allocated", 2)]),
            expect("t2-data-serialize", &[("mean", 2), ("allocated", 2)]),
            // The floor and three strategies, each split into floor and JSON work.
            expect("t3-redb-order", &[("mean", 4), ("allocated", 4), ("split", 4)]),
            expect("t4-telemetry-deserialize", &[("mean", 2), ("allocated", 2), ("peak", 2)]),
            // Three modes; four percentiles each.
            expect("t5-items-closed-n5000-c100", &[("req-per-s", 3), ("latency", 12), ("allocated", 3)]),
        ]
    );
}

#[test]
fn stacked_store_bars_have_a_floor_and_a_json_segment() {
    let page = html::render(&fixture());
    let (_, _, split) = charts(&page).into_iter().find(|(k, _, _)| k == "split").unwrap();
    assert_eq!(split.matches("<g class=\"bar stack\">").count(), 4);
    assert_eq!(split.matches("class=\"seg floor\"").count(), 4);
    assert_eq!(split.matches("class=\"seg json\"").count(), 4);
    assert!(split.contains(">12.390 µs JSON of 14.230 µs</text>"), "{split}");
    assert!(split.contains(">1.840 µs, no JSON</text>"));
}

#[test]
fn mean_charts_draw_error_bars_and_the_baseline_line() {
    let page = html::render(&fixture());
    let (_, bars, mean) = charts(&page).into_iter().find(|(k, _, _)| k == "mean").unwrap();
    assert_eq!(mean.matches("class=\"err\"").count(), bars);
    // The baseline line crosses every bar.
    assert_eq!(mean.matches("<line class=\"ref\"").count(), bars);
    assert!(mean.contains("150.2 ns ± 2.400 ns"));
}

#[test]
fn the_page_is_self_contained() {
    let page = html::render(&fixture());
    for needle in [
        "http://", "https://", "src=", "<script", "<link", "@import", "url(", "<iframe", "<img",
    ] {
        assert!(!page.contains(needle), "found {needle:?} in the page");
    }
    // The only links are to the page's own sections.
    for href in page.split("href=\"").skip(1) {
        assert!(href.starts_with('#'), "external link {}", &href[..href.find('"').unwrap()]);
    }
    assert!(page.starts_with("<!doctype html>\n<html lang=\"en\">"));
    assert!(page.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"));
    assert!(page.ends_with("</html>\n"));
}

#[test]
fn machine_versions_and_features_are_at_the_top() {
    let page = html::render(&fixture());
    let header = &page[..page.find("</header>").unwrap()];
    for (name, value) in [
        ("Started", "2026-11-30T12:00:00Z"),
        ("CPU", "AMD EPYC 9R14 96-Core Processor (2 cores)"),
        ("OS", "linux"),
        ("rustc", "1.95.0"),
        ("jsoncost", "0.1.0"),
        ("CPU features", "avx2, bmi2, pclmulqdq, sse4.2"),
    ] {
        let class = if name == "CPU features" { " class=\"wide\"" } else { "" };
        assert!(
            header.contains(&format!("<div{class}><dt>{name}</dt><dd>{value}</dd></div>")),
            "{name} missing:\n{header}"
        );
    }
}

#[test]
fn text_is_escaped_and_failures_keep_their_whole_message() {
    let page = html::render(&fixture());
    assert!(page.contains(
        "<tr class=\"failed\"><th scope=\"row\">typed/simd-json</th><td class=\"msg\" colspan=\"10\">failed: decoded value differs \
         from the baseline | field Name:\n  expected &quot;Ada &lt;Lovelace&gt;&quot;\n  got      &quot;Ada&quot;</td></tr>"
    ));
    assert!(!page.contains("<Lovelace>"));

    let mut results = fixture();
    results.experiments[0].table = "<script>alert(1)</script>".to_string();
    results.machine.cpu = "\"quoted\" & <b>".to_string();
    let page = html::render(&results);
    assert!(!page.contains("<script>"));
    assert!(!page.contains("<b>"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("&quot;quoted&quot; &amp; &lt;b&gt;"));
}

#[test]
fn the_verdict_opens_the_page_before_the_contents_and_the_first_table() {
    let page = html::render(&fixture());
    let at = |needle: &str| page.find(needle).unwrap_or_else(|| panic!("no {needle}"));
    let verdict = at("<section id=\"verdict\">");
    assert!(verdict > at("</header>"));
    assert!(verdict < at("<nav>"));
    assert!(verdict < at("<section class=\"experiment\""));
    // Each table is folded under its title, open by default.
    assert_eq!(page.matches("<details class=\"evidence\" open>").count(), 5);
}

#[test]
fn the_advisor_section_closes_the_page() {
    let page = html::render(&fixture());
    let advice = &page[page.find("<section id=\"advice\">").unwrap()..];
    assert!(advice.starts_with("<section id=\"advice\">\n<h2>What moves the number</h2>"));
    assert_eq!(advice.matches("<li class=\"recommend\">").count(), 4);
    assert_eq!(advice.matches("<li class=\"same\">").count(), 1);
}

#[test]
fn an_inexact_row_is_noted_under_its_table() {
    let page = html::render(&fixture());
    assert!(page.contains(
        "<ul class=\"notes\">\n<li>Fidelity of typed/serde_json (the baseline: Ratio and Alloc Ratio stay relative to it): \
         inexact floats: 37 of 3,000 numbers 1 ulp off (serde_json without float_roundtrip).</li>\n</ul>"
    ));
    assert_eq!(page.matches("<ul class=\"notes\">").count(), 1, "exact rows add no note");
}

#[test]
fn other_contracts_are_listed_under_the_advice_they_do_not_replace() {
    use jsoncost_engine::{Contract, ExperimentKind, MeasuredTable, Row};
    let row = |method: &str, mean: f64, contract: Contract| {
        let mut r = Row::new(method);
        r.mean_ns = Some(mean);
        r.error_ns = Some(1.0);
        r.contract = Some(contract);
        r
    };
    let mut results = fixture();
    let mut exp = MeasuredTable::new(ExperimentKind::Micro, "order/deserialize");
    exp.rows = vec![
        row("typed/serde_json", 150.0, Contract::TypedValue),
        row("lazy/sonic-rs", 30.0, Contract::Projection),
        row("typed/sonic-rs", 110.0, Contract::TypedValue),
    ];
    exp.rows[0].baseline = true;
    results.experiments = vec![exp];
    let page = html::render(&results);
    let advice = &page[page.find("<section id=\"advice\">").unwrap()..];
    assert!(
        advice.contains("Use typed/sonic-rs instead of typed/serde_json")
            && advice.contains("<ul class=\"other-contracts\">\n<li>If you only need a few named fields: lazy/sonic-rs"),
        "{advice}"
    );
}
