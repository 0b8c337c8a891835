//! The options every tool shares come from one definition (mem-core's
//! `cli` module): same names, environment variables and help headings, and a
//! boolean environment value is read the same way everywhere.

use mem_tests::{cmd, run, show};

/// The tools that resolve a memory directory, each with a command that
/// succeeds on an empty one.
fn commands(dir: &std::path::Path) -> Vec<(&'static str, Vec<String>)> {
    let d = dir.join("memory").display().to_string();
    let cwd = dir.display().to_string();
    vec![
        (
            "mem-index",
            vec!["path".into(), "--cwd".into(), cwd.clone()],
        ),
        (
            "mem-recall",
            vec![
                "--task".into(),
                "npm".into(),
                "--memory-dir".into(),
                d.clone(),
                "--cwd".into(),
                cwd.clone(),
            ],
        ),
        (
            "mem-dream",
            vec![
                "--dry-run".into(),
                "--memory-dir".into(),
                d.clone(),
                "--cwd".into(),
                cwd.clone(),
                "--transcripts".into(),
                cwd.clone(),
            ],
        ),
        (
            "mem-extract",
            vec!["--cwd".into(), cwd, "--format".into(), "jsonl".into()],
        ),
    ]
}

/// Regression: `MEM_PER_WORKTREE=1 mem-dream` exited 2 with
/// "invalid value '1'" while mem-index and mem-recall accepted it.
#[test]
fn per_worktree_accepts_one_zero_true_false_in_every_tool() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("memory")).unwrap();
    for value in ["1", "0", "true", "false", "yes", "off"] {
        for (tool, args) in commands(home.path()) {
            let mut c = cmd(tool, home.path());
            c.args(&args).env("MEM_PER_WORKTREE", value);
            let out = run(c, b"");
            assert_eq!(
                out.status.code(),
                Some(0),
                "MEM_PER_WORKTREE={value} {tool}: {}",
                show(&out)
            );
        }
    }
}

#[test]
fn a_per_worktree_value_that_is_no_boolean_is_a_usage_error_naming_it() {
    let home = tempfile::tempdir().unwrap();
    for (tool, args) in commands(home.path()) {
        let mut c = cmd(tool, home.path());
        c.args(&args).env("MEM_PER_WORKTREE", "sometimes");
        let out = run(c, b"");
        assert_eq!(out.status.code(), Some(2), "{tool}: {}", show(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("invalid value 'sometimes'") && err.contains("--per-worktree"),
            "{tool}: {err}"
        );
    }
}

/// The shared options read the same in every tool's help.
#[test]
fn shared_options_have_one_name_env_value_name_and_heading() {
    let home = tempfile::tempdir().unwrap();
    let help = |tool: &str| {
        let mut c = cmd(tool, home.path());
        c.arg("--help");
        let out = run(c, b"");
        assert_eq!(out.status.code(), Some(0), "{tool}: {}", show(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let place = [
        "Where:",
        "--memory-dir <DIR>",
        "[env: MEM_MEMORY_DIR, which this option",
        "--cwd <DIR>",
        "--per-worktree",
        "[env: MEM_PER_WORKTREE=]",
    ];
    let time = [
        "Time:",
        "--today <YYYY-MM-DD>",
        "[env: MEM_TODAY=]",
        "--now <RFC3339>",
        "[env: MEM_NOW=]",
    ];
    let output = ["Output:", "--format <FORMAT>", "--line-buffered"];
    let expect: [(&str, &[&[&str]]); 6] = [
        ("mem-index", &[&place, &time, &output]),
        ("mem-dream", &[&place, &time, &output]),
        ("mem-recall", &[&place, &time, &output]),
        ("mem-extract", &[&place, &output]),
        ("mem-transcript", &[&output, &["Where:", "--cwd <DIR>"]]),
        ("mem-lock", &[&output, &["Where:", "--memory-dir <DIR>"]]),
    ];
    for (tool, groups) in expect {
        let h = help(tool);
        for want in groups.iter().flat_map(|g| g.iter()) {
            assert!(h.contains(want), "{tool} --help lacks {want:?}:\n{h}");
        }
    }
}
