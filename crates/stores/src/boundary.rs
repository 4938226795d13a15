//! The panic boundary every store call goes through: a client library that panics (redb on a
//! page it cannot make sense of, say) becomes a [`StoreError::Panicked`] instead of ending the
//! process, so the run fails that row, stops, and still writes what it measured.
//!
//! One wrapper for every backend: [`crate::open`] returns each store inside a [`Boundary`].
//! After a panic the client's state is unknown, so the boundary is poisoned: every later call
//! answers the same error without touching the client again.
//!
//! The default panic hook would print the panic with a backtrace hint before the error is
//! caught; while a call is inside the boundary a chained hook keeps the message (and where it
//! happened) for the error instead, so the user sees one clear error.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use jsoncost_shapes::Order;

use crate::error::StoreError;
use crate::existing::Existing;
use crate::location::StoreKind;
use crate::store::{LoadMarker, Store};

thread_local! {
    /// True while this thread runs a call inside a boundary.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// What the hook saw of the last panic inside a boundary: "message at file:line:column".
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Chains a hook in front of the current one (once per process): silent inside a boundary,
/// the previous hook everywhere else.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if INSIDE.with(Cell::get) {
                let message = payload_text(info.payload());
                let text = match info.location() {
                    Some(at) => format!("{message} at {}:{}:{}", at.file(), at.line(), at.column()),
                    None => message,
                };
                CAUGHT.with(|c| *c.borrow_mut() = Some(text));
            } else {
                previous(info);
            }
        }));
    });
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Runs `f`, turning a panic into [`StoreError::Panicked`] for `store` doing `operation` (named
/// only when it panicked: most calls are timed reads).
pub(crate) fn call<T>(store: &str, operation: impl FnOnce() -> String, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
    install_hook();
    let outer = INSIDE.with(|i| i.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    INSIDE.with(|i| i.set(outer));
    result.unwrap_or_else(|payload| {
        let message = CAUGHT
            .with(|c| c.borrow_mut().take())
            .unwrap_or_else(|| payload_text(payload.as_ref()));
        Err(StoreError::Panicked {
            store: store.to_string(),
            operation: operation(),
            message,
        })
    })
}

/// A store whose every call is inside the panic boundary.
pub(crate) struct Boundary {
    inner: Box<dyn Store>,
    describe: String,
    /// The call that panicked and its message, answered by every later call.
    poisoned: Option<(String, String)>,
}

impl Boundary {
    pub(crate) fn new(inner: Box<dyn Store>) -> Self {
        let describe = inner.describe();
        Boundary {
            inner,
            describe,
            poisoned: None,
        }
    }

    fn guarded<T>(
        &mut self,
        operation: impl FnOnce() -> String,
        f: impl FnOnce(&mut dyn Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if let Some((operation, message)) = &self.poisoned {
            return Err(StoreError::Panicked {
                store: self.describe.clone(),
                operation: operation.clone(),
                message: message.clone(),
            });
        }
        let inner = self.inner.as_mut();
        let result = call(&self.describe, operation, || f(inner));
        if let Err(StoreError::Panicked { operation, message, .. }) = &result {
            self.poisoned = Some((operation.clone(), message.clone()));
        }
        result
    }
}

fn reading(collection: &str, id: &str) -> impl FnOnce() -> String {
    move || format!("reading {id:?} from {collection:?}")
}

impl Store for Boundary {
    fn kind(&self) -> StoreKind {
        self.inner.kind()
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn loaded(&mut self, collection: &str) -> Result<Option<LoadMarker>, StoreError> {
        self.guarded(|| format!("reading the load marker of {collection:?}"), |s| s.loaded(collection))
    }

    fn load(
        &mut self,
        collection: &str,
        docs: &mut dyn Iterator<Item = (String, Vec<u8>)>,
        marker: &LoadMarker,
    ) -> Result<u64, StoreError> {
        self.guarded(|| format!("loading {collection:?}"), |s| s.load(collection, docs, marker))
    }

    fn read_raw(&mut self, collection: &str, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        self.guarded(reading(collection, id), |s| s.read_raw(collection, id, f))
    }

    fn read_default(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        self.guarded(reading(collection, id), |s| s.read_default(collection, id))
    }

    fn read_default_dom(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        self.guarded(reading(collection, id), |s| s.read_default_dom(collection, id))
    }

    fn read_with_new_client(&mut self, collection: &str, id: &str) -> Option<Result<Order, StoreError>> {
        let mut supported = true;
        let read = self.guarded(reading(collection, id), |s| match s.read_with_new_client(collection, id) {
            Some(r) => r.map(Some),
            None => {
                supported = false;
                Ok(None)
            }
        });
        supported.then(|| read.map(|order| order.expect("a supported read returns a value")))
    }

    fn read_projection(
        &mut self,
        collection: &str,
        id: &str,
        pointers: &[String],
        f: &mut dyn FnMut(usize, &[u8]),
    ) -> Option<Result<(), StoreError>> {
        let mut supported = true;
        let read = self.guarded(reading(collection, id), |s| match s.read_projection(collection, id, pointers, f) {
            Some(r) => r,
            None => {
                supported = false;
                Ok(())
            }
        });
        supported.then_some(read)
    }

    fn existing_ids(&mut self, at: &Existing, limit: u64) -> Result<Vec<String>, StoreError> {
        self.guarded(|| format!("listing {}", at.describe()), |s| s.existing_ids(at, limit))
    }

    fn existing_len(&mut self, at: &Existing, id: &str) -> Result<Option<u64>, StoreError> {
        self.guarded(reading(at.name(), id), |s| s.existing_len(at, id))
    }

    fn read_existing(&mut self, at: &Existing, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        self.guarded(reading(at.name(), id), |s| s.read_existing(at, id, f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

    /// A store whose reads panic as redb's did on a damaged page, counting the calls it sees.
    struct Panicky {
        calls: Arc<AtomicU32>,
    }

    impl Store for Panicky {
        fn kind(&self) -> StoreKind {
            StoreKind::Redb
        }
        fn describe(&self) -> String {
            "redb:/x/damaged.redb".into()
        }
        fn loaded(&mut self, _: &str) -> Result<Option<LoadMarker>, StoreError> {
            self.calls.fetch_add(1, Relaxed);
            Ok(None)
        }
        fn load(&mut self, _: &str, _: &mut dyn Iterator<Item = (String, Vec<u8>)>, _: &LoadMarker) -> Result<u64, StoreError> {
            unreachable!("not loaded in this test")
        }
        fn read_raw(&mut self, _: &str, _: &str, _: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
            self.calls.fetch_add(1, Relaxed);
            unreachable!()
        }
        fn read_default(&mut self, _: &str, _: &str) -> Result<Order, StoreError> {
            panic!("a String payload {}", 7)
        }
        fn read_default_dom(&mut self, _: &str, _: &str) -> Result<Order, StoreError> {
            unreachable!()
        }
    }

    #[test]
    fn a_panic_becomes_a_typed_error_and_poisons_the_store() {
        let calls = Arc::new(AtomicU32::new(0));
        let mut store = Boundary::new(Box::new(Panicky { calls: calls.clone() }));
        assert_eq!(store.loaded("order").unwrap(), None);
        let err = store.read_raw("order", "order-1", &mut |_| {}).unwrap_err();
        let StoreError::Panicked {
            store: name,
            operation,
            message,
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(
            (name.as_str(), operation.as_str()),
            ("redb:/x/damaged.redb", "reading \"order-1\" from \"order\"")
        );
        // The hook kept the message and where it happened.
        assert!(message.starts_with("internal error: entered unreachable code at "), "{message}");
        assert!(message.contains("boundary.rs:"), "{message}");
        assert_eq!(err.exit_code(), 3);
        assert!(!err.is_document_error(), "a panicked client ends the run");
        assert_eq!(
            err.to_string(),
            format!("redb:/x/damaged.redb: the client library panicked while reading \"order-1\" from \"order\": {message}")
        );
        // Poisoned: the client is not called again, every call answers the first panic.
        let again = store.loaded("order").unwrap_err();
        assert_eq!(again.to_string(), err.to_string());
        assert_eq!(calls.load(Relaxed), 2, "loaded once, read_raw once, nothing after the panic");
    }

    #[test]
    fn a_string_payload_is_kept() {
        let mut store = Boundary::new(Box::new(Panicky { calls: Default::default() }));
        let err = store.read_default("order", "order-2").unwrap_err();
        assert!(err.to_string().contains(": a String payload 7 at "), "{err}");
    }

    #[test]
    fn panics_outside_a_boundary_still_reach_the_previous_hook() {
        install_hook();
        let outside = std::panic::catch_unwind(|| panic!("outside"));
        assert!(outside.is_err());
        assert_eq!(CAUGHT.with(|c| c.borrow().clone()), None, "only panics inside a boundary are kept");
    }
}
