//! Daily logs (`log`).
//!
//! Daily log entry (appended to `logs/YYYY/MM/YYYY-MM-DD.md`, append-only,
//! each entry ends with `\n`):
//!
//! ```text
//! ## <name> [<type>]
//! <!-- mem-record {"name":…, …} -->
//! <description>
//!
//! <body or Fact/Why/How lines>
//!
//! ```
//!
//! The comment line holds the whole record as one JSON line, so mem-dream
//! reads it back exactly ([`parse_log`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use mem_core::error::Error;

use crate::error::Result;
use mem_core::records::Memory;
use mem_core::{confine, frontmatter, store};

/// The marker of the record line of a daily-log entry.
pub const LOG_MARKER: &str = "<!-- mem-record ";

/// The daily log file of `day`: `dir/logs/YYYY/MM/YYYY-MM-DD.md`.
pub fn log_path(dir: &Path, day: NaiveDate) -> PathBuf {
    dir.join(store::LOGS_DIR)
        .join(day.format("%Y").to_string())
        .join(day.format("%m").to_string())
        .join(format!("{}.md", day.format("%Y-%m-%d")))
}

/// One daily-log entry for `memory` (see module docs).
pub fn log_entry(memory: &Memory) -> String {
    let mut rec = memory.clone();
    rec.hash = None;
    let json = serde_json::to_string(&rec).expect("a memory serializes");
    // `-->` cannot occur inside the comment.
    let json = json.replace("-->", "--\\u003e");
    let body = frontmatter::body_text(memory);
    let mut s = format!(
        "## {} [{}]\n{LOG_MARKER}{json} -->\n{}\n",
        memory.name.replace('\n', " "),
        memory.mem_type.as_str(),
        memory.description.replace('\n', " ")
    );
    if !body.trim().is_empty() {
        s.push('\n');
        s.push_str(body.trim_end());
        s.push('\n');
    }
    s.push('\n');
    s
}

/// The records of a daily log's text (entries written by [`log_entry`]).
/// Lines that do not parse are returned as errors naming `label` and line.
pub fn parse_log(label: &str, text: &str) -> (Vec<Memory>, Vec<Error>) {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if let Some(rest) = l.strip_prefix(LOG_MARKER) {
            let json = rest.trim_end().trim_end_matches("-->").trim_end();
            match serde_json::from_str::<Memory>(json) {
                Ok(m) => out.push(m),
                Err(e) => errs.push(Error::input(label, i + 1, mem_core::jsonl::describe(&e))),
            }
        }
    }
    (out, errs)
}

/// Append `records` to their daily logs in `dir` (the day of each record's
/// `verified_at`, else `today`). Returns the files appended to, in order.
///
/// Errors: [`Error::Io`] naming the log file.
pub fn append_logs(
    _lock: &store::IndexGuard,
    dir: &Path,
    records: &[Memory],
    today: NaiveDate,
) -> Result<Vec<(String, PathBuf)>> {
    let mut done = Vec::new();
    for m in records {
        let day = m.verified_at.unwrap_or(today);
        let path = log_path(dir, day);
        // Never through a link: `logs/`, its folders and the file itself
        // stay inside the memory directory (docs/security.md).
        let mut f = confine::open_append(dir, &path)?;
        // A torn tail (no final newline) is ended before appending.
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let mut entry = log_entry(m);
        if len > 0 {
            use std::os::unix::fs::FileExt;
            let mut last = [0u8; 1];
            let got = f.read_at(&mut last, len - 1).unwrap_or(0);
            if got == 1 && last[0] != b'\n' {
                entry.insert(0, '\n');
            }
        }
        f.write_all(entry.as_bytes())
            .map_err(|e| Error::io(&path, e))?;
        f.sync_data().map_err(|e| Error::io(&path, e))?;
        done.push((m.resolve_id().unwrap_or_else(|_| m.name.clone()), path));
    }
    Ok(done)
}

/// The record of `memory` as a daily-log entry carries it, for comparing
/// two entries (`hash` and `id` left out).
fn entry_value(memory: &Memory) -> serde_json::Value {
    let mut m = memory.clone();
    m.hash = None;
    m.id = None;
    serde_json::to_value(&m).unwrap_or_default()
}

/// Entries of daily logs: each record's id and the log file.
pub type LogEntries = Vec<(String, PathBuf)>;

/// Append to their daily logs the `records` that are not there yet: a
/// record equal to an entry of the log it would go to (the same session
/// read again by the write path) is left out. Returns the entries
/// appended (id and log file) and the records left out (id and log file).
///
/// Errors: [`Error::Io`] naming the log file; a log that cannot be read is
/// compared as empty.
pub fn append_new_logs(
    lock: &store::IndexGuard,
    dir: &Path,
    records: &[Memory],
    today: NaiveDate,
) -> Result<(LogEntries, LogEntries)> {
    let mut seen: std::collections::HashMap<PathBuf, Vec<serde_json::Value>> =
        std::collections::HashMap::new();
    let mut new = Vec::new();
    let mut present = Vec::new();
    for m in records {
        let path = log_path(dir, m.verified_at.unwrap_or(today));
        let entries = seen.entry(path.clone()).or_insert_with(|| {
            let text =
                confine::read_text_capped(&path, confine::MAX_LOG_BYTES, false).unwrap_or_default();
            let label = path.display().to_string();
            parse_log(&label, &text).0.iter().map(entry_value).collect()
        });
        let v = entry_value(m);
        if entries.contains(&v) {
            present.push((m.resolve_id().unwrap_or_else(|_| m.name.clone()), path));
        } else {
            entries.push(v);
            new.push(m.clone());
        }
    }
    let done = append_logs(lock, dir, &new, today)?;
    Ok((done, present))
}

/// The daily logs of `dir` (`logs/**/*.md`, regular files; links are not
/// followed) modified after `since` (all when `None`), as paths relative to
/// `dir`, sorted. A log newer than the last consolidation makes one due
/// (docs/consolidation.md "Gates").
pub fn logs_since(dir: &Path, since: Option<std::time::SystemTime>) -> Vec<String> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                walk(&p, out);
            } else if ft.is_file() && p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let root = dir.join(store::LOGS_DIR);
    if !std::fs::symlink_metadata(&root).is_ok_and(|m| m.is_dir()) {
        return Vec::new();
    }
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| {
            std::fs::metadata(f)
                .and_then(|m| m.modified())
                .is_ok_and(|t| since.is_none_or(|s| t > s))
        })
        .map(|f| {
            f.strip_prefix(dir)
                .unwrap_or(&f)
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}
