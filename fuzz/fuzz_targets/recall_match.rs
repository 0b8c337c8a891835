//! The recall gate (mem-recall `gate`): memories with arbitrary triggers
//! (words, phrases, `re:` regexes) and `paths` globs against an arbitrary
//! task and task paths, through `Doc::from_memory` and `decide`.
//!
//! Input, one item per line: the first line is the task; then lines
//! starting with `t` (a trigger), `g` (a glob), `p` (a task path), `d` (the
//! memory's body), `u` (the memory becomes `type: user`), `b` (budget:
//! `max_items` from the next byte), `-` (start the next memory); any other
//! line continues the task.
//!
//! Checks: no panic; one decision per memory; `literal_match` of a text
//! with itself holds, and a match is a substring; a recalled or dropped
//! memory has a reason to be relevant; a trigger that matches the task
//! literally, or a glob equal to a task path, makes the memory relevant.
#![no_main]

use chrono::NaiveDate;
use libfuzzer_sys::fuzz_target;
use mem_core::records::{Memory, MemoryType};
use mem_recall::gate::{Action, Doc, Query, Why, decide, literal_match};
use mem_core::text::{Stems, is_cjk};
use std::sync::OnceLock;

fn stems() -> &'static Stems {
    static S: OnceLock<Stems> = OnceLock::new();
    S.get_or_init(Stems::default)
}

/// A glob with no glob syntax that the gate uses as written.
fn plain_glob(g: &str) -> bool {
    !g.is_empty()
        && g == g.trim()
        && !g.starts_with("./")
        && !g.starts_with('/')
        && !g.contains(['*', '?', '[', ']', '{', '}', '\\', ',', '!'])
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let mut task = lines.next().unwrap_or("").to_string();
    let mut paths: Vec<String> = Vec::new();
    let mut mems: Vec<Memory> = vec![Memory::new("fuzz memory", "a memory", MemoryType::Feedback)];
    let mut max_items = 5usize;
    for l in lines {
        let (c, rest) = match l.chars().next() {
            Some(c) => (c, &l[c.len_utf8()..]),
            None => continue,
        };
        let m = mems.last_mut().unwrap();
        match c {
            't' => m.triggers.push(rest.to_string()),
            'g' => m.paths.push(rest.to_string()),
            'p' => paths.push(rest.to_string()),
            'd' => m.body = Some(rest.to_string()),
            'u' => m.mem_type = MemoryType::User,
            'b' => max_items = rest.bytes().next().map_or(0, usize::from),
            '-' if mems.len() < 16 => mems.push(Memory::new(
                format!("memory {}", mems.len()),
                rest,
                MemoryType::Project,
            )),
            _ => {
                task.push('\n');
                task.push_str(l);
            }
        }
    }
    for m in &mems {
        for t in &m.triggers {
            if literal_match(t, t) {
                assert!(!t.is_empty());
            } else {
                assert!(t.is_empty(), "{t:?} does not match itself");
            }
            if literal_match(&task, t) {
                assert!(task.contains(t.as_str()));
            }
        }
    }
    let s = stems();
    let docs: Vec<Doc> = mems
        .iter()
        .enumerate()
        .map(|(i, m)| Doc::from_memory(&format!("m{i}"), m, s))
        .collect();
    let refs: Vec<&Doc> = docs.iter().collect();
    let q = Query {
        task: task.clone(),
        paths: paths.clone(),
        today: NaiveDate::from_ymd_opt(2026, 1, 15).unwrap(),
        max_items,
        max_tokens: 2000,
        min_score: mem_recall::gate::DEFAULT_MIN_SCORE,
        guard: None,
        vocabulary: None,
        all_expired: false,
        low_trust: false,
    };
    let decs = decide(&refs, &q, s);
    assert_eq!(decs.len(), docs.len(), "one decision per memory");
    let mut seen = vec![false; docs.len()];
    let lower = task.to_lowercase();
    for d in &decs {
        assert!(
            !std::mem::replace(&mut seen[d.doc], true),
            "memory decided twice"
        );
        let doc = &docs[d.doc];
        if matches!(d.action, Action::Recall | Action::Drop) {
            assert!(!d.why.is_empty(), "relevant without a reason");
        }
        let _ = d.matched();
        // nothing retires, expires or supersedes these memories (unless the
        // body names another as superseded)
        if !doc.supersedes.is_empty() || docs.iter().any(|o| o.supersedes.contains(&doc.id)) {
            continue;
        }
        for t in &doc.triggers {
            let tl = t.trim().to_lowercase();
            if !t.trim().starts_with("re:") && !tl.chars().any(is_cjk) && literal_match(&lower, &tl)
            {
                assert!(
                    d.why.iter().any(|w| matches!(w, Why::Trigger(x) if x == t)),
                    "trigger {t:?} in task {lower:?} not matched: {:?}",
                    d.why
                );
            }
        }
        for g in &doc.paths {
            if plain_glob(g) && paths.iter().any(|p| p == g) {
                assert!(
                    d.why
                        .iter()
                        .any(|w| matches!(w, Why::Path { glob, .. } if glob == g)),
                    "glob {g:?} equal to a task path not matched: {:?}",
                    d.why
                );
            }
        }
    }
});
