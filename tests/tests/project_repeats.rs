//! Lessons as the evidence scopes them, end to end through the binaries:
//! three session files through `mem-transcript replay S1 S2 S3 |
//! mem-extract | mem-index write` give "This project runs its tests with
//! `X`" (three later sessions running the tests another way update the
//! same memory), and a retry that forced one ignored path is replayed by
//! the PreToolUse hook before that path only.

use std::path::{Path, PathBuf};

use mem_tests::{cmd, run, show};

/// A Claude Code session file: for each command, a Bash call and its
/// successful result.
fn session(dir: &Path, n: u32, day: u32, cmds: &[&str]) -> PathBuf {
    let runs: Vec<(&str, &str, bool)> = cmds.iter().map(|c| (*c, "12 passed", false)).collect();
    session_of(dir, n, day, &runs)
}

/// A Claude Code session file: for each `(command, output, failed)`, a
/// Bash call and its result.
fn session_of(dir: &Path, n: u32, day: u32, cmds: &[(&str, &str, bool)]) -> PathBuf {
    let sid = format!("00000000-0000-4000-8000-{n:012}");
    let mut lines = Vec::new();
    let mut parent = serde_json::Value::Null;
    let mut k = 0;
    let mut entry = |role: &str, content: serde_json::Value, lines: &mut Vec<String>| {
        k += 1;
        let uuid = format!("11111111-1111-4111-8111-{:06}{k:06}", n);
        let e = serde_json::json!({
            "type": role, "uuid": uuid, "parentUuid": parent, "isSidechain": false,
            "sessionId": sid, "cwd": "/home/user/proj",
            "timestamp": format!("2026-07-{day:02}T09:00:{k:02}.000Z"),
            "message": {"role": role, "content": content},
        });
        parent = serde_json::Value::String(uuid);
        lines.push(e.to_string());
    };
    entry("user", serde_json::json!("run the tests"), &mut lines);
    for (i, (c, out, bad)) in cmds.iter().enumerate() {
        let id = format!("toolu_{n}_{i}");
        entry(
            "assistant",
            serde_json::json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": c}}]),
            &mut lines,
        );
        entry(
            "user",
            serde_json::json!([{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": bad}]),
            &mut lines,
        );
    }
    let p = dir.join(format!("{sid}.jsonl"));
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

/// replay FILES | mem-extract | mem-index write --memory-dir MEMDIR.
fn write_path(home: &Path, memdir: &Path, files: &[PathBuf]) {
    let mut replay = cmd("mem-transcript", home);
    replay.arg("replay").args(files);
    let r = run(replay, b"");
    assert!(r.status.success(), "replay: {}", show(&r));
    let x = run(cmd("mem-extract", home), &r.stdout);
    assert!(x.status.success(), "extract: {}", show(&x));
    let mut write = cmd("mem-index", home);
    write.arg("write").arg("--memory-dir").arg(memdir);
    let w = run(write, &x.stdout);
    assert!(w.status.success(), "write: {}", show(&w));
}

#[test]
fn three_sessions_running_the_tests_the_same_way_make_a_project_memory() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let memdir = home.path().join("memory");
    let first: Vec<PathBuf> = [
        ["ls", "uv run pytest -q tests/"],
        ["git status", "uv run pytest -q tests/test_cli.py"],
        ["uv run pytest -q", "uv run pytest -q"],
    ]
    .iter()
    .enumerate()
    .map(|(i, c)| session(&dir, i as u32 + 1, i as u32 + 1, c))
    .collect();
    write_path(home.path(), &memdir, &first);
    let file = memdir.join("project-tests-command.md");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; {:?}",
            file.display(),
            mem_tests::topic_files(&memdir)
        )
    });
    assert!(
        text.contains("name: \"This project runs its tests with `uv run pytest -q`\""),
        "{text}"
    );
    assert!(
        text.contains("ran successfully 4 times in 3 sessions"),
        "{text}"
    );
    assert!(text.contains("type: project"), "{text}");
    let index = std::fs::read_to_string(memdir.join("MEMORY.md")).unwrap();
    assert!(index.contains("project-tests-command.md"), "{index}");

    // later sessions run the tests another way: the same memory, the new command
    let later: Vec<PathBuf> = (4..7)
        .map(|n| session(&dir, n, n + 10, &["cargo nextest run --workspace"]))
        .collect();
    write_path(home.path(), &memdir, &later);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("name: \"This project runs its tests with `cargo nextest run --workspace`\""),
        "{text}"
    );
    assert!(!text.contains("uv run pytest"), "{text}");
    let tests: Vec<String> = mem_tests::topic_files(&memdir)
        .into_iter()
        .filter(|f| f.contains("tests-command") || f.contains("runs-its-tests"))
        .collect();
    assert_eq!(tests, ["project-tests-command.md"]);
}

/// The PreToolUse hook's answer for Bash `command` with lessons from `mem`.
fn hook(home: &Path, mem: &Path, command: &str) -> String {
    let tr = home.join("hook-session.jsonl");
    std::fs::write(&tr, "").unwrap();
    let input = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s1",
        "transcript_path": tr, "cwd": home, "tool_name": "Bash",
        "tool_input": {"command": command}});
    let out = run(
        cmd("mem-hook", home).arg("--memory-dir").arg(mem),
        input.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{}", show(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_retry_that_forced_one_path_is_replayed_before_that_path_only() {
    let ignored = "The following paths are ignored by one of your .gitignore files:";
    for (path, other) in [
        ("dist/bundle.js", "src/main.ts"),
        ("out/api.d.ts", "README.md"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        std::fs::create_dir_all(&dir).unwrap();
        let memdir = home.path().join("memory");
        let (add, force) = (format!("git add {path}"), format!("git add -f {path}"));
        let s = session_of(&dir, 1, 1, &[(&add, ignored, true), (&force, "", false)]);
        write_path(home.path(), &memdir, &[s]);
        let said = hook(home.path(), &memdir, &add);
        assert!(said.contains(&force), "{add}: {said}");
        // another file: nothing to say
        let said = hook(home.path(), &memdir, &format!("git add {other}"));
        assert!(!said.contains("git add -f"), "{other}: {said}");

        // the same retry with another path, in another session: the lesson
        // is written for any path and fires on both
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        std::fs::create_dir_all(&dir).unwrap();
        let memdir = home.path().join("memory");
        let more = format!("gen/{}", path.rsplit('/').next().unwrap());
        let (add2, force2) = (format!("git add {more}"), format!("git add -f {more}"));
        let s1 = session_of(&dir, 1, 1, &[(&add, ignored, true), (&force, "", false)]);
        let s2 = session_of(&dir, 2, 2, &[(&add2, ignored, true), (&force2, "", false)]);
        write_path(home.path(), &memdir, &[s1, s2]);
        let said = hook(home.path(), &memdir, &format!("git add {other}"));
        // (the hook quotes `<` as `‹`)
        assert!(
            said.contains("Use `git add -f ‹files>` instead of `git add ‹files>`"),
            "{other}: {said}"
        );
    }
}
