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
