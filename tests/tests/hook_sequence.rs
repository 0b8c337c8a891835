//! A whole session through mem's hooks, as the agents run them.
//!
//! `mem-recall hooks install` writes the hooks into a settings file under a
//! temporary HOME; the test reads the commands back from that file and runs
//! each through `sh -c` with the JSON the agent sends on stdin, in the order
//! of a real session: SessionStart(startup) → UserPromptSubmit →
//! PreToolUse(Bash) → Stop per turn → PreCompact → SessionStart(compact) →
//! SessionEnd. The memory directory is one Claude Code already keeps
//! (tests/fixtures/claude-memory: its own topic files, headings and notes in
//! MEMORY.md); nothing of Claude's may be lost. Then the same for Codex:
//! `hooks.json`, its hook JSON (`turn_id`, `model`, a nullable
//! `transcript_path`) and a rollout transcript.
//!
//! Each step checks what every hook must do (exit 0, valid hook JSON or
//! nothing on stdout); the per-turn memories, the injected context, the
//! reminder and the dream are checked at the step where they happen.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mem_tests::{bin, run, show, workspace_root};
use serde_json::{Value, json};

const SID: &str = "5e55a0e1-aaaa-4bbb-8ccc-444455556666";
const CODEX_SID: &str = "0199b0c0-0000-7000-8000-000000000002";

/// The correction the user makes in the second turn.
const CORRECTION: &str = "Always use pnpm instead of npm to add packages in this repo, because npm rewrites the pnpm lockfile and breaks the CI install.";

/// A temporary HOME with a project in it and the built tools.
struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap();
        let project = home.join("src/orders");
        std::fs::create_dir_all(&project).unwrap();
        World {
            _tmp: tmp,
            home,
            project,
        }
    }

    /// A command with HOME here, no inherited mem/Claude/Codex variables, a
    /// pinned clock, in the project, and a PATH without the mem tools (the
    /// hooks must name them by absolute path).
    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy().to_string();
            if k.starts_with("MEM_")
                || k.starts_with("CLAUDE_")
                || k.starts_with("CODEX_")
                || k.starts_with("XDG_")
            {
                c.env_remove(k);
            }
        }
        c.env("HOME", &self.home)
            .env("PATH", "/usr/bin:/bin")
            .env("TZ", "UTC")
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("MEM_TODAY", "2026-07-14")
            .current_dir(&self.project);
        c
    }

    /// The project's memory directory as mem resolves it (Claude Code's
    /// `~/.claude/projects/<project>/memory`).
    fn memory_dir(&self) -> PathBuf {
        let mut c = self.command(&bin("mem-index"));
        c.arg("path");
        let out = run(c, b"");
        assert!(out.status.success(), "{}", show(&out));
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    }

    /// Fill the memory directory with the Claude Code fixture; its files.
    fn claude_populates(&self) -> BTreeMap<String, Vec<u8>> {
        let dir = self.memory_dir();
        assert!(
            dir.starts_with(self.home.join(".claude/projects")),
            "{}",
            dir.display()
        );
        std::fs::create_dir_all(&dir).unwrap();
        let mut out = BTreeMap::new();
        let fixture = workspace_root().join("tests/fixtures/claude-memory");
        for e in std::fs::read_dir(fixture).unwrap() {
            let e = e.unwrap();
            let bytes = std::fs::read(e.path()).unwrap();
            std::fs::write(dir.join(e.file_name()), &bytes).unwrap();
            out.insert(e.file_name().to_string_lossy().into_owned(), bytes);
        }
        out
    }

    /// `mem-recall hooks install ARGS` (the real binary), checked.
    fn install(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut c = self.command(&bin("mem-recall"));
        c.arg("hooks").arg("install").args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = run(c, b"");
        assert!(out.status.success(), "{}", show(&out));
        out
    }

    /// Run one hook command as the agent does: `sh -c COMMAND`, the hook
    /// JSON on stdin, in the session's cwd.
    fn fire(&self, command: &str, input: &Value, env: &[(&str, &Path)]) -> Output {
        let mut c = self.command(Path::new("/bin/sh"));
        c.arg("-c").arg(command);
        for (k, v) in env {
            c.env(k, v);
        }
        run(c, format!("{input}\n").as_bytes())
    }
}

/// The hooks of a settings file: event → (matcher, command, timeout).
type Installed = BTreeMap<String, Vec<(Option<String>, String, u64)>>;

/// The hooks of the settings file at `path`.
fn installed(path: &Path) -> Installed {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        let mut list = Vec::new();
        for g in groups.as_array().unwrap() {
            let matcher = g["matcher"].as_str().map(str::to_string);
            for h in g["hooks"].as_array().unwrap() {
                assert_eq!(h["type"], "command", "{h}");
                list.push((
                    matcher.clone(),
                    h["command"].as_str().unwrap().to_string(),
                    h["timeout"].as_u64().unwrap(),
                ));
            }
        }
        out.insert(event.clone(), list);
    }
    out
}

/// What the agent got back from every hook of one event (each must exit 0
/// and print hook JSON for that event, or nothing).
struct Fired {
    /// The `additionalContext` texts (joined).
    context: String,
    /// The whole outputs, for messages.
    shown: String,
    /// The parsed JSON answers.
    answers: Vec<Value>,
}

/// Run every installed hook of `event` whose matcher matches `tool`.
fn fire_event(
    w: &World,
    hooks: &Installed,
    input: &Value,
    env: &[(&str, &Path)],
    must_succeed: bool,
) -> Fired {
    let event = input["hook_event_name"].as_str().unwrap();
    let tool = input["tool_name"].as_str();
    let mut f = Fired {
        context: String::new(),
        shown: String::new(),
        answers: Vec::new(),
    };
    let list = hooks
        .get(event)
        .unwrap_or_else(|| panic!("no {event} hook installed"));
    for (matcher, command, _) in list {
        if let (Some(m), Some(t)) = (matcher, tool)
            && m != t
        {
            continue;
        }
        let out = w.fire(command, input, env);
        f.shown.push_str(&show(&out));
        if must_succeed {
            assert!(
                out.status.success(),
                "{event} hook failed: {command}\n{}",
                show(&out)
            );
        }
        if out.stdout.is_empty() {
            continue;
        }
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{event} hook printed no JSON ({e}): {}", show(&out)));
        let hso = &v["hookSpecificOutput"];
        assert_eq!(hso["hookEventName"], event, "{v}");
        if let Some(c) = hso["additionalContext"].as_str() {
            assert!(c.chars().count() <= 10_000);
            f.context.push_str(c);
        }
        f.answers.push(v);
    }
    f
}

/// The topic files mem wrote (not Claude's), as text, by name.
fn mem_topics(dir: &Path, claude: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            (n.ends_with(".md") && n != "MEMORY.md" && !claude.contains_key(&n))
                .then(|| (n, std::fs::read_to_string(e.path()).unwrap()))
        })
        .collect()
}

/// Claude's files are byte-identical, and MEMORY.md holds Claude's lines
/// verbatim and in order once mem's own entries (links to the files mem
/// wrote) are taken out.
fn nothing_of_claudes_lost(dir: &Path, claude: &BTreeMap<String, Vec<u8>>) {
    for (name, bytes) in claude {
        if name == "MEMORY.md" {
            continue;
        }
        assert_eq!(
            &std::fs::read(dir.join(name)).unwrap(),
            bytes,
            "{name} was changed"
        );
    }
    let mine: Vec<String> = mem_topics(dir, claude).into_keys().collect();
    let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let kept: String = index
        .split_inclusive('\n')
        .filter(|l| !mine.iter().any(|m| l.contains(&format!("]({m})"))))
        .collect();
    let original = String::from_utf8(claude["MEMORY.md"].clone()).unwrap();
    assert_eq!(
        kept.trim_end(),
        original.trim_end(),
        "MEMORY.md lost or changed Claude's lines:\n{index}"
    );
}

/// Every file under `dir` with its bytes (for "changes nothing").
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    mem_tests::files_under(dir)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

/// True once `mem-extract session` reads a hook's JSON (the PreCompact
/// hook's second stage); before, the PreCompact step is run but its exit
/// status is not asserted.
fn precompact_ready() -> bool {
    let out = Command::new(bin("mem-extract"))
        .args(["session", "--help"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).contains("--hook")
}

/// True when the prompt hook keeps the memories it injected per session
/// (an `injected.json` in a session's hook-state folder).
fn once_per_session(home: &Path) -> bool {
    mem_tests::files_under(&home.join(".cache"))
        .iter()
        .any(|p| p.file_name().is_some_and(|n| n == "injected.json"))
}

/// One Claude Code transcript, written turn by turn as the agent would.
struct Transcript {
    path: PathBuf,
    cwd: PathBuf,
    n: usize,
}

impl Transcript {
    fn append(&mut self, kind: &str, message: Value) {
        use std::io::Write as _;
        self.n += 1;
        let uuid = |i: usize| format!("bbbbbbbb-0000-4000-8000-{i:012}");
        let parent = if self.n == 1 {
            Value::Null
        } else {
            json!(uuid(self.n - 1))
        };
        let v = json!({
            "parentUuid": parent, "isSidechain": false, "userType": "external",
            "cwd": self.cwd, "sessionId": SID, "version": "2.1.200", "type": kind,
            "uuid": uuid(self.n), "timestamp": format!("2026-07-14T09:{:02}:00Z", self.n),
            "message": message,
        });
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .unwrap();
        writeln!(f, "{v}").unwrap();
    }

    fn prompt(&mut self, text: &str) {
        self.append("user", json!({"role": "user", "content": text}));
    }

    fn bash(&mut self, id: &str, cmd: &str, out: &str, err: bool) {
        self.append(
            "assistant",
            json!({"id": format!("msg_{id}"), "role": "assistant", "content": [
                {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}]}),
        );
        self.append(
            "user",
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": out, "is_error": err}]}),
        );
    }

    fn say(&mut self, text: &str) {
        let id = format!("msg_say{}", self.n);
        self.append(
            "assistant",
            json!({"id": id, "role": "assistant", "content": [{"type": "text", "text": text}]}),
        );
    }
}

#[test]
fn claude_code_session_through_the_installed_hooks() {
    let w = World::new();
    let claude = w.claude_populates();
    let memdir = w.memory_dir();
    let settings = w.home.join(".claude/settings.json");
    w.install(&[], &[]);
    let hooks = installed(&settings);
    // Every hook of the table, with its timeout and absolute tool paths.
    for spec in mem_core::hooks::HOOKS {
        let list = &hooks[spec.event];
        assert_eq!(list.len(), 1, "{}: {list:?}", spec.event);
        let (matcher, command, timeout) = &list[0];
        assert_eq!(matcher.as_deref(), spec.matcher);
        assert_eq!(*timeout, u64::from(spec.timeout_secs));
        assert!(command.starts_with('/'), "{command}");
    }

    let mut t = Transcript {
        // beside the memory directory, where Claude Code keeps it
        path: memdir.parent().unwrap().join(format!("{SID}.jsonl")),
        cwd: w.project.clone(),
        n: 0,
    };
    std::fs::create_dir_all(t.path.parent().unwrap()).unwrap();
    let transcript = t.path.clone();
    let base = |event: &str| {
        json!({"session_id": SID, "transcript_path": transcript, "cwd": w.project,
            "permission_mode": "default", "hook_event_name": event})
    };
    let with = |mut v: Value, extra: Value| {
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };

    // SessionStart (startup): Claude's own `type: user` memory is what a
    // session starts with (Claude Code loads MEMORY.md itself).
    let f = fire_event(
        &w,
        &hooks,
        &with(
            base("SessionStart"),
            json!({"source": "startup", "model": "claude-opus-4"}),
        ),
        &[],
        true,
    );
    assert!(f.context.contains("Senior Go engineer"), "{}", f.shown);

    // Turn 1: the prompt, a Bash call, the failure, the fix, the pass.
    let p1 = "Add integration tests for the orders API.";
    t.prompt(p1);
    fire_event(
        &w,
        &hooks,
        &with(base("UserPromptSubmit"), json!({"prompt": p1})),
        &[],
        true,
    );
    let pre = |cmd: &str, id: &str| {
        with(
            base("PreToolUse"),
            json!({"tool_name": "Bash", "tool_use_id": id,
                "tool_input": {"command": cmd, "description": "run"}}),
        )
    };
    fire_event(
        &w,
        &hooks,
        &pre("npm run test:integration", "toolu_01"),
        &[],
        true,
    );
    t.bash(
        "toolu_01",
        "npm run test:integration",
        "Error: relation \"orders\" does not exist (run npm run db:migrate first)",
        true,
    );
    t.bash("toolu_02", "npm run db:migrate", "migrated 3 tables", false);
    t.bash("toolu_03", "npm run test:integration", "12 passing", false);
    let done1 = "The integration tests pass after migrating the database.";
    t.say(done1);
    fire_event(
        &w,
        &hooks,
        &with(
            base("Stop"),
            json!({"stop_hook_active": false, "last_assistant_message": done1}),
        ),
        &[],
        true,
    );
    // Memories appear turn by turn: the lesson of turn 1 is there now.
    let after1 = mem_topics(&memdir, &claude);
    assert!(
        after1
            .values()
            .any(|m| m.contains("kind: durable-lesson") && m.contains("db:migrate")),
        "no lesson after turn 1: {after1:#?}"
    );
    assert!(!after1.values().any(|m| m.contains("pnpm")), "{after1:#?}");
    nothing_of_claudes_lost(&memdir, &claude);

    // Turn 2: a correction.
    t.prompt(CORRECTION);
    fire_event(
        &w,
        &hooks,
        &with(base("UserPromptSubmit"), json!({"prompt": CORRECTION})),
        &[],
        true,
    );
    let done2 = "Understood: packages are added with pnpm.";
    t.say(done2);
    fire_event(
        &w,
        &hooks,
        &with(
            base("Stop"),
            json!({"stop_hook_active": false, "last_assistant_message": done2}),
        ),
        &[],
        true,
    );
    let after2 = mem_topics(&memdir, &claude);
    assert!(
        after2
            .values()
            .any(|m| m.contains("type: feedback") && m.contains("pnpm")),
        "no correction after turn 2: {after2:#?}"
    );
    nothing_of_claudes_lost(&memdir, &claude);

    // Turn 3: the correction comes back for the task it is about.
    let p3 = "Add the zod package and use it to validate refunds";
    t.prompt(p3);
    let f = fire_event(
        &w,
        &hooks,
        &with(base("UserPromptSubmit"), json!({"prompt": p3})),
        &[],
        true,
    );
    assert!(f.context.contains("Always use pnpm"), "{}", f.shown);
    // Once per session: when the hook keeps the ids it injected for the
    // session, what SessionStart gave is not given again.
    if once_per_session(&w.home) {
        assert!(!f.context.contains("Senior Go engineer"), "{}", f.shown);
    }
    // A command no lesson is about gets no reminder.
    let f = fire_event(&w, &hooks, &pre("ls -la src", "toolu_04"), &[], true);
    assert!(f.answers.is_empty(), "{}", f.shown);
    let f = fire_event(
        &w,
        &hooks,
        &pre("npm run test:integration", "toolu_05"),
        &[],
        true,
    );
    if let Some(a) = f.answers.first() {
        // a reminder, when given, names the lesson
        assert!(a.to_string().contains("db:migrate"), "{a}");
    }
    t.bash("toolu_05", "npm run test:integration", "13 passing", false);
    t.say("Done: 13 passing.");
    fire_event(
        &w,
        &hooks,
        &with(
            base("Stop"),
            json!({"stop_hook_active": false, "last_assistant_message": "Done: 13 passing."}),
        ),
        &[],
        true,
    );

    // Compaction, then the session goes on from the summary.
    fire_event(
        &w,
        &hooks,
        &with(
            base("PreCompact"),
            json!({"trigger": "auto", "custom_instructions": ""}),
        ),
        &[],
        precompact_ready(),
    );
    fire_event(
        &w,
        &hooks,
        &with(base("SessionStart"), json!({"source": "compact"})),
        &[],
        true,
    );

    // SessionEnd catches the rest; a second run changes nothing.
    let end = with(base("SessionEnd"), json!({"reason": "prompt_input_exit"}));
    fire_event(&w, &hooks, &end, &[], true);
    let before = snapshot(&memdir);
    fire_event(&w, &hooks, &end, &[], true);
    assert_eq!(snapshot(&memdir), before);

    let written = mem_topics(&memdir, &claude);
    assert!(!written.is_empty());
    for m in written.values() {
        assert!(!m.contains(SID), "a session id reached a memory: {m}");
        assert!(
            !m.contains(&*w.project.to_string_lossy()),
            "an absolute path reached a memory: {m}"
        );
    }
    nothing_of_claudes_lost(&memdir, &claude);
}

/// The Codex fixture rollout with its cwd set to `project`; `turns` = 1
/// keeps only the first turn (up to its `task_complete`).
fn rollout(project: &Path, turns: usize) -> String {
    let text = std::fs::read_to_string(workspace_root().join(format!(
        "tests/fixtures/codex/rollout-2026-07-14T09-00-00-{CODEX_SID}.jsonl"
    )))
    .unwrap();
    let cwd = project.to_string_lossy();
    let mut out = String::new();
    let mut done = 0;
    for line in text.lines() {
        if done >= turns {
            break;
        }
        out.push_str(&line.replace("/home/user/src/orders", &cwd));
        out.push('\n');
        if line.contains("\"task_complete\"") {
            done += 1;
        }
    }
    out
}

#[test]
fn codex_session_through_the_installed_hooks() {
    let w = World::new();
    let claude = w.claude_populates();
    let memdir = w.memory_dir();
    let codex_home = w.home.join("codex-home");
    let env: [(&str, &Path); 1] = [("CODEX_HOME", &codex_home)];
    let out = w.install(&["--codex"], &env);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("/hooks"), "trust is explained: {said}");
    let hooks = installed(&codex_home.join("hooks.json"));
    assert!(!w.home.join(".claude/settings.json").exists());
    for spec in mem_core::hooks::HOOKS {
        assert_eq!(hooks[spec.event].len(), 1, "{}", spec.event);
    }

    let sessions = codex_home.join("sessions/2026/07/14");
    std::fs::create_dir_all(&sessions).unwrap();
    let path = sessions.join(format!("rollout-2026-07-14T09-00-00-{CODEX_SID}.jsonl"));
    let base = |event: &str, turn: &str| {
        json!({"session_id": CODEX_SID, "transcript_path": path, "cwd": w.project,
            "hook_event_name": event, "model": "gpt-5-codex", "turn_id": turn,
            "permission_mode": "default"})
    };
    let with = |mut v: Value, extra: Value| {
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };

    // SessionStart before the rollout exists: a null transcript_path.
    let mut start = with(base("SessionStart", "turn-1"), json!({"source": "startup"}));
    start["transcript_path"] = Value::Null;
    let f = fire_event(&w, &hooks, &start, &env, true);
    assert!(f.context.contains("Senior Go engineer"), "{}", f.shown);

    std::fs::write(&path, rollout(&w.project, 0)).unwrap();
    fire_event(
        &w,
        &hooks,
        &with(
            base("UserPromptSubmit", "turn-1"),
            json!({"prompt": "Add integration tests for the orders API."}),
        ),
        &env,
        true,
    );
    fire_event(
        &w,
        &hooks,
        &with(
            base("PreToolUse", "turn-1"),
            json!({"tool_name": "Bash", "tool_use_id": "call_01",
                "tool_input": {"command": "npm run test:integration"}}),
        ),
        &env,
        true,
    );
    // Stop of turn 1: the lesson.
    std::fs::write(&path, rollout(&w.project, 1)).unwrap();
    let stop = |turn: &str| {
        with(
            base("Stop", turn),
            json!({"stop_hook_active": false, "last_assistant_message": "done"}),
        )
    };
    fire_event(&w, &hooks, &stop("turn-1"), &env, true);
    let after1 = mem_topics(&memdir, &claude);
    assert!(
        after1
            .values()
            .any(|m| m.contains("db:migrate") && m.contains("source: tool")),
        "no lesson after turn 1: {after1:#?}"
    );
    assert!(!after1.values().any(|m| m.contains("mock")), "{after1:#?}");
    // Stop of turn 2: the correction.
    std::fs::write(&path, rollout(&w.project, 2)).unwrap();
    fire_event(&w, &hooks, &stop("turn-2"), &env, true);
    let after2 = mem_topics(&memdir, &claude);
    assert!(
        after2
            .values()
            .any(|m| m.contains("type: feedback") && m.to_lowercase().contains("mock the database")),
        "no correction after turn 2: {after2:#?}"
    );
    // A Stop without a rollout: nothing, exit 0.
    let mut nowhere = stop("turn-3");
    nowhere["transcript_path"] = Value::Null;
    let before = snapshot(&memdir);
    let f = fire_event(&w, &hooks, &nowhere, &env, true);
    assert!(f.answers.is_empty(), "{}", f.shown);
    assert_eq!(snapshot(&memdir), before);

    fire_event(
        &w,
        &hooks,
        &with(base("PreCompact", "turn-3"), json!({"trigger": "auto"})),
        &env,
        precompact_ready(),
    );
    fire_event(
        &w,
        &hooks,
        &with(base("SessionStart", "turn-3"), json!({"source": "compact"})),
        &env,
        true,
    );
    let end = with(base("SessionEnd", "turn-3"), json!({"reason": "other"}));
    fire_event(&w, &hooks, &end, &env, true);
    let before = snapshot(&memdir);
    fire_event(&w, &hooks, &end, &env, true);
    assert_eq!(snapshot(&memdir), before);
    for m in mem_topics(&memdir, &claude).values() {
        assert!(!m.contains(CODEX_SID), "a session id reached a memory: {m}");
    }
    nothing_of_claudes_lost(&memdir, &claude);
}
