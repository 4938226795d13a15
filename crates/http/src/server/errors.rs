//! Errors the API answers with: every one is a JSON body `{"error": kind, "message": ..}` (plus
//! `"offset"` for body parse errors) with a fitting status, and none stops the server.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::respond::json_bytes;
use crate::source::SourceError;

/// Why a request failed; the response's status is [`ApiError::status`].
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No item has the id asked for (404).
    #[error("no item with id {id}")]
    ItemNotFound {
        /// The id asked for.
        id: u64,
    },
    /// No route matches the path (404).
    #[error("no route for {method} {path}")]
    NoRoute {
        /// The request's method.
        method: String,
        /// The request's path.
        path: String,
    },
    /// The route exists for other methods (405).
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed {
        /// The request's method.
        method: String,
        /// The request's path.
        path: String,
    },
    /// The item id is not a positive integer (400).
    #[error("invalid item id {raw:?}: expected an integer from 1")]
    BadId {
        /// The id as given.
        raw: String,
    },
    /// The list's `count` is outside 1 to the list's length (400).
    #[error("count {raw:?} out of range: expected an integer in 1..={max}")]
    CountOutOfRange {
        /// The count as given.
        raw: String,
        /// The list's length.
        max: usize,
    },
    /// The query string does not parse (400).
    #[error("invalid query string: {message}")]
    BadQuery {
        /// The parser's message.
        message: String,
    },
    /// The request body is over the server's body limit (413).
    #[error("request body exceeds the limit of {limit} bytes")]
    BodyTooLarge {
        /// The limit, bytes.
        limit: u64,
    },
    /// The request body could not be read (400).
    #[error("reading the request body failed: {message}")]
    BodyRead {
        /// The transport's message.
        message: String,
    },
    /// The request body did not arrive within the server's body-read timeout (408).
    #[error("the request body did not arrive within {seconds} s")]
    BodyTimeout {
        /// The timeout, seconds.
        seconds: f64,
    },
    /// The body is not JSON (400).
    #[error("malformed JSON at byte offset {offset}: {}", jsoncost_stream::shorten_message(message))]
    MalformedJson {
        /// Where the parser stopped.
        offset: u64,
        /// The parser's message.
        message: String,
    },
    /// The parser's message quotes the offending value: shortened when long.
    #[error("wrong shape at byte offset {offset}: {}", jsoncost_stream::shorten_message(message))]
    WrongShape {
        /// Where the parser stopped.
        offset: u64,
        /// The parser's message.
        message: String,
    },
    /// The document source failed (500).
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A stored document does not decode as its shape (500).
    #[error("stored document {what} does not decode as its shape: {message}")]
    StoredDocument {
        /// Which document.
        what: String,
        /// The decoder's message.
        message: String,
    },
    /// Encoding the response failed (500).
    #[error("encoding the response with {library} failed: {message}")]
    Encode {
        /// The JSON library encoding.
        library: &'static str,
        /// Its message.
        message: String,
    },
    /// Any other failure of the server itself (500).
    #[error("internal error: {message}")]
    Internal {
        /// What failed.
        message: String,
    },
    /// The item cache (Redis) failed or did not answer in time; the server keeps serving.
    #[error("the item cache {cache} is unavailable: {message}")]
    CacheUnavailable {
        /// The cache, without a password.
        cache: String,
        /// The client's error.
        message: String,
    },
}

impl ApiError {
    /// The HTTP status the error is answered with.
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
            ApiError::BodyTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
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
            ApiError::BodyTimeout { .. } => "body_timeout",
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
