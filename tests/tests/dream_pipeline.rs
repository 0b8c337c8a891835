//! mem-dream reads sessions with mem-transcript's reader and extracts with
//! mem-extract's event stream, so a session gives the same candidates
//! through `mem-transcript replay | mem-extract` and through mem-dream's
//! gather step. Fixture sessions are in `tests/fixtures/sessions/`; every
//! session of `../shared/corpus` is extra coverage when present.

use std::path::{Path, PathBuf};

use mem_core::session::{SessionFile, head};
use mem_tests::{cmd, files_under, run, shared_or_skip, show, workspace_root};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    workspace_root().join("tests/fixtures/sessions").join(name)
}

/// The candidates of `mem-transcript replay FILE | mem-extract`.
fn pipeline(home: &Path, file: &Path) -> Vec<Value> {
    pipeline_of(home, file).expect("replay succeeds")
}

/// The candidates of the pipeline, or `None` when FILE does not replay.
fn pipeline_of(home: &Path, file: &Path) -> Option<Vec<Value>> {
    let mut replay = cmd("mem-transcript", home);
    replay.args(["replay", "--format", "jsonl"]).arg(file);
    let events = run(replay, b"");
    if events.status.code() != Some(0) {
        eprintln!("{}", show(&events));
        return None;
    }
    let mut extract = cmd("mem-extract", home);
    // relative recorded cwds resolve against the working directory: the
    // same one on both sides
    extract.args(["--format", "jsonl"]);
    let out = run(extract, &events.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

/// The candidates mem-dream gathers from the same file.
fn dream(home: &Path, file: &Path) -> Vec<Value> {
    let s = SessionFile {
        path: file.to_path_buf(),
        id: file.file_stem().unwrap().to_string_lossy().into_owned(),
        mtime: std::fs::metadata(file).unwrap().modified().unwrap(),
        head: head(file),
    };
    let mut warnings = Vec::new();
    let _ = home;
    let here = std::env::current_dir().unwrap();
    mem_dream::gather::session(&s, &here, &mut warnings)
        .into_iter()
        .map(|(m, _, _)| serde_json::to_value(&m).unwrap())
        .collect()
}

fn names(ms: &[Value]) -> Vec<&str> {
    ms.iter().map(|m| m["name"].as_str().unwrap()).collect()
}

fn both(file: &Path) -> Vec<Value> {
    let home = tempfile::tempdir().unwrap();
    let p = pipeline(home.path(), file);
    let d = dream(home.path(), file);
    assert_eq!(p, d, "{}: pipeline and mem-dream disagree", file.display());
    p
}

/// Regression: mem-dream's own reader took the compaction summary's "Never
/// use npm…" for the user's words and planned `create summary-never-use-npm-…`.
#[test]
fn a_compaction_summary_gives_no_rule_through_either() {
    let ms = both(&fixture("compaction-summary.jsonl"));
    assert!(
        ms.iter().all(|m| !m.to_string().contains("npm")),
        "{:?}",
        names(&ms)
    );
}

/// A compaction summary that opens a continued session gives the user's
/// message it quotes (as the assistant's copy, confidence 0.6), and
/// nothing from its own lines ("Never use npm…", a pending task).
#[test]
fn a_compaction_summary_gives_only_the_users_quoted_words() {
    let ms = both(&fixture("compaction-quotes.jsonl"));
    assert_eq!(names(&ms), ["Always run the linter before committing"]);
    assert_eq!(ms[0]["source"], "assistant");
    assert_eq!(ms[0]["confidence"], 0.6);
    assert_eq!(ms[0]["rule"], "summary/feedback/always");
}

/// Regression: mem-dream read only text, so fail → setup → pass gave no lesson.
#[test]
fn fail_setup_pass_gives_the_lesson_through_both() {
    let ms = both(&fixture("fail-setup-pass.jsonl"));
    assert_eq!(names(&ms), ["Run npm run setup before npm test"]);
    assert_eq!(ms[0]["kind"], "durable-lesson");
}

/// Regression: mem-dream read every line, so a rewound branch's instruction
/// came back.
#[test]
fn a_rewound_branch_does_not_come_back() {
    let ms = both(&fixture("rewound-branch.jsonl"));
    assert_eq!(names(&ms), ["Always run cargo fmt before committing"]);
}

/// The dream's plan creates what the pipeline extracts, and nothing else.
#[test]
fn the_dream_plans_the_pipelines_candidates() {
    let home = tempfile::tempdir().unwrap();
    let t = home.path().join("transcripts");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::create_dir_all(home.path().join("memory")).unwrap();
    for f in [
        "compaction-summary.jsonl",
        "fail-setup-pass.jsonl",
        "rewound-branch.jsonl",
    ] {
        std::fs::copy(fixture(f), t.join(f)).unwrap();
    }
    let mut c = cmd("mem-dream", home.path());
    c.args(["--dry-run", "--force", "--format", "jsonl"])
        .args(["--today", "2026-07-10", "--now", "2026-07-10T00:00:00Z"])
        .arg("--memory-dir")
        .arg(home.path().join("memory"))
        .arg("--transcripts")
        .arg(&t);
    let out = run(c, b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let creates: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|o| o["op"] == "create")
        .map(|o| o["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        creates,
        [
            "run-npm-run-setup-before-npm-test",
            "always-run-cargo-fmt-before-committing"
        ]
    );
}

/// Extra coverage: every corpus session agrees.
#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn every_corpus_session_gives_the_same_candidates() {
    let Some(shared) = shared_or_skip("every_corpus_session_gives_the_same_candidates") else {
        return;
    };
    let corpus = shared.join("corpus");
    let only = std::env::var("MEM_TEST_ONLY").unwrap_or_default();
    let files: Vec<PathBuf> = files_under(&corpus)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter(|p| p.to_string_lossy().contains(&only))
        .collect();
    assert!(!files.is_empty());
    let home = tempfile::tempdir().unwrap();
    let mut differ = Vec::new();
    for f in &files {
        // not a transcript: neither side reads it
        let Some(p) = pipeline_of(home.path(), f) else {
            continue;
        };
        let d = dream(home.path(), f);
        if p != d {
            differ.push(format!(
                "{}:\n  pipeline {p:?}\n  dream    {d:?}",
                f.display()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "pipeline and mem-dream disagree on {}",
        differ.join("\n")
    );
}
