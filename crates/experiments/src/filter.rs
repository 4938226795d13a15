//! Which strategies of a table to time: a glob over `style/library` names.

use globset::GlobMatcher;

use crate::Error;
use crate::error::NoMatch;

/// A `--filter GLOB`; the empty filter matches everything.
#[derive(Clone, Default)]
pub struct Filter {
    glob: Option<Glob>,
}

#[derive(Clone)]
struct Glob {
    flag: String,
    pattern: String,
    matcher: GlobMatcher,
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Filter").field(&self.glob.as_ref().map(|g| &g.pattern)).finish()
    }
}

impl Filter {
    /// The filter given with `flag` (named in errors, e.g. `--store-filter`).
    pub fn new(flag: &str, pattern: Option<&str>) -> Result<Filter, Error> {
        let Some(p) = pattern else { return Ok(Filter::default()) };
        let glob = globset::Glob::new(p).map_err(|e| Error::usage(format!("invalid {flag} {p:?}: {e}")))?;
        Ok(Filter {
            glob: Some(Glob {
                flag: flag.to_string(),
                pattern: p.to_string(),
                matcher: glob.compile_matcher(),
            }),
        })
    }

    /// Whether `method` (a `style/library` name) passes.
    pub fn matches(&self, method: &str) -> bool {
        self.glob.as_ref().is_none_or(|g| g.matcher.is_match(method))
    }

    /// A usage error when the filter matches none of `methods`, listing them.
    pub fn check_matches_any<'a>(&self, methods: impl IntoIterator<Item = &'a str>) -> Result<(), Error> {
        let Some(g) = &self.glob else { return Ok(()) };
        let mut all: Vec<&str> = methods.into_iter().collect();
        if all.iter().any(|m| self.matches(m)) {
            return Ok(());
        }
        all.sort();
        all.dedup();
        Err(Error::NoMatch(NoMatch {
            flag: g.flag.clone(),
            pattern: g.pattern.clone(),
            strategies: all.into_iter().map(String::from).collect(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_matching_nothing_names_its_flag_and_the_strategies() {
        let f = Filter::new("--filter", Some("typed/*")).unwrap();
        assert!(f.matches("typed/serde_json") && !f.matches("dom/serde_json"));
        let e = f.check_matches_any(["dom/b", "dom/a", "dom/a"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--filter \"typed/*\" matches no strategy; the strategies are: dom/a, dom/b"
        );
        assert_eq!(e.exit_code(), 2);
        assert!(matches!(e, Error::NoMatch(NoMatch { ref strategies, .. }) if strategies == &["dom/a", "dom/b"]));
        assert!(
            Filter::new("--store-filter", Some("["))
                .unwrap_err()
                .to_string()
                .starts_with("invalid --store-filter \"[\": ")
        );
        assert!(Filter::default().matches("anything"));
    }
}
