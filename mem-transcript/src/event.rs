//! The event record written by `replay` (docs/records.md "Events"), in a borrowed
//! form that serializes exactly like [`mem_core::records::Event`] (same
//! field names, order and omissions) without copying content.

use std::borrow::Cow;
use std::io::Write;

use serde::Serialize;
use serde_json::value::RawValue;

/// A tool input: raw JSON from the transcript, or a value built here.
#[derive(Debug, Clone)]
pub enum ToolInput<'a> {
    /// The original JSON text of the value (Claude `tool_use.input`), valid
    /// JSON as the transcript's line was.
    Raw(&'a str),
    /// A value (Codex arguments, parsed from their JSON string).
    Value(serde_json::Value),
}

/// An event's text: a string, or the JSON string token of the transcript
/// (quotes and escapes included), copied to the output as it is.
#[derive(Debug, Clone)]
pub enum Text<'a> {
    /// A string (escaped when written).
    Str(Cow<'a, str>),
    /// A JSON string token, already valid JSON (sanitized): written verbatim.
    Json(&'a str),
}

/// Serialize JSON text as it is (through [`RawValue`]); an error when it is
/// not valid JSON.
fn serialize_raw<S: serde::Serializer>(tok: &str, s: S) -> Result<S::Ok, S::Error> {
    let raw: &RawValue = serde_json::from_str(tok).map_err(serde::ser::Error::custom)?;
    raw.serialize(s)
}

impl Serialize for ToolInput<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolInput::Raw(tok) => serialize_raw(tok, s),
            ToolInput::Value(v) => v.serialize(s),
        }
    }
}

impl Serialize for Text<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Text::Str(t) => s.serialize_str(t),
            Text::Json(tok) => serialize_raw(tok, s),
        }
    }
}

impl<'a> Text<'a> {
    /// The text itself (a JSON token is decoded; one that does not decode
    /// to a string gives the empty string).
    pub fn decoded(&self) -> Cow<'_, str> {
        match self {
            Text::Str(s) => Cow::Borrowed(s),
            Text::Json(r) => Cow::Owned(serde_json::from_str::<String>(r).unwrap_or_default()),
        }
    }
}

impl<'a> From<Cow<'a, str>> for Text<'a> {
    fn from(s: Cow<'a, str>) -> Self {
        Text::Str(s)
    }
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
    pub input: Option<ToolInput<'a>>,
    /// Text or tool output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<Text<'a>>,
    /// For `tool_result`: whether the tool reported an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// True for side-chain (sub-agent) entries.
    pub sidechain: bool,
    /// Recorded working directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<Cow<'a, str>>,
}

impl<'a> EventOut<'a> {
    /// The event of `session` (`source` `claude` or `codex`) at `line` with
    /// `role` and `kind`: `seq` and `block` 0, not a side chain, every
    /// optional field absent (set the others with `..EventOut::new(…)`).
    pub fn new(
        session: &'a str,
        source: &'static str,
        line: u64,
        role: &'static str,
        kind: &'static str,
    ) -> EventOut<'a> {
        EventOut {
            session,
            source,
            line,
            seq: 0,
            uuid: None,
            parent: None,
            msg_id: None,
            block: 0,
            ts: None,
            role,
            kind,
            tool: None,
            tool_id: None,
            input: None,
            text: None,
            is_error: None,
            sidechain: false,
            cwd: None,
        }
    }
}

/// Longest tool input shown in text form, in bytes.
const TEXT_INPUT: usize = 160;
/// Longest tool output shown in text form, in bytes.
const TEXT_OUTPUT: usize = 240;

/// Where events go: JSON lines or the readable conversation.
///
/// JSON lines are serialized by hand ([`write_event`]) into one buffer that
/// goes to the writer in [`FLUSH_AT`] pieces (each event at once when the
/// sink is unbuffered, for `--line-buffered`). Dropping the sink flushes
/// what is left, ignoring errors; call [`Sink::flush`] to see them.
pub struct Sink<'w> {
    out: &'w mut dyn Write,
    text: bool,
    buffered: bool,
    buf: Vec<u8>,
    /// Events written so far (for `seq`).
    pub seq: u64,
    /// Every event is written as a side chain (a sub-agent's file).
    side: bool,
}

/// Bytes collected before the sink writes them out.
pub const FLUSH_AT: usize = 1 << 20;

impl<'w> Sink<'w> {
    /// A sink writing jsonl (or text when `text`), each event at once.
    pub fn new(out: &'w mut dyn Write, text: bool) -> Self {
        Sink {
            out,
            text,
            buffered: false,
            buf: Vec::new(),
            seq: 0,
            side: false,
        }
    }

    /// A sink that collects [`FLUSH_AT`] bytes before writing (not for
    /// `--line-buffered` output).
    pub fn buffered(out: &'w mut dyn Write, text: bool) -> Self {
        Sink {
            out,
            text,
            buffered: true,
            buf: Vec::with_capacity(FLUSH_AT + (FLUSH_AT >> 2)),
            seq: 0,
            side: false,
        }
    }

    /// Start a new file: `seq` counts from 0 again.
    pub fn reset(&mut self) {
        self.seq = 0;
    }

    /// From now on write every event with `sidechain: true` (`on`), or as
    /// the transcript says: for a file that is a sub-agent's
    /// ([`crate::is_subagent_path`]), whose entries are never the user's
    /// voice even where a line lacks `isSidechain`.
    pub fn set_sidechain(&mut self, on: bool) {
        self.side = on;
    }

    /// Write one event (its `seq` is set here).
    pub fn emit(&mut self, mut ev: EventOut<'_>) -> std::io::Result<()> {
        ev.sidechain |= self.side;
        ev.seq = self.seq;
        self.seq += 1;
        if self.text {
            self.flush_buf()?;
            return write_text(self.out, &ev);
        }
        write_event(&mut self.buf, &ev);
        self.maybe_flush()
    }

    /// True when events may be rendered elsewhere and stitched in with
    /// [`Sink::stitch`]: JSON lines collected in large pieces.
    pub fn stitches(&self) -> bool {
        self.buffered && !self.text && !self.side
    }

    /// Write the event rendered at `cut` of `buf` ([`write_event_cut`])
    /// with the next `seq`, `parent` and its block number plus `first`:
    /// the bytes [`Sink::emit`] writes for the same event.
    pub fn stitch(
        &mut self,
        buf: &[u8],
        cut: &Cut,
        parent: Option<&str>,
        first: u32,
    ) -> std::io::Result<()> {
        let out = &mut self.buf;
        out.extend_from_slice(&buf[cut.start..cut.seq]);
        write_u64(out, self.seq);
        self.seq += 1;
        out.extend_from_slice(&buf[cut.seq..cut.parent]);
        if let Some(p) = parent {
            out.extend_from_slice(b",\"parent\":");
            write_json_str(out, p);
        }
        out.extend_from_slice(&buf[cut.parent..cut.block]);
        write_u64(out, u64::from(cut.block_value + first));
        out.extend_from_slice(&buf[cut.block..cut.end]);
        self.maybe_flush()
    }

    /// Write raw bytes (for `--raw`).
    pub fn raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if !self.buffered || bytes.len() >= FLUSH_AT {
            self.flush_buf()?;
            return self.out.write_all(bytes);
        }
        self.buf.extend_from_slice(bytes);
        self.maybe_flush()
    }

    /// Write what is collected and flush the writer.
    ///
    /// Errors: the write error.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.flush_buf()?;
        self.out.flush()
    }

    fn maybe_flush(&mut self) -> std::io::Result<()> {
        if !self.buffered || self.buf.len() >= FLUSH_AT {
            self.flush_buf()?;
        }
        Ok(())
    }

    fn flush_buf(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            let r = self.out.write_all(&self.buf);
            self.buf.clear();
            r?;
        }
        Ok(())
    }
}

impl Drop for Sink<'_> {
    fn drop(&mut self) {
        let _ = self.flush_buf();
    }
}

/// Where an event rendered by [`write_event_cut`] has its holes: byte
/// offsets in the buffer (`seq` goes at `seq`, the `parent` member at
/// `parent`, `block` at `block`), and the block number it was rendered with.
#[derive(Debug, Clone, Copy)]
pub struct Cut {
    /// Start of the event.
    pub start: usize,
    /// Where the `seq` value goes.
    pub seq: usize,
    /// Where `,"parent":…` goes (when there is a parent).
    pub parent: usize,
    /// Where the `block` value goes.
    pub block: usize,
    /// End of the event (after its `\n`).
    pub end: usize,
    /// The event's `block` before the turn's blocks are added.
    pub block_value: u32,
}

/// Append `ev` to `buf` as [`write_event`] would, without its `seq`, its
/// `parent` and its `block` value: [`Sink::stitch`] puts them in.
pub fn write_event_cut(buf: &mut Vec<u8>, ev: &EventOut<'_>) -> Cut {
    let start = buf.len();
    let [seq, parent, block] = write_event_parts(buf, ev, true);
    Cut {
        start,
        seq,
        parent,
        block,
        end: buf.len(),
        block_value: ev.block,
    }
}

/// Append `ev` as one JSON line to `buf`: the bytes `serde_json::to_writer`
/// gives for [`EventOut`] (same field order, omissions and escaping), then `\n`.
pub fn write_event(buf: &mut Vec<u8>, ev: &EventOut<'_>) {
    write_event_parts(buf, ev, false);
}

/// [`write_event`], leaving out `seq`, `parent` and `block` when `holes`;
/// the offsets where they go.
fn write_event_parts(buf: &mut Vec<u8>, ev: &EventOut<'_>, holes: bool) -> [usize; 3] {
    fn opt(buf: &mut Vec<u8>, key: &[u8], v: &Option<Cow<'_, str>>) {
        if let Some(v) = v {
            buf.extend_from_slice(key);
            write_json_str(buf, v);
        }
    }
    buf.extend_from_slice(b"{\"session\":");
    write_json_str(buf, ev.session);
    buf.extend_from_slice(b",\"source\":");
    write_json_str(buf, ev.source);
    buf.extend_from_slice(b",\"line\":");
    write_u64(buf, ev.line);
    buf.extend_from_slice(b",\"seq\":");
    let seq_at = buf.len();
    if !holes {
        write_u64(buf, ev.seq);
    }
    opt(buf, b",\"uuid\":", &ev.uuid);
    let parent_at = buf.len();
    if !holes {
        opt(buf, b",\"parent\":", &ev.parent);
    }
    opt(buf, b",\"msg_id\":", &ev.msg_id);
    buf.extend_from_slice(b",\"block\":");
    let block_at = buf.len();
    if !holes {
        write_u64(buf, u64::from(ev.block));
    }
    opt(buf, b",\"ts\":", &ev.ts);
    buf.extend_from_slice(b",\"role\":");
    write_json_str(buf, ev.role);
    buf.extend_from_slice(b",\"kind\":");
    write_json_str(buf, ev.kind);
    opt(buf, b",\"tool\":", &ev.tool);
    opt(buf, b",\"tool_id\":", &ev.tool_id);
    match &ev.input {
        Some(ToolInput::Raw(r)) => {
            buf.extend_from_slice(b",\"input\":");
            buf.extend_from_slice(r.as_bytes());
        }
        Some(ToolInput::Value(v)) => {
            buf.extend_from_slice(b",\"input\":");
            // Writing a Value into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *buf, v);
        }
        None => {}
    }
    match &ev.text {
        Some(Text::Str(t)) => {
            buf.extend_from_slice(b",\"text\":");
            write_json_str(buf, t);
        }
        Some(Text::Json(r)) => {
            buf.extend_from_slice(b",\"text\":");
            buf.extend_from_slice(r.as_bytes());
        }
        None => {}
    }
    if let Some(e) = ev.is_error {
        buf.extend_from_slice(if e {
            b",\"is_error\":true"
        } else {
            b",\"is_error\":false"
        });
    }
    buf.extend_from_slice(if ev.sidechain {
        b",\"sidechain\":true"
    } else {
        b",\"sidechain\":false"
    });
    opt(buf, b",\"cwd\":", &ev.cwd);
    buf.extend_from_slice(b"}\n");
    [seq_at, parent_at, block_at]
}

fn write_u64(buf: &mut Vec<u8>, mut n: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

/// Append `text` as a JSON string, escaped exactly as serde_json does
/// (`\"`, `\\\\`, `\b \t \n \f \r`, other controls as `\u00xx`).
pub fn write_json_str(buf: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = text.as_bytes();
    buf.reserve(b.len() + 2);
    buf.push(b'"');
    let mut start = 0;
    while let Some(j) = mem_core::scan::next_special(b, start) {
        buf.extend_from_slice(&b[start..j]);
        let c = b[j];
        match c {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            0x08 => buf.extend_from_slice(b"\\b"),
            0x0c => buf.extend_from_slice(b"\\f"),
            _ => buf.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 15)],
            ]),
        }
        start = j + 1;
    }
    buf.extend_from_slice(&b[start..]);
    buf.push(b'"');
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
    let text = ev.text.as_ref().map(Text::decoded).unwrap_or_default();
    let text = text.as_ref();
    match ev.kind {
        "tool_use" => {
            let input = match &ev.input {
                Some(ToolInput::Raw(r)) => r.to_string(),
                Some(ToolInput::Value(v)) => v.to_string(),
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
pub fn norm_ts(ts: &str) -> Option<Cow<'_, str>> {
    let b = ts.as_bytes();
    // Fast path: `YYYY-MM-DDTHH:MM:SS[.fff]Z` without ".000".
    if b.len() >= 20 && b[b.len() - 1] == b'Z' && b[10] == b'T' && !ts.ends_with(".000Z") {
        return Some(Cow::Borrowed(ts));
    }
    mem_core::time::parse_ts(ts).map(|t| Cow::Owned(mem_core::time::fmt_ts(t)))
}

/// Milliseconds since the epoch of a timestamp string (any offset), or `None`.
pub fn ts_millis(ts: &str) -> Option<i64> {
    mem_core::time::parse_ts(ts).map(|t| t.timestamp_millis())
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
            input: Some(ToolInput::Raw(raw.get())),
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

    fn event<'a>(text: Option<Text<'a>>, input: Option<ToolInput<'a>>) -> EventOut<'a> {
        EventOut {
            session: "s\"q",
            source: "claude",
            line: 12_345_678_901,
            seq: 0,
            uuid: Some("u\\".into()),
            parent: None,
            msg_id: Some("m\u{7f}".into()),
            block: 7,
            ts: None,
            role: "tool",
            kind: "tool_result",
            tool: None,
            tool_id: Some("\u{1}\u{1f}\u{8}\u{c}".into()),
            input,
            text,
            is_error: Some(true),
            sidechain: true,
            cwd: Some("/p/日本語 \u{2028}".into()),
        }
    }

    /// The hand-written line is byte for byte what serde_json writes.
    #[test]
    fn hand_written_events_match_serde() {
        let raw: &RawValue = serde_json::from_str(r#"{"a":[1,"x\ny"]}"#).unwrap();
        let nasty: String = (0u8..0x80).map(char::from).collect::<String>()
            + "é日本語😀\u{2028}\u{2029}\"\\ end of a longer run of text";
        let cases = [
            event(
                Some(Text::Str(nasty.clone().into())),
                Some(ToolInput::Raw(raw.get())),
            ),
            event(
                Some(Text::Str("".into())),
                Some(ToolInput::Value(serde_json::json!({"cmd": nasty}))),
            ),
            event(None, None),
        ];
        for ev in &cases {
            let mut buf = Vec::new();
            write_event(&mut buf, ev);
            let want = serde_json::to_string(ev).unwrap() + "\n";
            assert_eq!(String::from_utf8(buf).unwrap(), want);
        }
        for n in [0u64, 9, 10, 99, 100, u64::MAX] {
            let mut buf = Vec::new();
            write_u64(&mut buf, n);
            assert_eq!(buf, n.to_string().as_bytes());
        }
    }

    /// A string copied as its JSON token reads back as the unescaped text.
    #[test]
    fn raw_copied_strings_parse_back_equal() {
        let src = r#""tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00 \ufffd\n日本語 \u2028""#;
        let raw: &RawValue = serde_json::from_str(src).unwrap();
        let unescaped: String = serde_json::from_str(src).unwrap();
        let ev = event(Some(Text::Json(raw.get())), None);
        let mut buf = Vec::new();
        write_event(&mut buf, &ev);
        let back: mem_core::Event = serde_json::from_slice(&buf).unwrap();
        assert_eq!(back.text.as_deref(), Some(unescaped.as_str()));
        assert_eq!(Text::Json(raw.get()).decoded(), unescaped);
        // The same event with the decoded string: equal values.
        let mut buf2 = Vec::new();
        write_event(&mut buf2, &event(Some(Text::Str(unescaped.into())), None));
        let a: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&buf2).unwrap();
        assert_eq!(a, b);
    }
}
