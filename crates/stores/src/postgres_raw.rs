//! Raw JSON bytes in and out of `json`/`jsonb` columns. tokio-postgres maps those types only to
//! `serde_json` values or `Json<T>`, so reading the bytes without parsing them needs these.
//! In the binary protocol `json` is the text itself and `jsonb` is a version byte (1) then text.

use std::error::Error;

use bytes::{BufMut, BytesMut};
use postgres_types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

const JSONB_VERSION: u8 = 1;

fn is_json(ty: &Type) -> bool {
    *ty == Type::JSON || *ty == Type::JSONB
}

/// A JSON document's bytes as a `json` or `jsonb` parameter (the server validates them).
#[derive(Debug)]
pub(crate) struct JsonParam<'a>(pub &'a [u8]);

impl ToSql for JsonParam<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        if *ty == Type::JSONB {
            out.put_u8(JSONB_VERSION);
        }
        out.put_slice(self.0);
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        is_json(ty)
    }

    to_sql_checked!();
}

/// A `json` or `jsonb` column's text, borrowed from the row buffer.
#[derive(Debug)]
pub(crate) struct JsonBytes<'a>(pub &'a [u8]);

impl<'a> FromSql<'a> for JsonBytes<'a> {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        if *ty != Type::JSONB {
            return Ok(JsonBytes(raw));
        }
        match raw.split_first() {
            Some((&JSONB_VERSION, text)) => Ok(JsonBytes(text)),
            Some((version, _)) => Err(format!("unsupported jsonb binary version {version}").into()),
            None => Err("empty jsonb value".into()),
        }
    }

    fn accepts(ty: &Type) -> bool {
        is_json(ty)
    }
}

/// A user's document column as bytes, borrowed from the row buffer: `json`, `jsonb` (as
/// [`JsonBytes`]), `text`, `varchar` or `bytea` (their binary form is the bytes themselves).
#[derive(Debug)]
pub(crate) struct DocumentBytes<'a>(pub &'a [u8]);

impl<'a> FromSql<'a> for DocumentBytes<'a> {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        if is_json(ty) {
            JsonBytes::from_sql(ty, raw).map(|j| DocumentBytes(j.0))
        } else {
            Ok(DocumentBytes(raw))
        }
    }

    fn accepts(ty: &Type) -> bool {
        is_json(ty) || [Type::TEXT, Type::VARCHAR, Type::BYTEA].contains(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonb_gets_and_loses_its_version_byte() {
        let mut out = BytesMut::new();
        JsonParam(b"{}").to_sql(&Type::JSONB, &mut out).unwrap();
        assert_eq!(&out[..], b"\x01{}");
        assert_eq!(JsonBytes::from_sql(&Type::JSONB, &out).unwrap().0, b"{}");

        let mut out = BytesMut::new();
        JsonParam(b"[1]").to_sql(&Type::JSON, &mut out).unwrap();
        assert_eq!(&out[..], b"[1]");
        assert_eq!(JsonBytes::from_sql(&Type::JSON, &out).unwrap().0, b"[1]");
    }

    #[test]
    fn rejects_unknown_jsonb_versions_and_other_types() {
        assert!(
            JsonBytes::from_sql(&Type::JSONB, b"\x02{}")
                .unwrap_err()
                .to_string()
                .contains("version 2")
        );
        assert!(JsonBytes::from_sql(&Type::JSONB, b"").is_err());
        assert!(!<JsonBytes as FromSql>::accepts(&Type::TEXT));
        assert!(!<JsonParam as ToSql>::accepts(&Type::BYTEA));
    }
}
