//! The integration tests of report, one binary (one link, one build of what they share).

mod ab_http;
mod advisor;
mod chromium;
mod common;
mod compare;
mod counts;
mod destinations;
mod files;
mod html;
mod junit;
mod ladder;
mod render;
mod simd_note;
mod sweep;
