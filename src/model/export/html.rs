//! The HTML export (see `to_html`).
