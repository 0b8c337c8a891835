//! Running the real binary in a throwaway home (the workspace's harness,
//! `mem_tests`), and the memories these tests share.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The shared dir (`../shared` beside the workspace, or `MEM_SHARED_DIR`:
/// extra coverage), or `None` after printing the SKIPPED line.
pub fn shared(test: &str) -> Option<PathBuf> {
    mem_tests::shared_or_skip(test)
}

/// The field cases written for the project (`tests/fixtures/cases/`).
pub fn cases() -> PathBuf {
    mem_tests::fixtures().join("cases")
}

/// A temp home: HOME, CLAUDE_CONFIG_DIR and XDG_CACHE_HOME point inside it.
pub struct Env {
    pub home: mem_tests::Home,
}

impl Env {
    pub fn new() -> Env {
        Env {
            home: mem_tests::Home::new(),
        }
    }

    pub fn path(&self) -> &Path {
        self.home.path()
    }

    pub fn claude(&self) -> PathBuf {
        self.home.claude()
    }

    /// mem-recall (built beside mem-hook: `cargo build --workspace`).
    pub fn cmd(&self) -> Command {
        self.home.command(mem_tests::bin("mem-recall"))
    }

    /// mem-hook, the hook.
    pub fn hook_cmd(&self) -> Command {
        self.home.command(env!("CARGO_BIN_EXE_mem-hook"))
    }

    /// Run with `args` and `stdin`; prints everything on failure to help.
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.run_cmd(self.cmd().args(args), stdin)
    }

    /// Run mem-hook with `args` and `stdin`.
    pub fn hook(&self, args: &[&str], stdin: &str) -> Output {
        self.run_cmd(self.hook_cmd().args(args), stdin)
    }

    pub fn run_cmd(&self, c: &mut Command, stdin: &str) -> Output {
        mem_tests::run(c, stdin.as_bytes())
    }
}

pub use mem_tests::{stderr, stdout};

/// The arguments of a recall of `task` from memory directory `mem` on
/// 2026-07-11, as JSON lines.
pub fn task_args<'a>(mem: &'a str, task: &'a str) -> Vec<&'a str> {
    vec![
        "--memory-dir",
        mem,
        "--task",
        task,
        "--today",
        "2026-07-11",
        "--format",
        "jsonl",
    ]
}

pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

pub const FIXTURE: &str = "---\nname: \"Run setup before build-token\"\ndescription: \"build-token needs data/fixture.json, which only setup creates\"\ntype: feedback\nkind: durable-lesson\ntriggers: [\"build-token\", \"verify\", \"fixture\"]\nverified_at: 2026-07-11\nexpires: never\n---\nFact: Run setup before build-token.\nWhy: data/fixture.json is generated and git-ignored; a fresh clone lacks it.\nHow to use: Before any verification, run node src/setup.mjs.\n";

pub const MIRROR: &str = "---\nname: \"Package mirror slow on 07-11\"\ndescription: \"the internal mirror is flaky today; setup may take minutes\"\ntype: project\nkind: one-time-state\ntriggers: [\"setup\", \"mirror\", \"build-token\"]\nverified_at: 2026-07-11\nexpires: 2026-07-12\n---\nFact: The internal package mirror is slow today; setup can take several minutes.\n";

/// A memory dir with the canonical two memories.
pub fn canonical(dir: &Path) {
    write(&dir.join("fixture-before-verify.md"), FIXTURE);
    write(&dir.join("mirror-slow-on-0711.md"), MIRROR);
}
