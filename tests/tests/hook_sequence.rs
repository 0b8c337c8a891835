//! A whole session through mem's hooks, as the agents run them.
//!
//! `mem-hook install` writes the hooks into a settings file under a
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
//! reminder and the dream are checked at the step where they happen:
//!
//! - the dream: its gates are opened before SessionStart (the last
//!   consolidation 25 h ago, 5 sessions since); the hook starts `mem-dream`
//!   and returns while the dream still waits at its lock (the test holds
//!   the lock's flock), then the dream runs, stamps the lock, logs and
//!   learns; after it the time gate is closed;
//! - lessons at the moment of action: lessons the user wrote by hand stop
//!   the command they are about once (not others), and no longer once the
//!   session ran the precondition; the refusal recorded as the call's
//!   result teaches nothing; `enforce: ask` asks in Claude Code and stops
//!   once in Codex;
//! - compaction: a session past 10,000 tokens (auto-compaction on) gets its
//!   summary saved at PreCompact and injected first at SessionStart
//!   (`compact`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mem_tests::{bin, run, show, snapshot, workspace_root};
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

    /// `mem-hook install ARGS` (the real binary), checked.
    fn install(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut c = self.command(&bin("mem-hook"));
        c.arg("install").args(args);
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

/// How many of mem's hooks an event has (`Stop`: the write path and the
/// session memory).
fn specs_of(event: &str) -> usize {
    mem_core::hooks::HOOKS
        .iter()
        .filter(|h| h.event == event)
        .count()
}

/// An installed command with each tool's folder left out (the paths have
/// no spaces here).
fn bare(command: &str) -> String {
    command
        .split(' ')
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect::<Vec<_>>()
        .join(" ")
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

/// Lessons the user wrote into the memory directory by hand (Claude Code's
/// shape: `name`, `description`, `type`, a body with **Why:** and **How to
/// apply:**), each listed in MEMORY.md as Claude Code would; added to
/// `claude` (they are not mem's, so they must come through untouched).
/// One is a precondition (a reminder), one a replacement with
/// `enforce: ask`.
fn user_lessons(dir: &Path, claude: &mut BTreeMap<String, Vec<u8>>) {
    let files = [
        (
            "feedback_lint.md",
            "---\nname: Lint before committing\ndescription: The linter runs before every commit in this repo\ntype: feedback\n---\n\nRun `npm run lint` before `git commit`.\n\n**Why:** CI rejects a commit the linter would have fixed.\n**How to apply:** every commit, also the small ones.\n",
        ),
        (
            "feedback_npm_ci.md",
            "---\nname: Clean installs only\ndescription: Dependencies are installed from the lockfile as it is\ntype: feedback\nenforce: ask\n---\n\nUse `npm ci` instead of `npm install`.\n\n**Why:** npm install rewrote the lockfile twice last month.\n**How to apply:** whenever dependencies need installing.\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
        claude.insert(name.to_string(), text.as_bytes().to_vec());
    }
    let index = String::from_utf8(claude["MEMORY.md"].clone()).unwrap();
    let index = index.replace(
        "## Project\n",
        "- [Lint before committing](feedback_lint.md) — run the linter before every commit\n- [Clean installs only](feedback_npm_ci.md) — npm ci, not npm install\n\n## Project\n",
    );
    std::fs::write(dir.join("MEMORY.md"), &index).unwrap();
    claude.insert("MEMORY.md".into(), index.into_bytes());
}

/// The answer of the installed PreToolUse hook for a Bash `command`:
/// `None` when it printed nothing, else `hookSpecificOutput`.
fn pre_tool_use(
    w: &World,
    hooks: &Installed,
    input: &Value,
    env: &[(&str, &Path)],
) -> Option<Value> {
    let f = fire_event(w, hooks, input, env, true);
    assert!(f.answers.len() <= 1, "{}", f.shown);
    f.answers
        .into_iter()
        .next()
        .map(|v| v["hookSpecificOutput"].clone())
}

/// The dream's gates, opened: the last consolidation 25 h ago (the lock's
/// mtime; content `0`, no holder) and 5 earlier sessions of the project in
/// Claude Code's transcript folder, newer than that (one of them with a
/// correction for the dream to learn). The lock file is returned under an
/// exclusive `flock`: the `mem-dream` a hook starts stops at its lock
/// (every change of the lock is made under that flock) until the test
/// drops it, so the test can see the hook return while the dream waits.
/// The hook's own check never takes the flock.
struct DreamGates {
    lock: PathBuf,
    held: std::fs::File,
    before: std::time::SystemTime,
}

fn open_dream_gates(memdir: &Path, project: &Path) -> DreamGates {
    use std::time::{Duration, SystemTime};
    let lock = memdir.join(".consolidate-lock");
    std::fs::write(&lock, "0").unwrap();
    let before = SystemTime::now() - Duration::from_secs(25 * 3600);
    let held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&lock)
        .unwrap();
    held.set_modified(before).unwrap();
    held.lock().unwrap();
    let before = std::fs::metadata(&lock).unwrap().modified().unwrap();
    let sessions = memdir.parent().unwrap();
    for i in 1..=5 {
        let id = format!("cccccccc-0000-4000-8000-{i:012}");
        let prompt = if i == 3 {
            "Never push directly to the main branch of this repo, because every commit on main is deployed to production."
        } else {
            "Show me where the orders API validates its input."
        };
        let entry = |n: usize, kind: &str, message: Value| {
            json!({"parentUuid": if n == 1 { Value::Null } else { json!(format!("{id}-{}", n - 1)) },
                "isSidechain": false, "userType": "external", "entrypoint": "cli",
                "cwd": project, "sessionId": id, "version": "2.1.200", "type": kind,
                "uuid": format!("{id}-{n}"), "timestamp": format!("2026-07-1{i}T08:00:0{n}Z"),
                "message": message})
        };
        let text = format!(
            "{}\n{}\n",
            entry(1, "user", json!({"role": "user", "content": prompt})),
            entry(
                2,
                "assistant",
                json!({"id": format!("msg_c{i}"), "role": "assistant",
                    "content": [{"type": "text", "text": "Understood."}]})
            )
        );
        std::fs::write(sessions.join(format!("{id}.jsonl")), text).unwrap();
    }
    DreamGates { lock, held, before }
}

/// Whether process `pid` is running (not gone, not a zombie).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X'),
        Err(_) => false,
    }
}

/// SessionStart (`f`) found the gates open and started `mem-dream`
/// detached: the hook has returned while the dream still waits at its
/// lock (nothing consolidated yet); once the lock is let go the dream
/// runs to its end, takes the lock and stamps it (its mtime is the
/// consolidation's time), writes its log, and learns the earlier
/// session's correction.
fn dream_ran_detached(w: &World, memdir: &Path, f: &Fired, gates: DreamGates) {
    use std::time::{Duration, Instant, SystemTime};
    let said = f
        .shown
        .split("mem-dream started (pid ")
        .nth(1)
        .unwrap_or_else(|| panic!("the dream was not started:\n{}", f.shown));
    let pid: u32 = said[..said.find(',').unwrap()].parse().unwrap();
    // The hook has returned; the dream it started is still waiting.
    assert!(running(pid), "mem-dream {pid} is not running:\n{}", f.shown);
    let mtime = || std::fs::metadata(&gates.lock).unwrap().modified().unwrap();
    assert_eq!(
        mtime(),
        gates.before,
        "the dream ran before the hook returned"
    );
    // Let it go, and wait for its end.
    drop(gates.held);
    let start = Instant::now();
    while running(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "mem-dream {pid} still running after 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let age = SystemTime::now()
        .duration_since(mtime())
        .unwrap_or_default();
    assert!(
        age < Duration::from_secs(600),
        "the lock was not stamped by a consolidation: {age:?} old"
    );
    assert_eq!(std::fs::read_to_string(&gates.lock).unwrap().trim(), "0");
    let log = mem_tests::files_under(&w.home.join(".cache"))
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "dream.log"))
        .expect("dream.log");
    let log = std::fs::read_to_string(log).unwrap();
    assert!(log.contains("mem-dream"), "dream.log: {log}");
    assert!(!log.contains("not due"), "dream.log: {log}");
    let learnt = std::fs::read_dir(memdir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .any(|m| m.contains("main branch") && m.contains("type: feedback"));
    assert!(learnt, "the dream learnt nothing; dream.log: {log}");
}

/// The session summary `mem-extract session --hook` saved at PreCompact
/// (`session-memory.md` in the session's hook-state folder).
fn session_summary(home: &Path) -> Option<String> {
    mem_tests::files_under(&home.join(".cache"))
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "session-memory.md"))
        .map(|p| std::fs::read_to_string(p).unwrap())
}

/// A long test log (about 53 KB, 13,000 tokens): enough to take a session
/// past the 10,000 tokens after which its summary is kept.
fn long_test_log() -> String {
    (1..=800)
        .map(|i| {
            format!("  ok {i:>3} orders API refund case {i:>3} validates the payload schema\n")
        })
        .collect()
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
    let mut claude = w.claude_populates();
    let memdir = w.memory_dir();
    user_lessons(&memdir, &mut claude);
    let settings = w.home.join(".claude/settings.json");
    // The user's settings: auto-compaction on (the session summary is kept
    // for it); the installer keeps the key.
    std::fs::write(&settings, r#"{"autoCompactEnabled": true}"#).unwrap();
    w.install(&[], &[]);
    let hooks = installed(&settings);
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(kept["autoCompactEnabled"], true);
    // Every hook of the table, with its timeout and absolute tool paths.
    for spec in mem_core::hooks::HOOKS {
        let list = &hooks[spec.event];
        assert_eq!(list.len(), specs_of(spec.event), "{}: {list:?}", spec.event);
        let (matcher, command, timeout) = list
            .iter()
            .find(|(_, c, _)| bare(c) == spec.command)
            .unwrap_or_else(|| panic!("{}: no {:?} in {list:?}", spec.event, spec.command));
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
    // session starts with (Claude Code loads MEMORY.md itself). The dream's
    // gates are open (a day since the last consolidation, 5 sessions
    // since): it starts, detached.
    let gates = open_dream_gates(&memdir, &w.project);
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
    dream_ran_detached(&w, &memdir, &f, gates);
    nothing_of_claudes_lost(&memdir, &claude);

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
    // Stop: the turn ends with the agent's last message.
    let stop = |said: &str| {
        fire_event(
            &w,
            &hooks,
            &with(
                base("Stop"),
                json!({"stop_hook_active": false, "last_assistant_message": said}),
            ),
            &[],
            true,
        )
    };
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
    stop(done1);
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
    stop(done2);
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
    // Once per session: the hook keeps the ids it injected for the
    // session; what SessionStart gave is not given again.
    assert!(once_per_session(&w.home), "no injected.json kept");
    assert!(!f.context.contains("Senior Go engineer"), "{}", f.shown);
    // Lessons at the moment of action. A command no lesson is about gets
    // nothing; nor does the one turn 1's lesson is about (run
    // `npm run db:migrate` first): this session ran it.
    assert_eq!(
        pre_tool_use(&w, &hooks, &pre("ls -la src", "toolu_04"), &[]),
        None
    );
    assert!(
        after2.values().any(|m| m.contains("`npm run db:migrate`")),
        "{after2:#?}"
    );
    assert_eq!(
        pre_tool_use(
            &w,
            &hooks,
            &pre("npm run test:integration", "toolu_05"),
            &[]
        ),
        None
    );
    t.bash(
        "toolu_05",
        "npm run test:integration",
        &long_test_log(),
        false,
    );
    // The user's lesson stops the command it is about, once.
    let commit = "git add src/refunds.ts && git commit -m 'Validate refunds with zod'";
    let a = pre_tool_use(&w, &hooks, &pre(commit, "toolu_06"), &[]).expect("a refusal");
    assert_eq!(a["permissionDecision"], "deny", "{a}");
    let why = a["permissionDecisionReason"].as_str().unwrap();
    assert!(
        why.starts_with(mem_core::lesson::STOP_HEADER)
            && why.contains("Run `npm run lint` before `git commit`.")
            && why.contains("memory feedback_lint")
            && why.contains("Run `npm run lint` first, then this command again."),
        "{a}"
    );
    assert_eq!(a["additionalContext"], Value::Null, "{a}");
    // Claude Code records the refusal as the call's result
    t.bash("toolu_06", commit, why, true);
    // `enforce: ask`: Claude Code asks the user.
    let a = pre_tool_use(&w, &hooks, &pre("npm install zod", "toolu_07"), &[]).expect("ask");
    assert_eq!(a["permissionDecision"], "ask", "{a}");
    assert!(
        a["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("Use `npm ci` instead of `npm install`."),
        "{a}"
    );
    assert_eq!(
        pre_tool_use(&w, &hooks, &pre("npm ci", "toolu_08"), &[]),
        None
    );
    // Once the session ran the linter, the commit gets nothing.
    t.bash("toolu_09", "npm run lint", "0 problems", false);
    assert_eq!(
        pre_tool_use(&w, &hooks, &pre(commit, "toolu_10"), &[]),
        None
    );
    t.bash(
        "toolu_10",
        commit,
        "[main 1a2b3c4] Validate refunds with zod",
        false,
    );
    t.say("Done: 800 passing.");
    let before_stop = mem_topics(&memdir, &claude);
    stop("Done: 800 passing.");
    // The refused commit (refusal, lint, commit) is no lesson of its own:
    // the refusal was neither a failure nor a success of the commit.
    let after3 = mem_topics(&memdir, &claude);
    let new: Vec<&String> = after3
        .iter()
        .filter(|(k, _)| !before_stop.contains_key(*k))
        .map(|(_, v)| v)
        .collect();
    assert!(
        !new.iter()
            .any(|m| m.contains("git commit") || m.contains("npm run lint")),
        "{new:#?}"
    );

    // Compaction: the session is past 10,000 tokens, so the Stops kept
    // its summary turn by turn, PreCompact adds the rest, and SessionStart
    // (compact) gives it back first.
    let kept = session_summary(&w.home).expect("no session summary from the Stops");
    assert!(
        kept.starts_with("# Session summary\n\n## Segment 1\n"),
        "{kept}"
    );
    fire_event(
        &w,
        &hooks,
        &with(
            base("PreCompact"),
            json!({"trigger": "auto", "custom_instructions": ""}),
        ),
        &[],
        true,
    );
    let summary = session_summary(&w.home).expect("no session summary after PreCompact");
    assert!(
        summary.starts_with("# Session summary") && summary.contains("Add the zod package"),
        "{summary}"
    );
    let f = fire_event(
        &w,
        &hooks,
        &with(base("SessionStart"), json!({"source": "compact"})),
        &[],
        true,
    );
    assert!(
        f.context.starts_with("# Session memory") && f.context.contains("Add the zod package"),
        "{}",
        f.shown
    );
    // The dream ran at startup: its time gate is closed now.
    assert!(
        f.shown.contains("no consolidation: time:") && !f.shown.contains("mem-dream started"),
        "{}",
        f.shown
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

/// Turn 3 of the Codex session, in the rollout's lines: a request, a
/// shell call with a long output, the answer.
fn codex_turn_3() -> String {
    let at = |s: u32| format!("2026-07-14T09:01:{s:02}.000Z");
    let output =
        json!({"output": long_test_log(), "metadata": {"exit_code": 0, "duration_seconds": 9.1}});
    [
        json!({"timestamp": at(0), "type": "event_msg", "payload": {"type": "task_started", "turn_id": "turn-3"}}),
        json!({"timestamp": at(1), "type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "Run the whole test suite and tell me what fails."}]}}),
        json!({"timestamp": at(2), "type": "response_item", "payload": {"type": "function_call", "name": "shell",
            "arguments": json!({"command": ["bash", "-lc", "npm test"]}).to_string(), "call_id": "call_31"}}),
        json!({"timestamp": at(3), "type": "response_item", "payload": {"type": "function_call_output",
            "call_id": "call_31", "output": output.to_string()}}),
        json!({"timestamp": at(4), "type": "response_item", "payload": {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "All 800 cases pass; nothing fails."}]}}),
        json!({"timestamp": at(5), "type": "event_msg", "payload": {"type": "task_complete", "turn_id": "turn-3",
            "last_agent_message": "All 800 cases pass; nothing fails."}}),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect()
}

#[test]
fn codex_session_through_the_installed_hooks() {
    let w = World::new();
    let mut claude = w.claude_populates();
    let memdir = w.memory_dir();
    user_lessons(&memdir, &mut claude);
    let codex_home = w.home.join("codex-home");
    let env: [(&str, &Path); 1] = [("CODEX_HOME", &codex_home)];
    let out = w.install(&["--codex"], &env);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("/hooks"), "trust is explained: {said}");
    let hooks = installed(&codex_home.join("hooks.json"));
    assert!(!w.home.join(".claude/settings.json").exists());
    for spec in mem_core::hooks::HOOKS {
        assert_eq!(
            hooks[spec.event].len(),
            specs_of(spec.event),
            "{}",
            spec.event
        );
        assert!(
            hooks[spec.event]
                .iter()
                .any(|(_, c, _)| bare(c) == spec.command),
            "{}: {:?}",
            spec.event,
            hooks[spec.event]
        );
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
    // The dream's gates are open: it starts, detached.
    let gates = open_dream_gates(&memdir, &w.project);
    let mut start = with(base("SessionStart", "turn-1"), json!({"source": "startup"}));
    start["transcript_path"] = Value::Null;
    let f = fire_event(&w, &hooks, &start, &env, true);
    assert!(f.context.contains("Senior Go engineer"), "{}", f.shown);
    dream_ran_detached(&w, &memdir, &f, gates);
    nothing_of_claudes_lost(&memdir, &claude);

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
    let pre = |cmd: &str, id: &str| {
        with(
            base("PreToolUse", "turn-1"),
            json!({"tool_name": "Bash", "tool_use_id": id,
                "tool_input": {"command": cmd}}),
        )
    };
    // Lessons at the moment of action, in Codex's shape: the user's lesson
    // stops its command once, not another; so does `enforce: ask` (Codex
    // takes `ask` for a failed hook).
    assert_eq!(
        pre_tool_use(
            &w,
            &hooks,
            &pre("npm run test:integration", "call_01"),
            &env
        ),
        None
    );
    assert_eq!(
        pre_tool_use(&w, &hooks, &pre("ls -la src", "call_x1"), &env),
        None
    );
    let a = pre_tool_use(
        &w,
        &hooks,
        &pre("git commit -am 'Add tests'", "call_x2"),
        &env,
    )
    .expect("a refusal");
    assert_eq!(a["permissionDecision"], "deny", "{a}");
    assert!(
        a["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("Run `npm run lint` before `git commit`."),
        "{a}"
    );
    // once: the same command again passes
    assert_eq!(
        pre_tool_use(
            &w,
            &hooks,
            &pre("git commit -am 'Add tests'", "call_x2b"),
            &env
        ),
        None
    );
    let a = pre_tool_use(&w, &hooks, &pre("npm install", "call_x3"), &env).expect("a refusal");
    assert_eq!(a["permissionDecision"], "deny", "{a}");
    assert!(
        a["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("Use `npm ci` instead of `npm install`."),
        "{a}"
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
            // the output named the fix, a project-local script: a normal
            // lesson (docs/security.md "What a command does")
            .any(|m| m.contains("db:migrate")
                && m.contains("source: assistant")
                && m.contains("trust: normal")),
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

    // Turn 3 takes the rollout past 10,000 tokens (a long test log): its
    // Stop keeps the summary, PreCompact adds the rest, and SessionStart
    // (compact) gives it back first.
    let mut text = rollout(&w.project, 2);
    text.push_str(&codex_turn_3());
    std::fs::write(&path, text).unwrap();
    fire_event(&w, &hooks, &stop("turn-3"), &env, true);
    let kept = session_summary(&w.home).expect("no session summary from the Stop");
    assert!(kept.contains("Run the whole test suite"), "{kept}");
    fire_event(
        &w,
        &hooks,
        &with(base("PreCompact", "turn-3"), json!({"trigger": "auto"})),
        &env,
        true,
    );
    let summary = session_summary(&w.home).expect("no session summary after PreCompact");
    assert!(
        summary.starts_with("# Session summary") && summary.contains("Run the whole test suite"),
        "{summary}"
    );
    let f = fire_event(
        &w,
        &hooks,
        &with(base("SessionStart", "turn-3"), json!({"source": "compact"})),
        &env,
        true,
    );
    assert!(
        f.context.starts_with("# Session memory") && f.context.contains("Run the whole test suite"),
        "{}",
        f.shown
    );
    assert!(f.shown.contains("no consolidation: time:"), "{}", f.shown);
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
