//! The JSON scan of the transcript readers (`mem_core::scan`) against a full
//! `serde_json` parse of the same line (the baseline, same run): run with
//! `cargo bench -p mem-core --bench scan`.

use divan::{Bencher, black_box};
use mem_core::scan;

fn main() {
    divan::main();
}

/// A Claude Code assistant entry of a realistic shape: metadata, a text part
/// and a tool call with a long input, `n` times the text.
fn entry(n: usize) -> Vec<u8> {
    let text = "Run the setup script before the build so the fixture exists. ".repeat(n);
    serde_json::json!({
        "parentUuid": "7f0c1c4e-0000-4000-8000-000000000001",
        "isSidechain": false,
        "userType": "external",
        "cwd": "/home/me/project",
        "sessionId": "0b1c2d3e-0000-4000-8000-000000000001",
        "version": "2.0.14",
        "gitBranch": "main",
        "type": "assistant",
        "uuid": "7f0c1c4e-0000-4000-8000-000000000002",
        "timestamp": "2026-07-11T09:00:00.000Z",
        "message": {
            "id": "msg_01",
            "role": "assistant",
            "model": "claude-sonnet",
            "content": [
                {"type": "text", "text": text},
                {"type": "tool_use", "id": "toolu_01", "name": "Bash",
                 "input": {"command": "sh setup.sh && sh build-token.sh", "description": text}}
            ],
            "usage": {"input_tokens": 1200, "output_tokens": 300}
        }
    })
    .to_string()
    .into_bytes()
}

const SIZES: [usize; 3] = [1, 16, 256];

/// The scanner: the top-level keys, each value skipped (what the first pass
/// of `mem-transcript replay` does to find `uuid`/`parentUuid`).
#[divan::bench(args = SIZES)]
fn scan_keys(b: Bencher, n: usize) {
    let line = entry(n);
    b.counter(divan::counter::BytesCount::new(line.len()))
        .bench(|| {
            let mut o = scan::Obj::open(black_box(&line), 0, 0).expect("an object");
            let mut keys = 0usize;
            while let Some(Some(_)) = o.next_key() {
                o.skip_value().expect("a value");
                keys += 1;
            }
            keys
        });
}

/// The scanner validating the whole line as one value.
#[divan::bench(args = SIZES)]
fn scan_value(b: Bencher, n: usize) {
    let line = entry(n);
    b.counter(divan::counter::BytesCount::new(line.len()))
        .bench(|| scan::value(black_box(&line), 0, 0));
}

/// Baseline: `serde_json` building the whole value.
#[divan::bench(args = SIZES)]
fn serde_json_value(b: Bencher, n: usize) {
    let line = entry(n);
    b.counter(divan::counter::BytesCount::new(line.len()))
        .bench(|| serde_json::from_slice::<serde_json::Value>(black_box(&line)).unwrap());
}
