//! Response construction shared by every route.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;

/// The `Server` header value every response carries.
pub const SERVER_NAME: &str = concat!("jsoncost/", env!("CARGO_PKG_VERSION"));

/// A JSON response. The body has an exact size, so hyper writes Content-Length; hyper also
/// writes Date; the `Server` header is added by the middleware for every response.
pub fn json_bytes(status: StatusCode, body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(crate::mode::JSON_CONTENT_TYPE));
    response
}
