//! What a new user meets first, across the tools: a hint instead of a
//! silent wait on a terminal stdin, usage errors (2) for bad flag values in
//! every tool, and a missing `--memory-dir` named instead of read as empty.

use mem_tests::{cmd, run, run_on_terminal, show};

/// On a terminal stdin, `mem-extract` and `mem-index write` say what they
/// read there; from a pipe they say nothing of it.
#[test]
fn tools_reading_stdin_say_what_they_expect_on_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    let mem = home.path().join("mem");
    let cases: [(&str, &[&str], &str); 2] = [
        (
            "mem-extract",
            &[],
            "mem-extract: reading events (JSONL from mem-transcript replay) from stdin (end with Ctrl-D), e.g.: mem-transcript replay SESSION.jsonl | mem-extract | mem-index write",
        ),
        (
            "mem-index",
            &["write"],
            "mem-index: reading memory records (JSONL) from stdin (end with Ctrl-D), e.g.: mem-transcript replay SESSION.jsonl | mem-extract | mem-index write",
        ),
    ];
    for (tool, args, hint) in cases {
        let mut c = cmd(tool, home.path());
        c.args(args).env("MEM_MEMORY_DIR", &mem);
        let out = run_on_terminal(c);
        assert!(out.status.success(), "{tool}: {}", show(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().next(), Some(hint), "{tool}: {}", show(&out));

        let mut c = cmd(tool, home.path());
        c.args(args).env("MEM_MEMORY_DIR", &mem);
        let out = run(c, b"");
        assert!(out.status.success(), "{tool}: {}", show(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("reading"), "{tool}: {}", show(&out));
    }
}

/// A flag value that does not parse is a usage error (2) in every tool,
/// with clap's message naming the flag.
#[test]
fn a_bad_flag_value_is_a_usage_error_in_every_tool() {
    let home = tempfile::tempdir().unwrap();
    let d = home.path().display().to_string();
    let cases: [(&str, &[&str]); 9] = [
        ("mem-transcript", &["replay", "-j", "0", "x.jsonl"]),
        ("mem-extract", &["--every", "0"]),
        (
            "mem-index",
            &["--memory-dir", &d, "list", "--since", "yesterday"],
        ),
        (
            "mem-index",
            &["--memory-dir", &d, "--today", "2026-02-30", "list"],
        ),
        (
            "mem-recall",
            &["--memory-dir", &d, "--task", "x", "--today", "soon"],
        ),
        (
            "mem-recall",
            &["--memory-dir", &d, "--task", "x", "--now", "noon"],
        ),
        (
            "mem-dream",
            &["--memory-dir", &d, "--now", "later", "--dry-run"],
        ),
        (
            "mem-dream",
            &["--memory-dir", &d, "--min-hours=-1", "--dry-run"],
        ),
        (
            "mem-lock",
            &["acquire", "--stale-after", "soon", "lockfile"],
        ),
    ];
    for (tool, args) in cases {
        let mut c = cmd(tool, home.path());
        c.args(args);
        let out = run(c, b"");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{tool} {args:?}: {}",
            show(&out)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("invalid value"),
            "{tool} {args:?}: {}",
            show(&out)
        );
    }
}

/// `mem-recall --memory-dir` that does not exist: exit 1, the directory
/// named (it recalled nothing and exited 0).
#[test]
fn recall_from_a_missing_memory_dir_is_an_error() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("no-such-dir");
    let mut c = cmd("mem-recall", home.path());
    c.args(["--task", "run the tests", "--memory-dir"])
        .arg(&missing);
    let out = run(c, b"");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "mem-recall: --memory-dir {}: no such directory\n",
            missing.display()
        )
    );
    assert!(out.stdout.is_empty());
}

/// `--memory-dir` naming a file: "not a directory" (it said "no such
/// directory" of a file that exists).
#[test]
fn recall_from_a_memory_dir_that_is_a_file_says_so() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("notes.txt");
    std::fs::write(&file, "x\n").unwrap();
    let mut c = cmd("mem-recall", home.path());
    c.args(["--task", "run the tests", "--memory-dir"])
        .arg(&file);
    let out = run(c, b"");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "mem-recall: --memory-dir {}: not a directory\n",
            file.display()
        )
    );
    assert!(out.stdout.is_empty());
}
