//! grove: browse, search and safely edit the session files of the pi and Atomic coding agents.
//!
//! The flow is one direction: files → [`storage`] → [`model`] → `app` → `ui`.
#![forbid(unsafe_code)]

pub mod app;
pub mod cli;
pub mod model;
pub mod storage;
pub mod ui;
