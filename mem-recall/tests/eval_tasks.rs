//! The project's own recall tasks (tests/fixtures/recall-eval/tasks.jsonl):
//! hit rate and false recalls per category, through the library's gate,
//! against the Claude-Code-style memory directory beside them (no triggers)
//! and, when `../shared` is present, the memories of ../shared/eval/recall.
//! `eval/eval-recall.py` prints the same numbers through the binary.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use mem_core::text::Stems;
use mem_recall::gate::{Action, Query};
use mem_recall::load::load_dir;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall-eval")
}

/// `../shared` with its recall eval set (extra coverage), if present.
fn shared() -> Option<PathBuf> {
    mem_tests::shared_dir().filter(|p| p.join("eval/recall/memory").is_dir())
}

/// Per category of the tasks of one fixture file, against one memory
/// folder: (hits, expected, false recalls, tasks).
fn score_set(file: &str, memory: &str) -> BTreeMap<String, (usize, usize, usize, usize)> {
    let stems = Stems::default();
    let dir = match memory {
        "claude" => fixtures().join("claude-memory"),
        _ => shared().expect("shared").join("eval/recall/memory"),
    };
    let items = load_dir(&dir, None, &stems).unwrap().items;
    let vocab = std::sync::Arc::new(mem_recall::vocab::Vocabulary::builtin());
    let text = std::fs::read_to_string(fixtures().join(file)).unwrap();
    let mut out: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
    for line in text.lines() {
        let t: serde_json::Value = serde_json::from_str(line).unwrap();
        if t["memory"] != memory {
            continue;
        }
        let q = Query::with_defaults(
            t["task"].as_str().unwrap().to_string(),
            NaiveDate::parse_from_str(t["today"].as_str().unwrap(), "%Y-%m-%d").unwrap(),
            Some(vocab.clone()),
        );
        let got: HashSet<String> = mem_recall::decide(&items, &q, &stems)
            .iter()
            .filter(|d| d.action == Action::Recall)
            .map(|d| items[d.doc].doc.id.to_string())
            .collect();
        let ids = |k: &str| -> HashSet<String> {
            t[k].as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        let (e, f) = (ids("expect"), ids("forbid"));
        let s = out
            .entry(t["category"].as_str().unwrap().to_string())
            .or_default();
        s.0 += e.intersection(&got).count();
        s.1 += e.len();
        s.2 += f.intersection(&got).count();
        s.3 += 1;
    }
    out
}

fn check(memory: &str, floors: &[(&str, usize, usize)]) {
    check_set("tasks.jsonl", memory, floors)
}

fn check_set(file: &str, memory: &str, floors: &[(&str, usize, usize)]) {
    let got = score_set(file, memory);
    eprintln!("{memory}: {got:?}");
    for (cat, min_hits, max_false) in floors {
        let (h, n, fr, _) = got[*cat];
        assert!(
            h >= *min_hits && fr <= *max_false,
            "{memory} {cat}: hits {h}/{n} (floor {min_hits}), false recalls {fr} (ceiling {max_false})"
        );
    }
}

#[test]
fn claude_style_memories_meet_the_floors() {
    check(
        "claude",
        &[
            ("paraphrase", 8, 0),
            ("partial", 9, 1),
            ("zh", 6, 0),
            ("unrelated", 0, 0),
        ],
    );
}

#[test]
fn shared_eval_memories_meet_the_floors() {
    if mem_tests::shared_or_skip("shared_eval_memories_meet_the_floors").is_none() {
        return;
    }
    check(
        "eval",
        &[
            ("paraphrase", 5, 0),
            ("partial", 3, 0),
            ("zh", 6, 0),
            ("unrelated", 0, 0),
        ],
    );
}

/// The held-out paraphrases written to measure a semantic tier
/// (holdout-semantic.jsonl, docs/recall.md "Semantic tier"): the lexical
/// tier's hits there, and no false recall on the unrelated tasks.
#[test]
fn semantic_holdout_keeps_the_lexical_numbers() {
    check_set(
        "holdout-semantic.jsonl",
        "claude",
        &[("paraphrase", 2, 0), ("unrelated", 0, 0)],
    );
}
