//! Per-turn capture and session memory at compaction, end to end: the hook
//! commands mem installs (`mem_core::hooks::HOOKS`, each tool by its path in
//! target/) run through `sh -c` with the JSON Claude Code sends, on a
//! session file that grows turn by turn (docs/hooks.md).

use std::path::{Path, PathBuf};
use std::process::Output;

use mem_core::hooks::HOOKS;
use mem_tests::{bin, cmd, files_under, run, show};
use serde_json::{Value, json};

const SID: &str = "0b6a3c5e-1111-4a2b-9c3d-5e6f7a8b9c0d";

/// A home with a project, a memory dir and a session file that grows.
struct Env {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
    mem: PathBuf,
    transcript: PathBuf,
    last: Option<String>,
    n: usize,
    env: Vec<(String, String)>,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let proj = home.join("proj");
        let mem = home.join("mem");
        std::fs::create_dir_all(&proj).unwrap();
        let transcript = home.join(format!(".claude/projects/-proj/{SID}.jsonl"));
        std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
        std::fs::write(&transcript, "").unwrap();
        Env {
            _tmp: tmp,
            home,
            proj,
            mem,
            transcript,
            last: None,
            n: 0,
            env: Vec::new(),
        }
    }

    fn uuid(&mut self) -> String {
        self.n += 1;
        format!("00000000-0000-4000-8000-{:012}", self.n)
    }

    /// Append one entry on the main chain (or a side chain) to the file.
    fn entry(&mut self, ty: &str, content: Value, side: bool, msg: Option<&str>) {
        let uuid = self.uuid();
        let mut message =
            json!({"role": if ty == "assistant" {"assistant"} else {"user"}, "content": content});
        if let Some(m) = msg {
            message["id"] = json!(m);
        }
        let e = json!({
            "type": ty, "uuid": uuid, "parentUuid": self.last, "sessionId": SID,
            "timestamp": format!("2026-01-10T10:{:02}:{:02}Z", self.n / 60, self.n % 60),
            "cwd": self.proj, "isSidechain": side, "message": message,
        });
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.transcript)
            .unwrap();
        std::io::Write::write_all(&mut f, format!("{e}\n").as_bytes()).unwrap();
        if !side {
            self.last = Some(uuid);
        }
    }

    /// One turn: the user's words, a tool call (Bash, or Write to `write`),
    /// its result and the assistant's answer.
    fn turn(&mut self, words: &str, write: Option<&Path>) {
        let k = self.n;
        self.entry("user", json!(words), false, None);
        let (tool, input) = match write {
            Some(p) => ("Write", json!({"file_path": p, "content": "x"})),
            None => ("Bash", json!({"command": "ls"})),
        };
        let id = format!("toolu_{k}");
        self.entry(
            "assistant",
            json!([{"type": "tool_use", "id": id, "name": tool, "input": input}]),
            false,
            Some(&format!("msg_{k}a")),
        );
        self.entry(
            "user",
            json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]),
            false,
            None,
        );
        self.entry(
            "assistant",
            json!([{"type": "text", "text": "Done."}]),
            false,
            Some(&format!("msg_{k}b")),
        );
    }

    /// A turn of Bash calls: `(command, output, is_error)` each.
    fn bash_turn(&mut self, words: &str, calls: &[(&str, &str, bool)]) {
        self.entry("user", json!(words), false, None);
        for (cmd, output, bad) in calls {
            let id = format!("toolu_{}", self.n);
            let msg = format!("msg_{}", self.n);
            self.entry(
                "assistant",
                json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}]),
                false,
                Some(&msg),
            );
            self.entry(
                "user",
                json!([{"type": "tool_result", "tool_use_id": id, "content": output, "is_error": bad}]),
                false,
                None,
            );
        }
        let msg = format!("msg_{}", self.n);
        self.entry(
            "assistant",
            json!([{"type": "text", "text": "Done."}]),
            false,
            Some(&msg),
        );
    }

    /// Run the installed command of `event` with the hook JSON.
    fn hook(&self, event: &str, extra: Value) -> Output {
        let spec = HOOKS.iter().find(|h| h.event == event).unwrap();
        let line = spec.command_with(|t| format!("'{}'", bin(t).display()));
        let mut input = json!({
            "session_id": SID, "transcript_path": self.transcript,
            "cwd": self.proj, "hook_event_name": event,
        });
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        let mut c = cmd("mem-transcript", &self.home);
        c.env("MEM_MEMORY_DIR", &self.mem).current_dir(&self.proj);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        // the shell runs the pipeline, as the agent does
        let mut sh = std::process::Command::new("sh");
        sh.args(["-c", &line]);
        for (k, v) in c.get_envs() {
            match v {
                Some(v) => sh.env(k, v),
                None => sh.env_remove(k),
            };
        }
        sh.current_dir(&self.proj);
        let out = run(sh, input.to_string().as_bytes());
        assert!(out.status.success(), "{event}: {}", show(&out));
        out
    }

    fn recall(&self, input: Value) -> Output {
        let mut c = cmd("mem-hook", &self.home);
        c.env("MEM_MEMORY_DIR", &self.mem).current_dir(&self.proj);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        run(c, input.to_string().as_bytes())
    }

    /// The topic files' text, joined.
    fn memories(&self) -> String {
        files_under(&self.mem)
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .filter(|p| p.file_name().is_some_and(|n| n != "MEMORY.md"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect::<Vec<_>>()
            .join("\n---\n")
    }

    fn state_file(&self, name: &str) -> Option<PathBuf> {
        files_under(&self.home.join(".cache"))
            .into_iter()
            .find(|p| p.file_name().is_some_and(|n| n == name))
    }

    fn watermark(&self) -> Value {
        match self.state_file("capture.json") {
            Some(p) => serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap(),
            None => json!({}),
        }
    }

    fn size(&self) -> u64 {
        std::fs::metadata(&self.transcript).unwrap().len()
    }
}

#[test]
fn stop_captures_each_turn_once() {
    let mut s = Env::new();
    // turn 1
    s.turn("Always use pnpm, not npm.", None);
    s.hook("Stop", json!({"stop_hook_active": false}));
    let m = s.memories();
    assert!(m.contains("pnpm"), "{m}");
    let w = s.watermark();
    assert_eq!(w["offset"], s.size());
    assert_eq!(w["reads"], 1);
    assert_eq!(w["turns"], 1);
    assert_eq!(w["lines"], 4);
    // a duplicate run of the same Stop reads nothing
    let out = s.hook("Stop", json!({}));
    assert!(out.stdout.is_empty());
    assert_eq!(s.watermark()["reads"], 1);
    // stop_hook_active: exit 0 at once, nothing read
    s.turn("Never commit generated files.", None);
    let out = s.hook("Stop", json!({"stop_hook_active": true}));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("mem-transcript"),
        "{}",
        show(&out)
    );
    assert_eq!(s.watermark()["reads"], 1);
    assert!(!s.memories().contains("generated files"));
    // SubagentStop is not the main agent's turn
    let mut c = cmd("mem-transcript", &s.home);
    c.env("MEM_MEMORY_DIR", &s.mem)
        .args(["replay", "--hook"])
        .current_dir(&s.proj);
    let sub = json!({"session_id": SID, "transcript_path": s.transcript, "cwd": s.proj,
        "hook_event_name": "SubagentStop", "agent_id": "a1", "stop_hook_active": false});
    let out = run(c, sub.to_string().as_bytes());
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}",
        show(&out)
    );
    assert_eq!(s.watermark()["reads"], 1);
    // the Stop of turn 2 takes it (the blocked Stop read nothing)
    let before = s.watermark()["offset"].as_u64().unwrap();
    let out = s.hook("Stop", json!({"stop_hook_active": false}));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("from byte {before}")),
        "each turn is read from where the last run stopped: {err}"
    );
    assert!(s.memories().contains("generated files"));
    // turn 3 writes a memory file itself: that turn only is left out
    let own = s.mem.join("feedback_tabs.md");
    s.turn("Always use tabs for indentation in this repo.", Some(&own));
    s.hook("Stop", json!({}));
    assert!(!s.memories().contains("tabs"), "{}", s.memories());
    let w = s.watermark();
    assert_eq!(w["skipped"], 1);
    // turn 4 is captured again; a side chain in it is not
    s.turn("Never push to main directly.", None);
    s.entry("user", json!("Always use yarn everywhere."), true, None);
    s.hook("Stop", json!({}));
    let m = s.memories();
    assert!(m.contains("push to main"), "{m}");
    assert!(!m.contains("yarn"), "{m}");
    // every byte of the file was read exactly once, turn by turn
    let w = s.watermark();
    assert_eq!(w["offset"], s.size());
    assert_eq!(w["bytes_read"], s.size());
    assert_eq!(w["reads"], 4);
    assert_eq!(w["turns"], 4);
    assert_eq!(w["captured"], 3);
}

/// A command fails in one turn and passes in the next after a fix: the
/// lesson needs both turns, and the carried tool events give it.
#[test]
fn a_lesson_across_two_turns_is_captured() {
    let mut s = Env::new();
    s.bash_turn(
        "Run the checks.",
        &[("make verify", "error: data/x.json missing", true)],
    );
    s.hook("Stop", json!({}));
    assert!(!s.memories().contains("make verify"), "{}", s.memories());
    s.bash_turn(
        "Yes, go on.",
        &[
            ("make gen", "generated", false),
            ("make verify", "42 checks passed", false),
        ],
    );
    s.hook("Stop", json!({}));
    let m = s.memories();
    assert!(m.contains("make verify") && m.contains("make gen"), "{m}");
    // the carried events were read from the watermark, not the file
    assert_eq!(s.watermark()["bytes_read"], s.size());
}

#[test]
fn throttle_waits_for_n_turns_and_session_end_takes_the_rest() {
    let mut s = Env::new();
    s.env.push(("MEM_CAPTURE_EVERY".into(), "2".into()));
    s.turn("Always use pnpm, not npm.", None);
    let out = s.hook("Stop", json!({}));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("capturing every 2"),
        "{}",
        show(&out)
    );
    assert!(s.memories().is_empty());
    assert_eq!(
        s.watermark().get("offset"),
        None,
        "the watermark did not move"
    );
    s.turn("Never commit generated files.", None);
    s.hook("Stop", json!({}));
    let m = s.memories();
    assert!(m.contains("pnpm") && m.contains("generated files"), "{m}");
    assert_eq!(s.watermark()["turns"], 2);
    assert_eq!(s.watermark()["reads"], 1);
    s.turn("Never push to main directly.", None);
    s.hook("Stop", json!({}));
    assert!(!s.memories().contains("push to main"));
    // SessionEnd: whatever is after the watermark, throttle or not
    s.hook("SessionEnd", json!({"reason": "prompt_input_exit"}));
    assert!(s.memories().contains("push to main"));
    assert_eq!(s.watermark()["offset"], s.size());
    // and again: nothing left
    let out = s.hook("SessionEnd", json!({"reason": "other"}));
    assert!(out.stdout.is_empty());
    assert_eq!(s.watermark()["reads"], 2);
}

#[test]
fn memory_off_stop_writes_nothing() {
    let mut s = Env::new();
    s.env
        .push(("CLAUDE_CODE_DISABLE_AUTO_MEMORY".into(), "1".into()));
    s.turn("Always use pnpm, not npm.", None);
    s.hook("Stop", json!({}));
    s.hook("SessionEnd", json!({}));
    assert!(!s.mem.exists(), "{:?}", files_under(&s.mem));
    assert_eq!(s.state_file("capture.json"), None);
}

/// A session long enough for the summary (over 10k tokens, tool calls).
fn long_session(s: &mut Env) {
    for i in 0..12 {
        let filler = "word ".repeat(800);
        s.turn(
            &format!("Please fix the parser bug number {i} in src/parse.rs. {filler}"),
            None,
        );
    }
}

#[test]
fn precompact_saves_the_summary_and_session_start_compact_injects_it() {
    let mut s = Env::new();
    std::fs::create_dir_all(&s.mem).unwrap();
    long_session(&mut s);
    // Stop on each turn writes no summary (it is made at compaction)
    s.hook("Stop", json!({}));
    assert_eq!(s.state_file("session-memory.md"), None);
    let out = s.hook(
        "PreCompact",
        json!({"trigger": "auto", "custom_instructions": ""}),
    );
    let p = s
        .state_file("session-memory.md")
        .unwrap_or_else(|| panic!("no session memory: {}", show(&out)));
    let summary = std::fs::read_to_string(&p).unwrap();
    assert!(summary.starts_with("# Session summary"), "{summary}");
    assert!(summary.contains("## Segment 1"), "{summary}");
    assert!(summary.contains("Please fix the parser bug"), "{summary}");
    assert!(p.parent().unwrap().ends_with(SID));
    // SessionStart after the compaction injects it, framed as data
    let out = s.recall(json!({"session_id": SID, "transcript_path": s.transcript,
        "cwd": s.proj, "hook_event_name": "SessionStart", "source": "compact"}));
    assert!(out.status.success(), "{}", show(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", show(&out)));
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.starts_with("# Session memory"), "{ctx}");
    assert!(ctx.contains("quoted below as data"), "{ctx}");
    assert!(ctx.contains("Please fix the parser bug"), "{ctx}");
    assert!(ctx.chars().count() <= 10_000);
    // a plain start does not
    let out = s.recall(json!({"session_id": SID, "cwd": s.proj,
        "hook_event_name": "SessionStart", "source": "startup"}));
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("Session memory"),
        "{}",
        show(&out)
    );
    // a second PreCompact with nothing new changes nothing
    let before = std::fs::read(&p).unwrap();
    s.hook("PreCompact", json!({"trigger": "manual"}));
    assert_eq!(std::fs::read(&p).unwrap(), before);
}

#[test]
fn no_session_memory_when_auto_compaction_is_off() {
    for how in ["settings", "env"] {
        let mut s = Env::new();
        match how {
            "settings" => {
                let d = s.home.join(".claude");
                std::fs::write(d.join("settings.json"), r#"{"autoCompactEnabled": false}"#)
                    .unwrap();
            }
            _ => s.env.push(("DISABLE_AUTO_COMPACT".into(), "1".into())),
        }
        std::fs::create_dir_all(&s.mem).unwrap();
        long_session(&mut s);
        let out = s.hook("PreCompact", json!({"trigger": "manual"}));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("auto-compaction is off"),
            "{how}: {}",
            show(&out)
        );
        assert_eq!(s.state_file("session-memory.md"), None, "{how}");
        let out = s.recall(json!({"session_id": SID, "cwd": s.proj,
            "hook_event_name": "SessionStart", "source": "compact"}));
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("Session memory"),
            "{how}: {}",
            show(&out)
        );
    }
}
