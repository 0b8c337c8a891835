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

    pub fn cmd(&self) -> Command {
        self.home.command(env!("CARGO_BIN_EXE_mem-recall"))
    }

    /// Run with `args` and `stdin`; prints everything on failure to help.
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.run_cmd(self.cmd().args(args), stdin)
    }

    pub fn run_cmd(&self, c: &mut Command, stdin: &str) -> Output {
        mem_tests::run(c, stdin.as_bytes())
    }
}

#[allow(unused_imports)]
pub use mem_tests::{stderr, stdout};

#[allow(unused_imports)]
pub use mem_tests::canonical::{FIXTURE, MIRROR, canonical, ok, task_args, write};
