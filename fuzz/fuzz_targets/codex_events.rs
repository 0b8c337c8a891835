//! Codex rollout bytes → replay events, as `mem-transcript replay` runs
//! them (read, emit; also `--resume`, `--raw` and text output), then the
//! `tree` / `verify` / `stats` reports of the same file.
//!
//! Checks: no panic; jsonl events are `Event` records with `seq` from 0,
//! one per event counted; `--raw` items lie inside the file.
#![no_main]

#[path = "common/transcript.rs"]
mod common;

use std::sync::Mutex;

use libfuzzer_sys::fuzz_target;
use mem_transcript::FromArg;
use mem_transcript::codex;
use mem_transcript::event::Sink;
use mem_transcript::input::{self, Window};

static SCRATCH: Mutex<Option<common::Scratch>> = Mutex::new(None);

/// A rollout file name (its UUID is the fallback session id).
const NAME: &str = "rollout-2026-01-11T10-00-00-019b0000-0000-7000-8000-00000000000a.jsonl";

fuzz_target!(|data: &[u8]| {
    let mut guard = SCRATCH.lock().unwrap();
    let s = guard.get_or_insert_with(|| common::Scratch::new(NAME));
    let inp = s.input(data);
    if !data.is_empty() {
        let _ = input::sniff(&inp);
        if let Ok(r) = codex::read(&inp) {
            for resume in [false, true] {
                let mut out = Vec::new();
                let written = {
                    let mut sink = Sink::buffered(&mut out, false);
                    let w = r.emit(resume, &mut sink).expect("emit to memory");
                    sink.flush().expect("flush");
                    w
                };
                assert_eq!(common::check_events(&out, "codex"), written);
                out.clear();
                {
                    let mut sink = Sink::new(&mut out, true);
                    r.emit(resume, &mut sink).expect("emit text");
                }
                let mut win = Window::new(&inp.file);
                for it in r.raw_items(resume) {
                    assert!(it.offset + it.len <= inp.size, "item past the end");
                    let b = win.get(it.offset, it.len as usize).expect("read item");
                    assert_eq!(b.len() as u64, it.len);
                }
            }
        }
    }
    common::reports(&s.path, &s.repaired, FromArg::Codex, data.len() % 2 == 1);
});
