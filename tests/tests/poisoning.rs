//! The poisoning suite: every case folder under `tests/fixtures/poisoning/`
//! (see its README.md) goes through the real write path — `mem-transcript
//! replay FILE | mem-extract --cwd PROJ | mem-index write` for each `*.jsonl`
//! in it, at its path relative to the case folder (so `subagents/` and
//! `agent-*.jsonl` layouts are what replay sees) — then through
//! `mem-recall --format markdown`, `mem-recall --explain` and
//! `mem-hook` (SessionStart and UserPromptSubmit) for each prompt.
//!
//! For every case, from its `expect.json`:
//! - no `markers` string (case-insensitive) in any file name or file of the
//!   memory directory, nor in any recall or hook output;
//! - `quarantined` strings only inside topic files marked `trust: low`:
//!   never in `MEMORY.md`, another file, a file name, or recall/hook output;
//! - every `memories` entry matched by a written memory (its `source`,
//!   `trust`, and the `has` strings in its name, description or body);
//! - at most `max_memories` memories written;
//! - every `recalled` string in the hook's context for some prompt.
//!
//! Every case runs; the failures of all cases are reported together.

use std::path::{Path, PathBuf};

use mem_tests::{cmd, files_under, run, show, workspace_root};
use serde_json::Value;

/// One case's expectations (`expect.json`).
struct Expect {
    markers: Vec<String>,
    quarantined: Vec<String>,
    prompts: Vec<String>,
    memories: Vec<Value>,
    max_memories: Option<usize>,
    recalled: Vec<String>,
    extract_args: Vec<String>,
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().expect("a list of strings").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn read_expect(dir: &Path) -> Expect {
    let p = dir.join("expect.json");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let known = [
        "about",
        "markers",
        "quarantined",
        "prompts",
        "memories",
        "max_memories",
        "recalled",
        "extract_args",
    ];
    for k in v.as_object().expect("an object").keys() {
        assert!(
            known.contains(&k.as_str()),
            "{}: unknown key {k}",
            p.display()
        );
    }
    assert!(
        v["about"].is_string(),
        "{}: say what the case is",
        p.display()
    );
    Expect {
        markers: strings(&v, "markers"),
        quarantined: strings(&v, "quarantined"),
        prompts: strings(&v, "prompts"),
        memories: v["memories"].as_array().cloned().unwrap_or_default(),
        max_memories: v["max_memories"].as_u64().map(|n| n as usize),
        recalled: strings(&v, "recalled"),
        extract_args: strings(&v, "extract_args"),
    }
}

/// The transcripts of a case, relative to its folder, sorted.
fn transcripts(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| p.strip_prefix(dir).unwrap().to_path_buf())
        .collect();
    v.sort();
    v
}

/// Lowercase `hay` contains lowercase `needle`.
fn has(hay: &str, needle: &str) -> bool {
    hay.to_lowercase().contains(&needle.to_lowercase())
}

/// Run one case; its failures, each a line.
fn run_case(dir: &Path) -> Vec<String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let ex = read_expect(dir);
    let mut fails = Vec::new();
    let mut fail = |s: String| fails.push(format!("{name}: {s}"));
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let proj = tmp.path().join("proj");
    let mem = tmp.path().join("memory");
    // An attack may leave nothing to write; recall still reads the directory.
    std::fs::create_dir_all(&mem).unwrap();
    let sessions = tmp.path().join("sessions");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let files = transcripts(dir);
    if files.is_empty() {
        fail("no *.jsonl transcript in the case folder".into());
    }
    for rel in &files {
        let at = sessions.join(rel);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::copy(dir.join(rel), &at).unwrap();
        let mut c = cmd("mem-transcript", &home);
        c.arg("replay").arg(&at);
        let events = run(c, b"");
        if !events.status.success() {
            fail(format!("replay {}: {}", rel.display(), show(&events)));
            continue;
        }
        let mut c = cmd("mem-extract", &home);
        c.arg("--cwd").arg(&proj);
        for a in &ex.extract_args {
            c.arg(a.replace("{case}", &dir.to_string_lossy()));
        }
        let recs = run(c, &events.stdout);
        if !recs.status.success() {
            fail(format!("extract {}: {}", rel.display(), show(&recs)));
            continue;
        }
        let mut c = cmd("mem-index", &home);
        c.arg("--memory-dir").arg(&mem).arg("write");
        let w = run(c, &recs.stdout);
        if !w.status.success() {
            fail(format!("index write {}: {}", rel.display(), show(&w)));
        }
    }

    // The memory directory: every file name and every byte.
    for f in files_under(&mem) {
        let rel = f.strip_prefix(&mem).unwrap().to_string_lossy().into_owned();
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        let low_topic = rel.ends_with(".md")
            && rel != "MEMORY.md"
            && !rel.contains('/')
            && text.contains("\ntrust: low\n");
        for m in &ex.markers {
            if has(&rel, m) || has(&text, m) {
                fail(format!("marker {m:?} in memory file {rel}:\n{text}"));
            }
        }
        for q in &ex.quarantined {
            if has(&rel, q) || (has(&text, q) && !low_topic) {
                fail(format!(
                    "quarantined {q:?} outside a low-trust topic file, in {rel}:\n{text}"
                ));
            }
        }
    }

    // The memories written.
    let mut c = cmd("mem-index", &home);
    c.args(["--format", "jsonl"])
        .arg("--memory-dir")
        .arg(&mem)
        .arg("list");
    let listed = run(c, b"");
    let records: Vec<Value> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if let Some(max) = ex.max_memories
        && records.len() > max
    {
        fail(format!(
            "{} memories written, at most {max} expected: {records:#?}",
            records.len()
        ));
    }
    for want in &ex.memories {
        let found = records.iter().any(|r| {
            let field_ok = |k: &str| want.get(k).is_none_or(|w| r.get(k) == Some(w));
            let text = ["name", "description", "fact", "why", "how", "body"]
                .iter()
                .filter_map(|k| r[*k].as_str())
                .collect::<Vec<_>>()
                .join("\n");
            field_ok("source")
                && field_ok("trust")
                && strings(want, "has")
                    .iter()
                    .all(|h| text.contains(h.as_str()))
        });
        if !found {
            fail(format!("no memory matches {want}; written: {records:#?}"));
        }
    }

    // Recall and the hook, for every prompt.
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut hook_contexts = Vec::new();
    let hook = |event: &str, extra: Value| {
        let mut input = serde_json::json!({
            "session_id": "0b1c2d3e-0000-4000-8000-000000000001",
            "transcript_path": sessions.join("t.jsonl"),
            "cwd": proj,
            "hook_event_name": event,
        });
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        let mut c = cmd("mem-hook", &home);
        c.env("MEM_MEMORY_DIR", &mem).env("MEM_TODAY", "2026-07-12");
        run(c, input.to_string().as_bytes())
    };
    let start = hook("SessionStart", serde_json::json!({"source": "startup"}));
    outputs.push(("hook SessionStart".into(), show(&start)));
    for p in &ex.prompts {
        for format in ["markdown", "text"] {
            let mut c = cmd("mem-recall", &home);
            c.arg("--memory-dir")
                .arg(&mem)
                .arg("--cwd")
                .arg(&proj)
                .args(["--today", "2026-07-12", "--no-cache", "--explain"])
                .args(["--format", format, "--task", p]);
            let o = run(c, b"");
            if !o.status.success() {
                fail(format!("recall {format} {p:?}: {}", show(&o)));
            }
            outputs.push((format!("recall --format {format} {p:?}"), show(&o)));
        }
        let o = hook("UserPromptSubmit", serde_json::json!({"prompt": p}));
        if !o.status.success() {
            fail(format!("hook {p:?}: {}", show(&o)));
        }
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        if !out.trim().is_empty() {
            match serde_json::from_str::<Value>(&out) {
                Ok(v) => hook_contexts.push(
                    v["hookSpecificOutput"]["additionalContext"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                ),
                Err(e) => fail(format!("hook {p:?}: not JSON ({e}): {out}")),
            }
        }
        outputs.push((format!("hook {p:?}"), show(&o)));
    }
    for ctx in &hook_contexts {
        outputs.push(("hook additionalContext".into(), ctx.clone()));
    }
    for (what, text) in &outputs {
        for s in ex.markers.iter().chain(&ex.quarantined) {
            if has(text, s) {
                fail(format!("{s:?} in {what}:\n{text}"));
            }
        }
    }
    for r in &ex.recalled {
        if !hook_contexts.iter().any(|c| c.contains(r.as_str())) {
            fail(format!(
                "{r:?} not recalled by the hook for {:?}: {hook_contexts:#?}",
                ex.prompts
            ));
        }
    }
    fails
}

#[test]
fn poisoning_suite() {
    let root = workspace_root().join("tests/fixtures/poisoning");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    let (mut attacks, mut controls) = (0, 0);
    let mut fails = Vec::new();
    for dir in &cases {
        let ex = read_expect(dir);
        if !ex.markers.is_empty() || !ex.quarantined.is_empty() {
            attacks += 1;
        }
        if !ex.recalled.is_empty() && ex.markers.is_empty() && ex.quarantined.is_empty() {
            controls += 1;
        }
        fails.extend(run_case(dir));
    }
    assert!(attacks >= 12, "{attacks} attack cases, at least 12 wanted");
    assert!(
        controls >= 2,
        "{controls} benign controls, at least 2 wanted"
    );
    assert!(
        fails.is_empty(),
        "{} failures:\n\n{}",
        fails.len(),
        fails.join("\n\n")
    );
}
