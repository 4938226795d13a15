//! A profiled server's part of its table's HTML section: the share, the call sites, what the
//! share counts, and the flamegraph, drawn into the page itself so report.html stays one file.

use jsoncost_engine::profile::ServerProfile;

use super::escape::esc;

/// The section under the table's charts.
pub(crate) fn section(p: &ServerProfile, table: &str) -> String {
    let mut out = String::from("<div class=\"profile\"><h4>Where the server's JSON time goes</h4>");
    out.push_str(&format!("<p><strong>{}</strong></p>", esc(&crate::profile::share_sentence(p))));
    let sampled = &p.sampled;
    if !sampled.call_sites.is_empty() {
        out.push_str("<table style=\"table-layout:fixed;width:100%;word-break:break-all\"><colgroup><col style=\"width:6em\"><col style=\"width:6em\"><col><col></colgroup><thead><tr><th>Share</th><th>Direction</th><th>Called from</th><th>Through (the JSON entry seen most)</th></tr></thead><tbody>");
        for s in &sampled.call_sites {
            let share = sampled.fraction(s.count);
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                crate::units::percent(share),
                s.direction.as_str(),
                esc(s.caller.as_deref().unwrap_or("—")),
                esc(&s.entry)
            ));
        }
        out.push_str("</tbody></table>");
    }
    out.push_str(&format!("<p class=\"note\">{}</p>", esc(&crate::profile::counts_what(p))));
    out.push_str(&flamegraph(p, table));
    out.push_str("</div>");
    out
}

/// The flamegraph as an image of the page's own (a data URL), with a link to the file beside
/// results.json, whose search and zoom work in a browser.
#[cfg(feature = "flamegraph")]
fn flamegraph(p: &ServerProfile, table: &str) -> String {
    let Some(svg) = crate::flamegraph::svg(p, table) else {
        return String::new();
    };
    // In a data URL `%` and `#` are the URL's own; the attribute then escapes the rest.
    let url = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        svg.replace('%', "%25").replace('#', "%23").replace('\n', "%0A")
    );
    let link = p.flamegraph.as_deref().map_or(String::new(), |f| {
        format!("<p class=\"note\">Interactive (search, zoom): <a href=\"{0}\">{0}</a></p>", esc(f))
    });
    format!(
        "<figure class=\"flamegraph\"><img alt=\"flamegraph of the server's samples, JSON frames in blue\" style=\"width:100%\" src=\"{}\"></figure>{link}",
        esc(&url)
    )
}

#[cfg(not(feature = "flamegraph"))]
fn flamegraph(_p: &ServerProfile, _table: &str) -> String {
    String::new()
}
