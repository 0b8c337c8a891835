//! The real Claude Code and Codex CLIs, installed from npm, with mem's hooks
//! installed as docs/hooks.md says, against a scripted local model
//! (tests/realclient/, its README.md): write, recall at SessionStart and on a
//! prompt, the moment of action, compaction and Codex's trust, checked on
//! what reached the model. Heavy tier; without npm or the registry it
//! prints `SKIPPED realclient` and passes.

use std::process::Command;

use mem_tests::{bin, workspace_root};

#[test]
#[ignore = "heavy tier: the real Claude Code and Codex CLIs from npm (tests/realclient)"]
fn the_real_clients_with_mems_hooks() {
    let root = workspace_root();
    let bin_dir = bin("mem-hook").parent().unwrap().to_path_buf();
    let tmp = root.join("target/realclient/tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut c = Command::new("bash");
    c.arg(root.join("tests/realclient/run.sh"))
        .arg("--check")
        .current_dir(&root);
    // the developer's own settings of mem and the clients never reach the runs
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with("MEM_") || k.starts_with("CLAUDE_") || k.starts_with("CODEX_") {
            c.env_remove(&*k);
        }
    }
    let out = c
        .env("MEM_BIN_DIR", &bin_dir)
        .env("TMPDIR", &tmp)
        .env("REALCLIENT_STRACE", "0")
        .env("REALCLIENT_TIMEOUT", "120")
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(line) = stdout.lines().find(|l| l.starts_with("SKIPPED realclient")) {
        eprintln!("{line}");
        println!("{line}");
        return;
    }
    let tail: Vec<&str> = stdout.lines().rev().take(12).collect();
    assert!(
        out.status.success() && stdout.contains("realclient: checks passed"),
        "status {:?}\n{}\n--- stderr\n{stderr}",
        out.status,
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    );
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("realclient: claude"))
        .unwrap_or_default();
    assert!(summary.contains("action-before yes"), "{summary}");
    eprintln!("{summary}");
}
