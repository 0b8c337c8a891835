//! `replay --hook` runs inside the agent's hooks: hook input it cannot use
//! (no `transcript_path`, not JSON, empty) gives no events and exit 0,
//! never a failure the agent sees.

use std::io::Write;
use std::process::{Command, Stdio};

fn hook(stdin: &[u8]) -> std::process::Output {
    let mut c = mem_tests::scrub(&mut Command::new(env!("CARGO_BIN_EXE_mem-transcript")))
        .args(["replay", "--hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(stdin).unwrap();
    c.wait_with_output().unwrap()
}

#[test]
fn unusable_hook_input_gives_no_events_and_exit_0() {
    for input in [&b"{}"[..], b"not json", b"", br#"{"transcript_path":7}"#] {
        let o = hook(input);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{input:?}: {err}");
        assert!(o.stdout.is_empty(), "{input:?}");
    }
}
