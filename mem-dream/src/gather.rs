//! Gather: daily logs (`logs/YYYY/MM/YYYY-MM-DD.md`) and sessions newer than
//! the last consolidation, turned into candidate memories in process; and the
//! basis (source timestamp) of each memory for relative dates.
//!
//! Daily logs are read with mem-index's log reader
//! ([`mem_index::daily_log::parse_log`]); sessions are replayed with
//! mem-transcript's reader (the branch walk and recovery rules of
//! `mem-transcript replay`) and extracted with mem-extract's event stream,
//! so a session gives the same candidates here as through
//! `mem-transcript replay | mem-extract` ([`session`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use mem_core::records::Memory;
use mem_core::session::{self as sessions, SessionFile};
use mem_core::store;

use crate::consolidate::Basis;

/// A gathered memory, where it came from, and its basis for relative dates.
pub type Gathered = (Memory, String, Option<Basis>);

/// Map evidence digests (`transcript:<digest>#…`) to session files.
pub fn digest_map(sessions: &[SessionFile]) -> HashMap<String, PathBuf> {
    sessions
        .iter()
        .map(|s| (sessions::digest(&s.id), s.path.clone()))
        .collect()
}

/// The basis of a memory's relative dates: the timestamp of its first
/// evidence entry that can be found in the project's sessions, else its
/// `verified_at` (already a local day), else none (dates are left alone).
pub fn basis_of(memory: &Memory, digests: &HashMap<String, PathBuf>) -> Option<Basis> {
    for e in &memory.evidence {
        let Some(rest) = e.strip_prefix("transcript:") else {
            continue;
        };
        let Some((d, line)) = rest.split_once('#') else {
            continue;
        };
        let (Some(path), Ok(line)) = (digests.get(d), line.parse::<u64>()) else {
            continue;
        };
        if let Some(t) = sessions::entry_ts(path, line) {
            return Some(Basis::Ts(t));
        }
    }
    memory.verified_at.map(Basis::Day)
}

/// The memories of the daily logs modified after `since` (all when `None`).
/// A document that does not parse is reported in `warnings` and skipped.
pub fn logs(dir: &Path, since: Option<SystemTime>, warnings: &mut Vec<String>) -> Vec<Gathered> {
    let mut files = Vec::new();
    collect_md(&dir.join(store::LOGS_DIR), &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let newer = std::fs::metadata(&f)
            .and_then(|m| m.modified())
            .is_ok_and(|t| since.is_none_or(|s| t > s));
        if !newer {
            continue;
        }
        let text = match mem_core::confine::read_text_capped(
            &f,
            mem_core::confine::MAX_LOG_BYTES,
            false,
        ) {
            Ok(t) => t,
            Err(e) => {
                warnings.push(format!("{e}; skipped"));
                continue;
            }
        };
        let rel = f
            .strip_prefix(dir)
            .unwrap_or(&f)
            .to_string_lossy()
            .into_owned();
        let day = f
            .file_stem()
            .and_then(|s| mem_core::time::parse_day(&s.to_string_lossy()));
        let (mems, errs) = mem_index::daily_log::parse_log(&rel, &text);
        for e in errs {
            warnings.push(format!("{e}: skipped"));
        }
        for m in mems {
            let basis = m.verified_at.or(day).map(Basis::Day);
            out.push((m, rel.clone(), basis));
        }
    }
    out
}

/// The `*.md` regular files below `d`; links (to folders or files) are
/// not followed, nor is `d` itself when it is a link.
fn collect_md(d: &Path, out: &mut Vec<PathBuf>) {
    if !std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()) {
        return;
    }
    let Ok(rd) = std::fs::read_dir(d) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            collect_md(&p, out);
        } else if ft.is_file() && p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// The memories of one session: replayed as `mem-transcript replay` does
/// and extracted as `mem-extract` does with no options (the project from
/// the events' recorded cwd, else `root`). Warnings and a session that does
/// not read are reported in `warnings`; a skipped extraction gives nothing.
pub fn session(
    session_file: &SessionFile,
    root: &Path,
    warnings: &mut Vec<String>,
) -> Vec<Gathered> {
    let label = session_file.path.display().to_string();
    let (events, ws) = match mem_transcript::replay_to_vec(
        &session_file.path,
        &mem_transcript::ReplayOptions::default(),
    ) {
        Ok(r) => r,
        Err(e) => {
            warnings.push(format!("{e}: skipped"));
            return Vec::new();
        }
    };
    warnings.extend(ws.iter().map(ToString::to_string));
    let memories = extract(&events, &label, root, warnings);
    if memories.is_empty() {
        return Vec::new();
    }
    let source = format!("transcript:{}", sessions::digest(&session_file.id));
    let basis = first_ts(&events).map(Basis::Ts);
    memories
        .into_iter()
        .map(|m| (m, source.clone(), basis))
        .collect()
}

/// The memories in the event lines `events` (`label` names their file),
/// extracted as `mem-extract` does with no options (the project from the
/// events' recorded cwd, else `root`). A line that is not an event stops the
/// extraction: every such line is a warning, in input order, each naming
/// its file and line once, the last ending `: skipped`.
fn extract(events: &[u8], label: &str, root: &Path, warnings: &mut Vec<String>) -> Vec<Memory> {
    let outcome = mem_extract::extract_jsonl(
        events,
        label,
        mem_extract::StreamOptions {
            rules: mem_extract::Rules::default_rules(),
            max_candidates: None,
            max_quote_bytes: mem_extract::extract::DEFAULT_MAX_QUOTE,
            cwd: None,
            fallback_cwd: Some(root.to_path_buf()),
            per_worktree: false,
            memory_dir: None,
            explain: false,
            every: None,
            disabled: false,
        },
    );
    match outcome {
        Ok(mem_extract::Outcome::Extracted(x)) => x.memories,
        Ok(_) => Vec::new(),
        Err(bad_lines) => {
            let last = bad_lines.len().saturating_sub(1);
            warnings.extend(bad_lines.iter().enumerate().map(|(i, e)| {
                if i == last {
                    format!("{e}: skipped")
                } else {
                    e.to_string()
                }
            }));
            Vec::new()
        }
    }
}

/// The first timestamp among event lines.
fn first_ts(events: &[u8]) -> Option<chrono::DateTime<chrono::Utc>> {
    #[derive(serde::Deserialize)]
    struct Ts {
        #[serde(default)]
        ts: Option<String>,
    }
    events.split(|&b| b == b'\n').find_map(|l| {
        serde_json::from_slice::<Ts>(l)
            .ok()?
            .ts
            .as_deref()
            .and_then(mem_core::time::parse_ts)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_event_lines_are_warnings_in_input_order_each_once() {
        let good = r#"{"session":"s","source":"claude","line":1,"seq":0,"block":0,"role":"user","kind":"text","text":"Always run the linter before committing.","sidechain":false}"#;
        let events = format!("{good}\n{{\"session\":\"s\", bad\n{good}\n[1]\n");
        let mut warnings = Vec::new();
        let got = extract(events.as_bytes(), "s.jsonl", Path::new("/p"), &mut warnings);
        assert!(got.is_empty(), "{got:?}");
        assert_eq!(
            warnings,
            [
                "s.jsonl:2: key must be a string (column 17)",
                "s.jsonl:4: invalid type: integer `1`, expected a string (column 2): skipped"
            ]
        );
    }
}
