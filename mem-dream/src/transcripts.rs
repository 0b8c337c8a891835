//! The project's sessions: which transcripts count for the session gate,
//! and their user text as events for extraction.
//!
//! A session is a Claude Code transcript `<session-id>.jsonl` directly in a
//! transcript folder (sub-agent files `agent-*.jsonl` are not sessions). Its
//! recorded `cwd` and `entrypoint` are read from the first lines only.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use mem_core::records::Event;
use serde_json::Value;

/// How many leading lines are looked at for `cwd` and `entrypoint`.
const HEAD_LINES: usize = 50;
/// How many leading bytes are looked at for `cwd` and `entrypoint`.
const HEAD_BYTES: u64 = 256 * 1024;

/// One session transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The file.
    pub path: PathBuf,
    /// The session id (the file stem).
    pub id: String,
    /// The file's mtime.
    pub mtime: SystemTime,
    /// The first recorded `cwd`, if any.
    pub cwd: Option<String>,
    /// The first recorded `entrypoint`, if any (`cli`, `sdk-ts`, `mem-dream`, …).
    pub entrypoint: Option<String>,
}

/// First 12 hex digits of BLAKE3 of a session id: the digest of evidence
/// pointers `transcript:<digest>#<line>`.
pub fn digest(session_id: &str) -> String {
    blake3::hash(session_id.as_bytes()).to_hex()[..12].to_string()
}

/// Every session file of `dirs`, sorted by mtime then path. Unreadable
/// folders are skipped.
pub fn list(dirs: &[PathBuf]) -> Vec<Session> {
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".jsonl") else {
                continue;
            };
            if stem.starts_with("agent-") || stem.starts_with('.') {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let (cwd, entrypoint) = head_info(&path);
            out.push(Session {
                id: stem.to_string(),
                mtime: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                path,
                cwd,
                entrypoint,
            });
        }
    }
    out.sort_by(|a, b| a.mtime.cmp(&b.mtime).then_with(|| a.path.cmp(&b.path)));
    out
}

/// The first `cwd` and `entrypoint` recorded in the head of a transcript.
fn head_info(path: &Path) -> (Option<String>, Option<String>) {
    let Ok(f) = std::fs::File::open(path) else {
        return (None, None);
    };
    let reader = BufReader::new(f.take(HEAD_BYTES));
    let (mut cwd, mut entry) = (None, None);
    for line in reader.split(b'\n').take(HEAD_LINES) {
        let Ok(line) = line else { break };
        let Ok(v) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        if cwd.is_none() {
            cwd = v.get("cwd").and_then(Value::as_str).map(str::to_string);
        }
        if entry.is_none() {
            entry = v
                .get("entrypoint")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        if cwd.is_some() && entry.is_some() {
            break;
        }
    }
    (cwd, entry)
}

/// The text a user typed, from a Claude Code entry's `message.content`.
fn user_text(v: &Value) -> Option<String> {
    let content = v.get("message")?.get("content")?;
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// The events of a session that extraction reads: the text of `user` and
/// `assistant` entries that are not side chains or meta, in file order, with
/// their line, timestamp and cwd. Malformed lines are reported in `warnings`
/// as `FILE:LINE: reason` and skipped.
pub fn events(session: &Session, warnings: &mut Vec<String>) -> Vec<Event> {
    let Ok(f) = std::fs::File::open(&session.path) else {
        warnings.push(format!("{}: cannot be read", session.path.display()));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (n, line) in BufReader::new(f).split(b'\n').enumerate() {
        let Ok(line) = line else { break };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let v: Value = match serde_json::from_slice(&line) {
            Ok(v) => v,
            Err(e) => {
                warnings.push(format!(
                    "{}:{}: {}",
                    session.path.display(),
                    n + 1,
                    mem_core::jsonl::describe(&e)
                ));
                continue;
            }
        };
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
        if !matches!(ty, "user" | "assistant")
            || v.get("isSidechain").and_then(Value::as_bool) == Some(true)
            || v.get("isMeta").and_then(Value::as_bool) == Some(true)
        {
            continue;
        }
        let Some(text) = user_text(&v) else { continue };
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let ts = s("timestamp")
            .and_then(|t| mem_core::time::parse_ts(&t))
            .map(mem_core::time::fmt_ts);
        out.push(Event {
            session: s("sessionId").unwrap_or_else(|| session.id.clone()),
            source: "claude".into(),
            line: n as u64 + 1,
            seq: out.len() as u64,
            uuid: s("uuid"),
            parent: s("parentUuid"),
            ts,
            role: ty.to_string(),
            kind: "text".into(),
            text: Some(text),
            cwd: s("cwd"),
            ..Default::default()
        });
    }
    out
}

/// The timestamp of the entry on 1-based `line` of a transcript.
pub fn entry_ts(path: &Path, line: u64) -> Option<DateTime<Utc>> {
    let f = std::fs::File::open(path).ok()?;
    let l = BufReader::new(f)
        .split(b'\n')
        .nth(line.checked_sub(1)? as usize)?
        .ok()?;
    let v: Value = serde_json::from_slice(&l).ok()?;
    let ts = v.get("timestamp")?;
    match ts {
        Value::String(s) => mem_core::time::parse_ts(s),
        Value::Number(n) => mem_core::time::from_epoch(n.as_f64()?),
        _ => None,
    }
}
