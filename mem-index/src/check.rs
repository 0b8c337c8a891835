//! `check`: a lint of a memory directory for people and CI.
//!
//! Findings (JSONL, one per line): `{"level":"error|warning|info","code",
//! "file","line"?,"message", …}`. Codes: `parse` (frontmatter does not
//! parse), `bad-name`, `missing-file` (an index line whose bare `<name>.md`
//! target does not exist), `not-indexed` (a topic without an index line; a
//! warning when the index names it as cut), `long-line` (warning: an entry
//! line of 150 characters or more, which mem never writes), `limit-lines`,
//! `limit-bytes`, `limit-files` (over a limit: error), `limits` (info: how
//! close), `sensitive` (a secret, session id or absolute path),
//! `expired-indexed` (warning), `lenient` (warning: a missing `type` read
//! as inferred, an unknown `kind` or `scope` kept as written), `unfinished`
//! (a consolidation or `write` batch killed before it finished;
//! `check --repair` recovers it), `tier-conflict` (warning, [`tier_conflicts`]:
//! a personal memory overrides a team memory). Errors make the run exit 1.

use std::collections::HashSet;
use std::path::Path;

use crate::error::Result;
use chrono::NaiveDate;
use mem_core::frontmatter;
use mem_core::index_md::{self, MAX_BYTES, MAX_LINE_CHARS, MAX_LINES};
use mem_core::records::{Finding, FindingCode, Level, Limits, TierConflict};
use mem_core::scrub::Scrubber;
use mem_core::store;

fn f(level: Level, code: FindingCode, file: &str, line: Option<usize>, message: String) -> Finding {
    Finding::new(level, code, file, message).at(line)
}

/// Lint `dir` on `today` with the file limit `max_files` (0 = unlimited).
///
/// Errors: [`mem_core::Error::Io`] when the directory or index cannot be read.
pub fn check(dir: &Path, today: NaiveDate, max_files: usize) -> Result<Vec<Finding>> {
    let st = store::load(dir)?;
    let mut out = Vec::new();
    if mem_core::journal::needs_recovery(dir) {
        out.push(f(
            Level::Error,
            FindingCode::Unfinished,
            mem_core::journal::JOURNAL_DIR,
            None,
            "a consolidation or `mem-index write` batch was killed before it finished (run `mem-index check --repair`; the next `mem-dream` or `mem-index write` also recovers it)".into(),
        ));
    }
    for b in &st.broken {
        out.push(f(
            Level::Error,
            FindingCode::Parse,
            &format!("{}.md", b.id),
            b.line(),
            match &b.error {
                mem_core::Error::Frontmatter { reason, .. } => {
                    format!("frontmatter does not parse: {reason} (left unchanged)")
                }
                e => format!("{e} (left unchanged)"),
            },
        ));
    }
    // What was read leniently (docs/records.md "Reading hand-written memories").
    for t in &st.topics {
        let Ok(text) = std::fs::read_to_string(&t.path) else {
            continue;
        };
        for note in frontmatter::lenient_notes(&text) {
            out.push(f(
                Level::Warning,
                FindingCode::Lenient,
                &format!("{}.md", t.id),
                None,
                note,
            ));
        }
    }
    for b in &st.bad_names {
        let name = b
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(f(
            Level::Warning,
            FindingCode::BadName,
            &name,
            None,
            format!("not a valid topic id: {}", b.error),
        ));
    }
    let idx_path = dir.join(store::INDEX_FILE);
    // A regular file only, and no more of it than a reader takes.
    let text =
        mem_core::confine::read_text_prefix(&idx_path, mem_core::confine::INDEX_READ_BYTES, false)?
            .map(|(t, _)| t)
            .unwrap_or_default();
    let loaded = index_md::load(&text);
    let idx = store::INDEX_FILE;
    // Lines of the whole file (not only the part within limits).
    let mut indexed: HashSet<String> = HashSet::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.trim_end_matches('\r');
        let no = i + 1;
        let entry = index_md::parse_line(no, l);
        // The 150-character rule is for entries; the final WARNING line names
        // what was cut and may be longer (it is within the byte limit), and
        // lines that are not entries (headings, notes) are the person's.
        if entry.is_some() && l.chars().count() >= MAX_LINE_CHARS {
            out.push(f(
                Level::Warning,
                FindingCode::LongLine,
                idx,
                Some(no),
                format!(
                    "{} characters (each line must be under {MAX_LINE_CHARS})",
                    l.chars().count()
                ),
            ));
        }
        if l.trim().is_empty() || l.starts_with(index_md::WARNING_PREFIX) {
            continue;
        }
        match entry {
            // links elsewhere (URLs, other folders) are the person's
            Some(p) if !index_md::bare_md(&p.file) => {}
            Some(p) => {
                let target = dir.join(&p.file);
                let regular = std::fs::symlink_metadata(&target).map(|m| m.is_file());
                if !matches!(regular, Ok(true)) {
                    let what = match regular {
                        Ok(_) => "which is not a regular file (a link, FIFO or device)",
                        Err(_) => "which does not exist",
                    };
                    out.push(f(
                        Level::Error,
                        FindingCode::MissingFile,
                        idx,
                        Some(no),
                        format!("index line points to {}, {what}", p.file),
                    ));
                }
                indexed.insert(p.id().to_string());
            }
            // headings, notes: kept as written, nothing to report
            None => {}
        }
    }
    let warned: String = loaded.warning.clone().unwrap_or_default();
    let all_ids = st
        .topics
        .iter()
        // a low-trust memory is kept out of the index on purpose
        .filter(|t| mem_core::lesson::believed_trust(&t.memory) != mem_core::records::Trust::Low)
        .map(|t| &t.id)
        .chain(
            st.broken
                .iter()
                .filter(|b| matches!(b.error, mem_core::Error::Frontmatter { .. }))
                .map(|b| &b.id),
        );
    for id in all_ids {
        if indexed.contains(id.as_str()) {
            continue;
        }
        if !warned.is_empty() {
            out.push(f(
                Level::Warning,
                FindingCode::NotIndexed,
                &format!("{id}.md"),
                None,
                "left out of MEMORY.md by its limits (see its WARNING line)".into(),
            ));
        } else {
            out.push(f(
                Level::Error,
                FindingCode::NotIndexed,
                &format!("{id}.md"),
                None,
                "topic file has no line in MEMORY.md (run `mem-index reindex`)".into(),
            ));
        }
    }
    let lines = text.lines().count();
    let bytes = text.len();
    let files = st.file_count();
    if lines > MAX_LINES {
        out.push(f(
            Level::Error,
            FindingCode::LimitLines,
            idx,
            None,
            format!("{lines} lines, over {MAX_LINES}"),
        ));
    }
    if bytes > MAX_BYTES {
        out.push(f(
            Level::Error,
            FindingCode::LimitBytes,
            idx,
            None,
            format!("{bytes} bytes, over {MAX_BYTES}"),
        ));
    }
    if max_files > 0 && files > max_files {
        out.push(f(
            Level::Error,
            FindingCode::LimitFiles,
            ".",
            None,
            format!("{files} topic files, over {max_files}"),
        ));
    }
    let pct = |a: usize, b: usize| (a * 100).checked_div(b).unwrap_or(0);
    let mut lim = f(
        Level::Info,
        FindingCode::Limits,
        idx,
        None,
        format!(
            "{lines}/{MAX_LINES} lines ({}%), {bytes}/{MAX_BYTES} bytes ({}%), {files}/{} topic files{}",
            pct(lines, MAX_LINES),
            pct(bytes, MAX_BYTES),
            if max_files == 0 {
                "∞".to_string()
            } else {
                max_files.to_string()
            },
            if max_files == 0 {
                String::new()
            } else {
                format!(" ({}%)", pct(files, max_files))
            }
        ),
    );
    lim.limits = Some(Limits {
        lines,
        max_lines: MAX_LINES,
        bytes,
        max_bytes: MAX_BYTES,
        files,
        max_files,
    });
    out.push(lim);
    let scrubber = Scrubber::new(None);
    for t in &st.topics {
        for ff in scrubber.check_memory(&t.memory) {
            if ff.field == "id" {
                continue;
            }
            let kinds: Vec<String> = ff.findings.iter().map(|x| x.kind.to_string()).collect();
            out.push(f(
                Level::Error,
                FindingCode::Sensitive,
                &format!("{}.md", t.id),
                None,
                format!("field `{}` carries {}", ff.field, kinds.join(", ")),
            ));
        }
        if t.memory.is_expired(today) && indexed.contains(&t.id) {
            out.push(f(
                Level::Warning,
                FindingCode::ExpiredIndexed,
                &format!("{}.md", t.id),
                None,
                format!(
                    "expired {} but still in MEMORY.md (retire it: `mem-index retire {} --reason expired`)",
                    t.memory.expires.map(|e| e.to_string()).unwrap_or_default(),
                    t.id
                ),
            ));
        }
    }
    Ok(out)
}

/// Warnings `tier-conflict`: the team memories of `team_dir` (the
/// repository's team tier) that a memory of the personal directory
/// `personal_dir` overrides on `today` ([`mem_core::tier::conflicts`]) — one that
/// supersedes it, or one of the same id that says something else
/// ([`mem_core::tier::same_content`]; a memory promoted unchanged is no
/// conflict). `file` is the personal topic file; `team_file` and `conflict`
/// (`same-id`, `supersedes`) are extra fields. Nothing when the team folder
/// does not exist, is the personal directory, or cannot be read.
pub fn tier_conflicts(personal_dir: &Path, team_dir: &Path, today: NaiveDate) -> Vec<Finding> {
    use mem_core::index_md::supersedes_of;
    use mem_core::tier::{ConflictKind, PersonalEntry, conflicts, same_content};
    if !team_dir.is_dir()
        || mem_core::memdir::real_path(team_dir) == mem_core::memdir::real_path(personal_dir)
    {
        return Vec::new();
    }
    let (Ok(personal), Ok(team)) = (store::load(personal_dir), store::load(team_dir)) else {
        return Vec::new();
    };
    let sup: Vec<Vec<String>> = personal
        .topics
        .iter()
        .map(|t| supersedes_of(&t.id, &t.memory))
        .collect();
    let entries: Vec<PersonalEntry<'_>> = personal
        .topics
        .iter()
        .zip(&sup)
        .map(|(t, s)| PersonalEntry {
            id: &t.id,
            supersedes: s.iter().map(String::as_str).collect(),
            live: t.memory.retired_at.is_none() && !t.memory.is_expired(today),
        })
        .collect();
    let team_ids: Vec<&str> = team.topics.iter().map(|t| t.id.as_str()).collect();
    let mut out = Vec::new();
    for c in conflicts(&entries, &team_ids) {
        if c.kind == ConflictKind::SameId
            && let (Some(p), Some(t)) = (personal.get(&c.personal_id), team.get(&c.team_id))
            && same_content(&p.memory, &t.memory)
        {
            continue;
        }
        let mut w = f(
            Level::Warning,
            FindingCode::TierConflict,
            &format!("{}.md", c.personal_id),
            None,
            c.describe(),
        );
        w.conflict = Some(TierConflict {
            team_file: format!("{}/{}.md", mem_core::memdir::TEAM_DIR, c.team_id),
            conflict: c.kind.as_str().into(),
        });
        out.push(w);
    }
    out
}
