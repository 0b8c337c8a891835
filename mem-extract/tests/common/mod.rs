//! What the extraction tests share.

use mem_core::records::Event;

/// An event of Claude session `session` at `seq` (line `seq + 1`, at
/// 2026-07-11T09:00:00Z, cwd `/home/user/proj`), with nothing else set.
pub fn event(session: &str, seq: u64, role: &str, kind: &str) -> Event {
    Event {
        session: session.into(),
        source: "claude".into(),
        line: seq + 1,
        seq,
        ts: Some("2026-07-11T09:00:00Z".into()),
        role: role.into(),
        kind: kind.into(),
        cwd: Some("/home/user/proj".into()),
        ..Default::default()
    }
}
