//! The scrubber: never a panic; findings are sorted, non-overlapping, on
//! char boundaries; scrubbing is idempotent (a scrubbed text is clean of
//! secrets).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mem_core::scrub::{FindingKind, Scrubber};
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    static S: OnceLock<Scrubber> = OnceLock::new();
    let s = S.get_or_init(|| Scrubber::new(Some(std::path::Path::new("/home/u/proj"))));
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let f = s.find(text);
    let mut end = 0;
    for x in &f {
        assert!(x.start >= end && x.start < x.end && x.end <= text.len());
        assert!(text.is_char_boundary(x.start) && text.is_char_boundary(x.end));
        end = x.end;
    }
    let once = s.scrub(text).text;
    let again = s.find(&once);
    assert!(
        !again.iter().any(|x| matches!(x.kind, FindingKind::Secret { .. })),
        "a secret survives scrubbing: {once:?} -> {again:?}"
    );
});
