//! The recall hot path on the project's labelled tasks
//! (`tests/fixtures/recall-eval/`): the tokenizer and stemmer, and the gate
//! deciding every memory of the Claude-style memory directory for a task.
//! Run with `cargo bench -p mem-recall --bench gate`.

use std::path::PathBuf;
use std::sync::Arc;

use chrono::NaiveDate;
use divan::{Bencher, black_box};
use mem_core::text::{Stems, words};
use mem_recall::gate::Query;
use mem_recall::load::load_dir;

fn main() {
    divan::main();
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall-eval")
}

/// The tasks of the labelled set written for the Claude-style memories.
fn tasks() -> Vec<String> {
    std::fs::read_to_string(fixtures().join("tasks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|t| t["memory"] == "claude")
        .map(|t| t["task"].as_str().unwrap().to_string())
        .collect()
}

/// The words of every task (lowercased, split, CJK runs kept).
#[divan::bench]
fn tokenize_tasks(b: Bencher) {
    let tasks = tasks();
    b.bench(|| {
        tasks
            .iter()
            .map(|t| words(black_box(t)).len())
            .sum::<usize>()
    });
}

/// The content stems of every task (stop words dropped, English stems).
#[divan::bench]
fn stem_tasks(b: Bencher) {
    let tasks = tasks();
    let stems = Stems::default();
    b.bench(|| {
        tasks
            .iter()
            .map(|t| stems.content(black_box(t)).len())
            .sum::<usize>()
    });
}

/// The part of the built-in vocabulary each task of the set can meet
/// (read from the tables made at compile time).
#[divan::bench]
fn vocabulary_for_every_task(b: Bencher) {
    let tasks = tasks();
    b.bench(|| {
        tasks
            .iter()
            .map(|t| {
                mem_recall::vocab::Vocabulary::for_task(black_box(t), None)
                    .terms
                    .len()
            })
            .sum::<usize>()
    });
}

/// The gate: every task of the set against the loaded memory directory
/// (vocabulary expansion on, as the binary runs it).
#[divan::bench]
fn gate_decides_every_task(b: Bencher) {
    let stems = Stems::default();
    let items = load_dir(&fixtures().join("claude-memory"), None, &stems)
        .unwrap()
        .items;
    let vocab = Arc::new(mem_recall::vocab::Vocabulary::builtin());
    let today = NaiveDate::from_ymd_opt(2026, 7, 11).unwrap();
    let queries: Vec<Query> = tasks()
        .into_iter()
        .map(|task| Query::with_defaults(task, today, Some(vocab.clone())))
        .collect();
    b.bench(|| {
        queries
            .iter()
            .map(|q| mem_recall::decide(black_box(&items), q, &stems).len())
            .sum::<usize>()
    });
}

/// Loading a memory directory of 2,000 generated topic files through a
/// warm recall cache: reading and parsing the cache, one stat per file,
/// decoding every entry (the file's own parse is not measured). Few runs:
/// each keeps the cache's bytes (about 2 MB) for the rest of the process.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn load_through_the_cache(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mem");
    std::fs::create_dir_all(&dir).unwrap();
    let words = [
        "build",
        "deploy",
        "cache",
        "index",
        "parser",
        "config",
        "server",
        "token",
        "schema",
        "migration",
        "release",
        "queue",
        "worker",
        "retry",
        "timeout",
        "docker",
    ];
    for i in 0..2000 {
        let w = |k: usize| words[(i * 7 + k * 3) % words.len()];
        let body: Vec<&str> = (0..60).map(|k| words[(i + k * k) % words.len()]).collect();
        let p = dir.join(format!("topic-{i:05}.md"));
        std::fs::write(
            &p,
            format!(
                "---\nname: \"Topic {i} about {}\"\ndescription: \"{} needs {}\"\ntype: feedback\ntriggers: [\"{}\", \"{}\"]\npaths: [\"src/{}/**\"]\n---\nFact: {} needs {}.\nWhy: {}\n",
                w(0), w(0), w(1), w(0), w(1), w(2), w(0), w(1), body.join(" ")
            ),
        )
        .unwrap();
        filetime::set_file_mtime(&p, filetime::FileTime::from_unix_time(1_700_000_000, 0)).unwrap();
    }
    let cache = tmp.path().join("cache/recall.cache");
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    let stems = Stems::default();
    load_dir(&dir, Some(&cache), &stems).unwrap();
    b.bench(|| {
        let l = load_dir(black_box(&dir), Some(&cache), &stems).unwrap();
        assert_eq!(l.cached, 2000);
        l.items.len()
    });
}
