//! Claude Code transcript bytes → replay events, as `mem-transcript replay`
//! runs them (index, walk, emit; also `--resume`, `--leaf`, `--raw` and text
//! output), then the `tree` / `verify` (with `--repair`) / `stats` reports of
//! the same file (jsonl or text by the input's length).
//!
//! Checks: no panic; a walk without `--leaf` never fails and gives distinct
//! nodes ending at its leaf; every uuid re-read from a node's line finds a
//! node, and walking from it succeeds; jsonl events are `Event` records
//! with `seq` from 0, one per event written; `--raw` prints one line per
//! branch node.
#![no_main]

#[path = "common/transcript.rs"]
mod common;

use std::sync::Mutex;

use libfuzzer_sys::fuzz_target;
use mem_transcript::claude::{self, Branch, Index, WalkOpts};
use mem_transcript::event::Sink;
use mem_transcript::input::{self, Input};
use mem_transcript::{FromArg, report};

static SCRATCH: Mutex<Option<common::Scratch>> = Mutex::new(None);

fn check_branch(ix: &Index, br: &Branch) {
    let mut seen = std::collections::HashSet::new();
    for &i in &br.nodes {
        assert!((i as usize) < ix.nodes.len());
        assert!(seen.insert(i), "node {i} twice on a branch");
    }
    match br.leaf {
        Some(l) => assert_eq!(br.nodes.last(), Some(&l), "branch does not end at its leaf"),
        None => assert!(br.nodes.is_empty()),
    }
    let _ = ix.walk_warnings(br);
    let _ = ix.conversation_count(br);
}

fn replay(inp: &Input, ix: &Index, br: &Branch) {
    check_branch(ix, br);
    if br.leaf.is_none() {
        return;
    }
    // jsonl events
    let mut out = Vec::new();
    let done = {
        let mut sink = Sink::buffered(&mut out, false);
        let done = claude::emit(inp, ix, br, false, &mut sink, 1).expect("emit to memory");
        sink.flush().expect("flush");
        done
    };
    let n = common::check_events(&out, "claude");
    assert_eq!(n, done.written, "events written vs lines");
    // text
    out.clear();
    {
        let mut sink = Sink::new(&mut out, true);
        let _ = claude::emit(inp, ix, br, false, &mut sink, 1).expect("emit text");
    }
    // raw: one line per node of the branch
    out.clear();
    let done = {
        let mut sink = Sink::buffered(&mut out, false);
        let done = claude::emit(inp, ix, br, true, &mut sink, 1).expect("emit raw");
        sink.flush().expect("flush");
        done
    };
    assert_eq!(done.written as usize, br.nodes.len());
    assert_eq!(
        out.iter().filter(|&&b| b == b'\n').count(),
        br.nodes.len(),
        "raw output is not one line per node"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut guard = SCRATCH.lock().unwrap();
    let s = guard.get_or_insert_with(|| common::Scratch::new("session.jsonl"));
    let inp = s.input(data);
    if !data.is_empty() {
        let _ = input::sniff(&inp);
        if let Ok(ix) = claude::index(&inp) {
            assert!(ix.nodes.len() <= ix.objects && ix.objects <= ix.lines);
            for resume in [false, true] {
                let br = ix
                    .walk(&WalkOpts { resume, leaf: None })
                    .expect("a walk without --leaf");
                replay(&inp, &ix, &br);
            }
            // --leaf: the uuid of a node chosen by the input, as `tree` shows it
            if !ix.nodes.is_empty() {
                let i = (data.len() % ix.nodes.len()) as u32;
                if let Some(u) = report::uuid_of(&inp, &ix, i) {
                    assert!(
                        ix.find(&u).is_some(),
                        "uuid {u:?} of node {i} finds no node"
                    );
                    let br = ix
                        .walk(&WalkOpts {
                            resume: data.len() % 3 == 0,
                            leaf: Some(u),
                        })
                        .expect("--leaf of an existing node");
                    replay(&inp, &ix, &br);
                }
            }
        }
    }
    common::reports(&s.path, &s.repaired, FromArg::Claude, data.len() % 2 == 1);
});
