//! Whole session files through the parser, the tree, context building in both dialects, the
//! listing fields and the Markdown export: nothing may panic, hang or grow without bound.
#![no_main]

use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::export::to_markdown;
use grove::model::info::InfoBuilder;
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let session = Session::new(ParsedSession::from_bytes(data));
    let n = session.entries().len();
    for dialect in [Dialect::Pi, Dialect::Atomic] {
        let ctx = build_context(&session, LeafChoice::Current, dialect);
        assert!(ctx.leaf.is_none_or(|l| l < n));
        let _ = build_context(&session, LeafChoice::Index(n / 2), dialect);
        let _ = build_context(&session, LeafChoice::None, dialect);
        let _ = to_markdown(&session, &ctx);
    }
    for i in 0..n {
        // Every upward walk ends (cycles are broken when the tree is built).
        assert!(session.tree.path_to(i).len() <= n);
    }
    let mut info = InfoBuilder::new();
    if let Some(h) = &session.parsed.header {
        info.header(h);
    }
    for e in session.entries() {
        info.entry(e);
    }
});
