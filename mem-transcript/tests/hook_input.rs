//! `replay --hook` runs inside the agent's hooks: hook input it cannot use
//! (no `transcript_path`, not JSON, empty) is a note on stderr and exit 0,
//! never a failure the agent sees.

use std::io::Write;
use std::process::{Command, Stdio};

fn hook(stdin: &[u8]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mem-transcript"))
        .args(["replay", "--hook"])
        .env_remove("MEM_HOOK_GUARD")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(stdin).unwrap();
    c.wait_with_output().unwrap()
}

#[test]
fn unusable_hook_input_is_a_note_and_exit_0() {
    for input in [&b"{}"[..], b"not json", b"", br#"{"transcript_path":7}"#] {
        let o = hook(input);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{input:?}: {err}");
        assert!(o.stdout.is_empty(), "{input:?}");
        assert!(err.contains("nothing to replay"), "{input:?}: {err}");
    }
    let o = hook(b"{}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no \"transcript_path\""),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_usable_hook_input_still_replays() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("s.jsonl");
    std::fs::write(
        &t,
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-07-11T09:00:00Z","cwd":"/p","message":{"role":"user","content":"Fix the build."}}
"#,
    )
    .unwrap();
    let input =
        serde_json::json!({"session_id": "s1", "transcript_path": t, "hook_event_name": "Stop"});
    let o = hook(input.to_string().as_bytes());
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("Fix the build."), "{out}");
}
