//! The check made before a timed run: every mode of a route answers a document that decodes
//! equal to the baseline mode's.

use std::time::Duration;

use bytes::Bytes;

use crate::loadgen::{FetchError, fetch};
use crate::mode::ServeMode;

/// A GET route of the reference API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `/{mode}/items/{id}`
    Item(u64),
    /// `/{mode}/items?count={count}`
    List(usize),
}

impl Route {
    /// The route's path under `mode`.
    pub fn path(self, mode: ServeMode) -> String {
        match self {
            Route::Item(id) => mode.item_path(id),
            Route::List(count) => mode.list_path(count),
        }
    }
}

/// Why a mode's answers could not be verified against the baseline mode's.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The request failed.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The answer's status is not 2xx.
    #[error("{url} answered status {status}: {body}")]
    Status {
        /// The URL fetched.
        url: String,
        /// Its status.
        status: u16,
        /// Its body, as text.
        body: String,
    },
    /// The answer's body is not JSON.
    #[error("{url} did not answer JSON: {message}")]
    NotJson {
        /// The URL fetched.
        url: String,
        /// The parser's message.
        message: String,
    },
    /// The answer decodes to another document than the baseline mode's.
    #[error("{url} decodes to a different document than {baseline_url}")]
    Differs {
        /// The URL fetched.
        url: String,
        /// The baseline mode's URL for the same route.
        baseline_url: String,
    },
}

/// How long one mode's answer is waited for.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The most wall time [`modes_agree`] takes: one answer per mode.
pub fn agreement_bound() -> Duration {
    FETCH_TIMEOUT * ServeMode::all().len() as u32
}

/// The body each mode answers for `route` on the server at `base` (`http://host:port`), after
/// checking that all decode equal. Returns (mode, body bytes) in [`ServeMode::all`]'s order.
pub async fn modes_agree(base: &str, route: Route) -> Result<Vec<(ServeMode, Bytes)>, VerifyError> {
    let mut bodies = Vec::new();
    let mut baseline: Option<(String, serde_json::Value)> = None;
    for mode in ServeMode::all() {
        let url = format!("{base}{}", route.path(mode));
        let (status, body) = fetch(&url, http::Method::GET, Bytes::new(), None, FETCH_TIMEOUT).await?;
        if status != 200 {
            return Err(VerifyError::Status {
                url,
                status,
                body: String::from_utf8_lossy(&body).into_owned(),
            });
        }
        let doc: serde_json::Value = serde_json::from_slice(&body).map_err(|e| VerifyError::NotJson {
            url: url.clone(),
            message: e.to_string(),
        })?;
        match &baseline {
            None => baseline = Some((url, doc)),
            Some((baseline_url, want)) if *want != doc => {
                return Err(VerifyError::Differs {
                    url,
                    baseline_url: baseline_url.clone(),
                });
            }
            Some(_) => {}
        }
        bodies.push((mode, body));
    }
    Ok(bodies)
}

/// [`modes_agree`] from sync code (on a small runtime of its own).
pub fn modes_agree_blocking(base: &str, route: Route) -> Result<Vec<(ServeMode, Bytes)>, VerifyError> {
    let go = || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| FetchError {
                url: base.to_string(),
                message: e.to_string(),
            })?;
        runtime.block_on(modes_agree(base, route))
    };
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| s.spawn(go).join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    } else {
        go()
    }
}
