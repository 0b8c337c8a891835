//! End-to-end tests of the `mem-dream` binary on throwaway directories:
//! cases B16, B21, B26, B27, B29, dry-run, undo, Claude Code directories.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use filetime::FileTime;

use mem_tests::{copy_dir, stderr, stdout, topic_files};

/// The field cases written for the project (`tests/fixtures/cases/`).
fn cases() -> PathBuf {
    mem_tests::fixtures().join("cases")
}

/// A throwaway home with its own cache and Claude dir.
struct Env {
    home: mem_tests::Home,
}

impl Env {
    fn new() -> Env {
        Env {
            home: mem_tests::Home::new(),
        }
    }
    fn path(&self) -> &Path {
        self.home.path()
    }
    fn mem(&self) -> PathBuf {
        self.path().join("memory")
    }
    fn cmd(&self) -> Command {
        self.home.command(env!("CARGO_BIN_EXE_mem-dream"))
    }
    fn run(&self, args: &[&str]) -> Output {
        let out = self.cmd().args(args).output().unwrap();
        eprintln!(
            "$ mem-dream {}\n--- status {:?}\n--- stdout\n{}--- stderr\n{}",
            args.join(" "),
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
    /// Run on the memory dir with extra args.
    fn dream(&self, args: &[&str]) -> Output {
        let m = self.mem();
        let mut a = vec!["--memory-dir", m.to_str().unwrap(), "--format", "jsonl"];
        a.extend_from_slice(args);
        self.run(&a)
    }
}

/// Every file under `dir` with its bytes and mtime.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut m = BTreeMap::new();
    fn walk(d: &Path, base: &Path, m: &mut BTreeMap<PathBuf, (Vec<u8>, SystemTime)>) {
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if p.is_dir() {
                walk(&p, base, m);
            } else {
                let t = std::fs::metadata(&p).unwrap().modified().unwrap();
                m.insert(
                    p.strip_prefix(base).unwrap().to_path_buf(),
                    (std::fs::read(&p).unwrap(), t),
                );
            }
        }
    }
    walk(dir, dir, &mut m);
    m
}

fn set_mtime(p: &Path, ago: Duration) {
    let t = SystemTime::now() - ago;
    filetime::set_file_mtime(p, FileTime::from_system_time(t)).unwrap();
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn b16_broken_frontmatter_is_left_byte_identical() {
    let env = Env::new();
    copy_dir(&cases().join("B16/memory"), &env.mem());
    let q = env.mem().join("quote-style.md");
    let before = std::fs::read(&q).unwrap();
    let o = env.dream(&["--force"]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(err.contains("quote-style.md:3"), "{err}");
    assert_eq!(
        std::fs::read(&q).unwrap(),
        before,
        "quote-style.md rewritten"
    );
    assert!(env.mem().join("db-tests.md").exists());
    let index = std::fs::read_to_string(env.mem().join("MEMORY.md")).unwrap();
    let line = index
        .lines()
        .find(|l| l.contains("(quote-style.md)"))
        .expect("broken file kept in the index");
    // Problems go to `mem-index check`, never into the index.
    assert!(!line.contains("does not parse"), "{line}");
    assert!(index.contains("(db-tests.md)"));
}

#[test]
fn b21_identical_memories_merge_into_exactly_one() {
    let env = Env::new();
    copy_dir(&cases().join("B21/memory"), &env.mem());
    let o = env.dream(&["--force"]);
    assert_eq!(o.status.code(), Some(0));
    let t = topic_files(&env.mem());
    assert_eq!(t, ["no-db-mocks.md"], "exactly one topic file remains");
    let text = std::fs::read_to_string(env.mem().join("no-db-mocks.md")).unwrap();
    assert!(text.contains(
        "Integration tests must use the real database container; mocks hid a migration bug."
    ));
    assert!(
        text.contains(r#"triggers: ["integration test", "mock", "database"]"#),
        "{text}"
    );
    assert!(text.contains("verified_at: 2026-01-12\n"), "{text}");
    let index = std::fs::read_to_string(env.mem().join("MEMORY.md")).unwrap();
    assert_eq!(index.lines().count(), 1, "{index}");
    assert!(index.contains("(no-db-mocks.md)"));
    // Logged: in the plan printed and in the journal.
    let merge =
        r#"{"op":"merge","id":"no-db-mocks","from":["no-db-mocks-2"],"reason":"same fact"}"#;
    assert!(stdout(&o).contains(merge), "{}", stdout(&o));
    let journal = env.mem().join(".mem/journal");
    let j = std::fs::read_dir(&journal)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(
        std::fs::read_to_string(j.join("plan.jsonl"))
            .unwrap()
            .contains(merge)
    );
    // The other one is retired with a reason, not deleted.
    let r = std::fs::read_to_string(env.mem().join("retired/no-db-mocks-2.md")).unwrap();
    assert!(
        r.contains(r#"retired_reason: "merged into no-db-mocks""#),
        "{r}"
    );
    // A second run finds nothing more to merge, never zero files.
    let o = env.dream(&["--force"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stdout(&o).contains("\"merge\""));
    assert_eq!(topic_files(&env.mem()), ["no-db-mocks.md"]);
}

/// The team tier's refusals: exit 1, one line naming what is refused.
#[test]
fn team_tier_refusals_exit_1_with_their_message() {
    let env = Env::new();
    let o = env.run(&["--tier", "team", "--transcripts", "x.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "mem-dream: --tier team: --transcripts is refused: sessions are one person's and are never gathered into the team tier (promote a memory with `mem-index promote ID`)\n"
    );
    let o = env.run(&["--tier", "team", "undo"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with("mem-dream: --tier team: nothing to undo: ") && err.lines().count() == 1,
        "{err}"
    );
}

fn write_lock(env: &Env, content: &str, ago: Duration) -> PathBuf {
    std::fs::create_dir_all(env.mem()).unwrap();
    let l = env.mem().join(".consolidate-lock");
    std::fs::write(&l, content).unwrap();
    set_mtime(&l, ago);
    l
}

#[test]
fn b26_dead_stale_empty_and_garbage_locks_are_reclaimed() {
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let mut live = Command::new("sleep").arg("60").spawn().unwrap();
    let live_pid = live.id();
    let cases: Vec<(&str, String, Duration, bool)> = vec![
        (
            "dead pid, fresh",
            dead_pid.to_string(),
            Duration::from_secs(5),
            false,
        ),
        (
            "live pid, 2 h old",
            live_pid.to_string(),
            Duration::from_secs(7200),
            false,
        ),
        ("empty", String::new(), Duration::from_secs(120), true),
        (
            "garbage",
            "not-a-pid\n".into(),
            Duration::from_secs(5),
            true,
        ),
    ];
    for (what, content, ago, corrupt) in cases {
        let env = Env::new();
        let l = write_lock(&env, &content, ago);
        let start = SystemTime::now();
        let o = env.dream(&["--force"]);
        assert_eq!(o.status.code(), Some(0), "{what}");
        assert_eq!(
            std::fs::read_to_string(&l).unwrap(),
            "0",
            "{what}: released"
        );
        assert!(
            mtime(&l) >= start - Duration::from_secs(1),
            "{what}: stamped"
        );
        let err = stderr(&o);
        assert!(err.contains("reclaimed"), "{what}: {err}");
        assert_eq!(err.contains("corrupt lock"), corrupt, "{what}: {err}");
    }
    // A live holder inside the stale window: busy, nothing changed.
    let env = Env::new();
    let l = write_lock(&env, &live_pid.to_string(), Duration::from_secs(300));
    let before = mtime(&l);
    let o = env.dream(&["--force"]);
    assert_eq!(o.status.code(), Some(75));
    assert_eq!(
        stderr(&o),
        format!(
            "mem-dream: {}: lock busy (held by pid {live_pid})\n",
            l.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&l).unwrap(), live_pid.to_string());
    assert_eq!(mtime(&l), before);
    let o = env.dream(&["--force", "--dry-run"]);
    assert_eq!(o.status.code(), Some(75));
    let _ = live.kill();
    let _ = live.wait();
}

/// Case B27 set up in `env` by its `setup.sh`: the folder it made (its
/// `memory/` and sessions).
fn b27_case(env: &Env) -> PathBuf {
    let out = Command::new("bash")
        .arg(cases().join("B27/setup.sh"))
        .arg(env.path().join("case"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

#[test]
fn b27_own_sessions_do_not_count_and_a_run_releases_the_lock() {
    let env = Env::new();
    let p = b27_case(&env);
    let mem = p.join("memory");
    let lock = mem.join(".consolidate-lock");
    let lock_before = (std::fs::read(&lock).unwrap(), mtime(&lock));
    let args = |extra: &[&str]| {
        let mut a = vec![
            "--memory-dir".to_string(),
            mem.display().to_string(),
            "--transcripts".into(),
            p.display().to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        env.run(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(err.contains("not due: sessions: 4 session(s)"), "{err}");
    assert!(err.contains("1 excluded by entrypoint"), "{err}");
    assert_eq!((std::fs::read(&lock).unwrap(), mtime(&lock)), lock_before);
    let o = run(&["--strict"]);
    assert_eq!(o.status.code(), Some(75));
    assert_eq!((std::fs::read(&lock).unwrap(), mtime(&lock)), lock_before);
    // The scan state lives in the cache, never in the memory dir.
    assert!(!mem.join(".mem").exists());
    assert!(env.path().join("cache/mem").is_dir());

    // One more real session.
    let src =
        std::fs::read_to_string(p.join("00000000-0000-4000-8000-000000000101.jsonl")).unwrap();
    std::fs::write(
        p.join("00000000-0000-4000-8000-000000000105.jsonl"),
        src.replace("000000000101", "000000000105"),
    )
    .unwrap();
    // Within the scan cooldown the previous count stands.
    let o = run(&[]);
    assert!(
        stderr(&o).contains("not due: sessions: 4"),
        "{}",
        stderr(&o)
    );
    assert_eq!((std::fs::read(&lock).unwrap(), mtime(&lock)), lock_before);
    let start = SystemTime::now();
    let o = run(&["--scan-interval", "0", "--explain"]);
    let end = SystemTime::now();
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("gate sessions: open: 5 session(s)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), "0");
    let t = mtime(&lock);
    assert!(
        t >= start - Duration::from_millis(10) && t <= end,
        "lock mtime = completion time"
    );
    // Right after a run the time gate is closed: no second dream.
    let o = run(&["--scan-interval", "0"]);
    assert!(stderr(&o).contains("not due: time"), "{}", stderr(&o));
}

#[test]
fn b29_relative_dates_use_the_local_day_of_the_source() {
    let env = Env::new();
    let td = env.path().join("transcripts");
    std::fs::create_dir_all(&td).unwrap();
    let sid = "00000000-0000-4000-8000-000000000001";
    std::fs::copy(
        cases().join("B29/events.jsonl"),
        td.join(format!("{sid}.jsonl")),
    )
    .unwrap();
    let digest = &blake3::hash(sid.as_bytes()).to_hex()[..12];
    std::fs::create_dir_all(env.mem()).unwrap();
    let mems = [
        (
            "nightly-ci",
            "Yesterday we switched CI to the nightly toolchain; keep that in mind.",
            1,
        ),
        (
            "rustfmt-stable",
            "And today I pinned rustfmt to the stable channel.",
            2,
        ),
        ("staging-db", "Last Friday the staging DB was rebuilt.", 3),
    ];
    for (id, body, line) in mems {
        std::fs::write(
            env.mem().join(format!("{id}.md")),
            format!(
                "---\nname: \"{id}\"\ndescription: \"{id}\"\ntype: project\nevidence: [\"transcript:{digest}#{line}\"]\n---\n{body}\n"
            ),
        )
        .unwrap();
    }
    let o = env
        .cmd()
        .env("TZ", "America/Los_Angeles")
        .args([
            "--memory-dir",
            env.mem().to_str().unwrap(),
            "--transcripts",
            td.to_str().unwrap(),
            "--now",
            "2026-01-16T18:00:00Z",
            "--force",
            "--format",
            "jsonl",
        ])
        .output()
        .unwrap();
    eprintln!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0));
    let read = |id: &str| std::fs::read_to_string(env.mem().join(format!("{id}.md"))).unwrap();
    let ci = read("nightly-ci");
    assert!(ci.contains("Yesterday (2026-01-13) we switched CI"), "{ci}");
    assert!(
        !ci.contains("(2026-01-14)") && !ci.contains("2026-01-15"),
        "{ci}"
    );
    let fmt = read("rustfmt-stable");
    assert!(fmt.contains("today (2026-01-14) I pinned"), "{fmt}");
    let db = read("staging-db");
    assert!(
        db.contains("Last Friday (2026-01-09) the staging DB"),
        "{db}"
    );
    let plan = stdout(&o);
    assert!(
        plan.contains(r#"{"op":"absolutize-date","id":"nightly-ci","field":"body","from":"Yesterday","to":"2026-01-13","basis":"2026-01-15T07:30:00Z"}"#),
        "{plan}"
    );
    assert!(
        plan.contains(r#""from":"Last Friday","to":"2026-01-09""#),
        "{plan}"
    );
}

fn b21_env() -> Env {
    let env = Env::new();
    copy_dir(&cases().join("B21/memory"), &env.mem());
    // Something to retire and something to date, too.
    std::fs::write(
        env.mem().join("mirror-slow.md"),
        "---\nname: \"mirror slow\"\ndescription: \"The mirror is slow\"\ntype: project\nverified_at: 2026-01-10\nexpires: 2026-01-11\n---\nUse the other mirror tomorrow.\n",
    )
    .unwrap();
    write_lock(&env, "0", Duration::from_secs(48 * 3600));
    env
}

#[test]
fn dry_run_changes_nothing_anywhere() {
    let env = b21_env();
    let before = snapshot(env.path());
    let o = env.dream(&["--dry-run", "--force", "--explain"]);
    assert_eq!(o.status.code(), Some(0));
    let plan = stdout(&o);
    assert!(plan.contains(r#""op":"merge""#), "{plan}");
    assert!(
        plan.contains(r#"{"op":"retire","id":"mirror-slow","reason":"expired"}"#),
        "{plan}"
    );
    assert!(plan.contains(r#""op":"index""#), "{plan}");
    let o = env.dream(&["--dry-run", "--force", "--diff"]);
    assert_eq!(o.status.code(), Some(0));
    let d = stdout(&o);
    assert!(
        d.contains("--- a/no-db-mocks.md\n+++ b/no-db-mocks.md\n# reason: merge"),
        "{d}"
    );
    assert!(
        d.contains(
            "+++ b/retired/mirror-slow.md\n# reason: absolutize relative dates; retire: expired"
        ),
        "{d}"
    );
    assert!(
        d.contains("+Use the other mirror tomorrow (2026-01-11)."),
        "{d}"
    );
    assert!(d.contains("@@ "), "{d}");
    assert_eq!(snapshot(env.path()), before, "dry run changed something");
    assert!(!env.path().join("cache").exists());
}

#[test]
fn undo_restores_the_state_before_the_last_run() {
    let env = b21_env();
    let lock = env.mem().join(".consolidate-lock");
    let lock_mtime = mtime(&lock);
    let before: BTreeMap<_, _> = snapshot(&env.mem())
        .into_iter()
        .map(|(p, (b, _))| (p, b))
        .collect();
    let o = env.dream(&["--force"]);
    assert_eq!(o.status.code(), Some(0));
    assert_ne!(mtime(&lock), lock_mtime);
    assert!(env.mem().join("retired/mirror-slow.md").exists());
    let o = env.dream(&["undo"]);
    assert_eq!(o.status.code(), Some(0));
    let after: BTreeMap<_, _> = snapshot(&env.mem())
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".mem"))
        .map(|(p, (b, _))| (p, b))
        .collect();
    assert_eq!(after, before);
    assert_eq!(mtime(&lock), lock_mtime, "lock mtime restored");
    // Nothing left to undo: "nothing to do" (exit 0), in plain words.
    let o = env.dream(&["undo"]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim_end(),
        "mem-dream: nothing to undo: no consolidation of this memory directory is left to undo"
    );
    assert!(o.stdout.is_empty());
}

/// A directory Claude Code wrote: nothing of it is merged, rewritten or
/// retired; with `--include-foreign` its duplicates merge and no
/// information is lost.
#[test]
fn claude_code_directory_loses_no_information() {
    let env = Env::new();
    let m = env.mem();
    std::fs::create_dir_all(&m).unwrap();
    let files = [
        (
            "feedback_testing.md",
            "---\nname: testing\ndescription: Integration tests must hit a real database, not mocks\ntype: feedback\n---\n\nDon't mock the database in integration tests.\n\n**Why:** a mocked test passed while the prod migration failed.\n\n**How to apply:** use the docker test database.\n",
        ),
        (
            "feedback_testing_again.md",
            "---\nname: testing again\ndescription: Integration tests must hit a real database, NOT mocks.\ntype: feedback\n---\n\nDon't mock the database in integration tests.\n\n**Why:** a mocked test passed while the prod migration failed.\n\n**How to apply:** use the docker test database.\n",
        ),
        (
            "user_role.md",
            "---\nname: user role\ndescription: The user is a data scientist new to Rust\ntype: user\n---\n\nExplain borrow-checker errors step by step.\n",
        ),
        (
            "project_freeze.md",
            "---\nname: merge freeze\ndescription: Merge freeze for the mobile release\ntype: project\n---\n\nNo non-critical merges; mobile is cutting a release branch.\n",
        ),
        (
            "reference_linear.md",
            "---\nname: linear\ndescription: Pipeline bugs are tracked in Linear project INGEST\ntype: reference\n---\n\nhttps://linear.app/acme/project/ingest\n",
        ),
    ];
    for (f, t) in files {
        std::fs::write(m.join(f), t).unwrap();
    }
    std::fs::write(
        m.join("MEMORY.md"),
        "- [testing](feedback_testing.md) — Integration tests must hit a real database\n- [user role](user_role.md) — data scientist\n",
    )
    .unwrap();
    let o = env.dream(&["--force"]);
    assert_eq!(o.status.code(), Some(0));
    // Memories mem did not write are neither merged nor rewritten: every
    // file stays byte-identical, Claude's index lines stay as written.
    for (f, t) in &files {
        assert_eq!(&std::fs::read_to_string(m.join(f)).unwrap(), t, "{f}");
    }
    let index = std::fs::read_to_string(m.join("MEMORY.md")).unwrap();
    assert!(
        index.starts_with("- [testing](feedback_testing.md) — Integration tests must hit a real database\n- [user role](user_role.md) — data scientist\n"),
        "{index}"
    );
    assert_eq!(index.lines().count(), 5, "{index}");
    // With --include-foreign the duplicate pair merges: one survivor with
    // the body, the other retired.
    let o = env.dream(&["--force", "--include-foreign"]);
    assert_eq!(o.status.code(), Some(0));
    for (f, t) in &files[2..] {
        assert_eq!(&std::fs::read_to_string(m.join(f)).unwrap(), t, "{f}");
    }
    let live = topic_files(&m);
    assert_eq!(live.len(), 4, "{live:?}");
    let all: String = snapshot(&m)
        .into_values()
        .map(|(b, _)| String::from_utf8_lossy(&b).into_owned())
        .collect();
    for (_, t) in files {
        for line in t.lines().filter(|l| !l.trim().is_empty() && *l != "---") {
            let (k, v) = line.split_once(": ").unwrap_or(("", line));
            let needle = if ["name", "description", "type"].contains(&k) {
                v
            } else {
                line
            };
            assert!(all.contains(needle), "lost: {line}");
        }
    }
    let index = std::fs::read_to_string(m.join("MEMORY.md")).unwrap();
    assert_eq!(index.lines().count(), 4, "{index}");
}

#[test]
fn master_and_time_gates() {
    let env = Env::new();
    let l = write_lock(&env, "0", Duration::from_secs(3600));
    let before = (std::fs::read(&l).unwrap(), mtime(&l));
    // mem-dream with `--memory-dir`, `flag` and the variable `k` set to `v`
    let with_env = |k: &str, v: &str, flag: &str| {
        let mem = env.mem();
        env.cmd()
            .env(k, v)
            .args(["--memory-dir", mem.to_str().unwrap(), flag])
            .output()
            .unwrap()
    };
    let o = with_env("MEM_DISABLE", "1", "--force");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("not due: master: MEM_DISABLE"),
        "{}",
        stderr(&o)
    );
    let o = with_env("MEM_REMOTE", "1", "--strict");
    assert_eq!(o.status.code(), Some(75));
    // Claude Code's remote mode closes it the same way
    let o = with_env("CLAUDE_CODE_REMOTE", "true", "--strict");
    assert_eq!(o.status.code(), Some(75));
    assert!(
        stderr(&o).contains("remote mode (CLAUDE_CODE_REMOTE is set)"),
        "{}",
        stderr(&o)
    );
    std::fs::create_dir_all(env.path().join("home/.claude")).unwrap();
    std::fs::write(
        env.path().join("home/.claude/settings.json"),
        r#"{"autoDreamEnabled": false}"#,
    )
    .unwrap();
    // autoDreamEnabled: false stops the automatic run (no --force) and
    // says how to run it by hand; --force runs it (tests/tests/modes.rs)
    let o = env.dream(&["--strict"]);
    assert_eq!(o.status.code(), Some(75));
    assert!(
        stderr(&o).contains("autoDreamEnabled is false")
            && stderr(&o).contains("run it by hand with `mem-dream --force`"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(env.path().join("home/.claude/settings.json")).unwrap();
    let o = env.dream(&["--explain"]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(err.contains("gate master: open"), "{err}");
    assert!(err.contains("not due: time: 1.0 h since"), "{err}");
    assert!(err.contains("gate sessions: not checked"), "{err}");
    assert!(err.contains("gate lock: not checked"), "{err}");
    assert_eq!((std::fs::read(&l).unwrap(), mtime(&l)), before);
}

#[test]
fn a_failed_run_restores_files_and_rolls_the_lock_back() {
    let env = b21_env();
    // `retired` is a file: moving a memory there fails half-way.
    std::fs::write(env.mem().join("retired"), "in the way").unwrap();
    let lock = env.mem().join(".consolidate-lock");
    let before: BTreeMap<_, _> = snapshot(&env.mem())
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".mem"))
        .collect();
    let o = env.dream(&["--force"]);
    assert_eq!(o.status.code(), Some(1));
    let after: BTreeMap<_, _> = snapshot(&env.mem())
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".mem"))
        .collect();
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
    for (p, (b, _)) in &before {
        assert_eq!(&after[p].0, b, "{}", p.display());
    }
    assert_eq!(
        mtime(&lock),
        before[Path::new(".consolidate-lock")].1,
        "lock mtime rolled back"
    );
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), "0");
    assert!(
        !env.mem().join(".mem/journal").exists()
            || std::fs::read_dir(env.mem().join(".mem/journal"))
                .unwrap()
                .next()
                .is_none()
    );
}

#[test]
fn max_sessions_stamps_the_newest_processed_session() {
    let env = Env::new();
    let p = b27_case(&env);
    let mem = p.join("memory");
    // Counted sessions, oldest first (the dream-made one is excluded).
    let mut counted: Vec<(SystemTime, PathBuf)> = std::fs::read_dir(&p)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|f| {
            f.extension().is_some_and(|x| x == "jsonl") && !f.to_string_lossy().contains("0199")
        })
        .map(|f| (mtime(&f), f))
        .collect();
    counted.sort();
    let o = env.run(&[
        "--memory-dir",
        mem.to_str().unwrap(),
        "--transcripts",
        p.to_str().unwrap(),
        "--force",
        "--max-sessions",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let lock = mem.join(".consolidate-lock");
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), "0");
    assert_eq!(
        mtime(&lock),
        counted[1].0,
        "lock = newest processed session"
    );
    // The next run picks up the rest: 2 sessions are newer than the lock.
    let o = env.run(&[
        "--memory-dir",
        mem.to_str().unwrap(),
        "--transcripts",
        p.to_str().unwrap(),
        "--min-hours",
        "0",
        "--scan-interval",
        "0",
        "--min-sessions",
        "3",
    ]);
    assert!(
        stderr(&o).contains("not due: sessions: 2 session(s)"),
        "{}",
        stderr(&o)
    );
}

/// A memory directory named by `--memory-dir` that does not exist is an
/// error (exit 1, named on stderr), not "nothing to do"; nothing is created.
#[test]
fn a_missing_memory_dir_given_is_an_error() {
    let env = Env::new();
    for extra in [&["--force"][..], &["--force", "--dry-run"], &[], &["undo"]] {
        let o = env.dream(extra);
        assert_eq!(o.status.code(), Some(1), "{extra:?}");
        assert_eq!(
            stderr(&o),
            format!(
                "mem-dream: --memory-dir {}: no such directory\n",
                env.mem().display()
            ),
            "{extra:?}"
        );
        assert!(stdout(&o).is_empty(), "{extra:?}");
        assert!(!env.mem().exists(), "{extra:?}");
    }
}

/// A session whose memories the directory already holds (written by an
/// earlier run, or by `mem-extract | mem-index write`) is not gathered
/// again when it counts again, even under `--force`: no second copy to
/// merge, nothing retired, nothing changed.
#[test]
fn a_session_already_written_is_not_gathered_again() {
    let env = Env::new();
    let td = env.path().join("transcripts");
    std::fs::create_dir_all(&td).unwrap();
    std::fs::create_dir_all(env.mem()).unwrap();
    let session = td.join("00000000-0000-4000-8000-000000000001.jsonl");
    std::fs::copy(
        mem_tests::fixtures().join("sessions/fail-setup-pass.jsonl"),
        &session,
    )
    .unwrap();
    let args = ["--transcripts", td.to_str().unwrap(), "--force"];
    let o = env.dream(&args);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains(r#""op":"create""#), "{}", stdout(&o));
    let written = snapshot(&env.mem());
    let created = topic_files(&env.mem());
    assert!(!created.is_empty());
    // The session changes after the run: newer than the lock, it counts again.
    let later = FileTime::from_system_time(SystemTime::now() + Duration::from_secs(60));
    filetime::set_file_mtime(&session, later).unwrap();
    for extra in [&[][..], &["--dry-run"]] {
        let mut a = args.to_vec();
        a.extend_from_slice(extra);
        let o = env.dream(&a);
        assert_eq!(o.status.code(), Some(0));
        let ops = stdout(&o);
        assert_eq!(ops.lines().count(), 1, "{ops}");
        assert!(ops.starts_with(r#"{"op":"index""#), "{ops}");
        assert_eq!(topic_files(&env.mem()), created);
        assert!(!env.mem().join("retired").exists());
    }
    let after = snapshot(&env.mem());
    for (p, (bytes, _)) in &written {
        if p.starts_with(".mem") || p.ends_with(".consolidate-lock") {
            continue;
        }
        assert_eq!(&after[p].0, bytes, "{}", p.display());
    }
}

/// A daily-log entry whose lesson runs a risky command is consolidated as
/// a low-trust memory, whatever its record says; its harmless twin keeps
/// its trust (docs/security.md "What a command does").
#[test]
fn a_risky_lesson_in_a_daily_log_is_consolidated_low_trust() {
    let env = Env::new();
    let mem = env.mem();
    let day = mem.join("logs/2026/07");
    std::fs::create_dir_all(&day).unwrap();
    let entry = |id: &str, fix: &str| {
        let mut m = mem_core::Memory::new(
            format!("Prepare the deploy ({id})"),
            "deploy failed until a step ran",
            mem_core::MemoryType::Feedback,
        );
        m.id = Some(id.to_string());
        m.source = Some(mem_core::Source::Assistant);
        m.trust = Some(mem_core::Trust::Normal);
        m.how = Some(format!("Before running `make deploy`, run `{fix}`."));
        mem_index::daily_log::log_entry(&m)
    };
    std::fs::write(
        day.join("2026-07-11.md"),
        entry("deploy-force", "git push --force origin main") + &entry("deploy-gen", "make gen"),
    )
    .unwrap();
    let out = env.dream(&["--force"]);
    assert!(out.status.success());
    let risky = std::fs::read_to_string(mem.join("deploy-force.md")).unwrap();
    assert!(
        risky.contains("trust: low") && risky.contains("force-shared"),
        "{risky}"
    );
    let plain = std::fs::read_to_string(mem.join("deploy-gen.md")).unwrap();
    assert!(plain.contains("trust: normal"), "{plain}");
    let index = std::fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    assert!(!index.contains("deploy-force"), "{index}");
}
