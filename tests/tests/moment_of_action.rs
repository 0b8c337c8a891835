//! What the real clients record when mem's `PreToolUse` hook stops a
//! command once (tests/fixtures/realclient/, recorded with Claude Code
//! 2.1.197 and Codex 0.169.1 by `tests/realclient/run.sh`, paths replaced):
//! the refusal is the tool call's result (Claude Code: the reason alone,
//! `is_error: true`; Codex: `Command blocked by PreToolUse hook: ` and the
//! reason). The write path must read it as neither a failure nor a success
//! of the command: the session (refused, setup, passed) teaches nothing new.

use std::path::Path;

use mem_tests::{cmd, fixtures, run, show, stdout};
use serde_json::Value;

const CLAUDE: &str = "realclient/claude-stopped-once.jsonl";
const CODEX: &str =
    "realclient/rollout-2026-12-05T01-47-08-01a243e2-3853-7fd3-a5d6-b2c5c1066784.jsonl";

/// `mem-transcript replay FILE | mem-extract` on `text`: the candidates.
fn candidates(home: &Path, name: &str, text: &str) -> Vec<Value> {
    let f = home.join(name);
    std::fs::write(&f, text).unwrap();
    let out = run(cmd("mem-transcript", home).arg("replay").arg(&f), b"");
    assert!(out.status.success(), "{}", show(&out));
    let ex = run(cmd("mem-extract", home), &out.stdout);
    assert!(ex.status.success(), "{}", show(&ex));
    stdout(&ex)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn lesson_rules(c: &[Value]) -> Vec<String> {
    c.iter()
        .filter_map(|v| v["rule"].as_str())
        .filter(|r| r.starts_with("lesson/"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_refusal_recorded_by_either_client_teaches_nothing() {
    let home = tempfile::tempdir().unwrap();
    for (name, refusal_prefix) in [
        (CLAUDE, "\"content\":\"Stopped once by mem"),
        (
            CODEX,
            "\"output\":\"Command blocked by PreToolUse hook: Stopped once by mem",
        ),
    ] {
        let text = std::fs::read_to_string(fixtures().join(name)).unwrap();
        assert!(
            text.contains(refusal_prefix),
            "{name}: the fixture records the refusal"
        );
        let file = Path::new(name).file_name().unwrap().to_str().unwrap();
        let c = candidates(home.path(), file, &text);
        assert_eq!(lesson_rules(&c), Vec::<String>::new(), "{name}: {c:#?}");
        if name == CODEX {
            continue;
        }
        // the same session with the command's failure in the refusal's
        // place: the fail → setup → pass lesson is learnt
        let plain = text
            .replace("Command blocked by PreToolUse hook: ", "")
            .replace(
                mem_core::lesson::STOP_HEADER,
                "build-token: error: cannot read .cache/setup.json (ENOENT)",
            );
        assert_ne!(plain, text);
        let c = candidates(home.path(), file, &plain);
        assert!(!lesson_rules(&c).is_empty(), "{name}: {c:#?}");
    }
}
