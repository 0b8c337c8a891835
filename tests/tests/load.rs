//! Load with a small size: `scripts/load.sh 4 50` (batches of 10) runs 4
//! concurrent `mem-index write` loops, `mem-dream --force` and 2 reader loops
//! (`mem-recall`, `mem-index list`) on one memory directory, then checks that
//! no acknowledged record is lost, the readers never failed or saw a file
//! that does not parse, the index matches the files and no temp file is
//! left. `scripts/load.sh 8 500` is the full run.

use std::path::Path;
use std::process::Command;

use mem_tests::{bin, workspace_root};

#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn concurrent_writers_dream_and_readers_lose_nothing() {
    let dir = bin("mem-index");
    let dir = dir.parent().unwrap_or(Path::new("."));
    for b in ["mem-dream", "mem-recall"] {
        bin(b);
    }
    let out = Command::new("bash")
        .arg(workspace_root().join("scripts/load.sh"))
        .args(["4", "50"])
        .env("MEM_BIN_DIR", dir)
        .env("LOAD_BATCH", "10")
        .env("LOAD_DREAMS", "2")
        .output()
        .expect("run scripts/load.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}{stderr}");
    let ok = out.status.success()
        && stdout.contains("load: no loss, no reader failures, all invariants held")
        && stdout.contains("; 200 distinct ids")
        && stdout.contains(", lost 0")
        && stdout.contains(", 0 failures")
        && stdout.contains("check: 0 errors");
    assert!(
        ok,
        "load.sh 4 50 failed: {:?}\n{stdout}\n{stderr}",
        out.status
    );
}
