//! The JSONL contracts between the tools, as types: every record kind the
//! pipeline passes on is read back into its `mem_core::records` type from the
//! real binaries' output, and written again unchanged (same fields, same
//! values, unknown fields kept). Record kinds: `Event` (mem-transcript
//! replay), `Memory` (mem-extract), `RecallDecision` (mem-recall --format
//! jsonl), `PlanOp` (mem-dream --dry-run --format jsonl). The sessions are
//! the project's own fixtures (tests/fixtures/sessions).

use std::path::Path;

use mem_core::records::{Event, Memory, PlanOp, RecallDecision};
use mem_tests::{cmd, run, show, workspace_root};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

/// Parses every line of `out` as `T` and checks that writing it again gives
/// the same JSON value; returns the records.
fn round_trip<T: DeserializeOwned + Serialize>(what: &str, out: &[u8]) -> Vec<T> {
    let text = std::str::from_utf8(out).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let rec: T = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what} line {}: {e}: {line}", i + 1));
            let before: Value = serde_json::from_str(line).unwrap();
            let after = serde_json::to_value(&rec).unwrap();
            assert_eq!(
                before,
                after,
                "{what} line {} changed on a round trip",
                i + 1
            );
            rec
        })
        .collect()
}

fn ok(what: &str, o: &std::process::Output) {
    assert!(o.status.success(), "{what}: {}", show(o));
}

#[test]
fn every_record_kind_round_trips_through_its_type() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let memdir = tmp.path().join("memory");
    let sessions = workspace_root().join("tests/fixtures/sessions");
    let mut names: Vec<_> = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");

    let (mut events, mut memories) = (0, 0);
    for s in &names {
        let mut c = cmd("mem-transcript", &home);
        c.arg("replay").arg(s);
        let r = run(c, b"");
        ok("replay", &r);
        let evs: Vec<Event> = round_trip("replay", &r.stdout);
        assert!(evs.iter().all(|e| !e.session.is_empty() && e.line > 0));
        events += evs.len();

        let x = run(cmd("mem-extract", &home), &r.stdout);
        ok("extract", &x);
        let mems: Vec<Memory> = round_trip("extract", &x.stdout);
        memories += mems.len();

        let mut w = cmd("mem-index", &home);
        w.arg("write").arg("--memory-dir").arg(&memdir);
        let w = run(w, &x.stdout);
        ok("write", &w);
        // write's results: {"op", "id", "path"[, "duplicate_of"]}
        for line in std::str::from_utf8(&w.stdout).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            assert!(
                ["create", "update", "unchanged", "duplicate"].contains(&v["op"].as_str().unwrap()),
                "{line}"
            );
            assert!(Path::new(v["path"].as_str().unwrap()).is_file(), "{line}");
        }
    }
    assert!(events > 10, "{events} events");
    assert!(memories >= 2, "{memories} memories");

    let mut c = cmd("mem-recall", &home);
    c.args(["--memory-dir"]).arg(&memdir).args([
        "--task",
        "run npm test",
        "--format",
        "jsonl",
        "--all",
    ]);
    let r = run(c, b"");
    ok("recall", &r);
    let ds: Vec<RecallDecision> = round_trip("recall", &r.stdout);
    assert_eq!(ds.last().unwrap().action, "summary");
    assert!(ds.iter().any(|d| d.action == "recall"), "{}", show(&r));

    let mut c = cmd("mem-dream", &home);
    c.arg("--memory-dir")
        .arg(&memdir)
        .args(["--force", "--dry-run", "--format", "jsonl"]);
    let d = run(c, b"");
    ok("dream", &d);
    let ops: Vec<PlanOp> = round_trip("dream", &d.stdout);
    assert_eq!(
        ops.last().map(|o| o.op.as_str()),
        Some("index"),
        "{}",
        show(&d)
    );
}

#[test]
fn unknown_fields_survive_every_record_kind() {
    let cases: [(&str, &str); 4] = [
        (
            "event",
            r#"{"session":"s","source":"claude","line":1,"seq":0,"uuid":"u","block":0,"role":"user","kind":"text","text":"hi","sidechain":false,"x-new":[1,{"a":null}]}"#,
        ),
        (
            "memory",
            r#"{"name":"n","description":"d","type":"feedback","x-owner":"ops","x-weight":0.5}"#,
        ),
        (
            "decision",
            r#"{"action":"recall","id":"a","score":5.5,"matched":["deploy"],"tier":"team","x":true}"#,
        ),
        (
            "plan",
            r#"{"op":"merge","id":"a","from":["b"],"reason":"same fact","x-basis":{"k":1}}"#,
        ),
    ];
    for (what, line) in cases {
        let before: Value = serde_json::from_str(line).unwrap();
        let after = match what {
            "event" => serde_json::to_value(serde_json::from_str::<Event>(line).unwrap()),
            "memory" => serde_json::to_value(serde_json::from_str::<Memory>(line).unwrap()),
            "decision" => {
                serde_json::to_value(serde_json::from_str::<RecallDecision>(line).unwrap())
            }
            _ => serde_json::to_value(serde_json::from_str::<PlanOp>(line).unwrap()),
        }
        .unwrap();
        assert_eq!(before, after, "{what}");
    }
}
