//! The experiments: each builds strategies, hands them to the engine through [`table`], and
//! pushes result tables into the session.

pub mod http;
pub mod micro;
pub mod store;
pub mod stream;
pub mod table;
