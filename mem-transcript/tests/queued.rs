//! Messages typed while the agent worked (`queue-operation` entries) reach
//! the events: a queued message taken off by `remove` never became a user
//! entry and is replayed as the user's text; one taken off by `dequeue` is
//! replayed once, as the user entry it became; notifications are not the user's.

use std::process::Command;

#[test]
fn removed_queue_entries_are_replayed_as_user_text() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("s.jsonl");
    let q = |op: &str, content: &str, ts: &str| {
        serde_json::json!({"type": "queue-operation", "operation": op, "timestamp": ts,
            "sessionId": "s1", "content": content})
        .to_string()
    };
    let lines = [
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-07-11T09:00:00Z","cwd":"/p","message":{"role":"user","content":"Fix the build."}}"#.to_string(),
        q("enqueue", "<task-notification><task-id>b1</task-id></task-notification>", "2026-07-11T09:00:30Z"),
        q("enqueue", "and never touch the generated files", "2026-07-11T09:01:00Z"),
        q("remove", "", "2026-07-11T09:01:05Z"),
        q("enqueue", "thanks", "2026-07-11T09:02:00Z"),
        q("dequeue", "", "2026-07-11T09:02:01Z"),
        r#"{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s1","timestamp":"2026-07-11T09:02:02Z","cwd":"/p","message":{"role":"user","content":"thanks"}}"#.to_string(),
    ];
    std::fs::write(&t, lines.join("\n") + "\n").unwrap();
    let out = mem_tests::scrub(&mut Command::new(env!("CARGO_BIN_EXE_mem-transcript")))
        .args(["replay", "--format", "jsonl"])
        .arg(&t)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let evs: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let texts: Vec<(u64, &str, &str)> = evs
        .iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["role"].as_str().unwrap(),
                e["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            (1, "user", "Fix the build."),
            (7, "user", "thanks"),
            (3, "user", "and never touch the generated files"),
        ]
    );
    assert_eq!(evs[2]["ts"], "2026-07-11T09:01:00Z");
    assert_eq!(evs[2]["seq"], 2);
}
