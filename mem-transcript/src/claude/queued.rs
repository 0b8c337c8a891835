//! The messages typed while the agent worked (`queue-operation` entries)
//! that never became a user entry.

use std::borrow::Cow;

use mem_core::Error;
use mem_core::jsonl::sanitize;

use super::index::Index;
use crate::event::{EventOut, Sink, Text, norm_ts};
use crate::input::Input;

/// Emit the messages the user typed while the agent worked and that never
/// became a user entry: `queue-operation` entries `enqueue` later taken off
/// the queue by `remove` (the newest pending one) rather than `dequeue` (the
/// oldest, replayed as the user entry it became). Each is a `user` `text` event at its own line;
/// system notifications (`<task-notification>`) are left out. Returns the
/// events written.
///
/// Errors: reading the file or writing the sink.
pub fn emit_queued(input: &Input, ix: &Index, sink: &mut Sink<'_>) -> Result<usize, Error> {
    if ix.queued.is_empty() {
        return Ok(0);
    }
    let mut win = crate::input::Window::new(&input.file);
    let mut pending: std::collections::VecDeque<(usize, String, Option<String>, String)> =
        std::collections::VecDeque::new();
    let mut out = Vec::new();
    for &(no, off, len) in &ix.queued {
        let bytes = win.get(off, len).map_err(|e| Error::io(&input.label, e))?;
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&sanitize(bytes)) else {
            continue;
        };
        let text = match &v["content"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(a) => a
                .iter()
                .filter_map(|b| b["text"].as_str())
                .filter(|t| !t.trim_start().starts_with('<'))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        let session = v["sessionId"].as_str().unwrap_or("").to_string();
        let ts = v["timestamp"]
            .as_str()
            .and_then(norm_ts)
            .map(|t| t.into_owned());
        // system notifications are queued too and often never taken off:
        // they are not the user's and are not tracked
        match v["operation"].as_str() {
            Some("enqueue") if !text.trim_start().starts_with('<') => {
                pending.push_back((no, text, ts, session));
            }
            Some("dequeue") => {
                pending.pop_front();
            }
            Some("remove") => {
                if let Some(p) = pending.pop_back() {
                    out.push(p);
                }
            }
            _ => {}
        }
    }
    let fallback = ix.session.as_deref().unwrap_or("");
    let mut n = 0;
    for (no, text, ts, session) in out {
        let t = text.trim();
        if t.is_empty() || t.starts_with('<') {
            continue;
        }
        let ev = EventOut {
            session: if session.is_empty() {
                fallback
            } else {
                &session
            },
            source: "claude",
            line: no as u64,
            seq: 0,
            uuid: None,
            parent: None,
            msg_id: None,
            block: 0,
            ts: ts.map(Cow::Owned),
            role: "user",
            kind: "text",
            tool: None,
            tool_id: None,
            input: None,
            text: Some(Text::Str(Cow::Borrowed(t))),
            is_error: None,
            sidechain: false,
            cwd: ix.cwd.as_deref().map(Cow::Borrowed),
        };
        sink.emit(ev).map_err(|e| Error::io("<stdout>", e))?;
        n += 1;
    }
    Ok(n)
}
