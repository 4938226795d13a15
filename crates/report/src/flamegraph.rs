//! A profiled server's flamegraph (inferno), drawn from the folded stacks its profile keeps,
//! with JSON frames in one colour and everything else in a neutral palette: the picture
//! answers "where does the JSON time go" at a glance. The same SVG is written beside
//! results.json and shown in report.html.

use jsoncost_engine::profile::ServerProfile;

/// The colour of JSON frames.
pub const JSON_FILL: &str = "#2b7bba";

/// The class JSON frames' groups carry; a style rule in the SVG fills their rectangles (inferno
/// takes a frame's classes, not its colour, from outside).
const JSON_CLASS: &str = "json";

/// The SVG of `profile`'s stacks titled `title`; `None` without stacks (or if inferno refuses
/// them, which a profile's own folded lines never make it do).
pub fn svg(profile: &ServerProfile, title: &str) -> Option<String> {
    let sampled = &profile.sampled;
    if sampled.folded.is_empty() {
        return None;
    }
    let attrs: String = sampled
        .json_frames
        .iter()
        .filter(|f| !f.contains('\t') && !f.contains('\n'))
        .map(|f| format!("{f}\tclass={JSON_CLASS}\n"))
        .collect();
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.subtitle = Some(format!(
        "JSON frames in blue; {} samples of the server's {}",
        sampled.samples, profile.event
    ));
    options.count_name = "samples".to_string();
    // Warm colours for everything else, so the blue JSON frames stand apart.
    options.colors = inferno::flamegraph::Palette::Basic(inferno::flamegraph::color::BasicPalette::Hot);
    options.deterministic = true;
    options.func_frameattrs = inferno::flamegraph::FuncFrameAttrsMap::from_reader(attrs.as_bytes()).ok()?;
    let lines: Vec<String> = sampled.folded.iter().map(|f| format!("{} {}", f.stack, f.count)).collect();
    let mut out = Vec::new();
    inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut out).ok()?;
    let svg = String::from_utf8(out).ok()?;
    // A style rule outranks the rectangles' fill attributes.
    let rule = format!("g.{JSON_CLASS} > rect {{ fill: {JSON_FILL}; }}\n");
    Some(match svg.find("<style type=\"text/css\">") {
        Some(at) => {
            let end = at + "<style type=\"text/css\">".len();
            format!("{}{rule}{}", &svg[..end], &svg[end..])
        }
        None => svg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::fixture::profile;

    #[test]
    fn json_frames_are_drawn_in_their_colour_and_others_not() {
        let svg = svg(&profile(), "list").unwrap();
        assert!(svg.starts_with("<?xml"));
        // The JSON frame's rectangle carries the fill; memcpy's does not.
        let json_at = svg.find("serde_json::ser::to_writer").unwrap();
        let json_group = &svg[svg[..json_at].rfind("<g").unwrap()..svg[json_at..].find("</g>").unwrap() + json_at];
        assert!(json_group.contains("class=\"json\""), "{json_group}");
        assert!(svg.contains(&format!("g.json > rect {{ fill: {JSON_FILL}; }}")));
        let memcpy_at = svg.find("memcpy").unwrap();
        let memcpy_group = &svg[svg[..memcpy_at].rfind("<g").unwrap()..svg[memcpy_at..].find("</g>").unwrap() + memcpy_at];
        assert!(!memcpy_group.contains("json"));
    }
}
