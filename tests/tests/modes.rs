//! The modes of the write path and of consolidation, through the built
//! binaries:
//!
//! - assistant (daily-log) mode: with Claude Code's `assistant: true` (or
//!   `MEM_ASSISTANT_MODE=1`) the write path — the installed SessionEnd hook
//!   and `mem-transcript replay | mem-extract | mem-index write` — appends
//!   to `logs/YYYY/MM/YYYY-MM-DD.md` and writes no topic file; a daily log
//!   newer than the last consolidation makes `mem-dream` due, which
//!   distils it into topic files;
//! - distillation updates the memory `mem-index write` would update (never
//!   `use-pnpm-2`), and a later consolidation merges the numbered copies an
//!   earlier one left (undoable);
//! - consolidation by hand: `autoDreamEnabled: false` stops the automatic
//!   run only; `mem-dream --force` and the installed `/dream` command run it;
//! - agent memory: `mem-recall --agent` and `mem-dream --agent` in each of
//!   the three scopes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mem_tests::{bin, run, scrub, show, topic_files};
use serde_json::{Value, json};

const SID: &str = "7a11c0de-aaaa-4bbb-8ccc-444455556666";

/// The correction of the session: one `feedback` memory.
const CORRECTION: &str = "Always use pnpm instead of npm to add packages in this repo, because npm rewrites the pnpm lockfile and breaks the CI install.";

/// A temporary HOME with a git project in it.
struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap();
        let project = home.join("src/shop");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        World {
            _tmp: tmp,
            home,
            project,
        }
    }

    /// A command in the project with HOME here, no inherited mem or Claude
    /// variables and a pinned zone.
    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        scrub(&mut c)
            .env("HOME", &self.home)
            .env("TZ", "UTC")
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .current_dir(&self.project);
        c
    }

    /// `TOOL ARGS` (a built binary), stdin `input`.
    fn tool(&self, tool: &str, args: &[&str], input: &[u8], env: &[(&str, &str)]) -> Output {
        let mut c = self.command(&bin(tool));
        c.args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        run(c, input)
    }

    /// `sh -c LINE` in the project (the tools named by absolute path).
    fn sh(&self, line: &str, input: &[u8], env: &[(&str, &str)]) -> Output {
        let mut c = self.command(Path::new("/bin/sh"));
        c.arg("-c").arg(line);
        for (k, v) in env {
            c.env(k, v);
        }
        run(c, input)
    }

    /// The project's memory directory as mem resolves it.
    fn memory_dir(&self) -> PathBuf {
        let out = self.tool("mem-index", &["path"], b"", &[]);
        assert!(out.status.success(), "{}", show(&out));
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    }

    /// The session with the correction, where Claude Code keeps it (beside
    /// the memory directory).
    fn session(&self) -> PathBuf {
        let dir = self.memory_dir().parent().unwrap().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{SID}.jsonl"));
        let line = |i: usize, parent: Value, kind: &str, message: Value| {
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
                "cwd": self.project, "sessionId": SID, "version": "2.1.200", "type": kind,
                "uuid": format!("u{i}"), "timestamp": format!("2026-07-14T09:0{i}:00Z"),
                "message": message})
            .to_string()
        };
        let text = [
            line(
                1,
                Value::Null,
                "user",
                json!({"role": "user", "content": CORRECTION}),
            ),
            line(
                2,
                json!("u1"),
                "assistant",
                json!({"id": "msg_1", "role": "assistant",
                    "content": [{"type": "text", "text": "Understood: pnpm from now on."}]}),
            ),
        ]
        .join("\n");
        std::fs::write(&path, text + "\n").unwrap();
        path
    }

    /// The project's Claude Code settings.
    fn project_settings(&self, json: &str) {
        std::fs::create_dir_all(self.project.join(".claude")).unwrap();
        std::fs::write(self.project.join(".claude/settings.json"), json).unwrap();
    }
}

/// The directory of the built binaries.
fn bin_dir() -> PathBuf {
    for t in mem_core::hooks::TOOLS {
        bin(t);
    }
    bin("mem-dream").parent().unwrap().to_path_buf()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSONL records of an output.
fn records(o: &Output) -> Vec<Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The files below `dir/logs`, relative to `dir`.
fn logs(dir: &Path) -> Vec<String> {
    mem_tests::files_under(&dir.join("logs"))
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect()
}

/// The command of the installed hook of `event` in `settings`.
fn hook_command(settings: &Path, event: &str) -> String {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(settings).unwrap()).unwrap();
    v["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn assistant_mode_writes_the_daily_log_and_a_dream_distils_it() {
    let w = World::new();
    // Claude Code's assistant mode, in the project's settings
    w.project_settings(r#"{"assistant": true}"#);
    let install = w.tool(
        "mem-hook",
        &["install", "--bin-dir", bin_dir().to_str().unwrap()],
        b"",
        &[],
    );
    assert!(install.status.success(), "{}", show(&install));
    let session = w.session();
    let memdir = w.memory_dir();

    // The installed SessionEnd hook (the write path) appends to the log.
    let end = hook_command(&w.home.join(".claude/settings.json"), "SessionEnd");
    let input = json!({"session_id": SID, "transcript_path": session, "cwd": w.project,
        "hook_event_name": "SessionEnd", "reason": "exit"});
    let o = w.sh(&end, format!("{input}\n").as_bytes(), &[]);
    assert!(o.status.success(), "{}", show(&o));
    let log = "logs/2026/07/2026-07-14.md";
    assert_eq!(logs(&memdir), [log]);
    assert_eq!(topic_files(&memdir), Vec::<String>::new());
    assert!(!memdir.join("MEMORY.md").exists());
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "assistant mode (assistant is true in {}): write: 1 appended to the daily log {}",
            w.project.join(".claude/settings.json").display(),
            memdir.join(log).display()
        )),
        "{err}"
    );
    let text = std::fs::read_to_string(memdir.join(log)).unwrap();
    assert!(
        text.starts_with("## Always use pnpm instead of npm to add packages in this repo [feedback]\n<!-- mem-record {"),
        "{text}"
    );

    // The hook again: the session's lines were read, nothing is appended.
    let o = w.sh(&end, format!("{input}\n").as_bytes(), &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        stderr(&o).contains("no records; nothing appended"),
        "{}",
        show(&o)
    );
    assert_eq!(std::fs::read_to_string(memdir.join(log)).unwrap(), text);

    // The pipeline by hand, with the environment switch turning the mode
    // off: a topic file in another directory.
    let other = w.home.join("other-memory");
    std::fs::create_dir_all(&other).unwrap();
    let pipe = format!(
        "{b}/mem-transcript replay {s} | {b}/mem-extract | {b}/mem-index write --memory-dir {o}",
        b = bin_dir().display(),
        s = session.display(),
        o = other.display()
    );
    let o = w.sh(&pipe, b"", &[("MEM_ASSISTANT_MODE", "0")]);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        topic_files(&other),
        ["always-use-pnpm-instead-of-npm-to-add.md"]
    );
    assert!(logs(&other).is_empty());
    // and on by the variable alone (no settings for that directory's cwd)
    let o = w.sh(
        &pipe.replace(
            &format!("--memory-dir {}", other.display()),
            &format!("--memory-dir {} --cwd /", other.display()),
        ),
        b"",
        &[("MEM_ASSISTANT_MODE", "1")],
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        stderr(&o).contains("assistant mode (MEM_ASSISTANT_MODE is set)"),
        "{}",
        show(&o)
    );
    assert_eq!(logs(&other), [log]);
    // the same session again: its record is in the log already
    let again = w.sh(
        &pipe.replace(
            &format!("--memory-dir {}", other.display()),
            &format!("--memory-dir {} --cwd /", other.display()),
        ),
        b"",
        &[("MEM_ASSISTANT_MODE", "1")],
    );
    assert!(again.status.success(), "{}", show(&again));
    assert!(
        stderr(&again).contains(&format!(
            "write: 0 appended to the daily log {}, 1 already there",
            other.join(log).display()
        )),
        "{}",
        show(&again)
    );

    // The dream is due for the log: one session (< 5) but a daily log newer
    // than the last consolidation (never).
    let o = w.tool("mem-dream", &["--explain", "--format", "jsonl"], b"", &[]);
    assert!(o.status.success(), "{}", show(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "gate sessions: open: 1 session(s) since the last consolidation; 1 daily log(s) newer ({log}): a daily log to distil"
        )),
        "{err}"
    );
    let ops = records(&o);
    assert_eq!(
        ops[0],
        json!({"op": "create", "id": "always-use-pnpm-instead-of-npm-to-add", "source": log}),
        "{ops:?}"
    );
    // the session gives the same memory: it updates the one from the log
    assert!(
        ops.iter()
            .all(|o| o["id"] != "always-use-pnpm-instead-of-npm-to-add-2"),
        "{ops:?}"
    );
    assert_eq!(
        topic_files(&memdir),
        ["always-use-pnpm-instead-of-npm-to-add.md"]
    );
    let index = std::fs::read_to_string(memdir.join("MEMORY.md")).unwrap();
    assert!(
        index.contains("(always-use-pnpm-instead-of-npm-to-add.md)"),
        "{index}"
    );
    // nothing new since: not due
    let o = w.tool("mem-dream", &["--min-hours", "0"], b"", &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        stderr(&o).contains("not due: sessions: 0 session(s) since the last consolidation"),
        "{}",
        show(&o)
    );
}

/// Write `records` (JSONL) into `dir` with `mem-index write`; with
/// `assistant`, in assistant mode.
fn write(w: &World, dir: &Path, records: &[Value], assistant: bool) -> Output {
    let input: String = records.iter().map(|r| format!("{r}\n")).collect();
    let env: &[(&str, &str)] = if assistant {
        &[("MEM_ASSISTANT_MODE", "1")]
    } else {
        &[]
    };
    let o = w.tool(
        "mem-index",
        &["write", "--memory-dir", dir.to_str().unwrap()],
        input.as_bytes(),
        env,
    );
    assert!(o.status.success(), "{}", show(&o));
    o
}

fn pnpm(description: &str, fact: &str, day: &str, evidence: &str) -> Value {
    json!({"name": "Use pnpm", "description": description, "type": "project",
        "fact": fact, "source": "user", "verified_at": day, "evidence": [evidence]})
}

#[test]
fn a_distilled_log_entry_updates_the_memory_write_would_update() {
    let w = World::new();
    let dir = w.home.join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    write(
        &w,
        &dir,
        &[pnpm(
            "Use pnpm, not npm, for installs",
            "The repository uses pnpm workspaces.",
            "2026-07-01",
            "transcript:aaaaaaaaaaaa#3",
        )],
        false,
    );
    let before = std::fs::read_to_string(dir.join("use-pnpm.md")).unwrap();
    let mut later = pnpm(
        "Use pnpm for every install",
        "npm rewrites the pnpm lockfile.",
        "2026-07-10",
        "transcript:bbbbbbbbbbbb#9",
    );
    later["triggers"] = json!(["npm install"]);
    let o = write(&w, &dir, &[later], true);
    assert_eq!(
        records(&o),
        [json!({"op": "log", "id": "use-pnpm", "path": dir.join("logs/2026/07/2026-07-10.md")})]
    );
    let o = w.tool(
        "mem-dream",
        &[
            "--memory-dir",
            dir.to_str().unwrap(),
            "--force",
            "--format",
            "jsonl",
        ],
        b"",
        &[],
    );
    assert!(o.status.success(), "{}", show(&o));
    let ops = records(&o);
    assert_eq!(
        ops[0],
        json!({"op": "update", "id": "use-pnpm", "source": "logs/2026/07/2026-07-10.md"}),
        "{ops:?}"
    );
    assert_eq!(topic_files(&dir), ["use-pnpm.md"]);
    let after = std::fs::read_to_string(dir.join("use-pnpm.md")).unwrap();
    // merged as write merges: the newer record's text, both evidences
    assert!(
        after.contains("description: \"Use pnpm for every install\""),
        "{after}"
    );
    assert!(
        after.contains("evidence: [\"transcript:aaaaaaaaaaaa#3\", \"transcript:bbbbbbbbbbbb#9\"]"),
        "{after}"
    );
    assert!(after.contains("triggers: [\"npm install\"]"), "{after}");
    // the same records through write give the same file
    let same = w.home.join("same");
    std::fs::create_dir_all(&same).unwrap();
    write(
        &w,
        &same,
        &[
            pnpm(
                "Use pnpm, not npm, for installs",
                "The repository uses pnpm workspaces.",
                "2026-07-01",
                "transcript:aaaaaaaaaaaa#3",
            ),
            {
                let mut l = pnpm(
                    "Use pnpm for every install",
                    "npm rewrites the pnpm lockfile.",
                    "2026-07-10",
                    "transcript:bbbbbbbbbbbb#9",
                );
                l["triggers"] = json!(["npm install"]);
                l
            },
        ],
        false,
    );
    assert_eq!(topic_files(&same), ["use-pnpm.md"]);
    let undo = w.tool(
        "mem-dream",
        &["--memory-dir", dir.to_str().unwrap(), "undo"],
        b"",
        &[],
    );
    assert!(undo.status.success(), "{}", show(&undo));
    assert_eq!(
        std::fs::read_to_string(dir.join("use-pnpm.md")).unwrap(),
        before
    );
}

#[test]
fn a_dream_merges_the_numbered_copies_of_one_memory() {
    let w = World::new();
    let dir = w.home.join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let mut copy = pnpm(
        "Installs go through pnpm workspaces",
        "npm rewrites the pnpm lockfile.",
        "2026-07-10",
        "transcript:bbbbbbbbbbbb#9",
    );
    copy["id"] = json!("use-pnpm-2");
    write(
        &w,
        &dir,
        &[
            pnpm(
                "Use pnpm for installs",
                "The repository uses pnpm workspaces.",
                "2026-07-01",
                "transcript:aaaaaaaaaaaa#3",
            ),
            copy,
        ],
        false,
    );
    assert_eq!(topic_files(&dir), ["use-pnpm-2.md", "use-pnpm.md"]);
    let before = mem_tests::snapshot(&dir);
    let dream = |args: &[&str]| {
        let mut a = vec!["--memory-dir", dir.to_str().unwrap(), "--format", "jsonl"];
        a.extend(args);
        let o = w.tool("mem-dream", &a, b"", &[]);
        assert!(o.status.success(), "{}", show(&o));
        o
    };
    let plan = records(&dream(&["--force", "--dry-run"]));
    let merge = json!({"op": "merge", "id": "use-pnpm", "from": ["use-pnpm-2"],
        "reason": "same name (Use pnpm): a numbered copy of use-pnpm; `mem-index write` keeps one memory per name"});
    assert_eq!(plan[0], merge, "{plan:?}");
    assert_eq!(mem_tests::snapshot(&dir), before);
    assert_eq!(records(&dream(&["--force"]))[0], merge);
    assert_eq!(topic_files(&dir), ["use-pnpm.md"]);
    assert!(dir.join("retired/use-pnpm-2.md").is_file());
    let kept = std::fs::read_to_string(dir.join("use-pnpm.md")).unwrap();
    // merged as write merges: the newer copy's text, both evidences
    assert!(
        kept.contains("description: \"Installs go through pnpm workspaces\""),
        "{kept}"
    );
    assert!(kept.contains("transcript:aaaaaaaaaaaa#3"), "{kept}");
    let undo = w.tool(
        "mem-dream",
        &["--memory-dir", dir.to_str().unwrap(), "undo"],
        b"",
        &[],
    );
    assert!(undo.status.success(), "{}", show(&undo));
    // every file as it was (the journal and the lock aside)
    let data = |s: Vec<(PathBuf, Vec<u8>)>| -> Vec<(PathBuf, Vec<u8>)> {
        s.into_iter()
            .filter(|(p, _)| !p.starts_with(dir.join(".mem")) && !p.ends_with(".consolidate-lock"))
            .collect()
    };
    assert_eq!(data(mem_tests::snapshot(&dir)), data(before));
}

#[test]
fn auto_dream_off_leaves_consolidation_by_hand_and_the_dream_command() {
    let w = World::new();
    std::fs::create_dir_all(w.home.join(".claude")).unwrap();
    std::fs::write(
        w.home.join(".claude/settings.json"),
        r#"{"autoDreamEnabled": false}"#,
    )
    .unwrap();
    let memdir = w.memory_dir();
    std::fs::create_dir_all(&memdir).unwrap();
    let mut copy = pnpm(
        "Installs go through pnpm workspaces",
        "npm rewrites the pnpm lockfile.",
        "2026-07-10",
        "transcript:bbbbbbbbbbbb#9",
    );
    copy["id"] = json!("use-pnpm-2");
    let first = pnpm(
        "Use pnpm for installs",
        "The repository uses pnpm workspaces.",
        "2026-07-01",
        "transcript:aaaaaaaaaaaa#3",
    );
    write(&w, &memdir, &[first, copy], false);

    // the automatic run (no --force) is off, and says how to run it by hand
    let o = w.tool("mem-dream", &["--strict"], b"", &[]);
    assert_eq!(o.status.code(), Some(75), "{}", show(&o));
    assert!(
        stderr(&o).contains(&format!(
            "master: autoDreamEnabled is false in {} (automatic consolidation is off; run it by hand with `mem-dream --force`, or /dream in Claude Code)",
            w.home.join(".claude/settings.json").display()
        )),
        "{}",
        show(&o)
    );
    assert!(!memdir.join(".consolidate-lock").exists());

    // the /dream command the installer writes runs it by hand
    let o = w.tool(
        "mem-hook",
        &["install", "--bin-dir", bin_dir().to_str().unwrap()],
        b"",
        &[],
    );
    assert!(o.status.success(), "{}", show(&o));
    let command = w.home.join(".claude/commands/dream.md");
    let text = std::fs::read_to_string(&command).unwrap();
    // (the bin dir holds no character the shell quotes)
    let dream = bin_dir().join("mem-dream").display().to_string();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&dream))
        .unwrap_or_else(|| panic!("no mem-dream line:\n{text}"))
        .trim()
        .replace("$ARGUMENTS", "");
    assert_eq!(line, format!("{dream} --force --explain --format text "));
    assert!(
        text.contains(&format!("allowed-tools: Bash({dream} --force:*)")),
        "{text}"
    );
    let o = w.sh(&line, b"", &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        stdout(&o).contains("merge use-pnpm from=[\"use-pnpm-2\"]"),
        "{}",
        show(&o)
    );
    assert!(
        stderr(&o).contains(
            "gate master: open: consolidation by hand (--force; autoDreamEnabled is false in"
        ),
        "{}",
        show(&o)
    );
    assert_eq!(topic_files(&memdir), ["use-pnpm.md"]);
}

/// The agent memory directory of `reviewer` in `scope` for the world.
fn agent_dir(w: &World, scope: &str) -> PathBuf {
    match scope {
        "user" => w.home.join(".claude/agent-memory/reviewer"),
        "project" => w.project.join(".claude/agent-memory/reviewer"),
        _ => w.project.join(".claude/agent-memory-local/reviewer"),
    }
}

#[test]
fn recall_reads_the_agents_memory_in_each_scope() {
    for scope in ["user", "project", "local"] {
        let w = World::new();
        let rec = json!({"name": "Review: flag unchecked unwrap calls",
            "description": "Flag every unchecked unwrap in the diff under review",
            "type": "feedback", "triggers": ["unwrap"], "source": "user"});
        let o = w.tool(
            "mem-index",
            &["--agent", "reviewer", "--scope", scope, "write"],
            format!("{rec}\n").as_bytes(),
            &[],
        );
        assert!(o.status.success(), "{}", show(&o));
        let dir = agent_dir(&w, scope);
        assert_eq!(topic_files(&dir).len(), 1, "{scope}: {}", dir.display());
        let recall = |agent: bool| {
            let mut a = vec![];
            if agent {
                a.extend(["--agent", "reviewer", "--scope", scope]);
            }
            a.extend([
                "--task",
                "check the unwrap calls in the diff",
                "--format",
                "jsonl",
            ]);
            let o = w.tool("mem-recall", &a, b"", &[]);
            assert!(o.status.success(), "{}", show(&o));
            records(&o)
                .into_iter()
                .filter(|r| r["action"] == "recall")
                .map(|r| r["id"].as_str().unwrap_or_default().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            recall(true),
            ["review-flag-unchecked-unwrap-calls"],
            "{scope}"
        );
        // the project's own memory does not hold it
        assert_eq!(recall(false), Vec::<String>::new(), "{scope}");
    }
}

#[test]
fn dream_consolidates_the_agents_memory_in_each_scope() {
    for scope in ["user", "project", "local"] {
        let w = World::new();
        let mut copy = pnpm(
            "Installs go through pnpm workspaces",
            "npm rewrites the pnpm lockfile.",
            "2026-07-10",
            "transcript:bbbbbbbbbbbb#9",
        );
        copy["id"] = json!("use-pnpm-2");
        let first = pnpm(
            "Use pnpm for installs",
            "The repository uses pnpm workspaces.",
            "2026-07-01",
            "transcript:aaaaaaaaaaaa#3",
        );
        let input = format!("{first}\n{copy}\n");
        let o = w.tool(
            "mem-index",
            &["--agent", "reviewer", "--scope", scope, "write"],
            input.as_bytes(),
            &[],
        );
        assert!(o.status.success(), "{}", show(&o));
        let dir = agent_dir(&w, scope);
        assert_eq!(topic_files(&dir), ["use-pnpm-2.md", "use-pnpm.md"]);
        let o = w.tool(
            "mem-dream",
            &[
                "--agent", "reviewer", "--scope", scope, "--force", "--format", "jsonl",
            ],
            b"",
            &[],
        );
        assert!(o.status.success(), "{scope}: {}", show(&o));
        assert_eq!(records(&o)[0]["op"], "merge", "{scope}: {}", show(&o));
        assert_eq!(topic_files(&dir), ["use-pnpm.md"], "{scope}");
        assert!(dir.join(".consolidate-lock").is_file(), "{scope}");
        // the project's own memory directory is untouched
        assert!(!w.memory_dir().exists(), "{scope}");
    }
}

#[test]
fn session_start_starts_the_dream_for_a_daily_log() {
    let w = World::new();
    let memdir = w.memory_dir();
    std::fs::create_dir_all(&memdir).unwrap();
    w.session();
    let start = |sid: &str| {
        let input = json!({"hook_event_name": "SessionStart", "session_id": sid,
            "source": "startup", "cwd": w.project});
        let o = w.tool("mem-hook", &[], format!("{input}\n").as_bytes(), &[]);
        assert!(o.status.success(), "{}", show(&o));
        stderr(&o)
    };
    // one session, no log: not due
    let err = start("s1");
    assert!(err.contains("no consolidation: sessions: 1 < 5"), "{err}");
    // a daily log: due
    let rec = pnpm(
        "Use pnpm for installs",
        "The repository uses pnpm workspaces.",
        "2026-07-14",
        "transcript:aaaaaaaaaaaa#3",
    );
    write(&w, &memdir, &[rec], true);
    assert_eq!(logs(&memdir), ["logs/2026/07/2026-07-14.md"]);
    let err = start("s2");
    assert!(
        err.contains("consolidation due; mem-dream started"),
        "{err}"
    );
    let lock = memdir.join(".consolidate-lock");
    let t0 = std::time::Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|s| s.trim() == "0") {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(90),
            "the dream never released the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        topic_files(&memdir).contains(&"use-pnpm.md".to_string()),
        "{:?}",
        topic_files(&memdir)
    );
}
