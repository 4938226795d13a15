//! The experiments' flags: each command's clap arguments, converted into the library's options
//! and run through its Runner ([`table`]: the session and progress bar as the sink, Ctrl-C as
//! the cancel flag). The experiments themselves live in the `jsoncost` library.

pub mod http;
pub mod micro;
pub mod safety;
pub mod store;
pub mod stream;
pub mod table;
