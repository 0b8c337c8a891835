//! `ls` (the sessions of a project, Claude Code and Codex alike, filtered
//! by each session's recorded `cwd`) and `locate` (evidence pointers).

use std::io::Write;
use std::path::{Path, PathBuf};

use mem_core::jsonl::{LineReader, parse_lossy, sanitize};
use mem_core::memdir;
use mem_core::records::transcript::{Located, SessionListing};
use mem_core::{Error, Exit};
use serde_json::Value;

use crate::claude::{Content, Entry, META, NodeType, SIDECHAIN, SUMMARY};
use crate::codex;
use crate::error::TranscriptError;
use crate::input::{Input, Source, Window, clean_line};
use crate::report::subagent_files;
use crate::{FromArg, Global, LocateArgs, LsArgs, source_of};

/// One listed session.
#[derive(Debug, Clone, Default)]
pub struct ListedSession {
    /// Session id.
    pub id: String,
    /// `claude` or `codex` (empty when unreadable).
    pub source: &'static str,
    /// The file.
    pub path: PathBuf,
    /// First recorded cwd.
    pub cwd: Option<String>,
    /// Every recorded cwd.
    pub cwds: Vec<String>,
    /// First and last timestamps, ms since the epoch.
    pub start: Option<i64>,
    /// Last timestamp.
    pub end: Option<i64>,
    /// File size in bytes.
    pub size: u64,
    /// Conversation entries (Claude user/assistant/system; Codex messages and tool items).
    pub entries: usize,
    /// First human prompt (at most 120 characters).
    pub first_prompt: Option<String>,
    /// Sub-agent files.
    pub subagents: usize,
    /// What is wrong with the file, if anything.
    pub damage: Vec<String>,
}

/// `*.jsonl` files under `dir` (recursive), without sub-agent files.
pub fn session_files(dir: &Path, recursive: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            let name = e.file_name().to_string_lossy().into_owned();
            if ft.is_dir() {
                if recursive && name != "subagents" && name != "memory" {
                    stack.push(p);
                }
            } else if mem_core::session::is_session_name(&name) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn ms_fmt(t: Option<i64>) -> Option<String> {
    t.and_then(chrono::DateTime::from_timestamp_millis)
        .map(mem_core::time::fmt_ts)
}

fn claude_first_prompt(inp: &Input, ix: &crate::claude::Index) -> Option<String> {
    let mut win = Window::new(&inp.file);
    for (i, _) in (0u32..)
        .zip(&ix.nodes)
        .filter(|(_, n)| {
            n.ty == NodeType::User && !n.has(SIDECHAIN) && !n.has(META) && !n.has(SUMMARY)
        })
        .take(50)
    {
        let (offset, len) = ix.span(i);
        let raw = win.get(offset, len).ok()?;
        let line = clean_line(raw);
        let clean = sanitize(&line);
        let mut copy = None;
        let Ok((e, _, _)) = parse_lossy(&clean, &mut copy, serde_json::from_slice::<Entry>) else {
            continue;
        };
        let text = match e.message.and_then(|m| m.content) {
            Some(Content::Text(t)) => Some(t.into_owned()),
            Some(Content::Blocks(bs)) => bs
                .into_iter()
                .find(|b| b.ty.as_deref() == Some("text"))
                .and_then(|b| b.text.map(|t| t.into_owned())),
            _ => None,
        };
        if let Some(t) = text {
            let t = t.trim();
            if t.is_empty()
                || t.starts_with("<command-")
                || t.starts_with("<local-command")
                || t.starts_with("Caveat:")
            {
                continue;
            }
            let flat: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
            return Some(mem_core::truncate::floor_to_chars(&flat, 120).to_string());
        }
    }
    None
}

/// The damage note for `n` lines read as U+FFFD, the first at line `first`.
fn lossy_damage(n: usize, first: usize) -> String {
    format!("{n} line(s) of invalid UTF-8 read as U+FFFD (first: {first})")
}

/// Summarize one session file; never fails (a damaged file is flagged).
pub fn summarize(path: &Path) -> ListedSession {
    let mut s = ListedSession {
        path: path.to_path_buf(),
        id: path
            .file_stem()
            .map(|x| x.to_string_lossy().into_owned())
            .unwrap_or_default(),
        ..ListedSession::default()
    };
    let inp = match Input::open(path) {
        Ok(i) => i,
        Err(e) => {
            s.damage.push(e.to_string());
            return s;
        }
    };
    s.size = inp.size;
    if inp.size == 0 {
        s.damage.push("empty file".into());
        return s;
    }
    let src = match source_of(&inp, FromArg::Auto) {
        Ok(x) => x,
        Err(e) => {
            s.damage.push(e.to_string());
            return s;
        }
    };
    match src {
        Source::Claude => {
            s.source = "claude";
            let ix = match crate::claude::index(&inp) {
                Ok(ix) => ix,
                Err(e) => {
                    s.damage.push(e.to_string());
                    return s;
                }
            };
            if let Some(id) = &ix.session {
                s.id = id.clone();
            }
            s.cwd = ix.cwd.clone();
            s.cwds = ix.cwds.clone();
            let ts = ix.nodes.iter().map(|n| n.ts).filter(|&t| t != i64::MIN);
            s.start = ts.clone().min();
            s.end = ts.max();
            s.entries = ix.nodes.iter().filter(|n| n.ty.is_conversation()).count();
            s.first_prompt = claude_first_prompt(&inp, &ix);
            s.subagents = subagent_files(path, ix.session.as_deref()).len();
            if !ix.bad_lines.is_empty() {
                s.damage.push(format!(
                    "{} unreadable line(s) (first: {})",
                    ix.bad_lines.len(),
                    ix.bad_lines[0]
                ));
            }
            if let Some(first) = ix.lossy.first() {
                s.damage.push(lossy_damage(ix.lossy.len(), *first));
            }
            if s.entries == 0 {
                s.damage.push("no conversation entries".into());
            }
        }
        Source::Codex => {
            s.source = "codex";
            let r = match codex::read(&inp) {
                Ok(r) => r,
                Err(e) => {
                    s.damage.push(e.to_string());
                    return s;
                }
            };
            s.id = r.session.clone();
            s.cwd = r.cwd.clone();
            s.cwds = r.cwd.iter().cloned().collect();
            let ts: Vec<i64> = r
                .items
                .iter()
                .filter_map(|i| {
                    i.value["timestamp"]
                        .as_str()
                        .and_then(crate::event::ts_millis)
                })
                .collect();
            s.start = ts.iter().copied().min();
            s.end = ts.iter().copied().max();
            let has_msgs = !r.plan(false).use_event_msgs;
            s.entries = r
                .items
                .iter()
                .filter(|i| {
                    let t = i.value["payload"]["type"].as_str().unwrap_or("");
                    if i.value["type"] == "response_item" {
                        t == "message" || t.ends_with("_call") || t.ends_with("_output")
                    } else {
                        !has_msgs
                            && i.value["type"] == "event_msg"
                            && (t == "user_message" || t == "agent_message")
                    }
                })
                .count();
            s.first_prompt = r.items.iter().find_map(|i| {
                let p = &i.value["payload"];
                let t = if i.value["type"] == "response_item" && p["role"] == "user" {
                    p["content"]
                        .as_array()?
                        .iter()
                        .find_map(|b| b["text"].as_str())?
                } else if !has_msgs && p["type"] == "user_message" {
                    p["message"].as_str()?
                } else {
                    return None;
                };
                let t = t.trim();
                if [
                    "<environment_context>",
                    "<user_instructions>",
                    "# AGENTS.md",
                ]
                .iter()
                .any(|m| t.starts_with(m))
                {
                    return None;
                }
                let flat: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
                Some(mem_core::truncate::floor_to_chars(&flat, 120).to_string())
            });
            if r.meta_damaged {
                s.damage
                    .push("metadata damaged (session id from the file name)".into());
            }
            if !r.bad_lines.is_empty() {
                s.damage.push(format!(
                    "{} unreadable line(s) (first: {})",
                    r.bad_lines.len(),
                    r.bad_lines[0]
                ));
            }
            if let Some(first) = r.lossy.first() {
                s.damage.push(lossy_damage(r.lossy.len(), *first));
            }
        }
    }
    s
}

fn session_record(s: &ListedSession) -> SessionListing {
    SessionListing {
        id: s.id.clone(),
        source: s.source.to_string(),
        path: s.path.display().to_string(),
        cwd: s.cwd.clone(),
        start: ms_fmt(s.start),
        end: ms_fmt(s.end),
        size: s.size,
        entries: s.entries as u64,
        first_prompt: s.first_prompt.clone(),
        subagents: s.subagents as u64,
        damaged: !s.damage.is_empty(),
        damage: s.damage.clone(),
    }
}

/// The directory the tool acts for: `--cwd`, else the working directory.
///
/// Errors: [`Error::Env`] when the working directory is unknown.
pub fn cwd_of(global: &Global) -> Result<PathBuf, Error> {
    match &global.cwd {
        Some(c) => Ok(c.clone()),
        None => std::env::current_dir()
            .map_err(|e| Error::Env(format!("cannot read the working directory: {e}"))),
    }
}

/// `ls [DIR]`.
///
/// Errors: [`Error::Env`] (no home), [`Error::Io`] when DIR is missing.
pub fn ls(args: &LsArgs, global: &Global, text: bool, out: &mut dyn Write) -> Result<Exit, Error> {
    let cwd = cwd_of(global)?;
    let roots = memdir::project_worktrees(&cwd);
    let mut files: Vec<(PathBuf, bool)> = Vec::new(); // (file, in args slug folder)
    match &args.dir {
        Some(d) => {
            let meta = std::fs::metadata(d).map_err(|e| Error::io(d, e))?;
            if meta.is_dir() {
                files.extend(session_files(d, true).into_iter().map(|p| (p, true)));
            } else {
                files.push((d.clone(), true));
            }
        }
        None => {
            let codex = memdir::codex_home()?.join("sessions");
            if args.all {
                let projects = memdir::projects_dir()?;
                if let Ok(rd) = std::fs::read_dir(&projects) {
                    for e in rd.flatten() {
                        if e.file_type().is_ok_and(|t| t.is_dir()) {
                            files.extend(
                                session_files(&e.path(), false)
                                    .into_iter()
                                    .map(|p| (p, true)),
                            );
                        }
                    }
                }
            } else {
                for d in memdir::transcript_dirs_for(&roots)? {
                    files.extend(session_files(&d, false).into_iter().map(|p| (p, true)));
                }
            }
            files.extend(session_files(&codex, true).into_iter().map(|p| (p, false)));
        }
    }
    let mut rows: Vec<ListedSession> = Vec::new();
    for (f, slug_folder) in files {
        let s = summarize(&f);
        let keep = args.all
            || if s.cwds.is_empty() {
                // Nothing recorded to filter on: keep what sits in the
                // project's own folder (or DIR), flagged.
                slug_folder
            } else {
                s.cwds.iter().any(|c| memdir::cwd_in_roots(c, &roots))
            };
        if keep {
            rows.push(s);
        }
    }
    rows.sort_by(|x, y| y.end.cmp(&x.end).then_with(|| x.path.cmp(&y.path)));
    if args.latest {
        rows.retain(|s| s.entries > 0);
        rows.truncate(1);
    }
    if text {
        for s in &rows {
            let flags = if s.damage.is_empty() {
                String::new()
            } else {
                format!("  [DAMAGED: {}]", s.damage.join("; "))
            };
            writeln!(
                out,
                "{}  {:<6} {} .. {}  {:>9} B  {:>5} entries  {} sub-agents  cwd {}{}\n    {}\n    {}",
                s.id,
                s.source,
                ms_fmt(s.start).as_deref().unwrap_or("-"),
                ms_fmt(s.end).as_deref().unwrap_or("-"),
                s.size,
                s.entries,
                s.subagents,
                s.cwd.as_deref().unwrap_or("-"),
                flags,
                s.path.display(),
                s.first_prompt.as_deref().unwrap_or("-"),
            )
            .map_err(|e| Error::io("<stdout>", e))?;
        }
    } else {
        for s in &rows {
            serde_json::to_writer(&mut *out, &session_record(s))
                .map_err(|e| Error::io("<stdout>", e.into()))?;
            out.write_all(b"\n").map_err(|e| Error::io("<stdout>", e))?;
        }
    }
    if rows.is_empty() {
        eprintln!("no sessions found for {}", cwd.display());
    }
    Ok(Exit::Success)
}

pub use mem_core::session::digest;

/// Parse `transcript:<12 hex>#<line>`. Errors: [`Error::Input`].
pub fn parse_pointer(pointer: &str) -> Result<(String, usize), Error> {
    let bad = || {
        Error::input(
            "<argument>",
            0,
            format!("{pointer:?} is not an evidence pointer transcript:<12 hex>#<line>"),
        )
    };
    let rest = pointer.strip_prefix("transcript:").ok_or_else(bad)?;
    let (d, l) = rest.split_once('#').ok_or_else(bad)?;
    if d.len() != 12 || !d.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let line: usize = l.parse().map_err(|_| bad())?;
    if line == 0 {
        return Err(bad());
    }
    Ok((d.to_ascii_lowercase(), line))
}

/// The text of one content block: a text block's text, a tool call as
/// `NAME: input` (its `command` when it has one), a tool result's output,
/// a thinking block's thinking.
fn block_text(b: &Value) -> Option<String> {
    if let Some(t) = b.as_str() {
        return Some(t.to_string());
    }
    match b["type"].as_str().unwrap_or("") {
        "tool_use" => {
            let input = &b["input"];
            let what = input["command"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| input.to_string());
            Some(format!("{}: {what}", b["name"].as_str().unwrap_or("tool")))
        }
        "tool_result" => content_text(&b["content"]),
        "thinking" => b["thinking"].as_str().map(str::to_string),
        _ => b["text"].as_str().map(str::to_string),
    }
}

/// The text of a message's content: a string, or its blocks' texts joined
/// by newlines.
fn content_text(c: &Value) -> Option<String> {
    match c {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().filter_map(block_text).collect();
            (!parts.is_empty()).then(|| parts.join("\n"))
        }
        _ => None,
    }
}

/// The text an evidence pointer's entry holds, for people: a Claude Code
/// message's content (text, tool call, tool result), a compaction summary,
/// a Codex item's content, arguments or output, or an event message.
pub fn entry_text(entry: &Value) -> Option<String> {
    let p = &entry["payload"];
    content_text(&entry["message"]["content"])
        .or_else(|| entry["summary"].as_str().map(str::to_string))
        .or_else(|| content_text(&p["content"]))
        .or_else(|| p["message"].as_str().map(str::to_string))
        .or_else(|| {
            p["arguments"]
                .as_str()
                .map(|a| format!("{}: {a}", p["name"].as_str().unwrap_or("tool")))
        })
        .or_else(|| p["output"].as_str().map(str::to_string))
        .or_else(|| entry["content"].as_str().map(str::to_string))
}

/// `locate POINTER [DIR]`.
///
/// Errors: [`Error::Input`] for a bad pointer, [`TranscriptError::NoSuchSession`] when no
/// transcript matches.
pub fn locate(
    a: &LocateArgs,
    _g: &Global,
    text: bool,
    out: &mut dyn Write,
) -> Result<Exit, TranscriptError> {
    let (d, line_no) = parse_pointer(&a.pointer)?;
    let dirs = match &a.dir {
        Some(d) => vec![d.clone()],
        None => vec![
            memdir::projects_dir()?,
            memdir::codex_home()?.join("sessions"),
        ],
    };
    let mut found = None;
    'outer: for dir in &dirs {
        for f in session_files(dir, true) {
            let stem = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut ids = vec![stem.clone()];
            if let Some(c) = codex::id_from_name(&stem) {
                ids.push(c);
            }
            if let Some(id) = ids.into_iter().find(|id| digest(id) == d) {
                found = Some((f, id));
                break 'outer;
            }
        }
    }
    let Some((file, session)) = found else {
        return Err(TranscriptError::NoSuchSession {
            pointer: a.pointer.clone(),
            dirs,
        });
    };
    let f = std::fs::File::open(&file).map_err(|e| Error::io(&file, e))?;
    let mut rd = LineReader::new(f);
    let mut entry: Option<Value> = None;
    while let Some(l) = rd.next_line().map_err(|e| Error::io(&file, e))? {
        if l.no == line_no {
            let clean = sanitize(l.bytes);
            let mut copy = None;
            entry = parse_lossy(&clean, &mut copy, serde_json::from_slice::<Value>)
                .ok()
                .map(|(v, _, _)| v);
            if entry.is_none() {
                return Err(Error::input(
                    file.display().to_string(),
                    line_no,
                    "line is not readable JSON",
                )
                .into());
            }
            break;
        }
    }
    let Some(e) = entry else {
        return Err(Error::input(
            file.display().to_string(),
            line_no,
            "the transcript has fewer lines than the pointer names",
        )
        .into());
    };
    let ty = e["type"].as_str().unwrap_or("").to_string();
    let ts = e["timestamp"].as_str().map(str::to_string);
    let snippet =
        entry_text(&e).map(|t| mem_core::truncate::floor_to_chars(t.trim(), 300).to_string());
    let v = Located {
        pointer: a.pointer.clone(),
        file: file.display().to_string(),
        line: line_no as u64,
        session: session.clone(),
        entry_type: ty.clone(),
        ts: ts.clone(),
        text: snippet.clone(),
    };
    if text {
        writeln!(
            out,
            "{}:{}\n  session {}  {}  {}\n  {}",
            file.display(),
            line_no,
            session,
            ty,
            ts.as_deref().unwrap_or("-"),
            snippet.as_deref().unwrap_or("-")
        )
        .map_err(|e| Error::io("<stdout>", e))?;
    } else {
        serde_json::to_writer(&mut *out, &v).map_err(|e| Error::io("<stdout>", e.into()))?;
        out.write_all(b"\n").map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Regression: tool calls and results located as `null`.
    #[test]
    fn every_kind_of_entry_has_its_text() {
        let t = |v: Value| entry_text(&v);
        assert_eq!(
            t(json!({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"make test"}}]}})).as_deref(),
            Some("Bash: make test")
        );
        assert_eq!(
            t(json!({"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"12 passing"}]}]}})).as_deref(),
            Some("12 passing")
        );
        assert_eq!(
            t(json!({"type":"user","message":{"content":[{"type":"tool_result","content":"error: no db"}]}})).as_deref(),
            Some("error: no db")
        );
        assert_eq!(
            t(json!({"type":"user","message":{"content":"use pnpm"}})).as_deref(),
            Some("use pnpm")
        );
        assert_eq!(
            t(json!({"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}"}})).as_deref(),
            Some("shell: {\"command\":[\"ls\"]}")
        );
        assert_eq!(
            t(json!({"type":"response_item","payload":{"type":"function_call_output","output":"ok"}})).as_deref(),
            Some("ok")
        );
        assert_eq!(t(json!({"type":"file-history-snapshot"})), None);
    }

    #[test]
    fn pointers_parse() {
        assert_eq!(
            parse_pointer("transcript:3f9a0c1d2e4b#17").unwrap(),
            ("3f9a0c1d2e4b".into(), 17)
        );
        assert!(parse_pointer("transcript:3f9a#17").is_err());
        assert!(parse_pointer("file:src/a.rs").is_err());
        assert!(parse_pointer("transcript:3f9a0c1d2e4b#0").is_err());
        assert_eq!(digest("x").len(), 12);
    }
}
