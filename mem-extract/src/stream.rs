//! Reading events without holding them (the `mem-extract` binary).
//!
//! Each JSONL line is validated exactly like a [`mem_core::records::Event`]
//! (same required fields and types, unknown fields allowed) but viewed as an
//! [`EventView`] borrowed from the line: strings without escapes are not
//! copied, a tool's `input` keeps only its command and written path, and the
//! text stays as its JSON string literal, decoded only when extraction reads
//! it ([`EventText`]). Memory stays bounded by the longest line whatever the
//! stream's length.
//!
//! A line is parsed once, leniently about the text (any JSON value is read
//! raw, then must be a string); only a line that fails is parsed again the
//! strict way, so its error names the same reason and column as for a
//! `String` text.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use mem_core::Error;
use mem_core::jsonl::{describe, for_each_record};
use mem_core::scan::{Obj, RawStr, at_end};

use crate::extract::{EventView, choices_of, command_in, write_path_of};
use crate::text::EventText;

/// A string, borrowed from the line when it has no escapes.
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A text as read: the inside of its JSON string literal, escapes not
/// decoded (the parser has checked the literal).
struct RawText<'a>(&'a str);

impl<'de: 'a, 'a> Deserialize<'de> for RawText<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'a RawValue>::deserialize(d)?.get();
        match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            Some(inner) => Ok(RawText(inner)),
            // not a string: the strict parse names the error
            None => Err(de::Error::custom("not a string")),
        }
    }
}

/// A text checked like a `String` field and dropped (the strict parse, run
/// only to describe a bad line).
struct StrictText;

impl<'de> Deserialize<'de> for StrictText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrictText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<StrictText, E> {
                Ok(StrictText)
            }
        }
        d.deserialize_str(V)
    }
}

/// What extraction reads of a tool's input: any JSON value is accepted; of
/// an object only `command`, `cmd` and the written path are kept.
#[derive(Default)]
struct ToolInputFields {
    command: Option<Value>,
    cmd: Option<Value>,
    file_path: Option<Value>,
    path: Option<Value>,
    notebook_path: Option<Value>,
    questions: Option<Value>,
}

impl ToolInputFields {
    fn get(&self, k: &str) -> Option<&Value> {
        match k {
            "command" => self.command.as_ref(),
            "cmd" => self.cmd.as_ref(),
            "file_path" => self.file_path.as_ref(),
            "path" => self.path.as_ref(),
            "notebook_path" => self.notebook_path.as_ref(),
            "questions" => self.questions.as_ref(),
            _ => None,
        }
    }

    /// The field a key of a tool input fills; `None` for the keys not read.
    fn slot_mut(&mut self, k: &[u8]) -> Option<&mut Option<Value>> {
        match k {
            b"command" => Some(&mut self.command),
            b"cmd" => Some(&mut self.cmd),
            b"file_path" => Some(&mut self.file_path),
            b"path" => Some(&mut self.path),
            b"notebook_path" => Some(&mut self.notebook_path),
            b"questions" => Some(&mut self.questions),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for ToolInputFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolInputFields;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ToolInputFields, A::Error> {
                let mut i = ToolInputFields::default();
                while let Some(k) = m.next_key::<Str<'de>>()? {
                    match i.slot_mut(k.0.as_bytes()) {
                        Some(slot) => *slot = Some(m.next_value::<Value>()?),
                        None => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(i)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<ToolInputFields, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ToolInputFields::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<ToolInputFields, E> {
                Ok(ToolInputFields::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<ToolInputFields, E> {
                Ok(ToolInputFields::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<ToolInputFields, E> {
                Ok(ToolInputFields::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<ToolInputFields, E> {
                Ok(ToolInputFields::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ToolInputFields, E> {
                Ok(ToolInputFields::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<ToolInputFields, E> {
                Ok(ToolInputFields::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields of [`mem_core::records::Event`], in its order, with its types
/// and defaults; the text as `T` ([`RawText`], or [`StrictText`] to describe
/// a bad line exactly as a `String` field would).
#[derive(Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
struct RawEvent<'a, T> {
    #[serde(borrow)]
    session: Str<'a>,
    #[serde(borrow)]
    #[allow(dead_code)]
    source: Str<'a>,
    line: u64,
    #[allow(dead_code)]
    seq: u64,
    #[serde(default, borrow)]
    uuid: Option<Str<'a>>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    parent: Option<Str<'a>>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    msg_id: Option<Str<'a>>,
    #[serde(default)]
    block: u32,
    #[serde(default, borrow)]
    ts: Option<Str<'a>>,
    #[serde(borrow)]
    role: Str<'a>,
    #[serde(borrow)]
    kind: Str<'a>,
    #[serde(default, borrow)]
    tool: Option<Str<'a>>,
    #[serde(default, borrow)]
    tool_id: Option<Str<'a>>,
    #[serde(default)]
    input: Option<ToolInputFields>,
    #[serde(default)]
    text: Option<T>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default)]
    sidechain: bool,
    #[serde(default, borrow)]
    cwd: Option<Str<'a>>,
}

impl<'a> RawEvent<'a, RawText<'a>> {
    fn view(self) -> EventView<'a> {
        let tool = self.tool.map(|s| s.0);
        let (command, path) = match &self.input {
            Some(i) => (
                command_in(tool.as_deref().unwrap_or(""), |k| i.get(k)),
                write_path_of(|k| i.get(k)).map(|p| Cow::Owned(p.to_string())),
            ),
            None => (None, None),
        };
        let choices = self
            .input
            .as_ref()
            .and_then(|i| i.get("questions"))
            .map(choices_of)
            .unwrap_or_default();
        EventView {
            session: self.session.0,
            line: self.line,
            uuid: self.uuid.map(|s| s.0),
            block: self.block,
            ts: self.ts.map(|s| s.0),
            role: self.role.0,
            kind: self.kind.0,
            tool,
            tool_id: self.tool_id.map(|s| s.0),
            command,
            path,
            choices,
            text: self.text.map(|t| EventText::Escaped(Cow::Borrowed(t.0))),
            is_error: self.is_error,
            sidechain: self.sidechain,
            cwd: self.cwd.map(|s| s.0),
        }
    }
}

/// Read event records from `files` (stdin when empty) and pass each, in
/// order, to `f` until a line is bad; the rest of the input is read only
/// to find every bad line. Returns the errors in input order (empty when
/// every line was an event); nothing is printed. A file that does not
/// open ends the reading, its error last.
pub fn for_each_event_checked(files: &[PathBuf], mut f: impl FnMut(EventView<'_>)) -> Vec<Error> {
    let mut errs = Vec::new();
    if files.is_empty() {
        crate::events::stdin_hint();
        read_one(std::io::stdin().lock(), "<stdin>", &mut errs, &mut f);
    } else {
        for p in files {
            match std::fs::File::open(p) {
                Ok(file) => read_one(file, &p.display().to_string(), &mut errs, &mut f),
                Err(e) => {
                    errs.push(Error::io(p, e));
                    break;
                }
            }
        }
    }
    errs
}

/// Read event records from one stream (`name` labels its errors) and pass
/// each, in order, to `f`, as [`for_each_event_checked`] does for files:
/// every bad line is returned, in input order, each naming `name` and its
/// line (empty when every line was an event); nothing is printed.
pub fn for_each_event_in(
    input: impl Read,
    name: &str,
    mut f: impl FnMut(EventView<'_>),
) -> Vec<Error> {
    let mut errs = Vec::new();
    read_one(input, name, &mut errs, &mut f);
    errs
}

/// One line as an event: by the fast path ([`scan_event`]) when it is sure,
/// else parsed by serde with the text read raw (from a `&str` when the line
/// is valid UTF-8, checked in one pass); a line that fails is parsed again
/// with a strict text, whose error is the one reported.
fn parse(bytes: &[u8]) -> Result<RawEvent<'_, RawText<'_>>, serde_json::Error> {
    let fast = match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => match scan_event(s) {
            Some(ev) => return Ok(ev),
            None => serde_json::from_str::<RawEvent<'_, RawText<'_>>>(s),
        },
        Err(_) => serde_json::from_slice::<RawEvent<'_, RawText<'_>>>(bytes),
    };
    let Err(fast_err) = fast else {
        return fast;
    };
    match serde_json::from_slice::<RawEvent<'_, StrictText>>(bytes) {
        Err(e) => Err(e),
        Ok(_) => Err(fast_err),
    }
}

/// The fields of an event line read by mem-core's scanner
/// ([`mem_core::scan::Obj`], the one `mem-transcript replay` uses), exactly
/// as the serde path reads them: strings borrowed from the line, the text
/// kept as its JSON literal. `None` when the scanner is not sure — a key or
/// a known string with a `\u` escape (left to serde, which checks
/// surrogates), a duplicate field, a number that is not a plain integer
/// where one is expected, deep nesting, any syntax error — so the serde
/// path decides (and names the error).
fn scan_event(line: &str) -> Option<RawEvent<'_, RawText<'_>>> {
    let b = line.as_bytes();
    // the members' values nest from depth 0, as they always have here
    let mut o = Obj::open(b, 0, 0)?.with_depth(0);
    let (mut session, mut source, mut line_no, mut seq) = (None, None, None, None);
    let (mut uuid, mut parent, mut msg_id, mut ts) = (None, None, None, None);
    let (mut role, mut kind, mut tool, mut tool_id, mut cwd) = (None, None, None, None, None);
    let (mut input, mut text, mut is_error) = (None, None, None);
    let (mut block, mut sidechain) = (0u32, false);
    // a required string, and an optional one (null is none)
    let req = |o: &mut Obj<'_>| Some(Some(Str(decoded(line, o.string()?)?)));
    let opt = |o: &mut Obj<'_>| {
        if o.null()? {
            return Some(None);
        }
        req(o)
    };
    // a key that names no field is skipped with its value (a field's name
    // is always matched by `event_field`, never read as another key); a
    // field given twice ends the fast path (serde names it)
    while let Some(bit) = o.next_known_field(event_field)? {
        match bit {
            0 => session = req(&mut o)?,
            1 => source = req(&mut o)?,
            2 => line_no = Some(o.u64()?),
            3 => seq = Some(o.u64()?),
            4 => uuid = opt(&mut o)?,
            5 => parent = opt(&mut o)?,
            6 => msg_id = opt(&mut o)?,
            7 => block = u32::try_from(o.u64()?).ok()?,
            8 => ts = opt(&mut o)?,
            9 => role = req(&mut o)?,
            10 => kind = req(&mut o)?,
            11 => tool = opt(&mut o)?,
            12 => tool_id = opt(&mut o)?,
            13 => {
                input = if o.null()? {
                    None
                } else {
                    Some(scan_input(&mut o)?)
                }
            }
            14 => {
                text = if o.null()? {
                    None
                } else {
                    Some(RawText(o.string()?.of(line)))
                }
            }
            15 => is_error = if o.null()? { None } else { Some(o.bool()?) },
            16 => sidechain = o.bool()?,
            _ => cwd = opt(&mut o)?,
        }
    }
    if !at_end(b, o.pos()) {
        return None;
    }
    Some(RawEvent {
        session: session?,
        source: source?,
        line: line_no?,
        seq: seq?,
        uuid,
        parent,
        msg_id,
        block,
        ts,
        role: role?,
        kind: kind?,
        tool,
        tool_id,
        input,
        text,
        is_error,
        sidechain,
        cwd,
    })
}

/// A string read by the scanner from `line`, decoded; `None` when it
/// holds a `\u` escape (left to serde, which checks surrogates).
#[inline]
fn decoded<'a>(line: &'a str, s: RawStr<'_>) -> Option<Cow<'a, str>> {
    let raw = s.of(line);
    if !s.escaped {
        return Some(Cow::Borrowed(raw));
    }
    // possibly `\\u` (an escaped backslash, then `u`): then the serde path
    // decodes it, with the same result
    if s.has_u_escape() {
        return None;
    }
    Some(crate::text::unescape_prefix(raw, usize::MAX))
}

/// The field an event line's key names, from the bytes after the key's
/// opening quote: its number (as `scan_event` counts them) and the length
/// of the name with its closing quote, when those bytes are a field's name
/// then `"` (so the key is exactly that name); `None` for any other key.
/// A first-byte switch, then fixed-length compares.
fn event_field(rest: &[u8]) -> Option<(u32, usize)> {
    // each name a constant, so each compare is a few loads
    macro_rules! pick {
        ($($name:literal => $bit:expr),+) => {{
            $(if rest.starts_with($name) {
                return Some(($bit, $name.len()));
            })+
            None
        }};
    }
    match *rest.first()? {
        b's' => pick!(b"session\"" => 0, b"source\"" => 1, b"seq\"" => 3, b"sidechain\"" => 16),
        b'l' => pick!(b"line\"" => 2),
        b'u' => pick!(b"uuid\"" => 4),
        b'p' => pick!(b"parent\"" => 5),
        b'm' => pick!(b"msg_id\"" => 6),
        b'b' => pick!(b"block\"" => 7),
        b't' => pick!(b"ts\"" => 8, b"tool\"" => 11, b"tool_id\"" => 12, b"text\"" => 14),
        b'r' => pick!(b"role\"" => 9),
        b'k' => pick!(b"kind\"" => 10),
        b'i' => pick!(b"input\"" => 13, b"is_error\"" => 15),
        b'c' => pick!(b"cwd\"" => 17),
        _ => None,
    }
}

/// A tool's input read by the scanner (the cursor on it), as
/// [`ToolInputFields`] reads it (the last of a repeated key wins); `None`
/// when not sure.
fn scan_input(o: &mut Obj<'_>) -> Option<ToolInputFields> {
    let mut i = ToolInputFields::default();
    if o.peek()? != b'{' {
        // not an object: checked by serde_json as a value (a number out of
        // range is an error there, not for a skipped field)
        serde_json::from_slice::<Value>(o.skip_value()?).ok()?;
        return Some(i);
    }
    // its members' values nest from depth 0 too
    let mut m = o.object()?.with_depth(0);
    // no name is matched at the cursor: every key comes whole
    while let Some(k) = m.next_member(|_| None)? {
        match k.err().and_then(|k| i.slot_mut(k)) {
            Some(slot) => *slot = Some(serde_json::from_slice(m.skip_value()?).ok()?),
            None => {
                m.skip_value()?;
            }
        }
    }
    o.set_pos(m.pos());
    Some(i)
}

/// One stream, with the reading rules of [`mem_core::jsonl::for_each_record`];
/// events are handed to `f` only while no line of the input was bad.
fn read_one(
    input: impl Read,
    name: &str,
    errs: &mut Vec<Error>,
    f: &mut impl FnMut(EventView<'_>),
) {
    let mut bad = !errs.is_empty();
    let found = for_each_record(input, name, |_, bytes| match parse(bytes) {
        Ok(ev) => {
            if !bad {
                f(ev.view());
            }
            Ok(())
        }
        Err(e) => {
            bad = true;
            Err(describe(&e))
        }
    });
    errs.extend(found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{ExtractOptions, Extractor, extract};

    /// The scanner reads a line exactly as serde does, or leaves it to serde;
    /// a bad line's error is the strict parse's.
    #[test]
    fn scanner_agrees_with_serde() {
        let good = [
            r#"{"session":"s","source":"claude","line":3,"seq":0,"uuid":"u1","block":0,"ts":"2026-07-11T00:00:01Z","role":"user","kind":"text","text":"Never push\nto \"main\". \u00e9 \ud83d\ude00","sidechain":false,"cwd":"/p"}"#,
            r#" { "session" : "s" , "source":"codex","line":1,"seq":9,"role":"tool","kind":"tool_result","tool_id":"t1","text":"out\\put\tx","is_error":null,"extra":[1,-2.5e3,{"a":null}],"sidechain":true } "#,
            r#"{"session":"s","source":"claude","line":2,"seq":1,"role":"assistant","kind":"tool_use","tool":"Bash","tool_id":"t","input":{"command":["bash","-lc","make gen"],"x":{"command":1},"file_path":"/a/b"}}"#,
            r#"{"session":"s","source":"claude","line":2,"seq":1,"role":"assistant","kind":"tool_use","tool":"Bash","input":{"command":"make a","command":"make b"}}"#,
            r#"{"session":"s","source":"claude","line":2,"seq":1,"role":"assistant","kind":"tool_use","input":"str"}"#,
            r#"{"session":"s\/x","source":"claude","line":2,"seq":1,"role":"user","kind":"text","uuid":null,"text":null}"#,
        ];
        for l in good {
            let serde = serde_json::from_str::<RawEvent<'_, RawText<'_>>>(l)
                .unwrap()
                .view();
            let scan = scan_event(l).expect(l).view();
            assert_eq!(format!("{serde:?}"), format!("{scan:?}"), "{l}");
        }
        let bad = [
            r#"{"session":"s","source":"claude","line":"1","seq":1,"role":"user","kind":"text"}"#,
            r#"{"session":"s","source":"claude","line":1,"seq":1,"role":"user","kind":"text","text":5}"#,
            r#"{"session":"s","source":"claude","line":1,"seq":1,"role":"user","kind":"text","line":2}"#,
            r#"{"session":"s","source":"claude","line":1,"seq":1,"role":"user","kind":"text","text":"\x"}"#,
            r#"{"session":"s","source":"claude","line":1,"seq":1,"role":"user","kind":"text","input":1e999}"#,
            r#"{"session":"s","source":"claude","line":1,"seq":1,"role":"user"}"#,
            r#"{"session":"s","source":"claude","line":1,"seq":1,"role":"user","kind":"text"} x"#,
            r#"{"session":"s","source":"claude","line":01,"seq":1,"role":"user","kind":"text"}"#,
            "{\"session\":\"s\",\"source\":\"claude\",\"line\":1,\"seq\":1,\"role\":\"user\",\"kind\":\"text\",\"text\":\"a\tb\"}",
        ];
        for l in bad {
            assert!(scan_event(l).is_none(), "{l}");
            let Err(strict) = serde_json::from_str::<RawEvent<'_, StrictText>>(l) else {
                panic!("strict parse accepted {l}");
            };
            let got = parse(l.as_bytes()).err().expect(l);
            assert_eq!(describe(&got), describe(&strict), "{l}");
        }
    }

    /// A key is a field's exactly when its bytes are the name then the
    /// closing quote; any other key is read whole, one with an escape not
    /// at all.
    #[test]
    fn event_fields_are_the_names_exactly() {
        let names = [
            "session",
            "source",
            "line",
            "seq",
            "uuid",
            "parent",
            "msg_id",
            "block",
            "ts",
            "role",
            "kind",
            "tool",
            "tool_id",
            "input",
            "text",
            "is_error",
            "sidechain",
            "cwd",
        ];
        // the first member of `{…}` with `member` inside
        let first = |member: &str| {
            let line = format!("{{{member}}}");
            let mut o = Obj::open(line.as_bytes(), 0, 0)?;
            let key = o.next_member(event_field)?;
            Some((key.map(|k| k.map_err(|k| k.to_vec())), o.u64()))
        };
        for (bit, name) in names.iter().enumerate() {
            let got = first(&format!(" \"{name}\" : 1"));
            assert_eq!(got, Some((Some(Ok(bit as u32)), Some(1))), "{name}");
        }
        for key in [
            "sessionx", "sessio", "tool_i", "Session", "t", "", "cwd2", "éx",
        ] {
            let got = first(&format!("\"{key}\":1"));
            let want = Some((Some(Err(key.as_bytes().to_vec())), Some(1)));
            assert_eq!(got, want, "{key}");
        }
        for bad in [
            r#""sess\u0069on":1"#,
            r#""cwd\"":1"#,
            r#""cwd"1"#,
            r#""cwd"#,
        ] {
            assert_eq!(first(bad), None, "{bad}");
        }
    }

    #[test]
    fn streaming_equals_extract_over_parsed_events() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ev.jsonl");
        let big = "output line\n".repeat(20_000) + "error: run make gen first\n";
        let ev = |line: u64, v: serde_json::Value| {
            let mut base = serde_json::json!({"session": "s1", "source": "claude", "line": line,
                "seq": line, "uuid": format!("u{line}"), "ts": "2026-07-11T10:00:00Z",
                "cwd": "/home/user/proj"});
            base.as_object_mut()
                .unwrap()
                .extend(v.as_object().unwrap().clone());
            base.to_string() + "\n"
        };
        let mut text = String::new();
        text += &ev(
            1,
            serde_json::json!({"role": "user", "kind": "text",
            "text": "Never push to main.\nBecause CI deploys it."}),
        );
        for (i, (cmd, out, err)) in [
            ("make build", big.as_str(), true),
            ("make gen", "ok", false),
            ("make build", "ok", false),
        ]
        .iter()
        .enumerate()
        {
            let n = 2 + 2 * i as u64;
            text += &ev(
                n,
                serde_json::json!({"role": "assistant", "kind": "tool_use",
                "tool": "Bash", "tool_id": format!("t{i}"), "input": {"command": cmd, "x": [1, 2]}}),
            );
            text += &ev(
                n + 1,
                serde_json::json!({"role": "tool", "kind": "tool_result",
                "tool_id": format!("t{i}"), "text": out, "is_error": err}),
            );
        }
        std::fs::write(&p, &text).unwrap();
        let events = crate::events::read_events(std::slice::from_ref(&p)).unwrap();
        let whole = extract(&events, &ExtractOptions::default());
        let mut x = Extractor::new(ExtractOptions::default());
        let mut lens = Vec::new();
        let errs = for_each_event_checked(std::slice::from_ref(&p), |v| {
            if let Some(t) = &v.text {
                lens.push((matches!(t, EventText::Escaped(_)), t.byte_len()));
            }
            x.push(&v);
        });
        assert!(errs.is_empty(), "{errs:?}");
        let streamed = x.finish();
        assert_eq!(whole.memories, streamed.memories);
        assert_eq!(whole.notes, streamed.notes);
        assert_eq!(whole.memories.len(), 2, "{:?}", whole.memories);
        // the long output was kept as read (not decoded), its length known
        assert!(lens.contains(&(true, big.len())), "{lens:?}");
    }
}
