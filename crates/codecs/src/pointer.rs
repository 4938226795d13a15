//! JSON pointer tokens (RFC 6901): `~` is written `~0` and `/` is written `~1`. The gate, the
//! reference parser and the member order all name places in a document this way.

/// `key` as a pointer token.
pub(crate) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A pointer token as the key it names.
pub(crate) fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Appends `/key`, escaped, to the pointer `path`.
pub(crate) fn push_token(path: &mut String, key: &str) {
    path.push('/');
    path.push_str(&escape(key));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_escape_tilde_first_and_read_back() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(unescape("a~1b~0c"), "a/b~c");
        // "~01" is the key "~1", not "/".
        assert_eq!(unescape("~01"), "~1");
        let mut path = String::from("/x");
        push_token(&mut path, "y/z");
        assert_eq!(path, "/x/y~1z");
    }
}
