//! An http A/B table (`ExperimentKind::AbHttp`): its record reads back equal, every renderer
//! and `compare` take it, the advisor leaves it to its verdicts, and the HTML shows both
//! servers' latency distributions and slices on shared axes with the verdict table.

use jsoncost_engine::{
    AbHttpSide, AbHttpSlice, AbHttpTable, ExperimentKind, HttpFigures, LatencyPoint, Machine, MeasuredTable, Placement, Results, Row,
    Schedule,
};
use jsoncost_report::{Format, ab_http, advisor, compare, render};

/// Four rounds; new takes 20% longer per request, the same p99, and no CPU figure (a server
/// reached by URL without its PID).
fn side(server: &str, ns: [f64; 4], p99: [f64; 4], cpu: bool, placement: Placement) -> AbHttpSide {
    AbHttpSide {
        server: server.into(),
        pid: cpu.then_some(4242),
        placement,
        latency: vec![
            LatencyPoint {
                quantile: 0.0,
                ns: 40_000.0,
            },
            LatencyPoint {
                quantile: 0.5,
                ns: 100_000.0,
            },
            LatencyPoint {
                quantile: 0.99,
                ns: p99[0],
            },
            LatencyPoint {
                quantile: 1.0,
                ns: 400_000.0,
            },
        ],
        slices: (0..4)
            .map(|i| AbHttpSlice {
                round: i as u64,
                requests: 500,
                ok: 500,
                ns_per_request: Some(ns[i]),
                p50_ns: Some(100_000.0),
                p99_ns: Some(p99[i]),
                cpu_ns_per_request: cpu.then_some(ns[i] / 2.0),
                rss_growth_bytes: Some(8192),
            })
            .collect(),
    }
}

fn row(method: &str, rounds: [f64; 4]) -> Row {
    let mut r = Row::new(method);
    r.mean_ns = Some(100_000.0);
    r.rounds_ns = rounds.to_vec();
    r.http = Some(HttpFigures {
        req_per_s: Some(1e9 / rounds[0]),
        p50_ns: Some(100_000.0),
        p99_ns: Some(200_000.0),
        requests: 2000,
        ..HttpFigures::default()
    });
    r
}

fn results() -> Results {
    let base_ns = [10_000.0, 10_200.0, 9_800.0, 10_000.0];
    let new_ns = base_ns.map(|v| v * 1.2);
    let base_p99 = [200_000.0, 210_000.0, 190_000.0, 205_000.0];
    let new_p99 = [202_000.0, 207_000.0, 191_000.0, 204_000.0];
    let mut exp = MeasuredTable::new(ExperimentKind::AbHttp, "GET /items/1");
    exp.schedule = Schedule::Interleaved;
    exp.rows = vec![row("base", base_ns), row("new", new_ns)];
    exp.ab_http = Some(AbHttpTable {
        request: "GET /items/1".into(),
        threshold: 0.05,
        rounds: 4,
        base: side(
            "old-server --listen 127.0.0.1:{port}",
            base_ns,
            base_p99,
            true,
            Placement::Pinned {
                cpus: vec![1],
                load_generator: vec![0],
            },
        ),
        new: side(
            "http://127.0.0.1:8081",
            new_ns,
            new_p99,
            false,
            Placement::NotPinned {
                reason: "not started here: its CPUs are its own".into(),
            },
        ),
    });
    Results {
        schema_version: jsoncost_engine::SCHEMA_VERSION,
        jsoncost_version: "0.0.0-test".into(),
        machine: Machine::default(),
        started_at: "2026-01-01T00:00:00Z".into(),
        quick: false,
        rates: Default::default(),
        interrupted: false,
        experiments: vec![exp],
        allocators: Vec::new(),
    }
}

#[test]
fn the_kind_and_its_record_round_trip_exactly() {
    let r = results();
    let json = render(&r, Format::Json, false);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let exp = &v["experiments"][0];
    assert_eq!(exp["experiment"], "http-ab");
    let record = exp["http_ab"].as_object().unwrap();
    assert_eq!(record.keys().collect::<Vec<_>>(), ["base", "new", "request", "rounds", "threshold"]);
    assert_eq!(
        exp["http_ab"]["base"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["latency", "pid", "placement", "server", "slices"]
    );
    assert_eq!(
        exp["http_ab"]["base"]["slices"][0],
        serde_json::json!({"round": 0, "requests": 500, "ok": 500, "ns_per_request": 10000.0, "p50_ns": 100000.0,
            "p99_ns": 200000.0, "cpu_ns_per_request": 5000.0, "rss_growth_bytes": 8192})
    );
    let back: Results = serde_json::from_str(&json).unwrap();
    assert_eq!(back, r);
}

#[test]
fn the_verdicts_are_decided_from_the_slices_at_the_recorded_threshold() {
    let c = ab_http::comparison(&results().experiments).unwrap();
    assert_eq!(c.threshold, 0.05);
    let verdicts: Vec<(&str, String)> = c.rows.iter().map(|r| (r.method.as_str(), r.verdict.to_string())).collect();
    assert_eq!(
        verdicts,
        [("time per request", "slower".to_string()), ("p99 latency", "no change".to_string())]
    );
    assert!((c.rows[0].ratio.estimate - 1.2).abs() < 1e-9, "{:?}", c.rows[0].ratio);
    // The CPU figure only base has is listed, not judged.
    assert_eq!(c.not_compared.len(), 1);
    assert_eq!(c.not_compared[0].method.as_deref(), Some("server CPU per request"));
    assert!(c.has_regression());
}

#[test]
fn the_html_shows_both_servers_on_shared_axes_and_the_verdicts() {
    let page = render(&results(), Format::Html, false);
    // The latency distribution: x on the nines scale (min at 0, p50 at 0.3, p99 at 2, max at
    // 4.5 of 284 px from x = 64), y 0–400 µs over 168 px; the same points for both servers
    // except p99.
    assert!(
        page.contains("<svg class=\"chart line\" data-chart=\"latency-distribution\" data-series=\"2\""),
        "{page}"
    );
    assert!(
        page.contains("<polyline class=\"line base\" data-series=\"base\" points=\"64,161.2 83,136 190.22,94 348,10\"/>"),
        "{page}"
    );
    assert!(
        page.contains("<polyline class=\"line new\" data-series=\"new\" points=\"64,161.2 83,136 190.22,93.16 348,10\"/>"),
        "{page}"
    );
    assert!(page.contains("<title>new p99: 202.00 µs</title>"), "{page}");
    // Slice by slice: rounds 1–4, both series, new 20% above.
    assert!(page.contains("data-chart=\"slices\""), "{page}");
    assert!(
        page.contains("<polyline class=\"line base\" data-series=\"base\" points=\"64,40.75 158.67,38 253.33,43.49 348,40.75\"/>"),
        "{page}"
    );
    assert!(
        page.contains("<polyline class=\"line new\" data-series=\"new\" points=\"64,13.29 158.67,10 253.33,16.59 348,13.29\"/>"),
        "{page}"
    );
    assert!(page.contains("<title>new round 2: 12.240 µs per request</title>"), "{page}");
    assert!(page.contains("<li>base: old-server --listen 127.0.0.1:{port} (PID 4242), pinned to CPU 1 (load generator: CPU 0)</li>"));
    assert!(page.contains("<li>new: http://127.0.0.1:8081, not pinned: not started here: its CPUs are its own</li>"));
    assert!(page.contains("<h3>Verdicts, new/base paired slice by slice</h3>"));
    assert!(
        page.contains(
            "<td>time per request</td><td class=\"num\">10.00 µs</td><td class=\"num\">12.00 µs</td><td class=\"num\">1.200</td>"
        ),
        "{page}"
    );
    assert!(
        page.contains("<td>slower</td><td class=\"num\">-</td><td>FAIL (time)</td>"),
        "{page}"
    );
    // One document, no network.
    assert_eq!(page.matches("<html").count(), 1);
    assert!(!page.contains("src=") && !page.contains("<link") && !page.contains("<script"));
}

#[test]
fn tables_compare_and_the_advisor_take_the_kind() {
    let r = results();
    let table = render(&r, Format::Table, false);
    assert!(table.contains("http-ab: GET /items/1"), "{table}");
    for format in [Format::Markdown, Format::Csv, Format::Junit] {
        assert!(!render(&r, format, false).is_empty());
    }
    // An A/B's two servers are decided by its verdicts, not advised on.
    assert!(advisor::advise(&r).is_empty());
    // Two A/B runs compare row by row (base with base, new with new).
    let mut other = r.clone();
    other.experiments[0].rows[1].mean_ns = Some(100_000.0);
    let c = compare::compare(&r, &other, 0.05);
    assert_eq!(c.rows.len(), 2, "{c:?}");
    assert!(c.rows.iter().all(|row| row.experiment == ExperimentKind::AbHttp));
}

/// The roots of `xml` (elements at depth 0) and its XML declarations; quick-xml reads it all, so
/// it is well formed.
fn xml_roots(xml: &str) -> (Vec<String>, usize) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let (mut roots, mut decls, mut depth) = (Vec::new(), 0, 0usize);
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Decl(_) => decls += 1,
            Event::Start(e) => {
                if depth == 0 {
                    roots.push(e.name().as_ref().to_string());
                }
                depth += 1;
            }
            Event::Empty(e) if depth == 0 => roots.push(e.name().as_ref().to_string()),
            Event::End(_) => depth -= 1,
            Event::Eof => break,
            _ => {}
        }
    }
    (roots, decls)
}

#[test]
fn ab_http_prints_one_document_in_each_document_format() {
    let r = results();
    let c = ab_http::comparison(&r.experiments).unwrap();
    let print = |format: Format| format.exporter().ab_http(&r, &c, false);

    // JSON: one object, the results file and the comparison `ab --format json` prints.
    let json = print(Format::Json);
    let values: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&json)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(values.len(), 1, "{json}");
    // Compared as parsed text on both sides (serde_json's float parsing is not exact).
    let parsed = |text: String| serde_json::from_str::<serde_json::Value>(&text).unwrap();
    assert_eq!(values[0]["results"], parsed(render(&r, Format::Json, false)));
    assert_eq!(values[0]["comparison"], parsed(Format::Json.exporter().ab(&c)));

    // JUnit: one <testsuites> holding the table's suite and the verdicts' (ab's) suite.
    let xml = print(Format::Junit);
    assert_eq!(xml_roots(&xml), (vec!["testsuites".to_string()], 1), "{xml}");
    assert!(xml.contains("<testsuite name=\"http-ab GET /items/1\""), "{xml}");
    assert!(xml.contains("<testsuite name=\"ab\""), "{xml}");
    assert!(xml.contains("name=\"time per request\""), "{xml}");

    // CSV: one table, the verdicts as `ab --format csv` prints them.
    let csv_text = print(Format::Csv);
    assert_eq!(csv_text, Format::Csv.exporter().ab(&c));
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    assert_eq!(&reader.headers().unwrap()[2], "method");
    let methods: Vec<String> = reader.records().map(|rec| rec.unwrap()[2].to_string()).collect();
    assert_eq!(methods, ["time per request", "p99 latency"]);

    // HTML: the report alone, each section ending with its verdicts.
    assert_eq!(print(Format::Html), render(&r, Format::Html, false));

    // A reader's format: the tables, then the verdicts, as before.
    for format in [Format::Table, Format::Markdown] {
        let text = print(format);
        assert_eq!(
            text,
            format!("{}\n{}", render(&r, format, false), format.exporter().ab(&c)),
            "{format}"
        );
    }
}
