//! Reading events without holding them (the `mem-extract` binary).
//!
//! Each JSONL line is validated exactly like a [`mem_core::records::Event`]
//! (same required fields and types, unknown fields allowed) but viewed as an
//! [`EventView`] borrowed from the line: strings without escapes are not
//! copied, a tool's `input` keeps only its command and written path, and a
//! long text is copied only up to a window (see [`EventView`]). Memory stays
//! bounded by the longest line whatever the stream's length.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::io::Read;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use mem_core::Error;
use mem_core::jsonl::{describe, for_each_record};
use mem_core::truncate::floor_to_bytes;

use crate::extract::{EventView, MAX_MESSAGE_BYTES, command_in, min_text_window, write_path_of};

thread_local! {
    /// Bytes of a long escaped text kept while reading.
    static WINDOW: Cell<usize> = const { Cell::new(4096) };
}

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

/// A text: borrowed whole when it has no escapes, else copied whole when
/// short (a message) or up to the window (a long tool output).
struct Text<'a> {
    text: Cow<'a, str>,
    len: usize,
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text {
                    text: Cow::Borrowed(v),
                    len: v.len(),
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                let lead = v.len() - v.trim_start().len();
                let keep = if v.len() - lead <= MAX_MESSAGE_BYTES {
                    v
                } else {
                    floor_to_bytes(v, WINDOW.with(Cell::get).max(lead + 1024))
                };
                Ok(Text {
                    text: Cow::Owned(keep.to_owned()),
                    len: v.len(),
                })
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text {
                    len: v.len(),
                    text: Cow::Owned(v),
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// What extraction reads of a tool's input: any JSON value is accepted; of
/// an object only `command`, `cmd` and the written path are kept.
#[derive(Default)]
struct Input {
    command: Option<Value>,
    cmd: Option<Value>,
    file_path: Option<Value>,
    path: Option<Value>,
    notebook_path: Option<Value>,
}

impl Input {
    fn get(&self, k: &str) -> Option<&Value> {
        match k {
            "command" => self.command.as_ref(),
            "cmd" => self.cmd.as_ref(),
            "file_path" => self.file_path.as_ref(),
            "path" => self.path.as_ref(),
            "notebook_path" => self.notebook_path.as_ref(),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Input;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Input, A::Error> {
                let mut i = Input::default();
                while let Some(k) = m.next_key::<Str<'de>>()? {
                    let slot = match &*k.0 {
                        "command" => &mut i.command,
                        "cmd" => &mut i.cmd,
                        "file_path" => &mut i.file_path,
                        "path" => &mut i.path,
                        "notebook_path" => &mut i.notebook_path,
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(m.next_value::<Value>()?);
                }
                Ok(i)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Input, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Input::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Input, E> {
                Ok(Input::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Input, E> {
                Ok(Input::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Input, E> {
                Ok(Input::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Input, E> {
                Ok(Input::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Input, E> {
                Ok(Input::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Input, E> {
                Ok(Input::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields of [`mem_core::records::Event`], in its order, with its types
/// and defaults.
#[derive(Deserialize)]
struct RawEvent<'a> {
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
    input: Option<Input>,
    #[serde(default, borrow)]
    text: Option<Text<'a>>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default)]
    sidechain: bool,
    #[serde(default, borrow)]
    cwd: Option<Str<'a>>,
}

impl<'a> RawEvent<'a> {
    fn view(self) -> EventView<'a> {
        let tool = self.tool.map(|s| s.0);
        let (command, path) = match &self.input {
            Some(i) => (
                command_in(tool.as_deref().unwrap_or(""), |k| i.get(k)),
                write_path_of(|k| i.get(k)).map(|p| Cow::Owned(p.to_string())),
            ),
            None => (None, None),
        };
        let (text, text_len) = match self.text {
            Some(t) => (Some(t.text), t.len),
            None => (None, 0),
        };
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
            text,
            text_len,
            is_error: self.is_error,
            sidechain: self.sidechain,
            cwd: self.cwd.map(|s| s.0),
        }
    }
}

/// Read event records from `files` (stdin when empty) and pass each, in
/// order, to `f`; nothing is kept. Long texts are cut to a window of at least
/// `window` bytes ([`min_text_window`] at least). Every bad line is reported
/// on stderr and `f` is not called after the first; that first one is
/// returned as the error.
///
/// Errors: [`Error::Input`] naming the file and line (a line that is not an
/// event, a last line without newline), [`Error::Io`].
pub fn for_each_event(
    files: &[PathBuf],
    window: usize,
    mut f: impl FnMut(EventView<'_>),
) -> Result<(), Error> {
    WINDOW.with(|w| w.set(window.max(min_text_window(0))));
    let mut errs = Vec::new();
    if files.is_empty() {
        read_one(std::io::stdin().lock(), "<stdin>", &mut errs, &mut f);
    } else {
        for p in files {
            let file = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
            read_one(file, &p.display().to_string(), &mut errs, &mut f);
        }
    }
    let mut it = errs.into_iter();
    match it.next() {
        None => Ok(()),
        Some(first) => {
            for e in it {
                eprintln!("mem-extract: {e}");
            }
            Err(first)
        }
    }
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
    let found = for_each_record(input, name, |_, bytes| {
        match serde_json::from_slice::<RawEvent<'_>>(bytes) {
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
        }
    });
    errs.extend(found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{ExtractOptions, Extractor, extract};

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
        let events = crate::read_events(std::slice::from_ref(&p)).unwrap();
        let whole = extract(&events, &ExtractOptions::default());
        let mut x = Extractor::new(ExtractOptions::default());
        let mut lens = Vec::new();
        for_each_event(std::slice::from_ref(&p), 0, |v| {
            lens.push((v.text.as_deref().map_or(0, str::len), v.text_len));
            x.push(&v);
        })
        .unwrap();
        let streamed = x.finish();
        assert_eq!(whole.memories, streamed.memories);
        assert_eq!(whole.notes, streamed.notes);
        assert_eq!(whole.memories.len(), 2, "{:?}", whole.memories);
        // the long output was cut to a window, its length kept
        assert!(lens.contains(&(min_text_window(0), big.len())), "{lens:?}");
    }
}
