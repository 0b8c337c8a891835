//! The JSONL contracts between the tools, as types: every record kind the
//! pipeline passes on is read back into its `mem_core::records` type from the
//! real binaries' output, and written again unchanged (same fields, same
//! values, unknown fields kept). Record kinds: `Event` (mem-transcript
//! replay), `Memory` (mem-extract), `RecallDecision` (mem-recall --format
//! jsonl), `PlanOp` (mem-dream --dry-run --format jsonl). The sessions are
//! the project's own fixtures (tests/fixtures/sessions). Every `action` of
//! a recall decision and every `op` of a consolidation plan is also read
//! back and written again byte for byte, and so are `mem-transcript`'s
//! reports (`tree`, `verify`, `stats`, `ls`, `locate`).
//!
//! What `mem-index` and `mem-lock` print is read back the same way, and
//! written again byte for byte (same fields in the same order):
//! [`IndexOp`] (every `op` record), `Memory` (`list`, `show`, snapshot
//! proposals), [`Finding`] (`check`), [`PathInfo`] (`path`),
//! [`DriverInstalled`] (`merge-driver --install`) and the lock records.
//! So is what `mem-hook` answers ([`HookOutput`]) for every event
//! and `enforce` it answers.

use std::path::Path;

use mem_core::records::hook::{
    HookOutput, HookSpecificOutput, PermissionDecision, PreToolUseOutput,
};
use mem_core::records::transcript::{
    Located, SessionListing, TranscriptStats, TreeReport, VerifyReport,
};
use mem_core::records::{
    DriverInstalled, Event, Finding, FindingCode, IndexOp, Level, LockAcquired, LockReleased,
    LockRolledBack, LockStamped, LockStatus, Memory, MoveResult, PathInfo, PlanOp, RecallDecision,
    ReclaimKind, ReleaseResult, SkipReason,
};
use mem_core::tier::{ConflictKind, Tier};
use mem_tests::{cmd, run, show, workspace_root};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

/// Parses every line of `out` as `T` and checks that writing it again gives
/// the same JSON value; returns the records.
fn round_trip<T: DeserializeOwned + Serialize>(what: &str, out: &[u8]) -> Vec<T> {
    let text = std::str::from_utf8(out).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let rec: T = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what} line {}: {e}: {line}", i + 1));
            let before: Value = serde_json::from_str(line).unwrap();
            let after = serde_json::to_value(&rec).unwrap();
            assert_eq!(
                before,
                after,
                "{what} line {} changed on a round trip",
                i + 1
            );
            rec
        })
        .collect()
}

fn ok(what: &str, o: &std::process::Output) {
    assert!(o.status.success(), "{what}: {}", show(o));
}

#[test]
fn every_record_kind_round_trips_through_its_type() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let memdir = tmp.path().join("memory");
    let sessions = workspace_root().join("tests/fixtures/sessions");
    let mut names: Vec<_> = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");

    let (mut events, mut memories) = (0, 0);
    for s in &names {
        let mut c = cmd("mem-transcript", &home);
        c.arg("replay").arg(s);
        let r = run(c, b"");
        ok("replay", &r);
        let evs: Vec<Event> = round_trip("replay", &r.stdout);
        assert!(evs.iter().all(|e| !e.session.is_empty() && e.line > 0));
        events += evs.len();

        let x = run(cmd("mem-extract", &home), &r.stdout);
        ok("extract", &x);
        let mems: Vec<Memory> = round_trip("extract", &x.stdout);
        memories += mems.len();

        let mut w = cmd("mem-index", &home);
        w.arg("write").arg("--memory-dir").arg(&memdir);
        let w = run(w, &x.stdout);
        ok("write", &w);
        // write's results: {"op", "id", "path"[, "duplicate_of"]}
        for line in std::str::from_utf8(&w.stdout).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            assert!(
                ["create", "update", "unchanged", "duplicate"].contains(&v["op"].as_str().unwrap()),
                "{line}"
            );
            assert!(Path::new(v["path"].as_str().unwrap()).is_file(), "{line}");
        }
    }
    assert!(events > 10, "{events} events");
    assert!(memories >= 2, "{memories} memories");

    let mut c = cmd("mem-recall", &home);
    c.args(["--memory-dir"]).arg(&memdir).args([
        "--task",
        "run npm test",
        "--format",
        "jsonl",
        "--all",
    ]);
    let r = run(c, b"");
    ok("recall", &r);
    let ds: Vec<RecallDecision> = round_trip("recall", &r.stdout);
    assert_eq!(ds.last().unwrap().action(), "summary");
    assert!(ds.iter().any(|d| d.action() == "recall"), "{}", show(&r));

    let mut c = cmd("mem-dream", &home);
    c.arg("--memory-dir")
        .arg(&memdir)
        .args(["--force", "--dry-run", "--format", "jsonl"]);
    let d = run(c, b"");
    ok("dream", &d);
    let ops: Vec<PlanOp> = round_trip("dream", &d.stdout);
    assert_eq!(ops.last().map(PlanOp::op), Some("index"), "{}", show(&d));
}

#[test]
fn unknown_fields_survive_every_record_kind() {
    let cases: [(&str, &str); 4] = [
        (
            "event",
            r#"{"session":"s","source":"claude","line":1,"seq":0,"uuid":"u","block":0,"role":"user","kind":"text","text":"hi","sidechain":false,"x-new":[1,{"a":null}]}"#,
        ),
        (
            "memory",
            r#"{"name":"n","description":"d","type":"feedback","x-owner":"ops","x-weight":0.5}"#,
        ),
        (
            "decision",
            r#"{"action":"recall","id":"a","kind":"durable-lesson","score":5.5,"matched":["deploy"],"source":"user","trust":"normal","tier":"team","x":true}"#,
        ),
        (
            "plan",
            r#"{"op":"merge","id":"a","from":["b"],"reason":"same fact","x-basis":{"k":1}}"#,
        ),
    ];
    for (what, line) in cases {
        let before: Value = serde_json::from_str(line).unwrap();
        let after = match what {
            "event" => serde_json::to_value(serde_json::from_str::<Event>(line).unwrap()),
            "memory" => serde_json::to_value(serde_json::from_str::<Memory>(line).unwrap()),
            "decision" => {
                serde_json::to_value(serde_json::from_str::<RecallDecision>(line).unwrap())
            }
            _ => serde_json::to_value(serde_json::from_str::<PlanOp>(line).unwrap()),
        }
        .unwrap();
        assert_eq!(before, after, "{what}");
    }
}

/// Parses every line of `out` as `T` and checks that writing it again gives
/// the very same line (field order included); returns the records.
fn exact<T: DeserializeOwned + Serialize>(what: &str, o: &std::process::Output) -> Vec<T> {
    ok(what, o);
    let text = std::str::from_utf8(&o.stdout).unwrap();
    assert!(!text.is_empty(), "{what} printed nothing: {}", show(o));
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let rec: T = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what} line {}: {e}: {line}", i + 1));
            assert_eq!(
                serde_json::to_string(&rec).unwrap(),
                line,
                "{what} line {} changed on a round trip",
                i + 1
            );
            rec
        })
        .collect()
}

fn one<T: DeserializeOwned + Serialize>(what: &str, o: &std::process::Output) -> T {
    let mut v: Vec<T> = exact(what, o);
    assert_eq!(v.len(), 1, "{what}: {}", show(o));
    v.remove(0)
}

fn git(dir: &Path, args: &[&str]) {
    let st = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .unwrap();
    assert!(st.status.success(), "git {args:?}: {}", show(&st));
}

const RECORDS: &str = r#"{"name":"Use pnpm","description":"pnpm, not npm","type":"feedback","triggers":["npm"],"fact":"Use pnpm.","verified_at":"2026-07-10"}
{"name":"Mirror slow","description":"mirror slow today","type":"project","kind":"one-time-state","expires":"2026-07-12"}
{"name":"Use pnpm again","description":"dup","type":"feedback","fact":"use  pnpm."}
"#;

#[test]
fn every_mem_index_record_round_trips_through_its_type() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "init"]);
    let memdir = tmp.path().join("memory");
    let index = |args: &[&str], stdin: &str| {
        let mut c = cmd("mem-index", &home);
        c.args(args)
            .arg("--memory-dir")
            .arg(&memdir)
            .arg("--cwd")
            .arg(&repo)
            .args(["--format", "jsonl", "--today", "2026-07-13"])
            .args(["--now", "2026-07-13T10:00:00Z"]);
        run(c, stdin.as_bytes())
    };

    let w: Vec<IndexOp> = exact("write", &index(&["write"], RECORDS));
    assert_eq!(
        w.iter().map(IndexOp::op).collect::<Vec<_>>(),
        ["create", "create", "duplicate"]
    );
    assert!(
        matches!(&w[2], IndexOp::Duplicate { duplicate_of, .. } if duplicate_of == "use-pnpm"),
        "{w:?}"
    );
    let update = "{\"name\":\"Use pnpm\",\"description\":\"pnpm only\",\"type\":\"feedback\",\"verified_at\":\"2026-07-11\"}\n";
    let u: IndexOp = one("write (update)", &index(&["write"], update));
    assert!(matches!(u, IndexOp::Update { .. }), "{u:?}");
    let u: IndexOp = one("write (unchanged)", &index(&["write"], update));
    assert!(matches!(u, IndexOp::Unchanged { .. }), "{u:?}");

    let list: Vec<Memory> = exact("list", &index(&["list"], ""));
    assert_eq!(list.len(), 2);
    let m: Memory = one("show", &index(&["show", "use-pnpm"], ""));
    assert_eq!(m.description, "pnpm only");
    let r: IndexOp = one("reindex", &index(&["reindex"], ""));
    assert!(matches!(r, IndexOp::Index { files: 2, .. }), "{r:?}");

    let found: Vec<Finding> = exact("check", &index(&["check"], ""));
    let limits = found
        .iter()
        .find(|f| f.code == FindingCode::Limits)
        .unwrap();
    assert_eq!(limits.level, Level::Info);
    assert_eq!(limits.limits.unwrap().files, 2);
    assert!(
        found
            .iter()
            .any(|f| f.code == FindingCode::ExpiredIndexed && f.file == "mirror-slow.md"),
        "{found:?}"
    );

    let p: PathInfo = one("path", &index(&["path"], ""));
    assert!(p.explain.is_none());
    let p: PathInfo = one("path --explain", &index(&["path", "--explain"], ""));
    assert_eq!(p.explain.unwrap().rule, "--memory-dir");

    let r: IndexOp = one(
        "retire",
        &index(&["retire", "mirror-slow", "--reason", "expired"], ""),
    );
    assert!(matches!(&r, IndexOp::Retire { reason, .. } if reason == "expired"));
    let r: IndexOp = one("restore", &index(&["restore", "mirror-slow"], ""));
    assert!(matches!(r, IndexOp::Restore { .. }), "{r:?}");
    let r: IndexOp = one(
        "retire --purge",
        &index(
            &["retire", "mirror-slow", "--reason", "gone", "--purge"],
            "",
        ),
    );
    assert!(matches!(r, IndexOp::Purge { .. }), "{r:?}");
    let logs: Vec<IndexOp> = exact("log", &index(&["log"], RECORDS));
    assert!(logs.iter().all(|l| l.op() == "log"), "{logs:?}");

    let p: IndexOp = one("promote", &index(&["promote", "use-pnpm"], ""));
    assert!(
        matches!(&p, IndexOp::Promote(m) if m.result == MoveResult::Create),
        "{p:?}"
    );
    let team: Vec<Finding> = exact(
        "check --tier team",
        &index(&["check", "--tier", "team"], ""),
    );
    assert!(team.iter().all(|f| f.level != Level::Error), "{team:?}");
    let d: IndexOp = one("demote", &index(&["demote", "use-pnpm"], ""));
    assert!(
        matches!(&d, IndexOp::Demote(m) if m.result == MoveResult::Kept),
        "{d:?}"
    );
    let i: DriverInstalled = one(
        "merge-driver --install",
        &index(&["merge-driver", "--install"], ""),
    );
    assert!(i.gitattributes_added && i.driver.ends_with("merge-driver %O %A %B %P"));

    // Agent-memory snapshots: the project scope of agent `rev` in the repo.
    let agent = |args: &[&str], stdin: &str| {
        let mut c = cmd("mem-index", &home);
        c.args(["--agent", "rev", "--cwd"])
            .arg(&repo)
            .args(args)
            .args(["--format", "jsonl", "--now", "2026-07-13T10:00:00Z"]);
        run(c, stdin.as_bytes())
    };
    let _: Vec<IndexOp> = exact("agent write", &agent(&["write"], RECORDS));
    let s: IndexOp = one("snapshot save", &agent(&["snapshot", "save"], ""));
    assert!(
        matches!(&s, IndexOp::SnapshotSave { updated_at, .. } if updated_at == "2026-07-13T10:00:00Z")
    );
    let s: IndexOp = one(
        "snapshot sync",
        &agent(&["snapshot", "sync", "--strategy", "initialize"], ""),
    );
    assert!(
        matches!(s, IndexOp::SnapshotInitialize { files: 3, .. }),
        "{s:?}"
    );
    let _: Vec<IndexOp> = exact("agent update", &agent(&["write"], update));
    let mut c = cmd("mem-index", &home);
    c.args(["--agent", "rev", "--cwd"]).arg(&repo).args([
        "snapshot",
        "save",
        "--now",
        "2026-07-14T10:00:00Z",
    ]);
    ok("snapshot save (later)", &run(c, b""));
    let proposals: Vec<Memory> = exact(
        "snapshot sync --strategy prompt-update",
        &agent(&["snapshot", "sync", "--strategy", "prompt-update"], ""),
    );
    assert_eq!(proposals[0].description, "pnpm only");
}

#[test]
fn every_mem_lock_record_round_trips_through_its_type() {
    let tmp = tempfile::tempdir().unwrap();
    let lock = tmp.path().join(".consolidate-lock");
    let lock_cmd = |args: &[&str]| {
        let mut c = cmd("mem-lock", tmp.path());
        c.args(args).args(["--format", "jsonl"]).arg(&lock);
        run(c, b"")
    };
    let s: LockStatus = one("status (missing)", &lock_cmd(&["status"]));
    assert!(!s.exists && s.content.is_none() && s.mtime.is_none());
    let st: LockStamped = one(
        "stamp",
        &lock_cmd(&["stamp", "--at", "2026-07-11T10:00:00Z"]),
    );
    assert_eq!(st.mtime, "2026-07-11T10:00:00Z");
    let a: LockAcquired = one("acquire", &lock_cmd(&["acquire", "--pid", "1"]));
    assert_eq!(a.previous_mtime.as_deref(), Some("2026-07-11T10:00:00Z"));
    assert_eq!(a.previous_content.as_deref(), Some("0"));
    assert_eq!(a.reclaimed, None);
    let s: LockStatus = one("status (held)", &lock_cmd(&["status"]));
    assert!(s.busy && s.pid == Some(1) && s.age_secs.is_some());
    let r: LockReleased = one(
        "release (not holder)",
        &lock_cmd(&["release", "--pid", "2"]),
    );
    assert_eq!(
        (r.result, r.holder.as_deref()),
        (ReleaseResult::NotHolder, Some("1"))
    );
    let r: LockReleased = one("release", &lock_cmd(&["release", "--pid", "1"]));
    assert_eq!((r.result, r.holder), (ReleaseResult::Released, None));
    std::fs::write(&lock, "garbage").unwrap();
    let a: LockAcquired = one("acquire (garbage)", &lock_cmd(&["acquire", "--pid", "1"]));
    assert_eq!(a.reclaimed, Some(ReclaimKind::Garbage));
    assert_eq!(a.warnings.len(), 1);
    let r: LockRolledBack = one(
        "rollback",
        &lock_cmd(&["rollback", "--to", "2026-07-10T09:00:00Z"]),
    );
    assert_eq!(
        (r.mtime.as_deref(), r.removed),
        (Some("2026-07-10T09:00:00Z"), false)
    );
    let r: LockRolledBack = one(
        "rollback --to never",
        &lock_cmd(&["rollback", "--to", "never"]),
    );
    assert_eq!((r.mtime, r.removed), (None, true));
}

/// `mem-recall --format jsonl --explain` on both tiers (the team fixture),
/// with a budget of two memories: every `action` is printed, and every line
/// is read back into [`RecallDecision`] and written again byte for byte.
#[test]
fn every_recall_decision_round_trips_through_its_type() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = workspace_root().join("tests/fixtures/team");
    let proj = tmp.path().join("proj");
    mem_tests::copy_dir(&fx.join("team"), &proj.join(".claude/team-memory"));
    mem_tests::copy_dir(&fx.join("personal"), &tmp.path().join("mem"));
    // the team tier is trusted as it is; a file added since waits for review
    let mut t = cmd("mem-index", tmp.path());
    t.current_dir(&proj).args(["team", "trust"]);
    let out = run(t, b"");
    assert!(out.status.success(), "{}", mem_tests::show(&out));
    std::fs::write(
        proj.join(".claude/team-memory/added-later.md"),
        "---\nname: \"Added later\"\ndescription: \"not reviewed\"\ntype: project\n---\nx\n",
    )
    .unwrap();
    let mut c = cmd("mem-recall", tmp.path());
    c.current_dir(&proj)
        .env("MEM_MEMORY_DIR", tmp.path().join("mem"))
        .args(["--today", "2026-07-13", "--format", "jsonl", "--explain"])
        .args(["--task", "install the package and deploy, then push"])
        .args(["--max-items", "2"]);
    let ds: Vec<RecallDecision> = exact("recall --explain", &run(c, b""));
    let mut actions: Vec<&str> = ds.iter().map(RecallDecision::action).collect();
    actions.dedup();
    for a in ["recall", "evict", "drop", "skip", "summary"] {
        assert!(actions.contains(&a), "no {a} in {ds:#?}");
    }
    let RecallDecision::Summary(sum) = ds.last().unwrap() else {
        panic!("{ds:#?}")
    };
    let count = |a: &str| ds.iter().filter(|d| d.action() == a).count() as u64;
    assert_eq!(
        (sum.recalled, sum.evicted, sum.dropped),
        (count("recall"), count("evict"), count("drop"))
    );
    assert_eq!(sum.recalled, 2);
    assert!(
        ds.iter().any(|d| matches!(d, RecallDecision::Skip(s)
            if s.id == "use-npm"
                && s.reason == Some(SkipReason::Overridden)
                && s.by.as_deref() == Some("use-pnpm")
                && s.conflict == Some(ConflictKind::Supersedes)
                && s.tier == Some(Tier::Team))),
        "{ds:#?}"
    );
    assert!(
        ds.iter().any(|d| matches!(d, RecallDecision::Skip(s)
            if s.id == "pasted-advice" && s.reason == Some(SkipReason::LowTrust))),
        "{ds:#?}"
    );
    assert!(
        ds.iter().any(|d| matches!(d, RecallDecision::Skip(s)
            if s.id == "added-later"
                && s.reason == Some(SkipReason::Unreviewed)
                && s.tier == Some(Tier::Team))),
        "{ds:#?}"
    );
    assert!(
        ds.iter().any(|d| matches!(d, RecallDecision::Evict(e)
            if e.id == "staging-frozen"
                && e.expires.map(|x| x.to_string()).as_deref() == Some("2026-07-01")
                && e.today.to_string() == "2026-07-13")),
        "{ds:#?}"
    );
}

/// A topic file of mem's shape in `dir`.
fn topic(dir: &Path, id: &str, desc: &str, body: &str, day: &str, extra: &str) {
    std::fs::write(
        dir.join(format!("{id}.md")),
        format!(
            "---\nname: \"{id}\"\ndescription: \"{desc}\"\ntype: feedback\nkind: durable-lesson\ntriggers: [\"deploy\"]\nverified_at: {day}\n{extra}---\n{body}\n"
        ),
    )
    .unwrap();
}

/// `mem-dream --dry-run --format jsonl` on a directory with something for
/// every operation: every `op` is printed, and every line is read back into
/// [`PlanOp`] and written again byte for byte.
#[test]
fn every_plan_op_round_trips_through_its_type() {
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("memory");
    mem_tests::copy_dir(
        &workspace_root().join("tests/fixtures/cases/B21/memory"),
        &mem,
    );
    topic(
        &mem,
        "mirror-slow",
        "The mirror is slow",
        "Use the other mirror tomorrow.",
        "2026-01-10",
        "expires: 2026-01-11\n",
    );
    topic(
        &mem,
        "release-before-tag",
        "Always run the release check before the tag",
        "Fact: Always run the release check before the tag.",
        "2026-01-02",
        "",
    );
    topic(
        &mem,
        "no-release-before-tag",
        "Never run the release check before the tag",
        "Fact: Never run the release check before the tag.",
        "2026-01-05",
        "",
    );
    topic(
        &mem,
        "replica-auth",
        "How the deploy authenticates to the replica",
        "Fact: connect with password=Hunter2SecretPw to the replica.",
        "2026-01-04",
        "",
    );
    let t = tmp.path().join("transcripts");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::copy(
        workspace_root().join("tests/fixtures/sessions/fail-setup-pass.jsonl"),
        t.join("fail-setup-pass.jsonl"),
    )
    .unwrap();
    let mut c = cmd("mem-dream", tmp.path());
    c.args(["--dry-run", "--force", "--format", "jsonl"])
        .args(["--today", "2026-01-15", "--now", "2026-01-15T12:00:00Z"])
        .arg("--memory-dir")
        .arg(&mem)
        .arg("--transcripts")
        .arg(&t);
    let ops: Vec<PlanOp> = exact("dream --dry-run", &run(c, b""));
    let mut names: Vec<&str> = ops.iter().map(PlanOp::op).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(
        names,
        [
            "absolutize-date",
            "create",
            "index",
            "merge",
            "redact",
            "retire",
            "supersede"
        ],
        "{ops:#?}"
    );
    assert!(
        ops.iter()
            .any(|o| matches!(o, PlanOp::Merge { id, from, reason, .. }
            if id == "no-db-mocks" && from == &["no-db-mocks-2"] && reason == "same fact")),
        "{ops:#?}"
    );
    assert!(
        ops.iter()
            .any(|o| matches!(o, PlanOp::Supersede { id, superseded_by, .. }
            if id == "release-before-tag" && superseded_by == "no-release-before-tag")),
        "{ops:#?}"
    );
    assert!(
        ops.iter()
            .any(|o| matches!(o, PlanOp::AbsolutizeDate { id, from, to, .. }
            if id == "mirror-slow" && from == "tomorrow" && to == "2026-01-11")),
        "{ops:#?}"
    );
    assert!(
        ops.iter()
            .any(|o| matches!(o, PlanOp::Redact { id, what, count: 2, .. }
            if id == "replica-auth" && what == "secret")),
        "{ops:#?}"
    );
    assert!(
        matches!(ops.last(), Some(PlanOp::Index { files: 4, .. })),
        "{ops:#?}"
    );
}

/// `mem-transcript tree`, `verify`, `stats`, `ls` and `locate` on the
/// fixture sessions (Claude Code), a Codex rollout and an empty file: every
/// line is read back into its type and written again byte for byte.
#[test]
fn every_transcript_report_round_trips_through_its_type() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions");
    mem_tests::copy_dir(&workspace_root().join("tests/fixtures/sessions"), &dir);
    let rollout = workspace_root().join(
        "tests/fixtures/codex/rollout-2026-07-14T09-00-00-0199b0c0-0000-7000-8000-000000000002.jsonl",
    );
    let empty = tmp.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let claude = dir.join("fail-setup-pass.jsonl");
    let report = |sub: &str| {
        let mut c = cmd("mem-transcript", tmp.path());
        c.args([sub, "--format", "jsonl"])
            .arg(&claude)
            .arg(&rollout)
            .arg(&empty);
        run(c, b"")
    };
    let trees: Vec<TreeReport> = exact("tree", &report("tree"));
    assert!(
        matches!(&trees[..], [TreeReport::Claude(c), TreeReport::Codex(x), TreeReport::Empty(e)]
            if c.shape.leaf.is_some() && c.shape.roots.len() == 1 && x.shape.leaf.is_some() && e.empty),
        "{trees:#?}"
    );
    let verified: Vec<VerifyReport> = exact("verify", &report("verify"));
    assert!(
        matches!(&verified[..], [VerifyReport::Claude(c), VerifyReport::Codex(x), VerifyReport::Empty(_)]
            if c.check.ok && c.check.torn.is_empty() && c.reached == c.conversation && !x.metadata_damaged),
        "{verified:#?}"
    );
    let stats: Vec<TranscriptStats> = exact("stats", &report("stats"));
    assert_eq!(
        stats.iter().map(|s| s.source.as_str()).collect::<Vec<_>>(),
        ["claude", "codex", ""]
    );
    assert!(
        stats[0].prompts > 0 && stats[0].duration_s.is_some(),
        "{stats:#?}"
    );

    let mut c = cmd("mem-transcript", tmp.path());
    c.args(["ls", "--all", "--format", "jsonl"]).arg(&dir);
    let listed: Vec<SessionListing> = exact("ls", &run(c, b""));
    assert_eq!(listed.len(), 4, "{listed:#?}");
    assert!(listed.iter().all(|l| l.source == "claude" && !l.damaged));

    // A pointer of the extracted lesson, back to its entry.
    let mut c = cmd("mem-transcript", tmp.path());
    c.arg("replay").arg(&claude);
    let events = run(c, b"");
    let x = run(cmd("mem-extract", tmp.path()), &events.stdout);
    let mems: Vec<Memory> = exact("extract", &x);
    let pointer = mems[0]
        .evidence
        .iter()
        .find(|e| e.starts_with("transcript:"))
        .unwrap()
        .clone();
    // Claude Code names a session's file after its id.
    let evs: Vec<Event> = exact("replay", &events);
    let named = tmp.path().join("named");
    std::fs::create_dir_all(&named).unwrap();
    let file = named.join(format!("{}.jsonl", evs[0].session));
    std::fs::copy(&claude, &file).unwrap();
    let mut c = cmd("mem-transcript", tmp.path());
    c.args(["locate", "--format", "jsonl", &pointer])
        .arg(&named);
    let at: Located = one("locate", &run(c, b""));
    assert_eq!(at.pointer, pointer);
    assert_eq!(
        (Path::new(&at.file), at.session.as_str()),
        (file.as_path(), evs[0].session.as_str())
    );
    assert!(pointer.ends_with(&format!("#{}", at.line)), "{at:?}");
}

/// `mem-hook` on the hook fixture (tests/fixtures/hooks/memory):
/// the answer to `SessionStart`, `UserPromptSubmit` and `PreToolUse` (a
/// reminder, `enforce: ask`, `enforce: deny`) is read back into
/// [`HookOutput`] and written again byte for byte.
#[test]
fn every_hook_answer_round_trips_through_its_type() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (home, proj, mem) = (root.join("home"), root.join("proj"), root.join("memory"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    mem_tests::copy_dir(&workspace_root().join("tests/fixtures/hooks/memory"), &mem);
    let transcript = proj.join("s.jsonl");
    std::fs::write(&transcript, "").unwrap();
    let hook = |input: Value| -> HookOutput {
        let mut input = input;
        input["cwd"] = proj.to_str().unwrap().into();
        input["transcript_path"] = transcript.to_str().unwrap().into();
        let mut c = cmd("mem-hook", &home);
        c.current_dir(&proj).env("MEM_MEMORY_DIR", &mem);
        let what = input["hook_event_name"].as_str().unwrap().to_string();
        one(&what, &run(c, input.to_string().as_bytes()))
    };
    let start = hook(serde_json::json!({"hook_event_name": "SessionStart", "source": "startup"}));
    let HookSpecificOutput::SessionStart(ctx) = &start.specific else {
        panic!("{start:?}")
    };
    assert!(ctx.additional_context.contains("(user_role)"), "{start:?}");
    let prompt = hook(serde_json::json!({"hook_event_name": "UserPromptSubmit",
        "prompt": "open the grafana latency dashboard"}));
    assert_eq!(prompt.specific.event(), "UserPromptSubmit");
    assert!(
        prompt
            .specific
            .additional_context()
            .is_some_and(|c| c.contains("(reference_grafana)")),
        "{prompt:?}"
    );
    let bash = || {
        let out = hook(
            serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "npm test"}}),
        );
        match out.specific {
            HookSpecificOutput::PreToolUse(p) => p,
            other => panic!("{other:?}"),
        }
    };
    let decision = |p: &PreToolUseOutput| {
        (
            p.permission_decision.clone(),
            p.permission_decision_reason.is_some(),
            p.additional_context.is_some(),
        )
    };
    assert_eq!(decision(&bash()), (None, false, true));
    let lesson = mem.join("run-build-before-test.md");
    let text = std::fs::read_to_string(&lesson).unwrap();
    for (enforce, want) in [
        ("ask", (Some(PermissionDecision::Ask), true, true)),
        ("deny", (Some(PermissionDecision::Deny), true, false)),
    ] {
        // `enforce` is honoured on the user's own lessons only
        let marked = text
            .replacen("---\n", &format!("---\nenforce: {enforce}\n"), 1)
            .replace("source: assistant", "source: manual");
        std::fs::write(&lesson, marked).unwrap();
        assert_eq!(decision(&bash()), want, "{enforce}");
    }
}
