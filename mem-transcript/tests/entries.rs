//! Entries Claude Code writes beside the conversation are read:
//! `file-history-snapshot` and `attribution-snapshot` (`files`),
//! `content-replacement` (`replay` shows the stand-in the model saw),
//! context collapse (`replay --resume` shows the collapsed span as its
//! summary), and `replay --raw` keeps them with their branch.
//!
//! `tests/fixtures/entries.jsonl` is a small session: a file written (no
//! earlier content), a test run whose output was replaced by a stand-in, a
//! rewound prompt (`x1`, its own snapshot), README edited, an attribution
//! snapshot, a committed collapse of the first turn. The corpus sessions
//! with file history are extra coverage (skipped without `../shared`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/entries.jsonl")
}

fn run(args: &[&str], claude_dir: &Path) -> Output {
    mem_tests::scrub(&mut Command::new(env!("CARGO_BIN_EXE_mem-transcript")))
        .args(args)
        .env("CLAUDE_CONFIG_DIR", claude_dir)
        .output()
        .unwrap()
}

fn ok(args: &[&str], claude_dir: &Path) -> String {
    let o = run(args, claude_dir);
    assert_eq!(
        o.status.code(),
        Some(0),
        "mem-transcript {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn records(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn files_lists_the_latest_snapshot_of_the_branch_with_backups_and_attribution() {
    let home = tempfile::tempdir().unwrap();
    let backups = home.path().join("file-history/s-ent");
    std::fs::create_dir_all(&backups).unwrap();
    std::fs::write(backups.join("9f2c41d0a7b3e615@v2"), "fn main() {}\n").unwrap();
    let f = fixture();
    let out = ok(&["files", f.to_str().unwrap()], home.path());
    let recs = records(&out);
    assert_eq!(recs.len(), 2, "{out}");
    let cli = &recs[0];
    assert_eq!(cli["file"], "src/cli.rs");
    assert_eq!(cli["path"], "/p/src/cli.rs");
    assert_eq!(cli["version"], 2);
    assert_eq!(cli["existed"], true);
    assert_eq!(
        cli["backup"],
        backups.join("9f2c41d0a7b3e615@v2").to_str().unwrap()
    );
    assert_eq!(cli["backup_exists"], true);
    assert_eq!(cli["backup_time"], "2026-07-11T09:02:00.000Z");
    assert_eq!(cli["claude_chars"], 120);
    assert_eq!(cli["session"], "s-ent");
    assert_eq!(cli["at"], "a5");
    assert_eq!(cli["snapshot_line"], 15);
    let readme = &recs[1];
    assert_eq!(readme["file"], "README.md");
    assert_eq!(readme["version"], 1);
    assert_eq!(readme["backup_exists"], false);
    assert_eq!(readme["claude_chars"], 23);

    let text = ok(
        &["files", "--format", "text", f.to_str().unwrap()],
        home.path(),
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].starts_with("session s-ent  at a5  2 file(s)"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("src/cli.rs") && lines[2].contains("v2"),
        "{text}"
    );
    assert!(
        lines[2].contains("120 chars") && !lines[2].contains("(gone)"),
        "{text}"
    );
    assert!(lines[3].ends_with("3d5e8a1b0c2f4967@v1  (gone)"), "{text}");
}

#[test]
fn files_at_an_entry_is_the_state_then() {
    let home = tempfile::tempdir().unwrap();
    let f = fixture();
    let f = f.to_str().unwrap();
    // after the first Write: the file had no earlier content, no backup
    let recs = records(&ok(&["files", f, "--at", "a1"], home.path()));
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["file"], "src/cli.rs");
    assert_eq!(recs[0]["version"], 1);
    assert_eq!(recs[0]["existed"], false);
    assert_eq!(recs[0]["backup"], Value::Null);
    assert_eq!(recs[0]["claude_chars"], Value::Null);
    // the entry before a snapshot's update sees the snapshot before it
    let recs = records(&ok(&["files", f, "--at", "r2"], home.path()));
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["version"], 1);
    // the rewound prompt's branch has its own snapshot, not README's
    let recs = records(&ok(&["files", f, "--at", "x1"], home.path()));
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["version"], 2);
    assert_eq!(recs[0]["at"], "x1");
    // before any snapshot on the branch: no files, a note
    let o = run(&["files", f, "--at", "u1"], home.path());
    assert_eq!(o.status.code(), Some(0));
    assert!(
        records(&String::from_utf8_lossy(&o.stdout)).is_empty()
            || String::from_utf8_lossy(&o.stdout).trim().is_empty()
    );
    // an unknown entry is an error naming it
    let o = run(&["files", f, "--at", "nope"], home.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--at nope: no entry"));
}

#[test]
fn files_finds_a_session_by_its_id() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("projects/-p");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::copy(fixture(), proj.join("s-ent.jsonl")).unwrap();
    let recs = records(&ok(&["files", "s-ent"], home.path()));
    assert_eq!(recs.len(), 2);
    let o = run(&["files", "no-such-session"], home.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no session \"no-such-session\""));
}

#[test]
fn replay_shows_the_stand_in_the_model_saw_for_a_replaced_tool_result() {
    let home = tempfile::tempdir().unwrap();
    let f = fixture();
    let evs = records(&ok(&["replay", f.to_str().unwrap()], home.path()));
    let result = |id: &str| {
        evs.iter()
            .find(|e| e["kind"] == "tool_result" && e["tool_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id}"))["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let t2 = result("t2");
    assert!(
        t2.starts_with("<persisted-output>\nOutput too large (4.1KB)"),
        "{t2}"
    );
    assert!(!t2.contains("test ok"), "{t2}");
    assert_eq!(result("t1"), "File created successfully at: /p/src/cli.rs");
    // the default replay keeps the collapsed span's own entries
    assert!(
        evs.iter()
            .any(|e| e["text"] == "Add a --verbose flag to the CLI.")
    );
    assert!(!evs.iter().any(|e| e["kind"] == "summary"));
}

#[test]
fn replay_resume_shows_a_committed_collapse_as_its_summary() {
    let home = tempfile::tempdir().unwrap();
    let f = fixture();
    let evs = records(&ok(
        &["replay", "--resume", f.to_str().unwrap()],
        home.path(),
    ));
    assert_eq!(evs[0]["kind"], "summary");
    assert_eq!(evs[0]["role"], "user");
    assert_eq!(evs[0]["line"], 18);
    assert_eq!(
        evs[0]["text"],
        "<collapsed id=\"0000000000000001\">Added a --verbose flag to src/cli.rs; cargo test passed.</collapsed>"
    );
    assert_eq!(evs[1]["text"], "Document the flag in the README.");
    assert_eq!(evs.len(), 5);
    let seqs: Vec<u64> = evs.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [0, 1, 2, 3, 4]);
}

#[test]
fn raw_keeps_the_entries_of_its_branch_verbatim() {
    let home = tempfile::tempdir().unwrap();
    let f = fixture();
    let out = ok(&["replay", "--raw", f.to_str().unwrap()], home.path());
    let file = std::fs::read_to_string(&f).unwrap();
    // every line but the rewound prompt and its snapshot, byte for byte, in order
    let want: Vec<&str> = file
        .lines()
        .filter(|l| !l.contains(r#""messageId":"x1""#) && !l.contains(r#""uuid":"x1""#))
        .collect();
    assert_eq!(want.len(), 18);
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
}

#[test]
fn corpus_sessions_with_file_history() {
    let Some(shared) = mem_tests::shared_or_skip("corpus_sessions_with_file_history") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let f = shared.join(
        "corpus/marot__spotter/test/fixtures/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    );
    let f = f.to_str().unwrap();
    let recs = records(&ok(&["files", f], home.path()));
    assert_eq!(recs.len(), 11);
    assert_eq!(
        recs[0]["file"],
        "lib/spotter_web/live/transcript_computers.ex"
    );
    assert_eq!(recs[0]["version"], 2);
    assert_eq!(
        recs[0]["backup"],
        home.path()
            .join("file-history/4d5611e5-241a-462a-8d15-5122611a9569/6b5e5acf4ee20562@v2")
            .to_str()
            .unwrap()
    );
    assert_eq!(
        recs[4]["file"],
        "test/spotter_web/live/subagent_live_test.exs"
    );
    assert_eq!(recs[4]["existed"], false);
    // at the Write that created the first file (line 152): one new file
    let recs = records(&ok(
        &["files", f, "--at", "28d2acc8-1eae-43d8-96c1-da286dd23353"],
        home.path(),
    ));
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["existed"], false);
    assert_eq!(recs[0]["snapshot_line"], 155);
    // raw keeps the 13 snapshots anchored on the branch (the 14th names no entry)
    let raw = ok(&["replay", "--raw", f], home.path());
    let snaps = raw
        .lines()
        .filter(|l| l.starts_with(r#"{"type":"file-history-snapshot""#))
        .count();
    assert_eq!(snaps, 13);
    let all: std::collections::HashSet<&str> =
        std::fs::read_to_string(f).unwrap().leak().lines().collect();
    assert!(raw.lines().all(|l| all.contains(l)));
}

/// `files --check` compares each backup with the disk and writes nothing;
/// `--restore` writes a changed or missing file back from its backup, only
/// inside the session's working directory and never through a link.
#[test]
fn files_check_compares_with_the_disk_and_restore_is_opt_in() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir_all(proj.join("src")).unwrap();
    let backups = home.path().join("file-history/s-ent");
    std::fs::create_dir_all(&backups).unwrap();
    std::fs::write(backups.join("9f2c41d0a7b3e615@v2"), "fn main() {}\n").unwrap();
    let p = proj.to_str().unwrap();
    let text = std::fs::read_to_string(fixture())
        .unwrap()
        .replace("\"cwd\":\"/p\"", &format!("\"cwd\":{p:?}"))
        .replace("\"/p/", &format!("\"{p}/"));
    let f = home.path().join("s-ent.jsonl");
    std::fs::write(&f, text).unwrap();
    let f = f.to_str().unwrap();
    let cli = proj.join("src/cli.rs");
    let status = |args: &[&str]| -> Vec<(String, String)> {
        let mut a = vec!["files", f];
        a.extend_from_slice(args);
        records(&ok(&a, home.path()))
            .iter()
            .map(|r| {
                (
                    r["file"].as_str().unwrap().to_string(),
                    r["status"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let st = |a: &str, b: &str| {
        vec![
            ("src/cli.rs".to_string(), a.to_string()),
            ("README.md".to_string(), b.to_string()),
        ]
    };
    assert_eq!(status(&["--check"]), st("missing", "no-backup"));
    std::fs::write(&cli, "fn main() {}\n").unwrap();
    assert_eq!(status(&["--check"]), st("unchanged", "no-backup"));
    std::fs::write(&cli, "fn main() { edited() }\n").unwrap();
    assert_eq!(status(&["--check"]), st("changed", "no-backup"));
    assert_eq!(status(&[]), st("", ""), "no status without --check");
    assert_eq!(
        std::fs::read_to_string(&cli).unwrap(),
        "fn main() { edited() }\n",
        "--check writes nothing"
    );
    assert_eq!(status(&["--restore"]), st("restored", "no-backup"));
    assert_eq!(std::fs::read_to_string(&cli).unwrap(), "fn main() {}\n");
    assert_eq!(status(&["--check"]), st("unchanged", "no-backup"));
    // a link below the working directory: refused, its target untouched
    let elsewhere = home.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("cli.rs"), "other\n").unwrap();
    std::fs::remove_dir_all(proj.join("src")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, proj.join("src")).unwrap();
    assert_eq!(status(&["--restore"]), st("refused", "no-backup"));
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("cli.rs")).unwrap(),
        "other\n"
    );
}
