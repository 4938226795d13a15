//! Documents a user already has in a store, where jsoncost did not load them: a Redis key
//! pattern, a SQL table with its key and JSON columns, a redb table. Read as raw bytes only;
//! what is parsed from them, and how, is the experiment's business.

use crate::error::StoreError;

/// Where a user's own documents are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Existing {
    /// Redis: the keys matching a glob pattern (`SCAN MATCH`), each a string value.
    Keys {
        /// The glob pattern, e.g. `order:*`.
        pattern: String,
    },
    /// SQLite or PostgreSQL: rows of `table`, keyed by `key`, the document in `column` (TEXT or
    /// BLOB; `json` or `jsonb` in PostgreSQL).
    Rows {
        /// The table.
        table: String,
        /// The key column (text or integer).
        key: String,
        /// The document column.
        column: String,
    },
    /// redb: a table of `&str` keys and `&[u8]` values.
    Table {
        /// The table's name.
        table: String,
    },
}

impl Existing {
    /// How it reads in messages and results: `keys order:*`, `table orders (id, body)`.
    pub fn describe(&self) -> String {
        match self {
            Existing::Keys { pattern } => format!("keys {pattern}"),
            Existing::Rows { table, key, column } => format!("table {table} ({key}, {column})"),
            Existing::Table { table } => format!("table {table}"),
        }
    }

    /// What the documents are in, as errors name it before [`Existing::name`]: `table` or
    /// `keys` (a collection is jsoncost's own).
    pub fn place(&self) -> &'static str {
        match self {
            Existing::Keys { .. } => "keys",
            Existing::Rows { .. } | Existing::Table { .. } => "table",
        }
    }

    /// The name the documents go by in errors (as a collection's would).
    pub fn name(&self) -> &str {
        match self {
            Existing::Keys { pattern } => pattern,
            Existing::Rows { table, .. } | Existing::Table { table } => table,
        }
    }

    /// These documents cannot be read as `store` holds them (`reason`).
    pub(crate) fn bad_documents(&self, store: &str, reason: impl std::fmt::Display) -> StoreError {
        StoreError::BadDocuments {
            store: store.to_string(),
            documents: self.describe(),
            reason: reason.to_string(),
        }
    }

    /// The error for a store that does not hold documents this way.
    pub fn unsupported(&self, store: &str) -> StoreError {
        let hint = match self {
            Existing::Keys { .. } => "--keys PATTERN is for Redis",
            Existing::Rows { .. } => "--table with --column is for SQLite and PostgreSQL",
            Existing::Table { .. } => "--table alone is for redb",
        };
        self.bad_documents(store, format!("cannot be read there: {hint}"))
    }
}

/// How a SQL dialect quotes an identifier: PostgreSQL `"name"`; SQLite `[name]`, since SQLite
/// reads a double-quoted name that matches no column as a string literal.
#[derive(Clone, Copy)]
pub(crate) enum Quote {
    Double,
    Brackets,
}

/// The longest SQL name part accepted: PostgreSQL's identifier limit (longer names are
/// truncated by the server, so they would name another table).
const MAX_NAME: usize = 63;

/// A SQL identifier as given (`flag` names where it came from), checked: letters, digits and
/// `_`, not starting with a digit, at most [`MAX_NAME`] bytes per part (so it can be spliced
/// into a statement; schema-qualified names take one `.`), then quoted.
pub(crate) fn sql_identifier(flag: &'static str, name: &str, quote: Quote) -> Result<String, StoreError> {
    let bad = |reason: String| StoreError::BadName {
        flag,
        name: name.to_string(),
        reason,
    };
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() > 2 {
        return Err(bad("a SQL name is NAME or SCHEMA.NAME, with one '.'".into()));
    }
    for p in &parts {
        if p.len() > MAX_NAME {
            return Err(bad(format!(
                "{} is {} characters long; a SQL name has at most {MAX_NAME}",
                if parts.len() == 1 { "it".to_string() } else { format!("{p:?}") },
                p.chars().count()
            )));
        }
        let spliceable =
            !p.is_empty() && !p.starts_with(|c: char| c.is_ascii_digit()) && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !spliceable {
            return Err(bad(
                "must be a SQL name: letters, digits and '_', not starting with a digit (optionally schema.name)".into(),
            ));
        }
    }
    let quoted = |p: &&str| match quote {
        Quote::Double => format!("\"{p}\""),
        Quote::Brackets => format!("[{p}]"),
    };
    Ok(parts.iter().map(quoted).collect::<Vec<_>>().join("."))
}

/// An RFC 6901 pointer's tokens (`/lines/0/sku` → `lines`, `0`, `sku`), for a server's path
/// syntax.
pub(crate) fn pointer_tokens(pointer: &str) -> Result<Vec<String>, StoreError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(StoreError::BadName {
            flag: "--store-field",
            name: pointer.to_string(),
            reason: "a JSON pointer is empty or starts with '/'".into(),
        });
    };
    Ok(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

/// A pointer as a SQLite JSON path: `$."lines"[0]."sku"` (an all-digit token indexes an array).
pub(crate) fn sqlite_path(pointer: &str) -> Result<String, StoreError> {
    let mut path = String::from("$");
    for t in pointer_tokens(pointer)? {
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            path.push_str(&format!("[{t}]"));
        } else {
            path.push_str(&format!(".\"{}\"", t.replace('"', "\\\"")));
        }
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_become_server_paths() {
        assert_eq!(pointer_tokens("/lines/0/a~1b~0c").unwrap(), ["lines", "0", "a/b~c"]);
        assert_eq!(sqlite_path("/lines/0/sku").unwrap(), "$.\"lines\"[0].\"sku\"");
        assert_eq!(sqlite_path("").unwrap(), "$");
        assert!(pointer_tokens("id").is_err());
    }

    #[test]
    fn sql_names_are_quoted_and_anything_else_is_refused() {
        assert_eq!(sql_identifier("--table", "orders", Quote::Double).unwrap(), "\"orders\"");
        assert_eq!(
            sql_identifier("--table", "app.orders_2", Quote::Double).unwrap(),
            "\"app\".\"orders_2\""
        );
        assert_eq!(sql_identifier("--table", "orders", Quote::Brackets).unwrap(), "[orders]");
        for bad in ["", "1x", "a;drop table x", "a b", "\"x\"", "[x]", "app.", "é"] {
            let e = sql_identifier("--table", bad, Quote::Double).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("--table {bad:?}: must be a SQL name: letters, digits and '_', not starting with a digit (optionally schema.name)")
            );
            assert_eq!(e.exit_code(), 2);
        }
        let e = sql_identifier("--table", "a.b.c", Quote::Double).unwrap_err();
        assert_eq!(e.to_string(), "--table \"a.b.c\": a SQL name is NAME or SCHEMA.NAME, with one '.'");
    }

    #[test]
    fn a_name_over_63_characters_is_told_its_length() {
        let long = "o".repeat(64);
        assert_eq!(
            sql_identifier("--table", &"o".repeat(63), Quote::Double).unwrap(),
            format!("\"{}\"", "o".repeat(63))
        );
        let e = sql_identifier("--table", &long, Quote::Double).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("--table {long:?}: it is 64 characters long; a SQL name has at most 63")
        );
        let qualified = format!("app.{long}");
        let e = sql_identifier("--column", &qualified, Quote::Brackets).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("--column {qualified:?}: {long:?} is 64 characters long; a SQL name has at most 63")
        );
    }
}
