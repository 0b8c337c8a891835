//! Frontmatter read/write round trip: whatever parses renders to text that
//! parses back to the same memory, and renders the same again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mem_core::frontmatter::{parse, render};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = parse("fuzz.md", text) else {
        return;
    };
    let once = render(&m);
    let back = parse("fuzz.md", &once)
        .unwrap_or_else(|e| panic!("rendered text does not parse: {e}\n{once}"));
    let twice = render(&back);
    assert_eq!(once, twice, "render is not stable");
});
