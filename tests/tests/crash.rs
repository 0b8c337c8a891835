//! Crash safety with a small count: `scripts/crash.sh` kills `mem-index
//! write`, `mem-index reindex`, `mem-transcript append` (6 times each) and
//! `mem-dream --force` (twice) with SIGKILL at random moments and checks
//! after every kill that every file parses, acknowledged records are on disk,
//! the transcript has at most one torn line and the next append starts on a
//! new line, the next run completes and leaves no temp file, and the
//! consolidation lock is reclaimable; then write failures under
//! `prlimit --fsize` and on a read-only directory. `scripts/crash.sh 200`
//! is the full run.

use std::path::Path;
use std::process::Command;

use mem_tests::{bin, workspace_root};

fn crash(args: &[&str]) {
    let dir = bin("mem-index");
    let dir = dir.parent().unwrap_or(Path::new("."));
    for b in ["mem-dream", "mem-transcript", "mem-lock"] {
        bin(b);
    }
    let out = Command::new("bash")
        .arg(workspace_root().join("scripts/crash.sh"))
        .args(args)
        .env("MEM_BIN_DIR", dir)
        .output()
        .expect("run scripts/crash.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(
        out.status.success() && stdout.contains("all invariants held"),
        "crash.sh {args:?} failed: {:?}\n{stdout}\n{stderr}",
        out.status
    );
}

#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn writers_survive_sigkill_and_write_failures() {
    crash(&["6", "write", "reindex", "append"]);
}

#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn dream_survives_sigkill() {
    crash(&["2", "dream"]);
}
