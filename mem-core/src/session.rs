//! What every tool needs to know of a session file without replaying it:
//! its head (the recorded `cwd` and `entrypoint`), the listing of a
//! transcript folder's sessions, and the digest that evidence pointers
//! (`transcript:<digest>#<line>`) name a session by.
//!
//! Used by `mem-transcript ls`/`locate`, mem-dream's gates, mem-recall's
//! cross-project guard and extraction's evidence pointers
//! (docs/records.md "Evidence pointers").

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::Deserialize;

/// Bytes read from the start of a session file for its head.
pub const HEAD_BYTES: u64 = 256 * 1024;

/// First 12 hex digits of BLAKE3 of a session id: how evidence pointers
/// `transcript:<digest>#<line>` name a session without writing its id.
pub fn digest(session_id: &str) -> String {
    blake3::hash(session_id.as_bytes()).to_hex()[..12].to_string()
}

/// The head of a session: what its first entries recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    /// The first non-empty `cwd` (Claude entries' `cwd`, or a Codex
    /// `session_meta` payload's).
    pub cwd: Option<String>,
    /// The first `entrypoint` (`cli`, `sdk-ts`, `mem-dream`, …).
    pub entrypoint: Option<String>,
}

#[derive(Deserialize)]
struct HeadLine {
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    entrypoint: Option<String>,
    #[serde(default)]
    payload: Option<Payload>,
}

#[derive(Deserialize)]
struct Payload {
    #[serde(default)]
    cwd: Option<String>,
}

/// The head of the session file at `path`, from its first [`HEAD_BYTES`];
/// lines that are not JSON objects are passed over. An unreadable file has
/// an empty head.
pub fn head(path: &Path) -> Head {
    let mut h = Head::default();
    let Ok(f) = std::fs::File::open(path) else {
        return h;
    };
    for line in BufReader::new(f.take(HEAD_BYTES)).split(b'\n') {
        let Ok(line) = line else { break };
        let has = |k: &[u8]| memchr::memmem::find(&line, k).is_some();
        if !has(b"\"cwd\"") && !has(b"\"entrypoint\"") {
            continue;
        }
        let Ok(l) = serde_json::from_slice::<HeadLine>(&line) else {
            continue;
        };
        if h.cwd.is_none() {
            h.cwd = l
                .cwd
                .or(l.payload.and_then(|p| p.cwd))
                .filter(|c| !c.is_empty());
        }
        if h.entrypoint.is_none() {
            h.entrypoint = l.entrypoint;
        }
        if h.cwd.is_some() && h.entrypoint.is_some() {
            break;
        }
    }
    h
}

/// One session file of a transcript folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// The file.
    pub path: PathBuf,
    /// The session id (the file stem).
    pub id: String,
    /// The file's mtime.
    pub mtime: SystemTime,
    /// What its first entries recorded.
    pub head: Head,
}

/// True for a file name that is a main session's transcript: `*.jsonl`,
/// not a sub-agent's `agent-*.jsonl`, not hidden.
pub fn is_session_name(name: &str) -> bool {
    name.ends_with(".jsonl") && !name.starts_with("agent-") && !name.starts_with('.')
}

/// Every session file directly in `dirs`, sorted by mtime then path.
/// Unreadable folders and entries are passed over.
pub fn list(dirs: &[PathBuf]) -> Vec<SessionFile> {
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !is_session_name(&name) {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let path = e.path();
            out.push(SessionFile {
                id: name.trim_end_matches(".jsonl").to_string(),
                mtime: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                head: head(&path),
                path,
            });
        }
    }
    out.sort_by(|a, b| a.mtime.cmp(&b.mtime).then_with(|| a.path.cmp(&b.path)));
    out
}

/// The timestamp of the entry on 1-based `line` of a transcript (an RFC 3339
/// string or epoch seconds), if that line has one.
pub fn entry_ts(path: &Path, line: u64) -> Option<DateTime<Utc>> {
    let f = std::fs::File::open(path).ok()?;
    let l = BufReader::new(f)
        .split(b'\n')
        .nth(usize::try_from(line.checked_sub(1)?).ok()?)?
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&l).ok()?;
    match v.get("timestamp")? {
        serde_json::Value::String(s) => crate::time::parse_ts(s),
        serde_json::Value::Number(n) => crate::time::from_epoch(n.as_f64()?),
        _ => None,
    }
}

/// The tools whose calls write a file: `Write`, `Edit`, `MultiEdit`,
/// `NotebookEdit` (Claude Code) and `apply_patch` (Codex).
pub const WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"];

/// True when a call of `tool` writing `path` writes into the memory
/// directory `memory_dir` (compared as given, without a trailing `/`);
/// without a directory, into any `…/.claude/projects/<slug>/memory/…` or a
/// `MEMORY.md`. Used to leave out the turn in which the agent itself wrote
/// memory (capture, `mem-extract`).
pub fn writes_memory(tool: Option<&str>, path: Option<&str>, memory_dir: Option<&str>) -> bool {
    if !tool.is_some_and(|t| WRITE_TOOLS.contains(&t)) {
        return false;
    }
    let path = path.unwrap_or("");
    match memory_dir.map(|d| d.trim_end_matches('/')) {
        Some(d) if !d.is_empty() => path.starts_with(&format!("{d}/")),
        _ => {
            (path.contains("/.claude/projects/") && path.contains("/memory/"))
                || path.ends_with("/MEMORY.md")
        }
    }
}

/// The path a file-writing tool call's input names: its `file_path`,
/// `path` or `notebook_path` string.
pub fn write_path_of(input: &serde_json::Value) -> Option<&str> {
    ["file_path", "path", "notebook_path"]
        .iter()
        .find_map(|k| input.get(k).and_then(|v| v.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_takes_the_first_cwd_and_entrypoint_of_either_agent() {
        let d = tempfile::tempdir().unwrap();
        let claude = d.path().join("s1.jsonl");
        std::fs::write(
            &claude,
            "{\"type\":\"summary\"}\nnot json\n{\"cwd\":\"\",\"entrypoint\":\"mem-dream\"}\n{\"cwd\":\"/p\"}\n{\"cwd\":\"/q\",\"entrypoint\":\"cli\"}\n",
        )
        .unwrap();
        assert_eq!(
            head(&claude),
            Head {
                cwd: Some("/p".into()),
                entrypoint: Some("mem-dream".into())
            }
        );
        let codex = d.path().join("rollout.jsonl");
        std::fs::write(
            &codex,
            "{\"type\":\"session_meta\",\"payload\":{\"cwd\":\"/c\"}}\n",
        )
        .unwrap();
        assert_eq!(head(&codex).cwd.as_deref(), Some("/c"));
        assert_eq!(head(&d.path().join("missing.jsonl")), Head::default());
    }

    #[test]
    fn list_keeps_main_sessions_only() {
        let d = tempfile::tempdir().unwrap();
        for n in ["a.jsonl", "agent-1.jsonl", ".x.jsonl", "notes.md"] {
            std::fs::write(d.path().join(n), "{}\n").unwrap();
        }
        std::fs::create_dir(d.path().join("dir.jsonl")).unwrap();
        let l = list(&[d.path().to_path_buf()]);
        assert_eq!(l.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn digest_is_twelve_hex_digits_of_blake3() {
        assert_eq!(digest("abc"), blake3::hash(b"abc").to_hex()[..12]);
        assert_eq!(digest("abc").len(), 12);
    }
}
