//! The URL under load, parsed once.

use http::Uri;

use super::spec::LoadError;

#[derive(Debug, Clone)]
pub struct Target {
    /// Host to connect to (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    /// The Host header value.
    pub authority: String,
    /// The request target in origin form (`/path?query`).
    pub origin_form: Uri,
}

impl Target {
    pub fn parse(url: &str) -> Result<Target, LoadError> {
        let invalid = |reason: &str| LoadError::InvalidUrl {
            url: jsoncost_stores::redact(url),
            reason: reason.to_string(),
        };
        let uri: Uri = url.parse().map_err(|e: http::uri::InvalidUri| invalid(&e.to_string()))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some(other) => return Err(invalid(&format!("scheme {other:?} is not supported; use http://"))),
            None => return Err(invalid("no scheme; expected http://host:port/path")),
        }
        let authority = uri.authority().ok_or_else(|| invalid("no host"))?;
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_string();
        if host.is_empty() {
            return Err(invalid("empty host"));
        }
        let path_and_query = uri.path_and_query().map_or("/", |p| p.as_str());
        let path_and_query = if path_and_query.is_empty() { "/" } else { path_and_query };
        let origin_form = path_and_query.parse().map_err(|e: http::uri::InvalidUri| invalid(&e.to_string()))?;
        Ok(Target {
            host,
            port: authority.port_u16().unwrap_or(80),
            authority: authority.as_str().to_string(),
            origin_form,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        let t = Target::parse("http://127.0.0.1:8080/passthrough/items?count=48").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.authority.as_str()),
            ("127.0.0.1", 8080, "127.0.0.1:8080")
        );
        assert_eq!(t.origin_form, "/passthrough/items?count=48");
        let t = Target::parse("http://[::1]").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.origin_form.to_string().as_str()), ("::1", 80, "/"));
        for bad in ["https://example.com/", "127.0.0.1:80/x", "http:///x", "not a url"] {
            assert!(matches!(Target::parse(bad), Err(LoadError::InvalidUrl { .. })), "{bad}");
        }
    }
}
