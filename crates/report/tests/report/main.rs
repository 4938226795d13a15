//! The integration tests of report, one binary (one link, one build of what they share).

mod advisor;
mod chromium;
mod common;
mod compare;
mod counts;
mod destinations;
mod files;
mod html;
mod http_ab;
mod junit;
mod ladder;
mod render;
mod simd_note;
mod sweep;
