//! Codex rollouts in every form Codex has written a shell call and its
//! result in (`tests/fixtures/codex-forms/`): the failed call reads as
//! failed everywhere — `replay`'s `is_error`, `stats`' errors, the session
//! summary — and `mem-extract` learns the fail → fix → pass lesson.

use std::path::{Path, PathBuf};

use mem_tests::{cmd, fixtures, run, show, stdout};
use serde_json::Value;

fn forms() -> Vec<PathBuf> {
    let dir = fixtures().join("codex-forms");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    assert!(v.len() >= 7, "{v:?}");
    v
}

fn replay(home: &Path, f: &Path) -> String {
    let out = run(cmd("mem-transcript", home).arg("replay").arg(f), b"");
    assert!(out.status.success(), "{}: {}", f.display(), show(&out));
    stdout(&out)
}

fn events(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn replay_marks_the_failed_call_as_an_error() {
    let home = tempfile::tempdir().unwrap();
    for f in forms() {
        let evs = events(&replay(home.path(), &f));
        let results: Vec<(&str, Option<bool>)> = evs
            .iter()
            .filter(|e| e["kind"] == "tool_result")
            .map(|e| (e["text"].as_str().unwrap(), e["is_error"].as_bool()))
            .collect();
        assert_eq!(
            results,
            [
                (
                    "build-token: error: cannot read .cache/setup.json (ENOENT)\n",
                    Some(true)
                ),
                ("setup: wrote .cache/setup.json\n", Some(false)),
                ("build-token: ok, token=tok-s3\n", Some(false)),
            ],
            "{}",
            f.display()
        );
        // every result names its call's tool
        assert!(
            evs.iter()
                .filter(|e| e["kind"] == "tool_result")
                .all(|e| e["tool"].is_string()),
            "{}",
            f.display()
        );
    }
}

#[test]
fn stats_count_the_failed_call() {
    let home = tempfile::tempdir().unwrap();
    for f in forms() {
        let out = run(cmd("mem-transcript", home.path()).arg("stats").arg(&f), b"");
        assert!(out.status.success(), "{}", show(&out));
        let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let errors: u64 = v["tool_errors"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(errors, 1, "{}: {v}", f.display());
        let calls: u64 = v["tool_calls"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(calls, 3, "{}: {v}", f.display());
    }
}

#[test]
fn extract_learns_the_fail_fix_pass_lesson() {
    let home = tempfile::tempdir().unwrap();
    for f in forms() {
        let evs = replay(home.path(), &f);
        let out = run(cmd("mem-extract", home.path()), evs.as_bytes());
        assert!(out.status.success(), "{}", show(&out));
        let lessons: Vec<Value> = events(&stdout(&out))
            .into_iter()
            .filter(|r| r["rule"] == "lesson/fail-fix-succeed")
            .collect();
        assert_eq!(lessons.len(), 1, "{}: {}", f.display(), show(&out));
        assert_eq!(
            lessons[0]["fact"],
            "Run `node src/setup.mjs` before `node src/build-token.mjs`.",
            "{}",
            f.display()
        );
        assert!(
            lessons[0]["why"]
                .as_str()
                .unwrap()
                .contains("build-token: error: cannot read .cache/setup.json"),
            "{}: {}",
            f.display(),
            lessons[0]
        );
    }
}

/// The session summary (written once the session is long enough: a long
/// answer is added after the commands) says which command failed.
#[test]
fn session_summary_says_the_command_failed() {
    let home = tempfile::tempdir().unwrap();
    for f in forms() {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let last_output = lines.iter().rposition(|l| l.contains("_output\"")).unwrap();
        let pad = serde_json::json!({
            "timestamp": "2026-12-05T01:02:45.300Z", "type": "response_item",
            "payload": {"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": "notes ".repeat(12_000)}]}});
        lines.insert(last_output + 1, pad.to_string());
        let long = home.path().join(f.file_name().unwrap());
        std::fs::write(&long, lines.join("\n") + "\n").unwrap();
        let evs = replay(home.path(), &long);
        let summary = home.path().join("summary.md");
        let out = run(
            cmd("mem-extract", home.path())
                .args(["session", "--out"])
                .arg(&summary),
            evs.as_bytes(),
        );
        assert!(out.status.success(), "{}", show(&out));
        let s = std::fs::read_to_string(&summary).unwrap();
        assert!(
            s.contains("- `node src/build-token.mjs` — failed\n- `node src/setup.mjs` — ok\n- `node src/build-token.mjs` — ok\n"),
            "{}:\n{s}",
            f.display()
        );
    }
}

/// A unified-exec command that outlives its call: `exec_command` answers
/// `Process running with session ID 7`, `write_stdin` later collects the
/// exit and the output, and the `CommandExecution` record of the first call
/// id (written after both) says it failed. Both results read as failed, the
/// lesson is still learnt from the command and the output `write_stdin`
/// collected.
#[test]
fn a_command_finished_by_write_stdin_reads_as_failed() {
    let home = tempfile::tempdir().unwrap();
    let f = fixtures().join("codex-forms/write-stdin/exec-command-write-stdin.jsonl");
    let text = replay(home.path(), &f);
    let results: Vec<(String, Option<bool>, String)> = events(&text)
        .iter()
        .filter(|e| e["kind"] == "tool_result")
        .map(|e| {
            (
                e["tool"].as_str().unwrap().to_string(),
                e["is_error"].as_bool(),
                e["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        results[0],
        ("exec_command".into(), Some(true), String::new())
    );
    assert_eq!(
        results[1],
        (
            "write_stdin".into(),
            Some(true),
            "build-token: error: cannot read .cache/setup.json (ENOENT)\n".into()
        )
    );
    assert_eq!(results[2].1, Some(false));
    assert_eq!(results[3].1, Some(false));
    let out = run(cmd("mem-extract", home.path()), text.as_bytes());
    assert!(out.status.success(), "{}", show(&out));
    let lesson = events(&stdout(&out))
        .into_iter()
        .find(|r| r["rule"] == "lesson/fail-fix-succeed")
        .unwrap_or_else(|| panic!("{}", show(&out)));
    assert_eq!(
        lesson["fact"],
        "Run `node src/setup.mjs` before `node src/build-token.mjs`."
    );
}
