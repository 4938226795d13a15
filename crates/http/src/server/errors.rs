//! Errors the API answers with: every one is a JSON body `{"error": kind, "message": ..}` (plus
//! `"offset"` for body parse errors) with a fitting status, and none stops the server.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::respond::json_bytes;
use crate::source::SourceError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no item with id {id}")]
    ItemNotFound { id: u64 },
    #[error("no route for {method} {path}")]
    NoRoute { method: String, path: String },
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    #[error("invalid item id {raw:?}: expected an integer from 1")]
    BadId { raw: String },
    #[error("count {raw:?} out of range: expected an integer in 1..={max}")]
    CountOutOfRange { raw: String, max: usize },
    #[error("invalid query string: {message}")]
    BadQuery { message: String },
    #[error("request body exceeds the limit of {limit} bytes")]
    BodyTooLarge { limit: u64 },
    #[error("reading the request body failed: {message}")]
    BodyRead { message: String },
    #[error("malformed JSON at byte offset {offset}: {}", jsoncost_stream::shorten_message(message))]
    MalformedJson { offset: u64, message: String },
    /// The parser's message quotes the offending value: shortened when long.
    #[error("wrong shape at byte offset {offset}: {}", jsoncost_stream::shorten_message(message))]
    WrongShape { offset: u64, message: String },
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("stored document {what} does not decode as its shape: {message}")]
    StoredDocument { what: String, message: String },
    #[error("encoding the response with {library} failed: {message}")]
    Encode { library: &'static str, message: String },
    #[error("internal error: {message}")]
    Internal { message: String },
    /// The item cache (Redis) failed or did not answer in time; the server keeps serving.
    #[error("the item cache {cache} is unavailable: {message}")]
    CacheUnavailable { cache: String, message: String },
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::ItemNotFound { .. } | ApiError::NoRoute { .. } => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::BadId { .. }
            | ApiError::CountOutOfRange { .. }
            | ApiError::BadQuery { .. }
            | ApiError::BodyRead { .. }
            | ApiError::MalformedJson { .. }
            | ApiError::WrongShape { .. } => StatusCode::BAD_REQUEST,
            ApiError::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Source(_) | ApiError::StoredDocument { .. } | ApiError::Encode { .. } | ApiError::Internal { .. } => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            ApiError::CacheUnavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The machine-readable `error` field.
    pub fn kind(&self) -> &'static str {
        match self {
            ApiError::ItemNotFound { .. } => "item_not_found",
            ApiError::NoRoute { .. } => "no_route",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::BadId { .. } => "bad_id",
            ApiError::CountOutOfRange { .. } => "count_out_of_range",
            ApiError::BadQuery { .. } => "bad_query",
            ApiError::BodyTooLarge { .. } => "body_too_large",
            ApiError::BodyRead { .. } => "body_read",
            ApiError::MalformedJson { .. } => "malformed_json",
            ApiError::WrongShape { .. } => "wrong_shape",
            ApiError::Source(_) => "source",
            ApiError::StoredDocument { .. } => "stored_document",
            ApiError::Encode { .. } => "encode",
            ApiError::Internal { .. } => "internal",
            ApiError::CacheUnavailable { .. } => "cache_unavailable",
        }
    }

    fn offset(&self) -> Option<u64> {
        match self {
            ApiError::MalformedJson { offset, .. } | ApiError::WrongShape { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = serde_json::json!({ "error": self.kind(), "message": self.to_string() });
        if let Some(offset) = self.offset() {
            body["offset"] = offset.into();
        }
        // A `Value` with string keys always serializes.
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        json_bytes(self.status(), bytes.into())
    }
}
