//! The item cache in front of the source: a real in-process cache (moka), filled on a miss.

use std::sync::Arc;

use bytes::Bytes;

use super::errors::ApiError;
use crate::source::{ItemSource, SourceError};

/// Calls the source inline if it only touches memory, else on the blocking pool so a database
/// read never stalls a runtime worker.
pub async fn call_source<T, F>(source: &Arc<dyn ItemSource>, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&dyn ItemSource) -> Result<T, SourceError> + Send + 'static,
{
    if !source.is_blocking() {
        return Ok(f(source.as_ref())?);
    }
    let source = Arc::clone(source);
    tokio::task::spawn_blocking(move || f(source.as_ref()))
        .await
        .map_err(|e| ApiError::Internal {
            message: format!("source task failed: {e}"),
        })?
        .map_err(ApiError::from)
}

enum Miss {
    NotFound,
    Failed(ApiError),
}

pub struct ItemCache {
    cache: moka::future::Cache<u64, Bytes>,
    source: Arc<dyn ItemSource>,
}

impl ItemCache {
    pub fn new(source: Arc<dyn ItemSource>, capacity: u64) -> Self {
        ItemCache {
            cache: moka::future::Cache::new(capacity),
            source,
        }
    }

    /// The stored bytes of item `id`, from the cache or loaded from the source (concurrent
    /// misses on one id load it once). Unknown ids are not cached.
    pub async fn get(&self, id: u64) -> Result<Bytes, ApiError> {
        let load = async {
            match call_source(&self.source, move |s| s.item(id)).await {
                Ok(Some(bytes)) => Ok(bytes),
                Ok(None) => Err(Miss::NotFound),
                Err(e) => Err(Miss::Failed(e)),
            }
        };
        self.cache.try_get_with(id, load).await.map_err(|miss| match &*miss {
            Miss::NotFound => ApiError::ItemNotFound { id },
            // The error is shared by every request that waited on this load, hence by reference.
            Miss::Failed(e) => ApiError::Internal {
                message: format!("loading item {id}: {e}"),
            },
        })
    }
}
