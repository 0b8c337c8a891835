//! Session memory turn by turn, through the built binaries: a transcript
//! fed one turn at a time, with `mem-hook` run on `Stop` after
//! each, writes the same session summary (and state) as one `Stop` over the
//! whole transcript, and reads each byte of the transcript once. With
//! auto-compaction off nothing is read, and the watermark stays: the first
//! run after it is turned on reads every turn since.
//!
//! A synthetic transcript always runs; a real one from `../shared/corpus`
//! runs when that folder is present.

use std::path::{Path, PathBuf};

use mem_tests::{Home, bin, run, show};
use serde_json::{Value, json};

const SID: &str = "7a11e5ed-1111-4222-8333-944455556666";

/// A throwaway home, its project folder and the transcript being written.
struct World {
    home: Home,
    project: PathBuf,
    transcript: PathBuf,
}

impl World {
    fn new() -> World {
        let home = Home::new();
        let project = home.path().join("proj");
        std::fs::create_dir_all(&project).unwrap();
        let transcript = home.path().join(format!("{SID}.jsonl"));
        World {
            home,
            project,
            transcript,
        }
    }

    /// `mem-hook` on `Stop`, with `env` set: must exit 0 and print
    /// nothing on stdout. Returns its stderr.
    fn stop(&self, env: &[(&str, &str)]) -> String {
        let mut c = self.home.command(bin("mem-hook"));
        for (k, v) in env {
            c.env(k, v);
        }
        let input = json!({
            "session_id": SID,
            "transcript_path": self.transcript,
            "cwd": self.project,
            "hook_event_name": "Stop",
            "stop_hook_active": false,
        });
        let o = run(c, input.to_string().as_bytes());
        assert!(o.status.success(), "{}", show(&o));
        assert!(o.stdout.is_empty(), "{}", show(&o));
        String::from_utf8_lossy(&o.stderr).into_owned()
    }

    /// The file `name` of the session's hook-state folder, when written.
    fn state_file(&self, name: &str) -> Option<PathBuf> {
        mem_tests::files_under(&self.home.path().join("cache"))
            .into_iter()
            .find(|p| p.file_name().is_some_and(|n| n == name))
    }

    fn summary(&self) -> Option<String> {
        self.state_file("session-memory.md")
            .map(|p| std::fs::read_to_string(p).unwrap())
    }

    fn json(&self, name: &str) -> Option<Value> {
        self.state_file(name)
            .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
    }

    fn append(&self, text: &str) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.transcript)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }
}

/// The transcript's lines cut into turns: a turn starts at a main-agent
/// user entry that is a prompt (text, not a tool result or a meta entry).
fn turns(text: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![String::new()];
    for line in text.split_inclusive('\n') {
        let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let content = &v["message"]["content"];
        let prompt = v["type"] == "user"
            && v["isSidechain"] != true
            && v["isMeta"] != true
            && (content.is_string()
                || content
                    .as_array()
                    .and_then(|a| a.first())
                    .is_some_and(|b| b["type"] == "text"));
        if prompt && !out.last().unwrap().is_empty() {
            out.push(String::new());
        }
        out.last_mut().unwrap().push_str(line);
    }
    out
}

/// Feed `text` one turn at a time (a `Stop` after each) into one world
/// and whole (one `Stop`) into another; the summaries and states must be
/// the same. Returns the turn-by-turn world and the number of turns.
fn turn_by_turn_equals_one_pass(text: &str, env: &[(&str, &str)]) -> (World, usize) {
    let ts = turns(text);
    let by_turn = World::new();
    for t in &ts {
        by_turn.append(t);
        by_turn.stop(env);
    }
    let one = World::new();
    one.append(text);
    one.stop(env);
    let a = by_turn.summary().expect("no summary turn by turn");
    let b = one.summary().expect("no summary in one pass");
    assert_eq!(a, b, "the summaries differ");
    let (sa, sb) = (
        by_turn.json("session.json").unwrap(),
        one.json("session.json").unwrap(),
    );
    for k in [
        "last_seq",
        "tokens",
        "tokens_at_update",
        "tool_calls",
        "pending_from",
        "segments",
        "awaiting",
        "pending",
    ] {
        assert_eq!(sa.get(k), sb.get(k), "session.json differs at {k}");
    }
    // each byte of the transcript read once, one read per turn
    let wm = by_turn.json("compact.json").unwrap();
    let size = std::fs::metadata(&by_turn.transcript).unwrap().len();
    assert_eq!(wm["offset"], size, "{wm}");
    assert_eq!(wm["bytes_read"], size, "{wm}");
    assert_eq!(wm["reads"], ts.len() as u64, "{wm}");
    (by_turn, ts.len())
}

/// One Claude Code transcript line.
fn entry(cwd: &str, uuid: usize, parent: Option<usize>, ty: &str, message: Value) -> String {
    let mut v = json!({
        "parentUuid": parent.map(|p| format!("00000000-0000-4000-8000-{p:012}")),
        "isSidechain": false,
        "userType": "external",
        "cwd": cwd,
        "sessionId": SID,
        "version": "2.1.39",
        "type": ty,
        "uuid": format!("00000000-0000-4000-8000-{uuid:012}"),
        "timestamp": format!("2026-07-11T09:{:02}:{:02}Z", uuid / 60, uuid % 60),
        "message": message,
    });
    if ty == "assistant" {
        v["message"]["role"] = json!("assistant");
    } else {
        v["message"]["role"] = json!("user");
    }
    format!("{v}\n")
}

/// A synthetic session of `n` turns in `cwd`, about 1,400 tokens each: a
/// request (with a decision) and a test run that fails on odd turns; every
/// fifth turn makes four tool calls in a row (an update in the middle of a
/// turn).
fn synthetic(n: usize, cwd: &str) -> String {
    let filler = "the orders service keeps its refund cases in one table ".repeat(90);
    let mut s = String::new();
    let mut id = 1;
    let mut parent: Option<usize> = None;
    let mut push = |s: &mut String, ty: &str, message: Value| {
        s.push_str(&entry(cwd, id, parent, ty, message));
        parent = Some(id);
        id += 1;
    };
    for t in 0..n {
        push(
            &mut s,
            "user",
            json!({"content": format!("Fix refund case {t}. Never mock the database in these tests. {filler}")}),
        );
        let calls = if t % 5 == 4 { 4 } else { 1 };
        for c in 0..calls {
            let tool = format!("toolu_{t}_{c}");
            push(
                &mut s,
                "assistant",
                json!({"id": format!("msg_{t}_{c}"), "content": [{"type": "tool_use", "id": tool, "name": "Bash", "input": {"command": format!("cargo test -p orders refund_{t}_{c}")}}]}),
            );
            let failed = t % 2 == 1 && c == 0;
            push(
                &mut s,
                "user",
                json!({"content": [{"type": "tool_result", "tool_use_id": tool, "content": if failed { "test failed: refund total mismatch" } else { "test result: ok. 1 passed" }, "is_error": failed}]}),
            );
        }
        push(
            &mut s,
            "assistant",
            json!({"id": format!("msg_{t}_done"), "content": [{"type": "text", "text": format!("Refund case {t} is done. {}", &filler[..400])}]}),
        );
    }
    s
}

#[test]
fn a_synthetic_session_turn_by_turn_equals_one_pass() {
    let text = synthetic(24, "/home/user/proj");
    let (w, n) = turn_by_turn_equals_one_pass(&text, &[]);
    assert_eq!(n, 24);
    let summary = w.summary().unwrap();
    let segments = summary.matches("\n## Segment ").count();
    assert!(segments >= 4, "{segments} segments:\n{summary}");
    assert!(
        summary.starts_with("# Session summary\n\n## Segment 1\n"),
        "{summary}"
    );
    assert!(summary.contains("Never mock the database"), "{summary}");
    assert!(
        summary.contains("`cargo test -p orders refund_1_0` — failed"),
        "{summary}"
    );
    // nothing of the assistant's prose or the tools' output is kept
    let state = std::fs::read_to_string(w.state_file("session.json").unwrap()).unwrap();
    assert!(!state.contains("is done"), "{state}");
    assert!(!state.contains("refund total mismatch"), "{state}");
}

/// The thresholds come from the environment: lower ones make more
/// segments, and turn by turn still equals one pass.
#[test]
fn thresholds_from_the_environment() {
    let text = synthetic(8, "/home/user/proj");
    let env = [
        ("MEM_SESSION_INIT_TOKENS", "1500"),
        ("MEM_SESSION_UPDATE_TOKENS", "1000"),
        ("MEM_SESSION_TOOL_CALLS", "2"),
    ];
    let (w, _) = turn_by_turn_equals_one_pass(&text, &env);
    let low = w.summary().unwrap().matches("## Segment ").count();
    let d = World::new();
    d.append(&text);
    d.stop(&[]);
    let default = d.summary().map_or(0, |s| s.matches("## Segment ").count());
    assert!(
        low > default,
        "{low} segments with low thresholds, {default} by default"
    );
    assert!(low >= 6, "{low}");
    // a value that is not a count is said and the default kept
    let e = World::new();
    e.append(&text);
    let err = e.stop(&[("MEM_SESSION_INIT_TOKENS", "lots")]);
    assert!(
        err.contains(
            "MEM_SESSION_INIT_TOKENS=\"lots\" is not a whole number of at least 1; using 10000"
        ),
        "{err}"
    );
}

/// Auto-compaction off (the variable, or `autoCompactEnabled: false` where
/// `/config` writes it): nothing is read and the watermark stays, so the
/// first `Stop` after it is on again reads every turn since, and the
/// summary is the one-pass one.
#[test]
fn auto_compaction_off_never_skips_a_turn() {
    let text = synthetic(12, "/home/user/proj");
    let ts = turns(&text);
    let w = World::new();
    let config = w.home.claude().join(".claude.json");
    std::fs::create_dir_all(w.home.claude()).unwrap();
    for (i, t) in ts.iter().enumerate() {
        w.append(t);
        if i < 4 {
            let err = w.stop(&[("DISABLE_AUTO_COMPACT", "1")]);
            assert!(
                err.contains("auto-compaction is off (DISABLE_AUTO_COMPACT is set)"),
                "{err}"
            );
        } else if i < 8 {
            std::fs::write(
                &config,
                r#"{"autoCompactEnabled": false, "numStartups": 3}"#,
            )
            .unwrap();
            let err = w.stop(&[]);
            assert!(err.contains("autoCompactEnabled is false in"), "{err}");
        } else {
            if i == 8 {
                assert!(w.json("compact.json").is_none(), "read while off");
                assert!(w.json("session.json").is_none(), "folded while off");
                std::fs::write(&config, r#"{"autoCompactEnabled": true}"#).unwrap();
            }
            w.stop(&[]);
        }
    }
    let one = World::new();
    one.append(&text);
    one.stop(&[]);
    assert_eq!(w.summary().unwrap(), one.summary().unwrap());
    let wm = w.json("compact.json").unwrap();
    assert_eq!(wm["bytes_read"], wm["offset"]);
    assert_eq!(wm["reads"], 4, "{wm}");
}

/// A `Stop` then a `PreCompact` share the watermark and the state: the
/// compaction's summary covers the whole session once, with the turns the
/// `Stop`s folded.
#[test]
fn precompact_after_stops_reads_only_the_rest() {
    let w = World::new();
    // the recorded cwd is the hook's, as Claude Code writes it
    let text = synthetic(10, w.project.to_str().unwrap());
    let ts = turns(&text);
    for t in &ts[..9] {
        w.append(t);
        w.stop(&[]);
    }
    w.append(&ts[9]);
    let input = json!({
        "session_id": SID,
        "transcript_path": w.transcript,
        "cwd": w.project,
        "hook_event_name": "PreCompact",
        "trigger": "auto",
    });
    let mut c = w.home.command(bin("mem-transcript"));
    c.args(["replay", "--hook"]);
    let events = run(c, input.to_string().as_bytes());
    assert!(events.status.success(), "{}", show(&events));
    let out = String::from_utf8_lossy(&events.stdout).into_owned();
    // the last turn only: its request, four calls and results, its answer
    assert_eq!(out.lines().count(), 10, "{}", show(&events));
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("\"text\":\"Fix refund case 9."),
        "{out}"
    );
    let mut x = w.home.command(bin("mem-extract"));
    x.args(["session", "--hook"]);
    let o = run(x, &events.stdout);
    assert!(o.status.success(), "{}", show(&o));
    let s = w.summary().unwrap();
    assert!(s.contains("Fix refund case 9."), "{s}");
    assert_eq!(s.matches("Fix refund case 0.").count(), 1, "{s}");
}

/// A real Claude Code session from the corpus, fed turn by turn.
#[test]
fn a_corpus_session_turn_by_turn_equals_one_pass() {
    let Some(shared) = mem_tests::shared_or_skip("a_corpus_session_turn_by_turn_equals_one_pass")
    else {
        return;
    };
    let path: PathBuf = shared.join(
        "corpus/iansherr__claude-code-log/test/test_data/real_projects/-Users-user-workspace-coderabbit-review-helper/cb2e607c-c758-415a-8b45-c49e4631906a.jsonl",
    );
    if !path.is_file() {
        println!("SKIPPED: {} is not in the corpus", path.display());
        return;
    }
    let text = corpus_text(&path);
    let (w, n) = turn_by_turn_equals_one_pass(&text, &[]);
    assert!(n >= 5, "{n} turns");
    let summary = w.summary().unwrap();
    assert!(summary.matches("## Segment ").count() >= 2, "{summary}");
}

/// The corpus file with its session id made [`SID`] (the hook names it).
fn corpus_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let sid = text
        .lines()
        .find_map(|l| {
            serde_json::from_str::<Value>(l)
                .ok()?
                .get("sessionId")?
                .as_str()
                .map(str::to_string)
        })
        .unwrap();
    text.replace(&sid, SID)
}
