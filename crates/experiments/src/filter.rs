//! Which strategies of a table to time: globs over `style/library` names (the CLI's
//! `--filter`), or the bench harness's libtest-style selection, whose patterns also name tables.

use globset::GlobMatcher;

use crate::error::{Error, NoMatch};

/// A `--filter GLOB`, or a harness's filters and `--skip`s; the empty filter matches
/// everything.
#[derive(Clone, Default)]
pub struct Filter {
    /// The flag the patterns were given with, named in errors (e.g. `--store-filter`).
    flag: String,
    /// A strategy passes when any of these matches it (none given: every strategy does).
    include: Vec<Pattern>,
    /// ... and none of these does.
    skip: Vec<Pattern>,
    /// `Some`: the patterns also match the table's name, its registration's (the table name
    /// before its last `/`) and `table::strategy`, for the tables the runner is in (empty: none
    /// yet, so only strategy names match).
    tables: Option<Vec<String>>,
    /// Names that select every table of the study's unit the runner is in (a registration's
    /// name, a stream's), kept when the runner moves from one of its tables to the next.
    units: Vec<String>,
}

#[derive(Clone)]
struct Pattern {
    text: String,
    /// `None`: matched exactly (`--exact`).
    glob: Option<GlobMatcher>,
}

impl Pattern {
    fn new(flag: &str, text: &str, exact: bool) -> Result<Pattern, Error> {
        let glob = match exact {
            true => None,
            false => Some(
                globset::Glob::new(text)
                    .map_err(|e| Error::usage(format!("invalid {flag} {text:?}: {e}")))?
                    .compile_matcher(),
            ),
        };
        Ok(Pattern {
            text: text.to_string(),
            glob,
        })
    }

    fn is_match(&self, name: &str) -> bool {
        match &self.glob {
            Some(g) => g.is_match(name),
            None => self.text == name,
        }
    }
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let texts = |v: &[Pattern]| v.iter().map(|p| p.text.clone()).collect::<Vec<_>>();
        f.debug_struct("Filter")
            .field("include", &texts(&self.include))
            .field("skip", &texts(&self.skip))
            .finish()
    }
}

/// The name a table's strategies are selected by besides their own: the table's registration,
/// e.g. `push-event` of `push-event/deserialize` (a table without `/` is its own).
fn registration(table: &str) -> &str {
    table.rsplit_once('/').map_or(table, |(r, _)| r)
}

impl Filter {
    /// The filter given with `flag` (named in errors, e.g. `--store-filter`): a glob over
    /// `style/library` names.
    pub fn new(flag: &str, pattern: Option<&str>) -> Result<Filter, Error> {
        let Some(p) = pattern else { return Ok(Filter::default()) };
        Ok(Filter {
            flag: flag.to_string(),
            include: vec![Pattern::new(flag, p, false)?],
            skip: Vec::new(),
            tables: None,
            units: Vec::new(),
        })
    }

    /// A bench harness's selection, as libtest's: a strategy passes when any of `include`
    /// matches it (or `include` is empty) and none of `skip` does. A pattern matches the
    /// strategy's `style/library`, its table's name, the table's registration (`push-event`
    /// for `push-event/deserialize`) or the test name `table::style/library`: as a glob, or
    /// with `exact` only when equal.
    pub fn select(include: &[String], skip: &[String], exact: bool) -> Result<Filter, Error> {
        let compile = |flag: &str, v: &[String]| v.iter().map(|p| Pattern::new(flag, p, exact)).collect::<Result<Vec<_>, _>>();
        Ok(Filter {
            flag: "--filter".to_string(),
            include: compile("--filter", include)?,
            skip: compile("--skip", skip)?,
            tables: Some(Vec::new()),
            units: Vec::new(),
        })
    }

    /// The same filter inside these tables (a runner's current table, or a study's unit's):
    /// its patterns then also match their names. A filter over strategy names alone is unchanged.
    pub fn in_tables(&self, tables: &[String]) -> Filter {
        let mut f = self.clone();
        if f.tables.is_some() {
            f.tables = Some(tables.to_vec());
        }
        f
    }

    /// The same filter inside a study's unit: `names` select all of its `tables`.
    pub fn in_unit(&self, names: &[String], tables: &[String]) -> Filter {
        let mut f = self.in_tables(tables);
        if f.tables.is_some() {
            f.units = names.to_vec();
        }
        f
    }

    fn pattern_matches(&self, p: &Pattern, method: &str) -> bool {
        p.is_match(method)
            || self.units.iter().any(|u| p.is_match(u))
            || self
                .tables
                .iter()
                .flatten()
                .any(|t| p.is_match(t) || p.is_match(registration(t)) || p.is_match(&format!("{t}::{method}")))
    }

    fn included(&self, method: &str) -> bool {
        self.include.is_empty() || self.include.iter().any(|p| self.pattern_matches(p, method))
    }

    /// Whether `method` (a `style/library` name) passes.
    pub fn matches(&self, method: &str) -> bool {
        self.included(method) && !self.skip.iter().any(|p| self.pattern_matches(p, method))
    }

    /// The patterns as messages name them: `"a/*"`, or `"a/*" or "b"`.
    pub fn describe(&self) -> String {
        let quoted: Vec<String> = self.include.iter().map(|p| format!("{:?}", p.text)).collect();
        quoted.join(" or ")
    }

    /// A usage error when no filter matches any of `methods`, listing them (a `--skip` that
    /// leaves nothing is not one: libtest runs nothing then).
    pub fn check_matches_any<'a>(&self, methods: impl IntoIterator<Item = &'a str>) -> Result<(), Error> {
        if self.include.is_empty() {
            return Ok(());
        }
        let mut all: Vec<&str> = methods.into_iter().collect();
        if all.iter().any(|m| self.included(m)) {
            return Ok(());
        }
        all.sort();
        all.dedup();
        let pattern = match self.include.as_slice() {
            [one] => one.text.clone(),
            many => many.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join(" | "),
        };
        Err(Error::NoMatch(NoMatch {
            flag: self.flag.clone(),
            pattern,
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
        // The CLI's filter never matches a table's name.
        assert!(!f.in_tables(&["typed/x".into()]).matches("dom/serde_json"));
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_harness_selection_matches_tables_registrations_and_test_names_or_any_and_skips() {
        let f = Filter::select(&strings(&["push-event", "dom/*"]), &strings(&["*/simd-json"]), false).unwrap();
        // Outside any table: strategy names only.
        assert!(f.matches("dom/sonic-rs") && !f.matches("typed/serde_json"));
        let push = f.in_tables(&strings(&["push-event/deserialize"]));
        let other = f.in_tables(&strings(&["order/deserialize"]));
        assert!(push.matches("typed/serde_json") && !push.matches("typed/simd-json"));
        assert!(!other.matches("typed/serde_json") && other.matches("dom/serde_json") && !other.matches("dom/simd-json"));
        // A table's own name and a test name.
        let t = Filter::select(&strings(&["order/serialize", "push/deserialize::typed/sonic-rs"]), &[], false).unwrap();
        assert!(t.in_tables(&strings(&["order/serialize"])).matches("typed/simd-json"));
        assert!(!t.in_tables(&strings(&["order/deserialize"])).matches("typed/simd-json"));
        let p = t.in_tables(&strings(&["push/deserialize"]));
        assert!(p.matches("typed/sonic-rs") && !p.matches("typed/serde_json"));
        assert_eq!(t.describe(), r#""order/serialize" or "push/deserialize::typed/sonic-rs""#);
        let e = t.check_matches_any(["dom/a"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--filter \"order/serialize | push/deserialize::typed/sonic-rs\" matches no strategy; the strategies are: dom/a"
        );
    }

    #[test]
    fn exact_patterns_match_only_whole_names() {
        let f = Filter::select(&strings(&["push/deserialize::typed/serde_json"]), &[], true).unwrap();
        let push = f.in_tables(&strings(&["push/deserialize"]));
        assert!(push.matches("typed/serde_json") && !push.matches("typed/sonic-rs"));
        let glob = Filter::select(&strings(&["typed/*"]), &[], true).unwrap();
        assert!(!glob.matches("typed/serde_json") && glob.matches("typed/*"));
        // A skip alone never makes a table unmatched.
        let skip = Filter::select(&[], &strings(&["x"]), false).unwrap();
        assert!(skip.check_matches_any(["typed/a"]).is_ok() && skip.matches("typed/a"));
    }
}
