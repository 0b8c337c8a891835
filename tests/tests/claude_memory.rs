//! A memory directory Claude Code already keeps (tests/fixtures/claude-memory:
//! a MEMORY.md with headings, prose and ` — ` entries; topic files with only
//! name/description/type and `created:` dates) lives through mem's writes,
//! reindexes and consolidations; mem creates nothing where it has nothing to
//! write; and every memory switch Claude Code reads is honoured.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use mem_tests::{cmd, run, show, topic_files, workspace_root};

const NOW: &str = "2026-07-13T10:00:00Z";

/// One mem-written memory record (it has `kind` and `evidence`).
const MEM_RECORD: &str = r#"{"id":"migrate-before-tests","name":"Run migrations before tests","description":"make migrate before cargo test","type":"feedback","kind":"durable-lesson","evidence":["transcript:0123456789ab#4"],"verified_at":"2026-07-10","triggers":["cargo test"]}"#;

/// Its index line, as mem writes it.
const MEM_LINE: &str =
    "- [Run migrations before tests](migrate-before-tests.md) - make migrate before cargo test";

fn fixture() -> PathBuf {
    workspace_root().join("tests/fixtures/claude-memory")
}

/// Copy the fixture into `dir`; returns its files by name.
fn copy_fixture(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::create_dir_all(dir).unwrap();
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(fixture()).unwrap() {
        let e = e.unwrap();
        let bytes = std::fs::read(e.path()).unwrap();
        std::fs::write(dir.join(e.file_name()), &bytes).unwrap();
        out.insert(e.file_name().to_string_lossy().into_owned(), bytes);
    }
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run a mem binary with `HOME` in `home`, a pinned clock, and `args`.
fn mem(name: &str, home: &Path, args: &[&str], envs: &[(&str, &str)], stdin: &str) -> Output {
    let mut c = cmd(name, home);
    c.args(args)
        .env("MEM_TODAY", "2026-07-13")
        .env("MEM_NOW", NOW);
    for (k, v) in envs {
        c.env(k, v);
    }
    run(c, stdin.as_bytes())
}

/// The index with mem's own lines taken out.
fn without(index: &str, lines: &[&str]) -> String {
    index
        .split_inclusive('\n')
        .filter(|l| !lines.contains(&l.trim_end()))
        .collect()
}

/// Every file of the fixture but MEMORY.md is byte-identical in `dir`, and
/// MEMORY.md is the fixture's with `MEM_LINE` after the last entry line.
fn assert_claude_kept(dir: &Path, before: &BTreeMap<String, Vec<u8>>, step: &str) {
    for (name, bytes) in before {
        if name == "MEMORY.md" {
            continue;
        }
        let now =
            std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{step}: {name} is gone: {e}"));
        assert_eq!(text(&now), text(bytes), "{step}: {name} changed");
    }
    let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let orig = text(&before["MEMORY.md"]);
    assert_eq!(without(&index, &[MEM_LINE]), orig, "{step}: {index}");
    let grafana = "- [Grafana board](reference_grafana.md) — API latency dashboard the on-call engineer watches\n";
    let want = orig.replace(grafana, &format!("{grafana}{MEM_LINE}\n"));
    assert_eq!(
        index, want,
        "{step}: mem's entry goes after the last entry line"
    );
}

/// The issue's test: a Claude-Code-written directory survives a write, a
/// reindex and a dream byte-for-byte outside mem's own entries, and its
/// topic files keep every field (here: every byte) they had.
#[test]
fn claude_code_directory_survives_write_reindex_and_dream() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let dir = t.path().join("memory");
    let empty = t.path().join("no-sessions");
    std::fs::create_dir_all(&empty).unwrap();
    let before = copy_fixture(&dir);
    let d = dir.to_str().unwrap();

    let o = mem(
        "mem-index",
        &home,
        &["--memory-dir", d, "write"],
        &[],
        &format!("{MEM_RECORD}\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_claude_kept(&dir, &before, "write");

    let o = mem("mem-index", &home, &["--memory-dir", d, "reindex"], &[], "");
    assert!(o.status.success(), "{}", show(&o));
    assert_claude_kept(&dir, &before, "reindex");

    let o = mem(
        "mem-dream",
        &home,
        &[
            "--memory-dir",
            d,
            "--force",
            "--transcripts",
            empty.to_str().unwrap(),
        ],
        &[],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_claude_kept(&dir, &before, "dream");
    // headings, notes and Claude's entries are nothing to report
    let o = mem(
        "mem-index",
        &home,
        &["--memory-dir", d, "check", "--format", "jsonl"],
        &[],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    let levels: Vec<String> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["level"].to_string())
        .collect();
    assert_eq!(levels, [r#""info""#], "{}", show(&o));

    // mem's entry is updated in place when its memory changes
    let changed = MEM_RECORD.replace(
        r#""make migrate before cargo test""#,
        r#""run make migrate first""#,
    );
    let changed = changed.replace("2026-07-10", "2026-07-12");
    let o = mem(
        "mem-index",
        &home,
        &["--memory-dir", d, "write"],
        &[],
        &format!("{changed}\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let new_line =
        "- [Run migrations before tests](migrate-before-tests.md) - run make migrate first";
    assert_eq!(
        index,
        text(&before["MEMORY.md"]).replace("watches\n", &format!("watches\n{new_line}\n")),
    );

    // a retired memory's line goes; nothing else does
    let o = mem(
        "mem-index",
        &home,
        &[
            "--memory-dir",
            d,
            "retire",
            "migrate-before-tests",
            "--reason",
            "test",
        ],
        &[],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        std::fs::read(dir.join("MEMORY.md")).unwrap(),
        before["MEMORY.md"]
    );
}

/// Memories mem did not write are never retired by `--max-files` without
/// `--include-foreign`, in `mem-index write --evict` and in `mem-dream`.
#[test]
fn foreign_memories_are_not_retired_by_max_files() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let empty = t.path().join("no-sessions");
    std::fs::create_dir_all(&empty).unwrap();
    let claude = [
        "feedback_commits.md",
        "feedback_testing.md",
        "project_payments.md",
        "reference_grafana.md",
        "user_role.md",
    ];

    // write --evict: five foreign memories, --max-files 5, one new record
    let dir = t.path().join("a");
    copy_fixture(&dir);
    let d = dir.to_str().unwrap();
    let args = ["--memory-dir", d, "write", "--max-files", "5", "--evict"];
    let o = mem("mem-index", &home, &args, &[], &format!("{MEM_RECORD}\n"));
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(
        text(&o.stderr).contains("--include-foreign"),
        "{}",
        show(&o)
    );
    assert_eq!(topic_files(&dir), claude);
    let mut with = args.to_vec();
    with.push("--include-foreign");
    let o = mem("mem-index", &home, &with, &[], &format!("{MEM_RECORD}\n"));
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(topic_files(&dir).len(), 5);
    assert!(dir.join("migrate-before-tests.md").is_file());
    assert_eq!(std::fs::read_dir(dir.join("retired")).unwrap().count(), 1);

    // dream --max-files: only mem's memories are retired to fit
    let dir = t.path().join("b");
    copy_fixture(&dir);
    let d = dir.to_str().unwrap();
    let two = format!(
        "{MEM_RECORD}\n{}\n",
        MEM_RECORD
            .replace("migrate-before-tests", "lint-before-push")
            .replace(
                "Run migrations before tests",
                "Run the linter before pushing"
            )
            .replace(
                "make migrate before cargo test",
                "cargo clippy before git push"
            )
    );
    let o = mem(
        "mem-index",
        &home,
        &["--memory-dir", d, "write", "--max-files", "0"],
        &[],
        &two,
    );
    assert!(o.status.success(), "{}", show(&o));
    let dream = |extra: &[&str]| {
        let mut a = vec![
            "--memory-dir",
            d,
            "--force",
            "--transcripts",
            empty.to_str().unwrap(),
            "--max-files",
            "4",
        ];
        a.extend_from_slice(extra);
        mem("mem-dream", &home, &a, &[], "")
    };
    let o = dream(&[]);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(topic_files(&dir), claude, "{}", show(&o));
    let o = dream(&["--include-foreign"]);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(topic_files(&dir).len(), 4, "{}", show(&o));
}

/// Nothing is created for a project that has nothing to write: no memory
/// directory, no MEMORY.md, no `.mem/`, nothing under `~/.claude`.
#[test]
fn nothing_is_created_when_there_is_nothing_to_write() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let proj = t.path().join("proj");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let p = proj.to_str().unwrap();
    let runs: Vec<(&str, Vec<&str>, String)> = vec![
        ("mem-index", vec!["--cwd", p, "write"], String::new()),
        ("mem-index", vec!["--cwd", p, "reindex"], String::new()),
        ("mem-dream", vec!["--cwd", p, "--force"], String::new()),
        ("mem-dream", vec!["--cwd", p], String::new()),
        (
            "mem-hook",
            vec![],
            format!(
                r#"{{"hook_event_name":"SessionStart","session_id":"s1","cwd":"{p}","source":"startup"}}"#
            ),
        ),
        (
            "mem-hook",
            vec![],
            format!(
                r#"{{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"{p}","prompt":"run the tests"}}"#
            ),
        ),
        (
            "mem-recall",
            vec!["--cwd", p, "--task", "run the tests"],
            String::new(),
        ),
    ];
    for (bin, args, stdin) in runs {
        let o = mem(bin, &home, &args, &[], &stdin);
        assert!(o.status.success(), "{bin} {args:?}: {}", show(&o));
        if bin == "mem-hook" {
            assert!(o.stdout.is_empty(), "{}", show(&o));
        }
        assert!(
            !home.join(".claude").exists(),
            "{bin} {args:?} created {}",
            home.join(".claude").display()
        );
        assert_eq!(
            std::fs::read_dir(&proj).unwrap().count(),
            0,
            "{bin} {args:?}"
        );
    }
    // an existing, empty memory directory gets no empty MEMORY.md either
    let dir = t.path().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    for args in [
        vec!["--memory-dir", d, "write"],
        vec!["--memory-dir", d, "reindex"],
    ] {
        let o = mem("mem-index", &home, &args, &[], "");
        assert!(o.status.success(), "{}", show(&o));
        assert!(!dir.join("MEMORY.md").exists(), "{args:?}");
    }
}

/// A memory directory with one `type: user` memory the SessionStart hook
/// injects; returns (home, project, memory dir).
fn setup_recall(t: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let home = t.join("home");
    let proj = t.join("proj");
    let dir = t.join("memory");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    copy_fixture(&dir);
    (home, proj, dir)
}

/// A SessionStart of a new session each call (each memory is injected once
/// per session).
fn session_start(proj: &Path) -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    format!(
        r#"{{"hook_event_name":"SessionStart","session_id":"s{n}","cwd":"{}","source":"startup"}}"#,
        proj.display()
    )
}

/// (hook stdout, files after a write) for the environment `envs`.
fn hook_and_write(home: &Path, proj: &Path, dir: &Path, envs: &[(&str, &str)]) -> (String, bool) {
    let mut e = vec![("MEM_MEMORY_DIR", dir.to_str().unwrap())];
    e.extend_from_slice(envs);
    let o = mem("mem-hook", home, &[], &e, &session_start(proj));
    assert!(o.status.success(), "{}", show(&o));
    let hook = text(&o.stdout);
    let p = proj.to_str().unwrap();
    let o = mem(
        "mem-index",
        home,
        &["--cwd", p, "write"],
        &e,
        &format!("{MEM_RECORD}\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    let written = dir.join("migrate-before-tests.md").exists();
    if written {
        std::fs::remove_file(dir.join("migrate-before-tests.md")).unwrap();
    }
    (hook, written)
}

/// `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1` turns off writing and recall
/// injection; set to `0` it turns memory on whatever the settings say.
#[test]
fn switch_disable_auto_memory_env() {
    let t = tempfile::tempdir().unwrap();
    let (home, proj, dir) = setup_recall(t.path());
    let (hook, written) = hook_and_write(&home, &proj, &dir, &[]);
    assert!(hook.contains("User role"), "on by default: {hook}");
    assert!(written);
    let (hook, written) = hook_and_write(
        &home,
        &proj,
        &dir,
        &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")],
    );
    assert_eq!((hook.as_str(), written), ("", false));
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"autoMemoryEnabled": false}"#,
    )
    .unwrap();
    let (hook, written) = hook_and_write(
        &home,
        &proj,
        &dir,
        &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")],
    );
    assert!(hook.contains("User role") && written, "{hook}");
}

/// `autoMemoryEnabled: false` in the user settings turns memory off.
#[test]
fn switch_auto_memory_enabled_user_settings() {
    let t = tempfile::tempdir().unwrap();
    let (home, proj, dir) = setup_recall(t.path());
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"autoMemoryEnabled": false}"#,
    )
    .unwrap();
    let (hook, written) = hook_and_write(&home, &proj, &dir, &[]);
    assert_eq!((hook.as_str(), written), ("", false));
    // CLAUDE_CONFIG_DIR moves the user settings
    let cfg = t.path().join("cfg");
    std::fs::create_dir_all(&cfg).unwrap();
    let c = cfg.to_str().unwrap();
    let (hook, written) = hook_and_write(&home, &proj, &dir, &[("CLAUDE_CONFIG_DIR", c)]);
    assert!(hook.contains("User role") && written, "{hook}");
}

/// `autoMemoryEnabled: false` in the project's `.claude/settings.json` or
/// `.claude/settings.local.json` turns memory off; a project's
/// `autoMemoryDirectory` never redirects it.
#[test]
fn switch_auto_memory_enabled_project_settings() {
    let t = tempfile::tempdir().unwrap();
    let (home, proj, dir) = setup_recall(t.path());
    for file in ["settings.json", "settings.local.json"] {
        let f = proj.join(".claude").join(file);
        std::fs::write(&f, r#"{"autoMemoryEnabled": false}"#).unwrap();
        let (hook, written) = hook_and_write(&home, &proj, &dir, &[]);
        assert_eq!((hook.as_str(), written), ("", false), "{file}");
        std::fs::remove_file(&f).unwrap();
    }
    // settings.local.json overrides settings.json (Claude Code's precedence)
    std::fs::write(
        proj.join(".claude/settings.json"),
        r#"{"autoMemoryEnabled": false}"#,
    )
    .unwrap();
    std::fs::write(
        proj.join(".claude/settings.local.json"),
        r#"{"autoMemoryEnabled": true}"#,
    )
    .unwrap();
    let (hook, written) = hook_and_write(&home, &proj, &dir, &[]);
    assert!(hook.contains("User role") && written, "{hook}");
    // a project may not redirect memory
    std::fs::write(
        proj.join(".claude/settings.json"),
        r#"{"autoMemoryDirectory": "/tmp/elsewhere"}"#,
    )
    .unwrap();
    let o = mem(
        "mem-index",
        &home,
        &[
            "--cwd",
            proj.to_str().unwrap(),
            "path",
            "--explain",
            "--format",
            "text",
        ],
        &[],
        "",
    );
    assert!(o.status.success(), "{}", show(&o));
    let out = text(&o.stdout);
    assert!(out.contains(".claude/projects/"), "{out}");
    assert!(!out.contains("/tmp/elsewhere"), "{out}");
}

/// `autoDreamEnabled: false` in the user's or the project's settings keeps
/// the automatic `mem-dream` (without `--force`) from running, saying how to
/// run it by hand; nothing changes. `--force` still consolidates.
#[test]
fn switch_auto_dream_enabled() {
    let t = tempfile::tempdir().unwrap();
    let (home, proj, dir) = setup_recall(t.path());
    let empty = t.path().join("no-sessions");
    std::fs::create_dir_all(&empty).unwrap();
    let args = [
        "--cwd",
        proj.to_str().unwrap(),
        "--memory-dir",
        dir.to_str().unwrap(),
        "--transcripts",
        empty.to_str().unwrap(),
    ];
    let forced = [&args[..], &["--force"]].concat();
    for f in [
        home.join(".claude/settings.json"),
        proj.join(".claude/settings.json"),
        proj.join(".claude/settings.local.json"),
    ] {
        std::fs::write(&f, r#"{"autoDreamEnabled": false}"#).unwrap();
        let o = mem("mem-dream", &home, &args, &[], "");
        assert!(o.status.success(), "{}", show(&o));
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!(
                "not due: master: autoDreamEnabled is false in {} (automatic consolidation is off; run it by hand with `mem-dream --force`",
                f.display()
            )),
            "{}",
            show(&o)
        );
        assert!(!dir.join(".consolidate-lock").exists(), "{}", f.display());
        std::fs::remove_file(&f).unwrap();
    }
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"autoDreamEnabled": false}"#,
    )
    .unwrap();
    let o = mem("mem-dream", &home, &forced, &[], "");
    assert!(o.status.success(), "{}", show(&o));
    assert!(dir.join(".consolidate-lock").exists(), "{}", show(&o));
}

/// `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` is the first rule of Claude Code's
/// chain: it beats `MEM_MEMORY_DIR` and the settings, `--memory-dir` beats
/// it, a relative value is ignored (as Claude Code ignores it), and
/// `path --explain` names the rule that won.
#[test]
fn switch_cowork_memory_path_override() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let proj = t.path().join("proj");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"autoMemoryDirectory": "~/settings-mem"}"#,
    )
    .unwrap();
    let cowork = t.path().join("cowork");
    let env_dir = t.path().join("env");
    let flag = t.path().join("flag");
    // a directory named by --memory-dir or MEM_MEMORY_DIR must exist
    std::fs::create_dir_all(&env_dir).unwrap();
    std::fs::create_dir_all(&flag).unwrap();
    let c = cowork.to_str().unwrap();
    let e = env_dir.to_str().unwrap();
    let p = proj.to_str().unwrap();
    let path = |args: &[&str], envs: &[(&str, &str)]| {
        let mut a = vec!["--cwd", p, "path", "--explain", "--format", "text"];
        a.extend_from_slice(args);
        let o = mem("mem-index", &home, &a, envs, "");
        assert!(o.status.success(), "{}", show(&o));
        text(&o.stdout)
    };
    let cw = ("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", c);
    let out = path(&[], &[cw]);
    assert_eq!(
        out.lines().take(2).collect::<Vec<_>>(),
        [c, "rule: CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"],
        "{out}"
    );
    let out = path(&[], &[cw, ("MEM_MEMORY_DIR", e)]);
    assert!(out.starts_with(&format!("{c}\n")), "{out}");
    assert!(
        out.contains("note: MEM_MEMORY_DIR is set but CLAUDE_COWORK_MEMORY_PATH_OVERRIDE wins"),
        "{out}"
    );
    let out = path(&["--memory-dir", flag.to_str().unwrap()], &[cw]);
    assert!(out.contains("rule: --memory-dir"), "{out}");
    let out = path(&[], &[("MEM_MEMORY_DIR", e)]);
    assert!(
        out.starts_with(&format!("{e}\nrule: MEM_MEMORY_DIR")),
        "{out}"
    );
    let out = path(&[], &[("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "rel/dir")]);
    assert!(out.contains("rule: autoMemoryDirectory in"), "{out}");
    assert!(
        out.contains("ignored: rel/dir is not an absolute path"),
        "{out}"
    );
    // writes go where the override says
    let o = mem(
        "mem-index",
        &home,
        &["--cwd", p, "write"],
        &[cw],
        &format!("{MEM_RECORD}\n"),
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(cowork.join("migrate-before-tests.md").is_file());
    assert!(cowork.join("MEMORY.md").is_file());
}
