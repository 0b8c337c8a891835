//! The event record written by `replay` (DESIGN.md "Event"), in a borrowed
//! form that serializes exactly like [`mem_core::records::Event`] (same
//! field names, order and omissions) without copying content.

use std::borrow::Cow;
use std::io::Write;

use serde::Serialize;
use serde_json::value::RawValue;

/// A tool input: raw JSON from the transcript, or a value built here.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Input<'a> {
    /// The original JSON text (Claude `tool_use.input`).
    Raw(&'a RawValue),
    /// A value (Codex arguments, parsed from their JSON string).
    Value(serde_json::Value),
}

/// One event: a content block of the chosen branch. Serializes as
/// [`mem_core::records::Event`] does.
#[derive(Debug, Clone, Serialize)]
pub struct EventOut<'a> {
    /// Session id.
    pub session: &'a str,
    /// `claude` or `codex`.
    pub source: &'static str,
    /// 1-based line of the entry in its file.
    pub line: u64,
    /// Index of the event in this replay, from 0.
    pub seq: u64,
    /// The entry's uuid (Codex: `<session>:<line>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<Cow<'a, str>>,
    /// The parent on the walked branch (bridged or logical parent included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<Cow<'a, str>>,
    /// API response id shared by the blocks of one response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub msg_id: Option<Cow<'a, str>>,
    /// Block index within the response (or the entry).
    pub block: u32,
    /// UTC RFC 3339 timestamp with `Z`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ts: Option<Cow<'a, str>>,
    /// `user` | `assistant` | `system` | `tool`.
    pub role: &'static str,
    /// `text` | `thinking` | `tool_use` | `tool_result` | `summary` | `compact` | `meta`.
    pub kind: &'static str,
    /// Tool name (`tool_use`; also on `tool_result` when known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<Cow<'a, str>>,
    /// Tool call id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_id: Option<Cow<'a, str>>,
    /// Tool input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Input<'a>>,
    /// Text or tool output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<Cow<'a, str>>,
    /// For `tool_result`: whether the tool reported an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// True for side-chain (sub-agent) entries.
    pub sidechain: bool,
    /// Recorded working directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<Cow<'a, str>>,
}

/// Longest tool input shown in text form, in bytes.
const TEXT_INPUT: usize = 160;
/// Longest tool output shown in text form, in bytes.
const TEXT_OUTPUT: usize = 240;

/// Where events go: JSON lines or the readable conversation.
pub struct Sink<'w> {
    out: &'w mut dyn Write,
    text: bool,
    /// Events written so far (for `seq`).
    pub seq: u64,
}

impl<'w> Sink<'w> {
    /// A sink writing jsonl (or text when `text`).
    pub fn new(out: &'w mut dyn Write, text: bool) -> Self {
        Sink { out, text, seq: 0 }
    }

    /// Start a new file: `seq` counts from 0 again.
    pub fn reset(&mut self) {
        self.seq = 0;
    }

    /// Write one event (its `seq` is set here).
    pub fn emit(&mut self, mut ev: EventOut<'_>) -> std::io::Result<()> {
        ev.seq = self.seq;
        self.seq += 1;
        if self.text {
            return write_text(self.out, &ev);
        }
        serde_json::to_writer(&mut *self.out, &ev).map_err(std::io::Error::other)?;
        self.out.write_all(b"\n")
    }

    /// Write raw bytes (for `--raw`).
    pub fn raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)
    }
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| {
            if c == '\n' || c == '\r' || c == '\t' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let cut = mem_core::truncate::floor_to_bytes(flat.trim(), max);
    if cut.len() < flat.trim().len() {
        format!("{cut}…")
    } else {
        cut.to_string()
    }
}

fn write_text(out: &mut dyn Write, ev: &EventOut<'_>) -> std::io::Result<()> {
    let ts = ev.ts.as_deref().unwrap_or("-");
    let side = if ev.sidechain { " (side chain)" } else { "" };
    let text = ev.text.as_deref().unwrap_or("");
    match ev.kind {
        "tool_use" => {
            let input = match &ev.input {
                Some(Input::Raw(r)) => r.get().to_string(),
                Some(Input::Value(v)) => v.to_string(),
                None => String::new(),
            };
            writeln!(
                out,
                "[{ts}] {}{side} → {} {}",
                ev.role,
                ev.tool.as_deref().unwrap_or("?"),
                one_line(&input, TEXT_INPUT)
            )
        }
        "tool_result" => {
            let status = if ev.is_error == Some(true) {
                "error"
            } else {
                "ok"
            };
            writeln!(
                out,
                "[{ts}] tool{side} ← {status} ({} bytes): {}",
                text.len(),
                one_line(text, TEXT_OUTPUT)
            )
        }
        "compact" => writeln!(
            out,
            "[{ts}] ─── compaction boundary: {} ───",
            one_line(text, 80)
        ),
        "summary" => writeln!(out, "[{ts}] summary{side}: {}", one_line(text, TEXT_OUTPUT)),
        "meta" => writeln!(
            out,
            "[{ts}] ({} meta){side}: {}",
            ev.role,
            one_line(text, TEXT_OUTPUT)
        ),
        "thinking" => writeln!(
            out,
            "[{ts}] {} (thinking){side}: {}",
            ev.role,
            one_line(text, TEXT_OUTPUT)
        ),
        _ => {
            writeln!(out, "[{ts}] {}{side}:", ev.role)?;
            for l in text.lines() {
                writeln!(out, "    {l}")?;
            }
            Ok(())
        }
    }
}

/// Normalize a timestamp string to UTC RFC 3339 with `Z`; `None` when it
/// does not parse. Already-normal values are borrowed.
pub fn norm_ts(s: &str) -> Option<Cow<'_, str>> {
    let b = s.as_bytes();
    // Fast path: `YYYY-MM-DDTHH:MM:SS[.fff]Z` without ".000".
    if b.len() >= 20 && b[b.len() - 1] == b'Z' && b[10] == b'T' && !s.ends_with(".000Z") {
        return Some(Cow::Borrowed(s));
    }
    mem_core::time::parse_ts(s).map(|t| Cow::Owned(mem_core::time::fmt_ts(t)))
}

/// Milliseconds since the epoch of a timestamp string (any offset), or `None`.
pub fn ts_millis(s: &str) -> Option<i64> {
    mem_core::time::parse_ts(s).map(|t| t.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The borrowed event reads back as mem-core's `Event`, field for field.
    #[test]
    fn serializes_like_the_core_event() {
        let raw: &RawValue = serde_json::from_str(r#"{"command":"ls"}"#).unwrap();
        let ev = EventOut {
            session: "s",
            source: "claude",
            line: 3,
            seq: 1,
            uuid: Some("u".into()),
            parent: Some("p".into()),
            msg_id: Some("m".into()),
            block: 2,
            ts: Some("2026-01-10T09:00:00Z".into()),
            role: "assistant",
            kind: "tool_use",
            tool: Some("Bash".into()),
            tool_id: Some("t".into()),
            input: Some(Input::Raw(raw)),
            text: None,
            is_error: None,
            sidechain: false,
            cwd: Some("/p".into()),
        };
        let json = serde_json::to_string(&ev).unwrap();
        let back: mem_core::Event = serde_json::from_str(&json).unwrap();
        assert_eq!(back.tool.as_deref(), Some("Bash"));
        assert_eq!(back.input, Some(serde_json::json!({"command":"ls"})));
        assert!(back.extra.is_empty());
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }

    #[test]
    fn timestamps_become_utc_z() {
        assert_eq!(
            norm_ts("2026-01-10T09:00:00.000Z").unwrap(),
            "2026-01-10T09:00:00Z"
        );
        assert_eq!(
            norm_ts("2026-01-10T09:00:00.5Z").unwrap(),
            "2026-01-10T09:00:00.5Z"
        );
        assert_eq!(
            norm_ts("2026-01-10T11:00:00+02:00").unwrap(),
            "2026-01-10T09:00:00Z"
        );
        assert_eq!(norm_ts("1768035600").unwrap(), "2026-01-10T09:00:00Z");
        assert!(norm_ts("soon").is_none());
    }
}
