//! Agent integration end to end: the Claude Code hooks (install, merge,
//! idempotence, uninstall, and the hook commands themselves on the JSON
//! Claude Code sends), Codex's AGENTS.md section, the Makefile and CI
//! examples, and the generated man pages and completions.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mem_tests::{bin, cmd, files_under, run, scrub, show, snapshot, workspace_root};
use serde_json::{Value, json};

/// The directory holding the built binaries.
fn bindir() -> PathBuf {
    for t in [
        "mem-transcript",
        "mem-extract",
        "mem-index",
        "mem-recall",
        "mem-hook",
    ] {
        bin(t);
    }
    bin("mem-recall").parent().unwrap().to_path_buf()
}

/// A shell command line run as a hook or a make recipe would run it: the
/// built binaries first on PATH, `HOME` at `home`, no inherited mem or Claude
/// variables, in `cwd`, with `env` added.
fn shell(program: &str, args: &[&str], home: &Path, cwd: &Path, env: &[(&str, &Path)]) -> Command {
    let mut c = Command::new(program);
    scrub(&mut c).args(args);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("MAKE") {
            c.env_remove(k);
        }
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bindir()];
    dirs.extend(std::env::split_paths(&path));
    c.env("PATH", std::env::join_paths(dirs).unwrap())
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .current_dir(cwd);
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

fn script(name: &str) -> String {
    workspace_root().join(name).display().to_string()
}

/// The topic files of a memory directory (not MEMORY.md), as text.
fn topics(memdir: &Path) -> Vec<String> {
    std::fs::read_dir(memdir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().to_string();
                    n.ends_with(".md") && n != "MEMORY.md"
                })
                .map(|e| std::fs::read_to_string(e.path()).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

fn backups(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".bak"))
        .count()
}

/// mem's recall hook command (mem-hook) as the installer writes it: the tool by the
/// absolute path of the built binaries.
fn recall() -> String {
    format!("{}/mem-hook", real_bindir().display())
}

/// mem's write-path hook command as the installer writes it.
fn write_path() -> String {
    let b = real_bindir();
    let b = b.display();
    format!("{b}/mem-transcript replay --hook | {b}/mem-extract | {b}/mem-index write >&2")
}

fn real_bindir() -> PathBuf {
    bindir().canonicalize().unwrap()
}

/// The hook commands of one event in a settings value.
fn commands(settings: &Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .map(|groups| {
            groups
                .iter()
                .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
                .filter_map(|h| h["command"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn install_hooks(home: &Path, args: &[&str]) -> Output {
    let s = script("scripts/install-hooks.sh");
    let mut all = vec![s.as_str()];
    all.extend_from_slice(args);
    shell("bash", &all, home, home, &[]).output().unwrap()
}

#[test]
fn install_hooks_merges_is_idempotent_and_uninstalls_exactly() {
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    let original = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "notify-send bye"}]}]
        }
    });
    let text = serde_json::to_string_pretty(&original).unwrap();
    std::fs::write(&settings, &text).unwrap();

    // Dry run: the change as a diff on stdout, nothing written.
    let out = install_hooks(home.path(), &["--dry-run"]);
    assert!(out.status.success(), "{}", show(&out));
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(diff.starts_with("--- a/"), "{diff}");
    assert!(
        diff.lines()
            .any(|l| l.starts_with('+') && l.contains(&format!("\"command\": \"{}\"", recall()))),
        "{diff}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), text);
    assert_eq!(backups(&claude), 0);

    // Install: merged with what is there, a backup of the old file.
    let out = install_hooks(home.path(), &[]);
    assert!(out.status.success(), "{}", show(&out));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(v["permissions"], original["permissions"]);
    // The user's Bash guard stays first; mem's Bash hook is a group of its own.
    assert_eq!(
        v["hooks"]["PreToolUse"][0],
        original["hooks"]["PreToolUse"][0]
    );
    assert_eq!(
        commands(&v, "PreToolUse"),
        ["./guard.sh".to_string(), recall()]
    );
    assert_eq!(v["hooks"]["PreToolUse"][1]["matcher"], "Bash");
    assert_eq!(v["hooks"]["PreToolUse"][1]["hooks"][0]["timeout"], json!(5));
    assert_eq!(commands(&v, "SessionStart"), [recall()]);
    assert_eq!(commands(&v, "UserPromptSubmit"), [recall()]);
    assert_eq!(
        commands(&v, "SessionEnd"),
        ["notify-send bye".to_string(), write_path()]
    );
    assert_eq!(backups(&claude), 1);
    let backup = std::fs::read_dir(&claude)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".bak"))
        .unwrap();
    assert_eq!(std::fs::read_to_string(backup.path()).unwrap(), text);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("backup: "),
        "{}",
        show(&out)
    );

    // Idempotent: a second install changes nothing, not even a backup.
    let installed = std::fs::read(&settings).unwrap();
    let out = install_hooks(home.path(), &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("unchanged"));
    assert_eq!(std::fs::read(&settings).unwrap(), installed);
    assert_eq!(backups(&claude), 1);

    // Uninstall removes exactly mem's entries.
    let out = install_hooks(home.path(), &["--uninstall"]);
    assert!(out.status.success(), "{}", show(&out));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v, original);
    // and gives back the file byte for byte: the rest was never rewritten
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), text);
    let out = install_hooks(home.path(), &["--uninstall"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("unchanged"));

    // Not JSON: refused with the line, left byte-identical, no backup.
    std::fs::write(&settings, "{\n  \"model\": \"opus\",\n}\n").unwrap();
    let n = backups(&claude);
    let out = install_hooks(home.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("settings.json:3: not JSON"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\n  \"model\": \"opus\",\n}\n"
    );
    assert_eq!(backups(&claude), n);

    // CLAUDE_CONFIG_DIR is honoured; a missing file is created.
    let cfg = home.path().join("cfg");
    let s = script("scripts/install-hooks.sh");
    let out = shell(
        "bash",
        &[&s],
        home.path(),
        home.path(),
        &[("CLAUDE_CONFIG_DIR", &cfg)],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(cfg.join("settings.json")).unwrap()).unwrap();
    assert_eq!(commands(&v, "SessionEnd"), [write_path()]);
}

/// One Claude Code transcript line.
fn entry(sid: &str, cwd: &Path, n: usize, kind: &str, ts: &str, message: Value) -> String {
    let uuid = |i: usize| format!("aaaaaaaa-0000-4000-8000-{i:012}");
    let parent = if n == 1 {
        Value::Null
    } else {
        json!(uuid(n - 1))
    };
    let v = json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external",
        "cwd": cwd, "sessionId": sid, "version": "2.1.39", "type": kind,
        "uuid": uuid(n), "timestamp": ts, "message": message,
    });
    format!("{v}\n")
}

/// A session in Claude Code's format: a failing integration-test run, the
/// fix (migrate), the run passing, and a user correction with its reason.
fn write_session(path: &Path, sid: &str, cwd: &Path) {
    let tool = |id: &str, cmd: &str, msg: &str| {
        json!({"id": msg, "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}]})
    };
    let result = |id: &str, out: &str, err: bool| {
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": out, "is_error": err}]})
    };
    let lines = [
        (
            "user",
            json!({"role": "user", "content": "Add integration tests for the orders API."}),
        ),
        (
            "assistant",
            tool("toolu_01", "npm run test:integration", "msg_01"),
        ),
        (
            "user",
            result(
                "toolu_01",
                "Error: relation \"orders\" does not exist (run npm run db:migrate first)",
                true,
            ),
        ),
        (
            "assistant",
            tool("toolu_02", "npm run db:migrate", "msg_02"),
        ),
        ("user", result("toolu_02", "migrated 3 tables", false)),
        (
            "assistant",
            tool("toolu_03", "npm run test:integration", "msg_03"),
        ),
        ("user", result("toolu_03", "12 passing", false)),
        (
            "user",
            json!({"role": "user", "content":
            "Never mock the database in integration tests, because mocked tests passed last quarter while the real migration failed in production."}),
        ),
        (
            "assistant",
            json!({"id": "msg_04", "role": "assistant", "content": [
            {"type": "text", "text": "Understood: the integration tests use the real database."}]}),
        ),
    ];
    let mut text = String::new();
    for (i, (kind, msg)) in lines.into_iter().enumerate() {
        let ts = format!("2026-07-11T10:00:{:02}Z", i);
        text.push_str(&entry(sid, cwd, i + 1, kind, &ts, msg));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn hook_round_trip_on_claude_code_json() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let out = install_hooks(home, &[]);
    assert!(out.status.success(), "{}", show(&out));
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude/settings.json")).unwrap())
            .unwrap();
    // The commands run below are the ones installed.
    let end = commands(&settings, "SessionEnd").pop().unwrap();
    let prompt = commands(&settings, "UserPromptSubmit").pop().unwrap();
    let start = commands(&settings, "SessionStart").pop().unwrap();

    let project = home.join("src/orders");
    std::fs::create_dir_all(&project).unwrap();
    let project = project.canonicalize().unwrap();
    let memdir = home.join("memory");
    let sid = "5e55a0e1-1111-4222-8333-444455556666";
    let sessions = home.join(".claude/projects/orders");
    std::fs::create_dir_all(&sessions).unwrap();
    let transcript = sessions.join(format!("{sid}.jsonl"));
    write_session(&transcript, sid, &project);

    let hook = |command: &str, input: &[u8]| -> Output {
        let c = shell(
            "sh",
            &["-c", command],
            home,
            &project,
            &[("MEM_MEMORY_DIR", &memdir)],
        );
        run(c, input)
    };

    // SessionEnd: the write path on the session's transcript_path.
    let end_json = json!({"session_id": sid, "transcript_path": transcript, "cwd": project,
        "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"});
    let out = hook(&end, format!("{end_json}\n").as_bytes());
    assert!(out.status.success(), "{}", show(&out));
    let written = topics(&memdir);
    let all = written.join("\n---\n");
    let correction = written
        .iter()
        .find(|t| t.to_lowercase().contains("mock") && t.contains("type: feedback"))
        .unwrap_or_else(|| panic!("no correction memory:\n{all}\n{}", show(&out)));
    assert!(
        correction.contains("production"),
        "the reason is kept: {correction}"
    );
    assert!(
        written
            .iter()
            .any(|t| t.contains("kind: durable-lesson") && t.contains("db:migrate")),
        "no failure-fix lesson:\n{all}"
    );
    assert!(!all.contains(sid), "a session id reached a memory:\n{all}");
    assert!(
        !all.contains(&*project.to_string_lossy()),
        "an absolute path reached a memory:\n{all}"
    );
    // The same session again changes nothing.
    let before = snapshot(&memdir);
    let out = hook(&end, format!("{end_json}\n").as_bytes());
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(snapshot(&memdir), before);

    // UserPromptSubmit: the correction comes back as additionalContext.
    let p = json!({"session_id": sid, "transcript_path": transcript, "cwd": project,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "write integration tests for the refunds endpoint; should I mock the database?"});
    let out = hook(&prompt, format!("{p}\n").as_bytes());
    assert!(out.status.success(), "{}", show(&out));
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("hook output is not JSON ({e}): {}", show(&out)));
    let hso = &v["hookSpecificOutput"];
    assert_eq!(hso["hookEventName"], "UserPromptSubmit", "{v}");
    let ctx = hso["additionalContext"].as_str().unwrap();
    assert!(ctx.to_lowercase().contains("mock the database"), "{ctx}");
    assert!(ctx.chars().count() <= 10_000);

    // SessionStart: valid hook JSON or nothing at all.
    let s = json!({"session_id": sid, "transcript_path": transcript, "cwd": project,
        "hook_event_name": "SessionStart", "source": "startup"});
    let out = hook(&start, format!("{s}\n").as_bytes());
    assert!(out.status.success(), "{}", show(&out));
    if !out.stdout.is_empty() {
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    }

    // Garbage in: nothing out, exit 0, nothing written, a reason on stderr.
    let before = snapshot(&memdir);
    for garbage in [
        &b"not json at all"[..],
        b"",
        b"{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":",
        b"{\"hook_event_name\":\"Bogus\"}\n",
        b"\xff\xfe\x00garbage\n",
    ] {
        let out = hook(&prompt, garbage);
        assert!(out.status.success(), "{}", show(&out));
        assert!(out.stdout.is_empty(), "{}", show(&out));
        let out = hook(&end, garbage);
        assert!(out.status.success(), "{}", show(&out));
        assert!(out.stdout.is_empty(), "{}", show(&out));
    }
    let missing = json!({"session_id": sid, "transcript_path": home.join("gone.jsonl"),
        "cwd": project, "hook_event_name": "SessionEnd"});
    let out = hook(&end, format!("{missing}\n").as_bytes());
    assert!(out.stdout.is_empty(), "{}", show(&out));
    assert_eq!(snapshot(&memdir), before);
}

/// Write memory records through `mem-index write`.
fn write_memories(home: &Path, memdir: &Path, records: &[Value]) {
    let mut input = String::new();
    for r in records {
        input.push_str(&format!("{r}\n"));
    }
    let mut c = cmd("mem-index", home);
    c.args(["write", "--memory-dir"]).arg(memdir);
    let out = run(c, input.as_bytes());
    assert!(out.status.success(), "{}", show(&out));
}

#[test]
fn codex_agents_md_section_is_kept_current() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let project = home.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let memdir = home.join("memory");
    write_memories(
        home,
        &memdir,
        &[
            json!({"name": "Run setup before build-token", "description":
            "build-token needs data/fixture.json, which only setup creates",
            "type": "feedback", "triggers": ["build-token"],
            "fact": "Run setup before build-token.", "why": "The fixture is generated.",
            "how": "Run node src/setup.mjs first."}),
        ],
    );
    let agents = project.join("AGENTS.md");
    let head = "# Agents\n\nHand-written rules stay as they are.\r\n\n";
    let tail = "\n## Style\n\n- four spaces\n";
    std::fs::write(&agents, format!("{head}{tail}")).unwrap();

    let update = || {
        let mut c = cmd("mem-recall", home);
        c.args([
            "context",
            "--format",
            "agents-md",
            "--update",
            "AGENTS.md",
            "--task",
        ])
        .arg("run build-token")
        .arg("--memory-dir")
        .arg(&memdir)
        .arg("--cwd")
        .arg(&project)
        .current_dir(&project);
        let out = run(c, b"");
        assert!(out.status.success(), "{}", show(&out));
        std::fs::read_to_string(&agents).unwrap()
    };
    let first = update();
    assert!(first.starts_with(head), "{first}");
    assert!(first.ends_with(tail) || first.contains(tail), "{first}");
    assert!(first.contains("<!-- mem:begin"), "{first}");
    assert!(first.contains("<!-- mem:end -->"), "{first}");
    assert!(first.contains("Run setup before build-token"), "{first}");
    let section = |t: &str| {
        let b = t.find("<!-- mem:begin").unwrap();
        let e = t.find("<!-- mem:end -->").unwrap() + "<!-- mem:end -->".len();
        (t[..b].to_string(), t[b..e].to_string(), t[e..].to_string())
    };
    let (before1, _, after1) = section(&first);

    // Same state: byte-identical.
    assert_eq!(update(), first);

    // A new memory: the section changes, the rest of the file does not.
    write_memories(
        home,
        &memdir,
        &[
            json!({"name": "Use pnpm, not npm", "description": "the lockfile is pnpm's",
            "type": "user", "fact": "Use pnpm, not npm."}),
        ],
    );
    let second = update();
    let (before2, sec2, after2) = section(&second);
    assert_eq!(before2, before1);
    assert_eq!(after2, after1);
    assert!(sec2.contains("Use pnpm"), "{sec2}");

    // Hand edits outside the markers survive the next update.
    let edited = second.replace("four spaces", "tabs");
    std::fs::write(&agents, &edited).unwrap();
    let third = update();
    assert!(third.contains("- tabs"), "{third}");
    assert_eq!(section(&third).1, sec2);

    // A missing AGENTS.md is created with only the section.
    std::fs::remove_file(&agents).unwrap();
    let fresh = update();
    assert!(fresh.contains("<!-- mem:begin"), "{fresh}");
    assert!(!fresh.contains("Hand-written"), "{fresh}");
}

/// The folder name Claude Code gives a project path (ASCII paths only).
fn slug(p: &Path) -> String {
    p.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A home in a temp dir (removed with the first value; the path
/// canonical) with the project `orders` and one Claude Code session of it:
/// `(dir, home, project, session folder)`.
fn home_with_a_session() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().canonicalize().unwrap();
    let project = home.join("orders");
    std::fs::create_dir_all(&project).unwrap();
    let folder = home.join(".claude/projects").join(slug(&project));
    std::fs::create_dir_all(&folder).unwrap();
    let sid = "0a0b0c0d-1111-4222-8333-444455556666";
    write_session(&folder.join(format!("{sid}.jsonl")), sid, &project);
    (t, home, project, folder)
}

#[test]
fn makefile_targets_run_the_lifecycle() {
    if Command::new("make").arg("--version").output().is_err() {
        eprintln!("SKIPPED makefile_targets_run_the_lifecycle: make is not installed");
        println!("SKIPPED makefile_targets_run_the_lifecycle: make is not installed");
        return;
    }
    let (_home, home, project, _) = home_with_a_session();
    let memdir = home.join("memory");
    let makefile = script("examples/Makefile");
    let mdir = format!("MEMORY_DIR={}", memdir.display());
    // make with the example Makefile and `targets`, in the project
    let make = |targets: &[&str]| {
        let args = [&["-f", makefile.as_str()][..], targets].concat();
        shell("make", &args, &home, &project, &[]).output().unwrap()
    };

    // memory: the project's sessions through the write path.
    let out = make(&["memory", &mdir]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("memory: 1 session(s) read"),
        "{}",
        show(&out)
    );
    assert!(topics(&memdir).len() >= 2, "{}", show(&out));

    // memory-check and recall in one make run.
    let out = make(&[
        "memory-check",
        "recall",
        "TASK=npm run test:integration for the refunds API",
        "TODAY=2026-07-12",
        &mdir,
    ]);
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("RECALL "), "{}", show(&out));
    assert!(text.contains("summary: "), "{}", show(&out));

    // recall without TASK is a usage error that says what to set.
    let out = make(&["recall", &mdir]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("TASK="));

    // dream: a dry run prints its plan or why it is not due, and succeeds.
    bin("mem-dream");
    let out = make(&["dream", "DREAM_FLAGS=--dry-run", &mdir]);
    assert!(out.status.success(), "{}", show(&out));
}

#[test]
fn ci_example_runs_check_and_write_path() {
    let yml = std::fs::read_to_string(workspace_root().join("examples/ci-memory.yml")).unwrap();
    assert!(
        yml.lines()
            .any(|l| l.trim_start().starts_with("run: examples/ci-memory.sh")),
        "the CI example runs examples/ci-memory.sh:\n{yml}"
    );
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    let project = home.join("repo");
    let sessions = home.join("sessions");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&sessions).unwrap();
    let sid = "0f0e0d0c-1111-4222-8333-444455556666";
    write_session(&sessions.join(format!("{sid}.jsonl")), sid, &project);
    let memdir = home.join("memory");
    let ci = script("examples/ci-memory.sh");
    let s = sessions.display().to_string();

    let out = shell(
        "bash",
        &[&ci, &s],
        &home,
        &project,
        &[("MEM_MEMORY_DIR", &memdir)],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("sessions: 1"), "{text}");
    assert!(text.contains("== memory job passed"), "{text}");
    assert!(topics(&memdir).len() >= 2, "{}", show(&out));

    // A broken topic file fails the job at the check.
    std::fs::write(
        memdir.join("broken.md"),
        "---\nname: [unclosed\n---\nbody\n",
    )
    .unwrap();
    let out = shell(
        "bash",
        &[&ci],
        &home,
        &project,
        &[("MEM_MEMORY_DIR", &memdir)],
    )
    .output()
    .unwrap();
    assert!(!out.status.success(), "{}", show(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("passed"));
}

/// The subcommands a tool's `--help` lists (without `help`).
fn subcommands(tool: &str) -> Vec<String> {
    let home = tempfile::tempdir().unwrap();
    let mut c = cmd(tool, home.path());
    c.arg("--help");
    let out = run(c, b"");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help" && !n.starts_with('-'))
        .map(str::to_string)
        .collect()
}

#[test]
fn mem_docs_generates_man_pages_and_completions() {
    let tools = [
        "mem-transcript",
        "mem-extract",
        "mem-index",
        "mem-recall",
        "mem-hook",
        "mem-dream",
        "mem-lock",
    ];
    let home = tempfile::tempdir().unwrap();
    let out_dir = home.path().join("man1");
    let mut c = cmd("mem-docs", home.path());
    c.arg("man").arg(&out_dir);
    let out = run(c, b"");
    assert!(out.status.success(), "{}", show(&out));
    let mut pages = 0;
    for tool in tools {
        bin(tool);
        let page = std::fs::read_to_string(out_dir.join(format!("{tool}.1")))
            .unwrap_or_else(|e| panic!("{tool}.1: {e}"));
        assert!(page.starts_with(".ie") || page.contains(".TH"), "{tool}");
        assert!(page.contains(tool), "{tool}");
        pages += 1;
        let subs = subcommands(tool);
        if tool != "mem-recall"
            && tool != "mem-dream"
            && tool != "mem-extract"
            && tool != "mem-hook"
        {
            assert!(!subs.is_empty(), "{tool} lists subcommands");
        }
        for sub in subs {
            let name = format!("{tool}-{sub}");
            let page = std::fs::read_to_string(out_dir.join(format!("{name}.1")))
                .unwrap_or_else(|e| panic!("{name}.1: {e}"));
            assert!(page.contains(tool), "{name}");
            assert!(page.contains(&sub), "{name}");
            pages += 1;
        }
    }
    let listed = String::from_utf8_lossy(&out.stdout).lines().count();
    assert!(listed >= pages, "{listed} files listed, {pages} expected");

    let comp = home.path().join("bash");
    let mut c = cmd("mem-docs", home.path());
    c.args(["completions", "bash"]).arg(&comp);
    let out = run(c, b"");
    assert!(out.status.success(), "{}", show(&out));
    for tool in tools {
        let script = std::fs::read_to_string(comp.join(format!("{tool}.bash"))).unwrap();
        assert!(script.contains("complete -F "), "{tool}: {script}");
        assert!(script.contains(tool));
    }
    // bash accepts every script.
    if Command::new("bash").arg("--version").output().is_ok() {
        for tool in tools {
            let out = Command::new("bash")
                .arg("-n")
                .arg(comp.join(format!("{tool}.bash")))
                .output()
                .unwrap();
            assert!(out.status.success(), "{tool}: {}", show(&out));
        }
    }

    // scripts/install.sh puts them in the user's dirs (docs only here).
    let out = shell(
        "bash",
        &[&script("scripts/install.sh"), "--docs-only"],
        home.path(),
        &workspace_root(),
        &[("MEM_BIN_DIR", &bindir())],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let h = home.path();
    assert!(h.join(".local/share/man/man1/mem-recall.1").is_file());
    assert!(
        h.join(".local/share/bash-completion/completions/mem-recall.bash")
            .is_file()
    );
    assert!(
        h.join(".local/share/zsh/site-functions/_mem-recall")
            .is_file()
    );
    assert!(h.join(".config/fish/completions/mem-recall.fish").is_file());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("man pages: "), "{said}");
    // a man directory man does not search is said, with the line to add
    assert!(
        said.contains(&format!(
            "MANPATH=\"{}",
            h.join(".local/share/man").display()
        )),
        "{said}"
    );
}

/// `scripts/install.sh --prefix DIR` puts the six tools (already built
/// ones here, from `MEM_BIN_DIR`) in DIR/bin, runnable; a flag without its
/// value is a usage error (2).
#[test]
fn install_script_copies_the_six_tools_into_the_prefix() {
    let home = tempfile::tempdir().unwrap();
    let prefix = home.path().join("opt");
    let out = shell(
        "bash",
        &[
            &script("scripts/install.sh"),
            "--no-docs",
            "--prefix",
            &prefix.display().to_string(),
        ],
        home.path(),
        &workspace_root(),
        &[("MEM_BIN_DIR", &bindir())],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let tools = [
        "mem-transcript",
        "mem-extract",
        "mem-index",
        "mem-recall",
        "mem-hook",
        "mem-dream",
        "mem-lock",
    ];
    let mut names: Vec<String> = std::fs::read_dir(prefix.join("bin"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = tools.iter().map(|t| t.to_string()).collect();
    want.sort();
    assert_eq!(names, want, "only the six tools, no temporary files");
    for t in tools {
        let v = Command::new(prefix.join("bin").join(t))
            .arg("--version")
            .output()
            .unwrap();
        assert!(v.status.success(), "{t}: {}", show(&v));
        assert!(String::from_utf8_lossy(&v.stdout).starts_with(t), "{t}");
    }
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(&format!("in {}", prefix.join("bin").display())),
        "{}",
        show(&out)
    );

    let out = shell(
        "bash",
        &[&script("scripts/install.sh"), "--prefix"],
        home.path(),
        &workspace_root(),
        &[],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

/// The first command of the README: every session of the project through
/// the write path, a summary from each end, and a second run that reads only
/// what is new.
#[test]
fn learning_from_every_past_session_is_incremental() {
    let (_home, home, project, folder) = home_with_a_session();
    std::fs::write(folder.join("empty.jsonl"), b"").unwrap();
    // Codex keeps every project's rollouts in one tree: another project's is
    // left alone.
    let codex = home.join(".codex/sessions/2026/07/11");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::write(
        codex.join("rollout-2026-07-11T10-00-00-0199a0b0-0000-7000-8000-000000000009.jsonl"),
        concat!(
            r#"{"timestamp":"2026-07-11T10:00:00Z","type":"session_meta","payload":{"id":"0199a0b0-0000-7000-8000-000000000009","cwd":"/elsewhere"}}"#,
            "\n",
            r#"{"timestamp":"2026-07-11T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"never use yarn"}]}}"#,
            "\n"
        ),
    )
    .unwrap();
    let memdir = home
        .join(".claude/projects")
        .join(slug(&project))
        .join("memory");
    let learn = || {
        shell(
            "bash",
            &[
                "-o",
                "pipefail",
                "-c",
                "mem-transcript replay --project . --since-last | mem-extract | mem-index write --today 2026-07-12",
            ],
            &home,
            &project,
            &[],
        )
        .output()
        .unwrap()
    };

    let out = learn();
    assert!(out.status.success(), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "mem-transcript: 1 session read, 1 skipped (1 empty (0 bytes)); 1 session file(s) of other projects left alone"
        ),
        "{}",
        show(&out)
    );
    let n = topics(&memdir).len();
    assert!(n >= 2, "{}", show(&out));
    assert!(
        err.contains(&format!(
            "mem-index: write: {n} created (in {})",
            memdir.display()
        )),
        "{}",
        show(&out)
    );
    let state = files_under(&home.join(".cache/mem"));
    assert_eq!(state.len(), 1, "{state:?}");
    assert!(state[0].ends_with("replay-state.json"), "{state:?}");
    let before = snapshot(&memdir);

    // Nothing new: nothing read, nothing written.
    let out = learn();
    assert!(out.status.success(), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mem-transcript: 0 sessions read, 2 unchanged since the last run, 0 skipped"),
        "{}",
        show(&out)
    );
    assert!(
        err.contains("mem-index: write: no memories in the input"),
        "{}",
        show(&out)
    );
    assert_eq!(snapshot(&memdir), before);

    // A new session: only it is read.
    let sid2 = "0a0b0c0d-1111-4222-8333-444455556667";
    write_session(&folder.join(format!("{sid2}.jsonl")), sid2, &project);
    let out = learn();
    assert!(out.status.success(), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mem-transcript: 1 session read, 2 unchanged since the last run, 0 skipped"),
        "{}",
        show(&out)
    );
    // The same lessons again: the memories are there already.
    assert!(!err.contains(" created"), "{}", show(&out));
    assert_eq!(topics(&memdir).len(), n);
}

/// `scripts/build-release.sh` (run here with stand-ins for `rustc` and
/// `cargo` that log their arguments): on a glibc Linux host it builds
/// static-pie binaries for the host target and prints their directory;
/// `MEM_STATIC=0`, another host, or a failed static link build the dynamic
/// ones in `target/release`.
#[test]
fn build_release_script_links_static_pie_on_glibc_linux() {
    let home = tempfile::tempdir().unwrap();
    let stubs = home.path().join("stubs");
    std::fs::create_dir(&stubs).unwrap();
    let log = home.path().join("cargo.log");
    let stub = |name: &str, body: &str| {
        let path = stubs.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        let mut perm = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&path, perm).unwrap();
    };
    stub("rustc", "echo \"rustc 1.95.0\"; echo \"host: $FAKE_HOST\"");
    stub(
        "cargo",
        &format!(
            "echo \"RUSTFLAGS=$RUSTFLAGS ARGS=$*\" >> '{}'\n\
             case \" $* \" in *' --target '*) exit ${{FAKE_STATIC_FAILS:-0}} ;; esac",
            log.display()
        ),
    );
    let target = home.path().join("tgt");
    let path = format!("{}:/usr/bin:/bin", stubs.display());
    let run = |host: &str, extra: &[(&str, &str)]| {
        let _ = std::fs::remove_file(&log);
        let mut c = shell(
            "bash",
            &[
                &script("scripts/build-release.sh"),
                "-q",
                "-p",
                "mem-recall",
            ],
            home.path(),
            &workspace_root(),
            &[("CARGO_TARGET_DIR", &target)],
        );
        c.env("PATH", &path)
            .env("FAKE_HOST", host)
            .env_remove("RUSTFLAGS");
        for (k, v) in extra {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", show(&out));
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();
        let logged = std::fs::read_to_string(&log).unwrap();
        (
            printed,
            logged,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let gnu = "x86_64-unknown-linux-gnu";
    let (printed, logged, _) = run(gnu, &[]);
    assert_eq!(printed, format!("{}/{gnu}/release\n", target.display()));
    assert_eq!(
        logged,
        format!(
            "RUSTFLAGS= -C target-feature=+crt-static ARGS=build --release --locked \
             --target {gnu} -q -p mem-recall\n"
        )
    );

    let dynamic = format!("{}/release\n", target.display());
    let plain = "RUSTFLAGS= ARGS=build --release --locked -q -p mem-recall\n";
    let (printed, logged, _) = run(gnu, &[("MEM_STATIC", "0")]);
    assert_eq!(
        (printed.as_str(), logged.as_str()),
        (dynamic.as_str(), plain)
    );
    let (printed, logged, _) = run("aarch64-apple-darwin", &[]);
    assert_eq!(
        (printed.as_str(), logged.as_str()),
        (dynamic.as_str(), plain)
    );
    let (printed, logged, stderr) = run(gnu, &[("FAKE_STATIC_FAILS", "101")]);
    assert_eq!(printed, dynamic);
    assert_eq!(logged.lines().count(), 2, "{logged}");
    assert!(logged.ends_with(plain), "{logged}");
    assert!(stderr.contains("the static link failed"), "{stderr}");
}
