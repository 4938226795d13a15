//! The one error type of every store, with what the command line needs: an exit code and
//! whether only the current document (one strategy's row) failed or the whole run must stop.

use std::path::PathBuf;

/// Why a store call failed; its exit code is [`StoreError::exit_code`], and
/// [`StoreError::is_document_error`] tells a failure of one document from one that ends the run.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The URL's scheme is none of [`SCHEMES`](crate::SCHEMES).
    #[error("unknown store URL {url:?}; the schemes are {schemes}")]
    UnknownScheme {
        /// The URL, without its password.
        url: String,
        /// The schemes there are ([`SCHEMES`](crate::SCHEMES)).
        schemes: &'static str,
    },

    /// The URL names a store whose client this build leaves out (a cargo feature).
    #[error("{url}: this build has no {feature} client; enable jsoncost's cargo feature \"{feature}\" (features = [\"{feature}\"])")]
    NotBuilt {
        /// The URL, without its password.
        url: String,
        /// The cargo feature that builds the client.
        feature: &'static str,
    },

    /// The URL has a known scheme but cannot be used (no path, a bad port ...).
    #[error("invalid store URL {url:?}: {reason}")]
    BadUrl {
        /// The URL, without its password.
        url: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A collection name outside the characters every store accepts as a key or table prefix.
    #[error("invalid collection name {name:?}: use ASCII letters, digits, '-' and '_' (1 to 64 characters)")]
    BadCollection {
        /// The name given.
        name: String,
    },

    /// The user's own documents are not where, or not what, the flags say: a table, column or
    /// key pattern the store does not have, a key that is not text or an integer.
    #[error("{store}: {documents}: {reason}")]
    BadDocuments {
        /// The store, as [`crate::Store::describe`] names it.
        store: String,
        /// Where the documents were looked for ([`crate::Existing::describe`]).
        documents: String,
        /// What the store said or what was found instead.
        reason: String,
    },

    /// A name given on the command line that cannot be used (a SQL name, a JSON pointer).
    #[error("{flag} {name:?}: {reason}")]
    BadName {
        /// The flag that gave it, e.g. `--table`.
        flag: &'static str,
        /// The name given.
        name: String,
        /// Why it cannot be used.
        reason: String,
    },

    /// One of the user's documents is larger than the per-document limit: it is not parsed.
    #[error(
        "document {id:?} of {collection} is {size}, over the {limit} MiB limit per document (raise it with --max-doc-mib)",
        size = mib(*bytes),
        limit = limit >> 20
    )]
    TooLarge {
        /// The collection (or table, or key pattern) read.
        collection: String,
        /// The document's key.
        id: String,
        /// Its size.
        bytes: u64,
        /// The limit it is over, in bytes.
        limit: u64,
    },

    /// A store opened to read a user's documents ([`crate::Access::ReadOnly`]) was asked to write.
    #[error("{store} is open read-only (to read your own documents); {operation} needs it opened to load")]
    ReadOnly {
        /// The store, as [`crate::Store::describe`] names it.
        store: String,
        /// The call refused, e.g. `load`.
        operation: String,
    },

    /// The server did not accept a connection or answer within the connect timeout.
    #[error("cannot reach {url}: {cause}; check {hint}")]
    Unreachable {
        /// The URL, without its password.
        url: String,
        /// The client's error.
        cause: String,
        /// What to check, e.g. that every cluster master is up.
        hint: String,
    },

    /// The collection holds no load marker: nothing was loaded into it.
    #[error("collection {collection:?} is not loaded in {store}; load it first (jsoncost store --reload)")]
    NotLoaded {
        /// The store, as [`crate::Store::describe`] names it.
        store: String,
        /// The collection asked for.
        collection: String,
    },

    /// No document has this id (a document error: only the row reading it fails).
    #[error("document {id:?} not found in {place} {collection:?} of {store}")]
    NotFound {
        /// The store, as [`crate::Store::describe`] names it.
        store: String,
        /// What `collection` is: `collection` (jsoncost's), `table` or `keys` (the user's own,
        /// [`crate::Existing::place`]).
        place: &'static str,
        /// The collection read.
        collection: String,
        /// The id asked for.
        id: String,
    },

    /// The server went away mid-run: the run stops.
    #[error("lost the connection to {url} during {operation}: {cause}; the server may have stopped")]
    ConnectionLost {
        /// The URL, without its password.
        url: String,
        /// The call under way, e.g. `read`.
        operation: String,
        /// The client's error.
        cause: String,
    },

    /// A document's bytes do not decode into the type read (a document error).
    #[error("document {id:?} in {place} {collection:?} does not decode: {message}")]
    Decode {
        /// What `collection` is, as [`StoreError::NotFound`]'s.
        place: &'static str,
        /// The collection read.
        collection: String,
        /// The document's id.
        id: String,
        /// The decoder's error.
        message: String,
    },

    /// Any other failure the client reported.
    #[error("{store}: {operation} failed: {cause}")]
    Backend {
        /// The store, as [`crate::Store::describe`] names it.
        store: String,
        /// The call that failed.
        operation: String,
        /// The client's error.
        cause: String,
    },

    /// The client library panicked; the store is not used again in this run.
    #[error("{store}: the client library panicked while {operation}: {message}")]
    Panicked {
        /// The store, as [`crate::Store::describe`] names it.
        store: String,
        /// What the store was doing.
        operation: String,
        /// The panic's message.
        message: String,
    },

    /// The store's file is damaged (redb's integrity check on open failed).
    #[error("{path} is damaged: {cause}; delete it (jsoncost loads the documents again) or restore a copy")]
    Corrupt {
        /// The store's file.
        path: PathBuf,
        /// What redb reported.
        cause: String,
    },

    /// The file is in use by another process (redb locks its file while it is open).
    #[error("{path} is locked by {holder}; stop that process or use another path, e.g. --store redb:{suggestion}")]
    Locked {
        /// The store's file.
        path: PathBuf,
        /// The process holding it: its pid and command line where Linux tells them.
        holder: String,
        /// A free path beside it to use instead.
        suggestion: String,
    },

    /// The private directory the default store lives in cannot be used (missing temp dir, a
    /// link, another user's, writable by others).
    #[error(transparent)]
    PrivateDir(#[from] jsoncost_engine::private_dir::PrivateDirError),

    /// A file operation failed. The cause's text is part of the message, so it is not also a
    /// `source` (printing the chain would say it twice: "Is a directory (os error 21): Is a
    /// directory (os error 21)").
    #[error("{operation} {path}: {cause}")]
    Io {
        /// What was being done, e.g. `creating directory`.
        operation: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        cause: std::io::Error,
    },
}

/// A size in MiB with one decimal: `200.0 MiB`.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

impl StoreError {
    /// The process exit code the command line should end with (2 usage or bad
    /// input, 3 environment failure).
    pub fn exit_code(&self) -> i32 {
        match self {
            StoreError::UnknownScheme { .. }
            | StoreError::BadUrl { .. }
            | StoreError::NotBuilt { .. }
            | StoreError::BadCollection { .. }
            | StoreError::BadDocuments { .. }
            | StoreError::BadName { .. }
            | StoreError::TooLarge { .. }
            | StoreError::NotLoaded { .. }
            | StoreError::NotFound { .. }
            | StoreError::Decode { .. } => 2,
            StoreError::Unreachable { .. }
            | StoreError::ConnectionLost { .. }
            | StoreError::Backend { .. }
            | StoreError::Panicked { .. }
            | StoreError::Locked { .. }
            | StoreError::Corrupt { .. }
            | StoreError::ReadOnly { .. }
            | StoreError::PrivateDir(_)
            | StoreError::Io { .. } => 3,
        }
    }

    /// True when only the document at hand is at fault (it is missing, does not decode or is
    /// over the size limit): that strategy's row fails and the run goes on. Every other error
    /// ends the run.
    pub fn is_document_error(&self) -> bool {
        matches!(
            self,
            StoreError::NotFound { .. } | StoreError::Decode { .. } | StoreError::TooLarge { .. }
        )
    }

    pub(crate) fn backend(store: &str, operation: &str, cause: impl std::fmt::Display) -> Self {
        StoreError::Backend {
            store: store.to_string(),
            operation: operation.to_string(),
            cause: cause.to_string(),
        }
    }

    pub(crate) fn decode(collection: &str, id: &str, message: impl std::fmt::Display) -> Self {
        StoreError::Decode {
            place: "collection",
            collection: collection.to_string(),
            id: id.to_string(),
            message: message.to_string(),
        }
    }

    pub(crate) fn read_only(store: &str, operation: &str) -> Self {
        StoreError::ReadOnly {
            store: store.to_string(),
            operation: operation.to_string(),
        }
    }

    pub(crate) fn not_found(store: &str, collection: &str, id: &str) -> Self {
        StoreError::NotFound {
            store: store.to_string(),
            place: "collection",
            collection: collection.to_string(),
            id: id.to_string(),
        }
    }

    pub(crate) fn not_loaded(store: &str, collection: &str) -> Self {
        StoreError::NotLoaded {
            store: store.to_string(),
            collection: collection.to_string(),
        }
    }

    pub(crate) fn lost(url: &str, operation: &str, cause: impl std::fmt::Display) -> Self {
        StoreError::ConnectionLost {
            url: url.to_string(),
            operation: operation.to_string(),
            cause: cause.to_string(),
        }
    }
}
