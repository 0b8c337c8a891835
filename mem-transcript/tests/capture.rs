//! `replay --hook` reads only what follows its watermark: a line still
//! being written waits for the next run, a rewound prompt emits only its new
//! branch, a compaction stops the walk at its boundary, and line numbers are
//! the file's.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

struct T {
    _dir: tempfile::TempDir,
    root: PathBuf,
    file: PathBuf,
}

impl T {
    fn new() -> T {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let file = root.join("s1.jsonl");
        std::fs::write(&file, "").unwrap();
        T {
            _dir: dir,
            root,
            file,
        }
    }

    fn append(&self, s: &str) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.file)
            .unwrap();
        f.write_all(s.as_bytes()).unwrap();
    }

    /// `replay --hook` for `event`: the events and stderr.
    fn hook(&self, event: &str) -> (Vec<Value>, String) {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mem-transcript"));
        mem_tests::scrub(&mut c)
            .env("HOME", &self.root)
            .env("XDG_CACHE_HOME", self.root.join("cache"))
            .env("MEM_MEMORY_DIR", self.root.join("mem"))
            .args(["replay", "--hook"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        let input = json!({"session_id": "s1", "transcript_path": self.file,
            "cwd": self.root, "hook_event_name": event});
        {
            use std::io::Write;
            let mut sin = child.stdin.take().unwrap();
            sin.write_all(input.to_string().as_bytes()).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        let evs = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (evs, err)
    }
}

fn user(uuid: &str, parent: Option<&str>, ts: u32, text: &str) -> String {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "timestamp": format!("2026-07-11T09:00:{ts:02}Z"), "cwd": "/p",
        "message": {"role": "user", "content": text}})
    .to_string()
        + "\n"
}

fn assistant(uuid: &str, parent: &str, ts: u32, text: &str) -> String {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "timestamp": format!("2026-07-11T09:00:{ts:02}Z"), "cwd": "/p",
        "message": {"id": format!("m-{uuid}"), "role": "assistant",
            "content": [{"type": "text", "text": text}]}})
    .to_string()
        + "\n"
}

fn texts(evs: &[Value]) -> Vec<(u64, String)> {
    evs.iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn watermark(root: &Path, name: &str) -> Value {
    let mut stack = vec![root.join("cache")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == name) {
                return serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
            }
        }
    }
    Value::Null
}

#[test]
fn a_torn_line_waits_and_a_rewind_emits_only_its_branch() {
    let t = T::new();
    t.append(&user("u1", None, 1, "first"));
    t.append(&assistant("a1", "u1", 2, "one"));
    let (evs, _) = t.hook("Stop");
    assert_eq!(texts(&evs), vec![(1, "first".into()), (2, "one".into())]);
    // a line still being written is left for the next run
    let next = user("u2", Some("a1"), 3, "second");
    let (head, tail) = next.split_at(20);
    t.append(head);
    let (evs, _) = t.hook("Stop");
    assert!(evs.is_empty(), "{evs:?}");
    let size = std::fs::metadata(&t.file).unwrap().len();
    assert_eq!(
        watermark(&t.root, "capture.json")["offset"],
        size - head.len() as u64
    );
    t.append(tail);
    t.append(&assistant("a2", "u2", 4, "two"));
    let (evs, _) = t.hook("Stop");
    assert_eq!(texts(&evs), vec![(3, "second".into()), (4, "two".into())]);
    // the user rewinds to after turn 1 and asks again: only the new branch
    t.append(&user("u3", Some("a1"), 5, "second, again"));
    t.append(&assistant("a3", "u3", 6, "two again"));
    let (evs, err) = t.hook("Stop");
    assert_eq!(
        texts(&evs),
        vec![(5, "second, again".into()), (6, "two again".into())],
        "{err}"
    );
    // seq goes on across runs
    assert_eq!(evs[0]["seq"], 4);
    let w = watermark(&t.root, "capture.json");
    assert_eq!(w["lines"], 6);
    assert_eq!(w["reads"], 3);
    assert_eq!(w["last_uuid"], "a3");
}

#[test]
fn a_compaction_in_the_new_lines_stops_the_walk_and_precompact_has_its_own_watermark() {
    let t = T::new();
    t.append(&user("u1", None, 1, "before"));
    t.append(&assistant("a1", "u1", 2, "ok"));
    assert_eq!(t.hook("Stop").0.len(), 2);
    t.append(
        &(json!({"type": "system", "subtype": "compact_boundary", "uuid": "b1",
            "parentUuid": null, "logicalParentUuid": "a1", "sessionId": "s1",
            "timestamp": "2026-07-11T09:00:03Z", "cwd": "/p", "content": "Conversation compacted"})
        .to_string()
            + "\n"),
    );
    t.append(&user("u2", Some("b1"), 4, "after"));
    t.append(&assistant("a2", "u2", 5, "fine"));
    let (evs, _) = t.hook("Stop");
    let got = texts(&evs);
    assert!(!got.iter().any(|(_, x)| x == "before"), "{got:?}");
    assert_eq!(got.last().unwrap(), &(5, "fine".to_string()));
    // PreCompact reads the whole session once, with its own watermark
    let (evs, _) = t.hook("PreCompact");
    assert!(texts(&evs).iter().any(|(_, x)| x == "before"));
    assert_eq!(watermark(&t.root, "compact.json")["reads"], 1);
    assert!(t.hook("PreCompact").0.is_empty());
    // SubagentStop reads nothing
    t.append(&user("u3", Some("a2"), 6, "more"));
    assert!(t.hook("SubagentStop").0.is_empty());
    assert_eq!(watermark(&t.root, "capture.json")["reads"], 2);
}

#[test]
fn bad_hook_input_is_said_on_stderr_and_exits_0() {
    let t = T::new();
    for input in [
        "not json",
        r#"{"hook_event_name":"Stop","transcript_path":"/no/such.jsonl"}"#,
    ] {
        let out = mem_tests::scrub(&mut Command::new(env!("CARGO_BIN_EXE_mem-transcript")))
            .env("XDG_CACHE_HOME", t.root.join("cache"))
            .env("MEM_MEMORY_DIR", t.root.join("mem"))
            .args(["replay", "--hook"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(input.as_bytes())?;
                c.wait_with_output()
            })
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(out.stdout.is_empty());
        assert!(err.contains("nothing captured"), "{err}");
        assert!(
            err.contains("not JSON") || err.contains("/no/such.jsonl"),
            "{err}"
        );
    }
}

#[test]
fn a_codex_rollout_emits_only_the_items_past_the_watermark() {
    let mut t = T::new();
    let file = t
        .root
        .join("rollout-2026-07-11T10-00-00-0199a0b0-0000-7000-8000-00000000c0de.jsonl");
    std::fs::write(&file, "").unwrap();
    t.file = file;
    let msg = |role: &str, kind: &str, text: &str| {
        json!({"timestamp": "2026-07-11T10:00:01Z", "type": "response_item",
            "payload": {"type": "message", "role": role,
                "content": [{"type": kind, "text": text}]}})
        .to_string()
            + "\n"
    };
    t.append(
        &(json!({"timestamp": "2026-07-11T10:00:00Z", "type": "session_meta",
            "payload": {"id": "c1", "cwd": "/p"}})
        .to_string()
            + "\n"),
    );
    t.append(&msg("user", "input_text", "first"));
    t.append(&msg("assistant", "output_text", "one"));
    let (evs, err) = t.hook("Stop");
    assert_eq!(
        texts(&evs),
        vec![(2, "first".into()), (3, "one".into())],
        "{err}"
    );
    t.append(&msg("user", "input_text", "second"));
    t.append(&msg("assistant", "output_text", "two"));
    let (evs, err) = t.hook("Stop");
    assert_eq!(
        texts(&evs),
        vec![(4, "second".into()), (5, "two".into())],
        "{err}"
    );
    assert_eq!(watermark(&t.root, "capture.json")["source"], "codex");
}
