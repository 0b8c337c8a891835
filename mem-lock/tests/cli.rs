//! The real `mem-lock` binary on lock files built in a temp directory:
//! case B26 (a–e), the lock side of B27, `run`, `--pid`, busy.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime};

use filetime::FileTime;
use mem_tests::{LiveProcess as Live, dead_pid};

const BIN: &str = env!("CARGO_BIN_EXE_mem-lock");

struct Run {
    out: Output,
    desc: String,
}

impl Run {
    fn code(&self) -> i32 {
        self.out.status.code().unwrap_or(-1)
    }
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
    fn expect(&self, code: i32) -> &Run {
        assert_eq!(
            self.code(),
            code,
            "{}\nstdout:\n{}\nstderr:\n{}",
            self.desc,
            self.stdout(),
            self.stderr()
        );
        self
    }
}

fn mem_lock(args: &[&str]) -> Run {
    let out = mem_tests::scrub(&mut Command::new(BIN))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run mem-lock");
    Run {
        out,
        desc: format!("mem-lock {}", args.join(" ")),
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn put(path: &Path, content: &str, secs_ago: u64) -> SystemTime {
    std::fs::write(path, content).unwrap();
    let t = SystemTime::now() - Duration::from_secs(secs_ago);
    filetime::set_file_mtime(path, FileTime::from_system_time(t)).unwrap();
    std::fs::metadata(path).unwrap().modified().unwrap()
}

fn mtime(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

fn content(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn json(line: &str) -> serde_json::Value {
    serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

fn lock_in(d: &tempfile::TempDir, name: &str) -> PathBuf {
    d.path().join(name)
}

#[test]
fn b26a_dead_pid_fresh_is_reclaimed_with_the_new_pid() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "a-dead-pid-fresh.lock");
    let before = put(&l, &dead_pid().to_string(), 0);
    let me = std::process::id().to_string();
    let r = mem_lock(&["acquire", "--format", "jsonl", "--pid", &me, s(&l)]);
    r.expect(0);
    let rec = json(&r.stdout());
    assert_eq!(rec["reclaimed"], "dead_pid");
    assert_eq!(rec["pid"], std::process::id());
    assert_eq!(
        rec["previous_mtime"],
        mem_lock_time(before),
        "previous mtime kept for rollback"
    );
    assert!(r.stderr().contains("dead"), "{}", r.stderr());
    assert_eq!(content(&l), me);
}

fn mem_lock_time(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

#[test]
fn b26b_live_pid_fresh_is_busy_and_unchanged() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "b-live-pid-fresh.lock");
    let live = Live::new();
    let before = put(&l, &live.pid().to_string(), 300);
    let r = mem_lock(&["acquire", "--pid", &std::process::id().to_string(), s(&l)]);
    r.expect(75);
    assert!(r.stderr().contains("busy"), "{}", r.stderr());
    assert!(r.stdout().is_empty());
    assert_eq!(mtime(&l), before);
    assert_eq!(content(&l), live.pid().to_string());
    // status says so too.
    let st = json(
        &mem_lock(&["status", "--format", "jsonl", s(&l)])
            .expect(0)
            .stdout(),
    );
    assert_eq!(st["busy"], true);
    assert_eq!(st["alive"], true);
    assert_eq!(st["stale"], false);
}

#[test]
fn b26c_live_pid_old_is_reclaimed_as_stale() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "c-live-pid-old.lock");
    let live = Live::new();
    put(&l, &live.pid().to_string(), 7200);
    let st = json(
        &mem_lock(&["status", "--format", "jsonl", s(&l)])
            .expect(0)
            .stdout(),
    );
    assert_eq!(
        (st["alive"].clone(), st["stale"].clone()),
        (true.into(), true.into())
    );
    // A wider window keeps it busy.
    mem_lock(&["acquire", "--stale-after", "3h", "--pid", "1", s(&l)]).expect(75);
    let r = mem_lock(&["acquire", "--format", "jsonl", "--pid", "1", s(&l)]);
    r.expect(0);
    assert_eq!(json(&r.stdout())["reclaimed"], "stale");
    assert!(r.stderr().contains("stale"), "{}", r.stderr());
    assert_eq!(content(&l), "1");
}

#[test]
fn b26d_e_empty_and_garbage_are_reclaimed_as_corrupt() {
    let d = tempfile::tempdir().unwrap();
    for (name, body, kind) in [
        ("d-empty.lock", "", "empty"),
        ("e-garbage.lock", "not-a-pid\n", "garbage"),
    ] {
        let l = lock_in(&d, name);
        put(&l, body, 120);
        let st = json(
            &mem_lock(&["status", "--format", "jsonl", s(&l)])
                .expect(0)
                .stdout(),
        );
        assert_eq!(st["corrupt"], true);
        let r = mem_lock(&["acquire", "--format", "jsonl", "--pid", "1", s(&l)]);
        r.expect(0);
        assert_eq!(json(&r.stdout())["reclaimed"], kind);
        assert!(r.stderr().contains("corrupt lock"), "{}", r.stderr());
        assert_eq!(content(&l), "1");
    }
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
    assert_eq!(left.len(), 2, "temp files left behind");
}

#[test]
fn acquire_defaults_to_the_parent_and_text_prints_the_previous_mtime() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, ".consolidate-lock");
    let r = mem_lock(&["acquire", "--format", "text", "--memory-dir", s(d.path())]);
    r.expect(0);
    assert_eq!(r.stdout(), "never\n");
    // The parent of mem-lock is this test process.
    assert_eq!(content(&l), std::process::id().to_string());
    mem_lock(&["release", s(&l)]).expect(0);
    let before = put(&l, "0", 30 * 3600);
    let r = mem_lock(&["acquire", "--format", "text", "--pid", "1", s(&l)]);
    assert_eq!(r.expect(0).stdout().trim(), mem_lock_time(before));
    // The printed value rolls back exactly.
    mem_lock(&["rollback", "--to", r.stdout().trim(), s(&l)]).expect(0);
    assert_eq!(mtime(&l), before);
    assert_eq!(content(&l), "1", "rollback keeps the content");
    mem_lock(&["release", "--pid", "2", s(&l)]).expect(0);
    assert_eq!(content(&l), "1", "release --pid of a non-holder leaves it");
    mem_lock(&["release", "--pid", "1", s(&l)]).expect(0);
    assert_eq!(content(&l), "0");
    assert_eq!(mtime(&l), before, "release keeps the mtime");
}

#[test]
fn stamp_sets_the_mtime_and_rollback_never_removes() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "L");
    let r = mem_lock(&[
        "stamp",
        "--format",
        "jsonl",
        "--at",
        "2026-07-11T10:00:00Z",
        s(&l),
    ]);
    assert_eq!(json(&r.expect(0).stdout())["mtime"], "2026-07-11T10:00:00Z");
    assert_eq!(content(&l), "0");
    let st = json(
        &mem_lock(&["status", "--format", "jsonl", s(&l)])
            .expect(0)
            .stdout(),
    );
    assert_eq!(st["mtime"], "2026-07-11T10:00:00Z");
    mem_lock(&["rollback", "--to", "never", s(&l)]).expect(0);
    assert!(!l.exists());
    mem_lock(&["stamp", "--at", "yesterday", s(&l)]).expect(2);
    mem_lock(&["rollback", s(&l)]).expect(2);
    mem_lock(&["status"]).expect(1);
    mem_lock(&["acquire", "--stale-after", "1x", s(&l)]).expect(2);
}

#[test]
fn run_success_stamps_completion_time_and_releases() {
    // B27, lock side: after a successful run, mtime = completion, content 0.
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, ".consolidate-lock");
    let before = put(&l, "0", 30 * 3600);
    let seen = d.path().join("seen");
    let start = SystemTime::now();
    let script = format!("cat '{}' > '{}'; sleep 0.2", s(&l), s(&seen));
    let r = mem_lock(&["run", s(&l), "--", "sh", "-c", &script]);
    r.expect(0);
    let end = SystemTime::now();
    assert_eq!(content(&l), "0");
    let m = mtime(&l);
    assert!(
        m > before && m >= start && m <= end,
        "mtime {m:?} not completion time"
    );
    assert!(
        m.duration_since(start).unwrap() >= Duration::from_millis(200),
        "stamped at completion, not at start"
    );
    // During the run the lock held mem-lock's own (live) PID.
    let held: u32 = std::fs::read_to_string(&seen).unwrap().parse().unwrap();
    assert_ne!(held, 0);
}

#[test]
fn run_failure_rolls_back_and_returns_the_status() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "L");
    let before = put(&l, "0", 30 * 3600);
    mem_lock(&["run", s(&l), "--", "sh", "-c", "exit 3"]).expect(3);
    assert_eq!(mtime(&l), before);
    assert_eq!(content(&l), "0");
    // A command that can't be found: 127, rolled back too.
    mem_lock(&["run", s(&l), "--", "/nonexistent/cmd"]).expect(127);
    assert_eq!(mtime(&l), before);
    // A lock that did not exist before is gone again after a failure.
    let fresh = lock_in(&d, "fresh");
    mem_lock(&["run", s(&fresh), "--", "false"]).expect(1);
    assert!(
        !fresh.exists(),
        "a failed first run must not look like a consolidation"
    );
}

#[test]
fn run_of_a_command_killed_by_a_signal_returns_128_plus_n() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "L");
    let before = put(&l, "0", 5000);
    mem_lock(&["run", s(&l), "--", "sh", "-c", "kill -KILL $$"]).expect(137);
    assert_eq!(mtime(&l), before);
    assert_eq!(content(&l), "0");
}

#[test]
fn sigterm_to_run_is_forwarded_and_rolled_back() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "L");
    let before = put(&l, "0", 5000);
    let mut child = mem_tests::scrub(&mut Command::new(BIN))
        .args(["run", s(&l), "--", "sleep", "30"])
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    // Wait until mem-lock holds the lock.
    let t0 = std::time::Instant::now();
    while content(&l) != pid {
        assert!(t0.elapsed() < Duration::from_secs(10), "never acquired");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(143), "the child died of SIGTERM");
    assert_eq!(mtime(&l), before, "interruption rolls back");
    assert_eq!(content(&l), "0", "and releases");
}

#[test]
fn busy_run_returns_75_runs_nothing_and_keeps_the_mtime() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "L");
    let live = Live::new();
    let before = put(&l, &live.pid().to_string(), 60);
    let marker = d.path().join("ran");
    let script = format!("touch '{}'", s(&marker));
    mem_lock(&["run", s(&l), "--", "sh", "-c", &script]).expect(75);
    assert!(!marker.exists());
    assert_eq!(mtime(&l), before);
    assert_eq!(content(&l), live.pid().to_string());
}

#[test]
fn run_with_pid_holds_for_that_process() {
    let d = tempfile::tempdir().unwrap();
    let l = lock_in(&d, "L");
    let me = std::process::id().to_string();
    let seen = d.path().join("seen");
    let script = format!("cat '{}' > '{}'", s(&l), s(&seen));
    mem_lock(&["run", "--pid", &me, s(&l), "--", "sh", "-c", &script]).expect(0);
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), me);
    assert_eq!(content(&l), "0");
}

#[test]
fn every_subcommand_has_an_example_in_its_help() {
    for sub in ["status", "acquire", "release", "stamp", "rollback", "run"] {
        let r = mem_lock(&[sub, "--help"]);
        assert!(r.expect(0).stdout().contains("Example"), "{sub}");
    }
}
