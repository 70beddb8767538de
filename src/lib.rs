//! grove: browse, search and safely edit the session files of the pi and Atomic coding agents.
//!
//! Layers, each importing only from the ones before it: [`text`] → [`model`] → [`storage`] →
//! [`app`] → [`ui`] → [`tui`] → [`cli`] (and the binary).
#![forbid(unsafe_code)]
// No unwrap, expect or panic outside tests (clippy.toml allows them in tests).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod app;
pub mod cli;
pub mod model;
pub mod storage;
pub mod text;
pub mod tui;
pub mod ui;
