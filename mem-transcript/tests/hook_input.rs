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
        assert!(err.contains("nothing captured"), "{input:?}: {err}");
    }
    let o = hook(b"{}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no \"transcript_path\""),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
