//! The router: GET routes per mode, POST /telemetry, /health, and JSON errors for the rest.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use super::cache::{ItemCache, call_source};
use super::errors::ApiError;
use super::modes::{item_body, list_body};
use super::respond::{SERVER_NAME, json_bytes};
use super::stats::ServerStats;
use super::telemetry::{TelemetryParse, read_body, summarize, summarize_stream};
use crate::mode::{HEALTH_PATH, ServeMode, TELEMETRY_PATH};
use crate::source::ItemSource;

/// The largest `count` the list route accepts (further capped by the source's size).
pub const MAX_LIST_COUNT: usize = 1000;
/// `count` when the query has none.
pub const DEFAULT_LIST_COUNT: usize = 48;
/// Telemetry bodies larger than this are parsed on the blocking pool, not on a runtime worker.
const INLINE_PARSE_MAX: usize = 1 << 20;

pub struct AppState {
    pub cache: ItemCache,
    pub source: Arc<dyn ItemSource>,
    pub body_limit: u64,
    pub body_read_timeout: std::time::Duration,
    pub telemetry: TelemetryParse,
    pub stats: Arc<ServerStats>,
}

type Shared = State<Arc<AppState>>;

/// The routes; `unprefixed`: also `/items/{id}` and `/items` in that mode.
pub fn router(state: Arc<AppState>, unprefixed: Option<ServeMode>) -> Router {
    let mut app = Router::new();
    let prefixed = ServeMode::all().into_iter().map(|mode| (format!("/{mode}"), mode));
    for (prefix, mode) in prefixed.into_iter().chain(unprefixed.map(|mode| (String::new(), mode))) {
        app = app
            .route(&format!("{prefix}/items/{{id}}"), get(move |st: Shared, id| get_item(st, id, mode)))
            .route(&format!("{prefix}/items"), get(move |st: Shared, q| get_list(st, q, mode)));
    }
    app.route(TELEMETRY_PATH, post(post_telemetry))
        .route(HEALTH_PATH, get(health))
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(Arc::clone(&state.stats), count_and_tag))
        .with_state(state)
}

async fn count_and_tag(State(stats): State<Arc<ServerStats>>, request: Request, next: Next) -> Response {
    stats.requests.fetch_add(1, Relaxed);
    let mut response = next.run(request).await;
    response.headers_mut().insert(header::SERVER, HeaderValue::from_static(SERVER_NAME));
    response
}

async fn get_item(State(st): Shared, id: Result<Path<String>, PathRejection>, mode: ServeMode) -> Result<Response, ApiError> {
    let raw = match id {
        Ok(Path(raw)) => raw,
        Err(e) => return Err(ApiError::BadId { raw: e.body_text() }),
    };
    let id = raw.parse::<u64>().ok().filter(|id| *id >= 1).ok_or(ApiError::BadId { raw })?;
    let stored = st.cache.get(id).await?;
    Ok(json_bytes(StatusCode::OK, item_body(mode, id, stored)?))
}

#[derive(Deserialize)]
struct ListQuery {
    count: Option<String>,
}

async fn get_list(State(st): Shared, query: Result<Query<ListQuery>, QueryRejection>, mode: ServeMode) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::BadQuery { message: e.body_text() })?;
    let max = MAX_LIST_COUNT.min(st.source.list_len());
    let count = match query.count {
        None => DEFAULT_LIST_COUNT,
        Some(raw) => raw
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or(ApiError::CountOutOfRange { raw, max })?,
    };
    if count > max {
        return Err(ApiError::CountOutOfRange {
            raw: count.to_string(),
            max,
        });
    }
    let entries = call_source(&st.source, move |s| s.list(count)).await?;
    Ok(json_bytes(StatusCode::OK, list_body(mode, &entries)?))
}

async fn post_telemetry(State(st): Shared, request: Request) -> Result<Response, ApiError> {
    let content_length = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let summary = match st.telemetry {
        TelemetryParse::Incremental => {
            within(
                st.body_read_timeout,
                summarize_stream(request.into_body(), content_length, st.body_limit),
            )
            .await?
        }
        TelemetryParse::Buffered => {
            let body = within(st.body_read_timeout, read_body(request.into_body(), content_length, st.body_limit)).await?;
            if body.len() <= INLINE_PARSE_MAX {
                summarize(&body)?
            } else {
                tokio::task::spawn_blocking(move || summarize(&body))
                    .await
                    .map_err(|e| ApiError::Internal {
                        message: format!("parse task failed: {e}"),
                    })??
            }
        }
    };
    let bytes = serde_json::to_vec(&summary).map_err(|e| ApiError::Encode {
        library: "serde_json",
        message: e.to_string(),
    })?;
    Ok(json_bytes(StatusCode::OK, bytes.into()))
}

/// `reading` (of a request body) unless it takes longer than `timeout`: then 408, and hyper
/// closes the connection, whose body was not read to its end.
async fn within<T>(timeout: std::time::Duration, reading: impl Future<Output = Result<T, ApiError>>) -> Result<T, ApiError> {
    tokio::time::timeout(timeout, reading).await.map_err(|_| ApiError::BodyTimeout {
        seconds: timeout.as_secs_f64(),
    })?
}

async fn health() -> Response {
    json_bytes(StatusCode::OK, bytes::Bytes::from_static(br#"{"status":"ok"}"#))
}

async fn no_route(request: Request<Body>) -> impl IntoResponse {
    ApiError::NoRoute {
        method: request.method().to_string(),
        path: request.uri().path().to_string(),
    }
}

async fn method_not_allowed(request: Request<Body>) -> impl IntoResponse {
    ApiError::MethodNotAllowed {
        method: request.method().to_string(),
        path: request.uri().path().to_string(),
    }
}
