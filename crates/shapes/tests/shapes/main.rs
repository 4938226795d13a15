//! The integration tests of shapes, one binary (one link, one build of what they share).

mod derived;
mod shapes;
