//! The recursion guard: under `MEM_HOOK_GUARD=1` (set by `mem-extract
//! --model-cmd` for the agent CLI it runs) mem's hooks print nothing, write
//! nothing and exit 0, so an agent started from a `SessionEnd` hook cannot
//! start another write path.

use mem_tests::{cmd, run, show};

#[test]
fn hooks_do_nothing_under_the_guard() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let t = proj.join("s.jsonl");
    std::fs::write(
        &t,
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-07-11T09:00:00Z","cwd":"/p","message":{"role":"user","content":"Never push to main directly."}}
"#,
    )
    .unwrap();
    let hook_in = serde_json::json!({
        "session_id": "s", "transcript_path": t, "cwd": proj,
        "hook_event_name": "SessionEnd", "prompt": "push to main"
    })
    .to_string();
    // without the guard the write path reads the session
    let mut c = cmd("mem-transcript", home.path());
    c.args(["replay", "--hook"]).current_dir(&proj);
    let out = run(c, hook_in.as_bytes());
    assert!(
        out.status.success() && !out.stdout.is_empty(),
        "{}",
        show(&out)
    );
    for (bin, args) in [
        ("mem-transcript", &["replay", "--hook"][..]),
        ("mem-hook", &[][..]),
        // the spelling of earlier versions runs mem-hook
        ("mem-recall", &["--hook"][..]),
    ] {
        let mut c = cmd(bin, home.path());
        c.args(args).current_dir(&proj).env("MEM_HOOK_GUARD", "1");
        let out = run(c, hook_in.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{bin}: {}", show(&out));
        assert!(out.stdout.is_empty(), "{bin}: {}", show(&out));
    }
}
