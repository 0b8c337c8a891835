//! Running the real binary in a throwaway home.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The shared dir (`../shared` beside the workspace, or `MEM_SHARED_DIR`),
/// or `None` after printing the SKIPPED line.
pub fn shared(test: &str) -> Option<PathBuf> {
    let p = std::env::var_os("MEM_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    if p.is_dir() {
        Some(p)
    } else {
        println!("SKIPPED {test}: ../shared not present");
        eprintln!("SKIPPED {test}: ../shared not present");
        None
    }
}

/// A temp home: HOME, CLAUDE_CONFIG_DIR and XDG_CACHE_HOME point inside it.
pub struct Env {
    pub tmp: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env {
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    pub fn claude(&self) -> PathBuf {
        self.path().join("home/.claude")
    }

    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mem-recall"));
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy().into_owned();
            if k.starts_with("MEM_") || k == "CLAUDE_CODE_DISABLE_AUTO_MEMORY" {
                c.env_remove(k);
            }
        }
        c.env_remove("XDG_CONFIG_HOME")
            .env("HOME", self.path().join("home"))
            .env("CLAUDE_CONFIG_DIR", self.claude())
            .env("XDG_CACHE_HOME", self.path().join("cache"))
            .env("TZ", "UTC")
            .current_dir(self.path());
        c
    }

    /// Run with `args` and `stdin`; prints everything on failure to help.
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.run_cmd(self.cmd().args(args), stdin)
    }

    pub fn run_cmd(&self, c: &mut Command, stdin: &str) -> Output {
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut si = child.stdin.take().unwrap();
        let data = stdin.to_string();
        let t = std::thread::spawn(move || {
            let _ = si.write_all(data.as_bytes());
        });
        let out = child.wait_with_output().unwrap();
        t.join().unwrap();
        out
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
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
