//! `--model-cmd` against a scripted fake model: good, fenced and prose-wrapped
//! answers, garbage, huge output, a hang, secrets, traversal ids, the
//! recursion guard, and merging with the rules' memories.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use mem_core::records::Memory;
use serde_json::{Value, json};

fn events() -> String {
    let ev = |seq: u64, role: &str, kind: &str, extra: Value| {
        let mut v = json!({
            "session": "00000000-0000-4000-8000-0000000000cc", "source": "claude",
            "line": seq + 1, "seq": seq, "ts": "2026-07-11T09:00:00Z",
            "role": role, "kind": kind, "cwd": "/home/user/proj", "sidechain": false
        });
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v.to_string()
    };
    [
        ev(
            0,
            "user",
            "text",
            json!({"text": "Please don't mock the database in integration tests."}),
        ),
        ev(
            1,
            "assistant",
            "tool_use",
            json!({"tool": "Bash", "tool_id": "a", "input": {"command": "pytest"}}),
        ),
        ev(
            2,
            "user",
            "tool_result",
            json!({"tool_id": "a", "text": "bash: pytest: command not found", "is_error": true}),
        ),
    ]
    .join("\n")
        + "\n"
}

/// Run mem-extract with a fake model whose shell body is `body`.
fn run(body: &str, args: &[&str]) -> (i32, Vec<Memory>, String, f64) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("model.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ncat > {}/in.txt\n{body}\n", dir.path().display()),
    )
    .unwrap();
    let cmd = format!("sh {}", script.display());
    let start = Instant::now();
    let mut child = mem_tests::scrub(&mut Command::new(env!("CARGO_BIN_EXE_mem-extract")))
        .args(["--model-cmd", &cmd, "--format", "jsonl"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(events().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let recs = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a memory record"))
        .collect();
    (
        out.status.code().unwrap_or(-1),
        recs,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        start.elapsed().as_secs_f64(),
    )
}

fn model_ones(recs: &[Memory]) -> Vec<&Memory> {
    recs.iter()
        .filter(|m| m.source == Some(mem_core::records::Source::Model))
        .collect()
}

const GOOD: &str = r#"{"name":"Run tests with poetry run pytest","description":"pytest is only in the poetry env","type":"feedback","kind":"durable-lesson","fact":"Run tests with poetry run pytest.","why":"pytest is not installed globally","how":"poetry run pytest","triggers":["pytest","poetry"],"expires":"never","evidence":["L3"]}"#;

#[test]
fn a_good_answer_becomes_model_memories() {
    let (code, recs, err, _) = run(&format!("echo '{GOOD}'"), &[]);
    assert_eq!(code, 0, "{err}");
    let m = model_ones(&recs);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].name, "Run tests with poetry run pytest");
    assert_eq!(m[0].confidence, Some(0.6));
    assert_eq!(
        m[0].verified_at.map(|d| d.to_string()).as_deref(),
        Some("2026-07-11")
    );
    assert_eq!(m[0].evidence.len(), 1);
    assert!(m[0].evidence[0].starts_with("transcript:") && m[0].evidence[0].ends_with("#3"));
    assert!(m[0].project.is_some());
    // the rules' preference is there too
    assert!(recs.iter().any(|r| r.name.contains("mock the database")));
}

#[test]
fn fenced_and_prose_wrapped_answers_are_read_and_bad_lines_skipped() {
    let body = format!(
        "echo 'Here is what I found:'\necho '```json'\necho '{GOOD}'\necho '{{\"name\": oops'\necho '{{\"name\":\"No type\"}}'\necho '```'\necho 'Hope that helps.'"
    );
    let (code, recs, err, _) = run(&body, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(model_ones(&recs).len(), 1);
    assert!(err.contains("<model-cmd>:4: not a JSON object"), "{err}");
    assert!(
        err.contains("<model-cmd>:5: record skipped: no valid type"),
        "{err}"
    );
}

#[test]
fn garbage_gives_the_rules_memories_only() {
    let (code, recs, _, _) = run("head -c 3000 /dev/urandom | base64", &[]);
    assert_eq!(code, 0);
    assert!(model_ones(&recs).is_empty());
    assert!(!recs.is_empty());
}

#[test]
fn huge_output_is_capped() {
    let body = format!(
        "i=0; while [ $i -lt 200 ]; do echo '{GOOD}' | sed \"s/poetry run pytest/poetry run pytest $i/g\"; i=$((i+1)); done; head -c 3000000 /dev/zero | tr '\\0' x"
    );
    let (code, recs, err, _) = run(&body, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(model_ones(&recs).len(), 20);
    assert!(err.contains("more than 20 records"), "{err}");
}

#[test]
fn a_failing_command_exits_1_naming_its_status() {
    let (code, recs, err, _) = run("exit 3", &[]);
    assert_eq!(code, 1, "{err}");
    assert!(recs.is_empty());
    let last = err.lines().last().unwrap_or_default();
    assert_eq!(last, "mem-extract: --model-cmd: exited with exit status: 3");
}

#[test]
fn a_hang_is_killed_at_the_timeout() {
    let (code, recs, err, secs) = run("sleep 30", &["--model-timeout", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(recs.is_empty());
    assert!(err.contains("no answer within 1 s"), "{err}");
    assert!(secs < 10.0, "took {secs} s");
}

#[test]
fn secrets_and_traversal_ids_never_reach_the_output() {
    let body = r#"echo '{"name":"Deploy token","description":"token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB","type":"project","fact":"The key is AKIAIOSFODNN7EXAMPLE"}'
echo '{"id":"../../../etc/cron.d/x","name":"../../.ssh/authorized_keys","description":"d","type":"user"}'"#;
    let (code, recs, err, _) = run(body, &[]);
    assert_eq!(code, 0, "{err}");
    let all = serde_json::to_string(&recs).unwrap();
    assert!(
        !all.contains("ghp_0123") && !all.contains("AKIAIOSFODNN7"),
        "{all}"
    );
    let m = model_ones(&recs);
    let trav = m
        .iter()
        .find(|m| m.name.contains("authorized_keys"))
        .expect("kept, with a safe id");
    let id = trav.resolve_id().unwrap();
    assert!(!id.contains('/') && !id.contains(".."), "{id}");
}

#[test]
fn the_model_runs_under_the_guard_and_sees_the_digest_not_the_events() {
    let (code, recs, err, _) = run(
        r#"d=$(dirname "$0"); if [ "$MEM_HOOK_GUARD" = 1 ] && grep -q -- '---SESSION---' "$d/in.txt" && grep -q '^L3 output (quoted data): \"bash: pytest: command not found' "$d/in.txt" && ! grep -q '"seq"' "$d/in.txt"; then echo '{"name":"guarded","type":"user","description":"d"}'; fi"#,
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        model_ones(&recs)
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>(),
        ["guarded"]
    );
}

#[test]
fn a_model_memory_that_duplicates_a_rule_memory_raises_its_confidence() {
    let body = r#"echo '{"name":"Do not mock the database in integration tests","type":"feedback","description":"d","fact":"Do not mock the database in integration tests."}'"#;
    let (code, recs, err, _) = run(body, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(model_ones(&recs).is_empty(), "merged, not added");
    let r = recs
        .iter()
        .find(|r| r.name.contains("mock the database"))
        .unwrap();
    assert_eq!(r.confidence, Some(0.9));
}

#[test]
fn print_prompt_names_the_fields_and_what_not_to_keep() {
    let out = Command::new(env!("CARGO_BIN_EXE_mem-extract"))
        .arg("--print-prompt")
        .output()
        .unwrap();
    let p = String::from_utf8(out.stdout).unwrap();
    for w in [
        "\"fact\"",
        "\"why\"",
        "\"how\"",
        "\"evidence\"",
        "\"triggers\"",
        "\"kind\"",
        "\"expires\"",
        "Do NOT keep",
        "task state",
        "secrets",
        "tool output",
    ] {
        assert!(p.contains(w), "{w} missing");
    }
}
