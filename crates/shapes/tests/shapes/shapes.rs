use jsoncost_shapes::*;

fn size_within(bytes: usize, target: f64) {
    let lo = target * 0.9;
    let hi = target * 1.1;
    assert!((lo..=hi).contains(&(bytes as f64)), "{bytes} bytes is not within 10% of {target}");
}

#[test]
fn sizes_match_the_studies() {
    let mut g = Generator::new(DEFAULT_SEED);
    size_within(serde_json::to_vec(&g.data(12345)).unwrap().len(), 73.0);
    size_within(serde_json::to_vec(&g.order(1, ORDER_LINES)).unwrap().len(), 4096.0);
    size_within(serde_json::to_vec(&g.order(2, ORDER_LARGE_LINES)).unwrap().len(), 40_960.0);
    size_within(serde_json::to_vec(&g.item(7)).unwrap().len(), 1700.0);
    size_within(serde_json::to_vec(&g.items48(1)).unwrap().len(), 36_600.0);
    let t = serde_json::to_vec(&g.telemetry(1000)).unwrap().len();
    size_within(t, 72_000.0);
}

#[test]
fn generators_are_deterministic_and_timestamps_round_trip() {
    let a = serde_json::to_string(&Generator::new(9).order(3, ORDER_LINES)).unwrap();
    let b = serde_json::to_string(&Generator::new(9).order(3, ORDER_LINES)).unwrap();
    assert_eq!(a, b);
    let back: Order = serde_json::from_str(&a).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), a);
    let d = Generator::new(1).data(5);
    let text = serde_json::to_string(&d).unwrap();
    assert!(text.contains("+00:00\""), "{text}");
    let ts = text.split("\"Timestamp\":\"").nth(1).unwrap();
    assert_eq!(ts.len(), "2025-02-17T13:45:53.2140627+00:00\"}".len(), "{text}");
    assert_eq!(serde_json::from_str::<Data>(&text).unwrap(), d);
}

#[test]
fn borrowed_form_reads_the_same_document() {
    let o = Generator::new(2).order(1, ORDER_LINES);
    let text = serde_json::to_string(&o).unwrap();
    let borrowed: Order<&str> = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string(&borrowed).unwrap(), text);
}

#[test]
fn streamed_telemetry_equals_in_memory() {
    let mut out = Vec::new();
    let n = write_telemetry(&mut out, 500, 42).unwrap();
    assert_eq!(n as usize, out.len());
    assert_eq!(out, serde_json::to_vec(&Generator::new(42).telemetry(500)).unwrap());
}

#[test]
fn shape_names_parse_and_reject() {
    for s in ShapeName::MICRO {
        assert_eq!(s.as_str().parse::<ShapeName>().unwrap(), s);
    }
    let e = "orders".parse::<ShapeName>().unwrap_err().to_string();
    assert!(e.contains("valid shapes: data, order"), "{e}");
}
