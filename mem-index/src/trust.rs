//! `mem-index team status|review|trust|forget`: which files of the
//! checkout's team tier the user trusts (docs/team-memory.md "Trust").
//!
//! Nothing of a repository's `.claude/team-memory/` is injected until the
//! user trusts it here; the digests live in the user's own state
//! ([`mem_core::team_trust`]), never in the repository.

use std::io::Write as _;
use std::path::Path;

use serde::Serialize;

use mem_core::cli::{Format, Output, warn};
use mem_core::error::Exit;
use mem_core::memdir;
use mem_core::team_trust::{self, Entry, State, Trusted};

use crate::error::Result;
use crate::{Global, NAME, team};

/// One file of `team status` (and `team trust`) as a JSONL record.
#[derive(Debug, Serialize)]
pub struct FileRecord<'a> {
    /// The file's name in the team folder.
    pub file: &'a str,
    /// `trusted`, `new`, `changed` or `removed` (before `trust`), or what
    /// `trust` did: `trusted`, `forgotten`, `unchanged`, `refused`.
    pub state: &'a str,
    /// Why it cannot be trusted (a link, a FIFO, over 1 MiB), when so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<&'a str>,
}

/// One file of `team review` as a JSONL record.
#[derive(Debug, Serialize)]
pub struct ReviewRecord<'a> {
    /// The file's name in the team folder.
    pub file: &'a str,
    /// `new`, `changed` or `removed`.
    pub state: &'a str,
    /// The unified diff from the trusted bytes to the bytes now (secrets
    /// shown as `[REDACTED]`).
    pub diff: String,
    /// What the text check found ([`team::text_check`]), one line each.
    pub findings: Vec<String>,
}

/// The team folder's name relative to the checkout, for diff headers.
fn rel(name: &str) -> String {
    format!("{}/{name}", memdir::TEAM_DIR)
}

/// The file names `files` stand for: `ID`, `ID.md` or a path ending in one.
fn names(files: &[String]) -> Vec<String> {
    files
        .iter()
        .map(|f| {
            let base = Path::new(f)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| f.clone());
            if base.ends_with(".md") {
                base
            } else {
                format!("{base}.md")
            }
        })
        .collect()
}

fn scan(global: &Global) -> Result<(std::path::PathBuf, Trusted, Vec<Entry>)> {
    let root = team::repo_root(global.args.place.cwd.as_deref())?;
    let dir = memdir::team_dir(&root);
    if dir.exists() {
        mem_core::confine::check_below(&root, &dir)?;
    }
    let trusted = match team_trust::load(&root) {
        Ok(t) => t,
        Err(e) => {
            warn(NAME, e.to_string());
            Trusted::default()
        }
    };
    let entries = team_trust::scan(&dir, &trusted)?;
    Ok((root, trusted, entries))
}

/// One file of the tier: its record, or for people `state` (padded to
/// `width`), the file, and why it cannot be trusted when it cannot be read.
fn print_file(out: &mut Output, fmt: Format, e: &Entry, state: &str, width: usize) -> Result<()> {
    match fmt {
        Format::Jsonl => out.record(&FileRecord {
            file: &e.name,
            state,
            unreadable: e.unreadable.as_deref(),
        })?,
        Format::Text => {
            let mut text = format!("{state:<width$} {}", rel(&e.name));
            if let Some(u) = &e.unreadable {
                text.push_str(&format!(" (cannot be trusted: {u})"));
            }
            out.line(&text)?
        }
    }
    Ok(())
}

/// `team status`: every file of the team tier with where it stands
/// (`trusted`, `new`, `changed`, `removed`); a count on stderr. Exit 0.
///
/// Errors: the team folder cannot be listed, or lies behind a link.
pub fn status_cmd(global: &Global, fmt: Format) -> Result<Exit> {
    let (root, _, entries) = scan(global)?;
    let mut out = Output::stdout(global.args.output.line_buffered);
    for e in &entries {
        print_file(&mut out, fmt, e, e.state.as_str(), 8)?;
    }
    out.flush()?;
    let count = |s: State| entries.iter().filter(|e| e.state == s).count();
    let waiting = count(State::New) + count(State::Changed);
    let mut line = format!(
        "team tier of {}: {} trusted, {waiting} waiting for review",
        root.display(),
        count(State::Trusted)
    );
    if count(State::Removed) > 0 {
        line.push_str(&format!(", {} removed", count(State::Removed)));
    }
    if waiting > 0 {
        line.push_str(&format!(
            " (`{}` shows them, `{}` accepts them)",
            team_trust::REVIEW_COMMAND,
            team_trust::TRUST_COMMAND
        ));
    }
    eprintln!("{NAME}: {line}");
    Ok(Exit::Success)
}

/// `team review [FILE…]`: each file that waits for review (or the files
/// named), as a unified diff from the bytes the user trusted to the bytes
/// now (from nothing for a new file), secrets redacted, with what the text
/// check finds in it. Exit 0.
///
/// Errors: as [`status_cmd`].
pub fn review_cmd(global: &Global, files: &[String], fmt: Format) -> Result<Exit> {
    let (root, _, entries) = scan(global)?;
    let wanted = names(files);
    let scrubber = mem_core::scrub::Scrubber::new(None);
    let mut out = Output::stdout(global.args.output.line_buffered);
    let mut shown = 0usize;
    for e in &entries {
        let named = wanted.contains(&e.name);
        if !(named || (wanted.is_empty() && e.state != State::Trusted)) {
            continue;
        }
        shown += 1;
        let old = e
            .trusted_hash
            .as_deref()
            .and_then(|h| team_trust::trusted_bytes(&root, h))
            .map(|b| scrubber.redact_secrets(&String::from_utf8_lossy(&b)));
        let new = e
            .bytes
            .as_deref()
            .map(|b| scrubber.redact_secrets(&String::from_utf8_lossy(b)));
        let mut diff = mem_core::diff::unified(&rel(&e.name), old.as_deref(), new.as_deref());
        if old.is_none() && e.trusted_hash.is_some() {
            diff.insert_str(
                0,
                "# (the trusted copy is not kept: the whole file is shown as new)\n",
            );
        }
        let findings: Vec<String> = match (&e.bytes, e.name.as_str()) {
            (Some(b), n) if n != mem_core::store::INDEX_FILE => {
                match mem_core::frontmatter::parse(n, &String::from_utf8_lossy(b)) {
                    Ok(m) => team::text_check(&m)
                        .iter()
                        .map(ToString::to_string)
                        .collect(),
                    Err(err) => vec![format!("does not parse: {err}")],
                }
            }
            _ => Vec::new(),
        };
        match fmt {
            Format::Jsonl => out.record(&ReviewRecord {
                file: &e.name,
                state: e.state.as_str(),
                diff,
                findings,
            })?,
            Format::Text => {
                out.line(&format!("# {}: {}", e.state.as_str(), rel(&e.name)))?;
                if let Some(u) = &e.unreadable {
                    out.line(&format!("# cannot be trusted: {u}"))?;
                }
                for f in &findings {
                    out.line(&format!("# WARNING: {f}"))?;
                }
                if !diff.is_empty() {
                    out.write_all(diff.as_bytes())?;
                }
            }
        }
    }
    out.flush()?;
    if shown == 0 {
        eprintln!(
            "{NAME}: nothing waits for review in {}",
            memdir::team_dir(&root).display()
        );
    } else {
        eprintln!(
            "{NAME}: {shown} file(s) shown; `{}` accepts the team tier as it is now, `{} FILE…` only those files",
            team_trust::TRUST_COMMAND,
            team_trust::TRUST_COMMAND
        );
    }
    Ok(Exit::Success)
}

/// `team trust [FILE…]`: record the files of the team tier as they are now
/// as trusted (all of them, or the files named), in the user's state
/// outside the repository; trusted files now gone are forgotten. A file
/// that cannot be read as a regular file (a link, a FIFO, over 1 MiB) is
/// never trusted (exit 1 when one was named or present).
///
/// Errors: as [`status_cmd`]; the state cannot be written.
pub fn trust_cmd(global: &Global, files: &[String], fmt: Format) -> Result<Exit> {
    let (root, mut trusted, entries) = scan(global)?;
    let wanted = names(files);
    for w in &wanted {
        if !entries.iter().any(|e| e.name == *w) {
            return Err(crate::IndexError::NoSuchTeamMemory(
                memdir::team_dir(&root).join(w),
            ));
        }
    }
    let mut out = Output::stdout(global.args.output.line_buffered);
    let mut blobs: Vec<&[u8]> = Vec::new();
    let mut refused = 0usize;
    let mut changed = 0usize;
    for e in &entries {
        if !wanted.is_empty() && !wanted.contains(&e.name) {
            continue;
        }
        let done = match (e.state, &e.bytes) {
            (State::Trusted, Some(b)) => {
                blobs.push(b);
                "unchanged"
            }
            (State::Removed, _) => {
                trusted.files.remove(&e.name);
                changed += 1;
                "forgotten"
            }
            (_, Some(b)) => {
                trusted.files.insert(e.name.clone(), team_trust::digest(b));
                blobs.push(b);
                changed += 1;
                "trusted"
            }
            (_, None) => {
                refused += 1;
                "refused"
            }
        };
        print_file(&mut out, fmt, e, done, 9)?;
    }
    out.flush()?;
    // the copies of trusted files not named this time stay kept
    let kept: Vec<Vec<u8>> = entries
        .iter()
        .filter(|e| !wanted.is_empty() && !wanted.contains(&e.name))
        .filter(|e| e.state == State::Trusted)
        .filter_map(|e| e.bytes.clone())
        .collect();
    blobs.extend(kept.iter().map(Vec::as_slice));
    team_trust::save(&root, &trusted, &blobs)?;
    eprintln!(
        "{NAME}: {changed} change(s) to what you trust in {} (kept in {}, outside the repository)",
        memdir::team_dir(&root).display(),
        team_trust::state_dir(&root)?.display()
    );
    if refused > 0 {
        warn(
            NAME,
            format!("{refused} file(s) cannot be trusted (not regular files, or over 1 MiB)"),
        );
        return Ok(Exit::Failure);
    }
    Ok(Exit::Success)
}

/// `team forget`: trust nothing of this checkout's team tier any more.
///
/// Errors: as [`status_cmd`]; the state cannot be removed.
pub fn forget_cmd(global: &Global) -> Result<Exit> {
    let root = team::repo_root(global.args.place.cwd.as_deref())?;
    let had = team_trust::forget(&root)?;
    eprintln!(
        "{NAME}: {}",
        if had {
            format!(
                "nothing of {} is trusted any more",
                memdir::team_dir(&root).display()
            )
        } else {
            "nothing was trusted here".to_string()
        }
    );
    Ok(Exit::Success)
}
