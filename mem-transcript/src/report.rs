//! `tree`, `verify` (with `--repair`) and `stats`: one report per file,
//! a JSON object per line (jsonl) or a short block of text. Here: loading a
//! file for a report and the sub-agent files of a session; the reports in
//! `tree`, `verify` and `stats`, the node graph they share in `graph`.

mod graph;
mod stats;
mod tree;
mod verify;

pub use stats::stats;
pub use tree::tree;
pub use verify::verify;

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

use mem_core::Error;
use mem_core::jsonl::{parse_lossy, sanitize};
use serde::Deserialize;

use crate::claude::{self, Index};
use crate::codex::{self, Rollout};
use crate::input::{Input, Source, Window, clean_line};
use crate::source_of;

fn io_out(e: std::io::Error) -> Error {
    Error::io("<stdout>", e)
}

/// `items` joined with `, ` for the text reports, or `empty` when there
/// are none.
fn joined_or<S: AsRef<str>>(items: &[S], empty: &str) -> String {
    if items.is_empty() {
        return empty.to_string();
    }
    let parts: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    parts.join(", ")
}

fn write_json(out: &mut dyn Write, v: &impl serde::Serialize) -> Result<(), Error> {
    serde_json::to_writer(&mut *out, v).map_err(|e| io_out(e.into()))?;
    out.write_all(b"\n").map_err(io_out)
}

/// Write one report record `rec` to stdout: a JSON line, or with `text`
/// the text `write_text` makes of it as a JSON value.
fn write_report(
    out: &mut dyn Write,
    rec: &impl serde::Serialize,
    text: bool,
    write_text: impl FnOnce(&mut dyn Write, &serde_json::Value) -> std::io::Result<()>,
) -> Result<(), Error> {
    if !text {
        return write_json(out, rec);
    }
    let v = serde_json::to_value(rec).map_err(|e| io_out(e.into()))?;
    write_text(out, &v).map_err(io_out)
}

/// A file read for a report: either kind, or empty.
pub enum Loaded {
    /// A 0-byte file.
    Empty(Input),
    /// A Claude session and its index.
    Claude(Input, Box<Index>),
    /// A Codex rollout.
    Codex(Input, Rollout),
}

/// Open and index one file. Errors: as [`Input::open`], [`claude::index`], [`codex::read`].
pub fn load(path: &Path, from: crate::FromArg, threads: usize) -> Result<Loaded, Error> {
    let inp = Input::open(path)?;
    if inp.size == 0 {
        return Ok(Loaded::Empty(inp));
    }
    Ok(match source_of(&inp, from)? {
        Source::Claude => {
            let ix = claude::index_with(&inp, threads)?;
            Loaded::Claude(inp, Box::new(ix))
        }
        Source::Codex => {
            let r = codex::read(&inp)?;
            Loaded::Codex(inp, r)
        }
    })
}

#[derive(Deserialize)]
struct UuidOnly<'a> {
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
}

/// The uuid string of `node` (re-read from its line).
pub fn uuid_of(inp: &Input, ix: &Index, node: u32) -> Option<String> {
    let (offset, len) = ix.span(node);
    let mut w = Window::new(&inp.file);
    let raw = w.get(offset, len).ok()?;
    let line = clean_line(raw);
    let clean = sanitize(&line);
    let mut copy = None;
    let (u, _, _) = parse_lossy(&clean, &mut copy, serde_json::from_slice::<UuidOnly>).ok()?;
    u.uuid.map(|c| c.into_owned())
}

/// Sub-agent files of a Claude session: `<dir>/<session>/subagents/*.jsonl`
/// and `agent-*.jsonl` beside the session whose first entry names it.
pub fn subagent_files(path: &Path, session: Option<&str>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else {
        return out;
    };
    let sub = dir.join(stem).join("subagents");
    if let Ok(rd) = std::fs::read_dir(&sub) {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    if let Some(sid) = session
        && let Ok(rd) = std::fs::read_dir(dir)
    {
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("agent-")
                && name.ends_with(".jsonl")
                && p != path
                && first_session_id(&p).as_deref() == Some(sid)
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `sessionId` of the first entry that has one (first 16 lines).
pub fn first_session_id(path: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct S {
        #[serde(rename = "sessionId", default)]
        session: Option<String>,
    }
    let f = std::fs::File::open(path).ok()?;
    let mut rd = mem_core::jsonl::LineReader::new(f);
    for _ in 0..16 {
        let line = rd.next_line().ok()??;
        if let Ok(S { session: Some(s) }) = serde_json::from_slice::<S>(&sanitize(line.bytes)) {
            return Some(s);
        }
    }
    None
}
