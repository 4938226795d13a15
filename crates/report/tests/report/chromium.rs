//! The HTML report in a real browser: Debian's headless Chromium renders the fixture's report to
//! screenshots at laptop and phone widths, logs no console errors, and its DOM holds the bars
//! each chart announces. Skipped (with the reason printed) when Chromium is not installed,
//! unless JSONCOST_REQUIRE_CHROMIUM=1, as CI sets it.
//!
//! JSONCOST_CHROMIUM=path uses another Chromium binary; JSONCOST_SCREENSHOT_DIR=dir keeps the
//! page and its screenshots for a look.

use crate::common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::fixture;

const CHROMIUM: &str = "/usr/bin/chromium";
const TIMEOUT: Duration = Duration::from_secs(90);

/// Chromium's path (JSONCOST_CHROMIUM overrides Debian's), or `None` after printing why the
/// test is skipped.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("JSONCOST_CHROMIUM").map_or_else(|| PathBuf::from(CHROMIUM), PathBuf::from);
    if path.is_file() {
        return Some(path);
    }
    let reason = format!("{} is not installed (apt-get install chromium)", path.display());
    if std::env::var_os("JSONCOST_REQUIRE_CHROMIUM").is_some_and(|v| v == "1") {
        panic!("JSONCOST_REQUIRE_CHROMIUM=1 but {reason}");
    }
    eprintln!("skipped: {reason}");
    None
}

struct Run {
    stdout: String,
    stderr: String,
}

/// Runs headless Chromium on `page` with `extra` flags, killing it after [`TIMEOUT`].
fn run_chromium(chromium: &Path, work: &Path, page: &Path, extra: &[String]) -> Run {
    let profile = tempfile::tempdir_in(work).unwrap();
    let (out_path, err_path) = (work.join("stdout.txt"), work.join("stderr.txt"));
    let mut child = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .args(["--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .expect("start chromium");
    // std has no wait with a timeout; polling try_wait is enough for one child.
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish within {TIMEOUT:?}; stderr:\n{}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let run = Run {
        stdout: std::fs::read_to_string(&out_path).unwrap(),
        stderr: std::fs::read_to_string(&err_path).unwrap(),
    };
    assert!(status.success(), "chromium exited with {status}; stderr:\n{}", run.stderr);
    run
}

/// Console messages Chromium logged for the page (`…:INFO:CONSOLE:1] "…", source: …`). The page
/// has no script, so any message at all is the browser complaining about the markup.
fn console_messages(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(
        bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR",
        "not a PNG"
    );
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// (data-bars, counted `class="bar…"` elements) per `<svg>` of a serialised DOM.
fn bars_per_chart(dom: &str) -> Vec<(usize, usize)> {
    dom.split("<svg ")
        .skip(1)
        .map(|svg| {
            let svg = &svg[..svg.find("</svg>").expect("svg closed")];
            let from = svg.find("data-bars=\"").expect("data-bars") + "data-bars=\"".len();
            let announced = svg[from..from + svg[from..].find('"').unwrap()].parse().unwrap();
            (announced, svg.matches("class=\"bar").count())
        })
        .collect()
}

#[test]
fn chromium_renders_the_report_without_console_errors_and_with_every_bar() {
    let Some(chromium) = chromium() else { return };
    let work = tempfile::tempdir().unwrap();
    let page = work.path().join("report.html");
    let html = jsoncost_report::html::render(&fixture());
    std::fs::write(&page, &html).unwrap();
    let keep = std::env::var_os("JSONCOST_SCREENSHOT_DIR").map(PathBuf::from);
    if let Some(dir) = &keep {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("report.html"), &html).unwrap();
    }

    for (name, width) in [("laptop", 1280u32), ("phone", 390)] {
        let shot = work.path().join(format!("{name}.png"));
        let run = run_chromium(
            &chromium,
            work.path(),
            &page,
            &[format!("--window-size={width},2600"), format!("--screenshot={}", shot.display())],
        );
        assert_eq!(
            console_messages(&run.stderr),
            Vec::<&str>::new(),
            "console messages at {name} width"
        );
        let png = std::fs::read(&shot).unwrap_or_else(|e| panic!("no {name} screenshot ({e}); stderr:\n{}", run.stderr));
        assert_eq!(png_size(&png), (width, 2600));
        // A blank page of this size compresses to a few KB; tables, text and charts do not.
        assert!(png.len() > 40_000, "{name} screenshot is only {} bytes", png.len());
        if let Some(dir) = &keep {
            std::fs::copy(&shot, dir.join(format!("{name}.png"))).unwrap();
        }
    }

    let run = run_chromium(&chromium, work.path(), &page, &["--dump-dom".to_string()]);
    assert_eq!(console_messages(&run.stderr), Vec::<&str>::new());
    // The verdict comes before the first table in the DOM the browser built.
    let verdict = run.stdout.find("id=\"verdict\"").expect("a verdict section");
    let first_table = run.stdout.find("class=\"experiment\"").expect("a table section");
    assert!(verdict < first_table, "the verdict follows a table");
    let rendered = bars_per_chart(&run.stdout);
    let source = bars_per_chart(&html);
    assert_eq!(rendered.len(), 13, "charts in the rendered DOM");
    assert_eq!(rendered, source, "the browser's DOM differs from the page");
    for (announced, counted) in rendered {
        assert_eq!(announced, counted);
    }
}

/// The console check can fail: an invalid SVG attribute is reported.
#[test]
fn chromium_console_check_catches_invalid_svg() {
    let Some(chromium) = chromium() else { return };
    let work = tempfile::tempdir().unwrap();
    let page = work.path().join("broken.html");
    std::fs::write(
        &page,
        "<!doctype html><svg class=\"chart\" data-bars=\"1\"><rect class=\"bar\" width=\"-5\" height=\"3\"/></svg>",
    )
    .unwrap();
    let run = run_chromium(&chromium, work.path(), &page, &["--dump-dom".to_string()]);
    let messages = console_messages(&run.stderr);
    assert_eq!(messages.len(), 1, "{}", run.stderr);
    assert!(
        messages[0].contains("Error: <rect> attribute width: A negative value is not valid."),
        "{}",
        messages[0]
    );
    assert_eq!(bars_per_chart(&run.stdout), vec![(1, 1)]);
}
