//! Terminal views and the text sanitizer every view and printer goes through.
pub mod sanitize;
