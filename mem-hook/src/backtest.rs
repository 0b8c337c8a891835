//! `mem-hook backtest`: replay a project's sessions in time order through
//! the real write path and measure whether recall would have put each
//! repeated lesson in front of the agent.
//!
//! For each session (oldest first, by its first entry's timestamp):
//! 1. its events are read with mem-transcript's library (`replay`);
//! 2. recall runs for each of its first `--prompts` user prompts against a
//!    scratch memory directory that holds only what earlier sessions wrote
//!    (today = the session's date);
//! 3. its memories are extracted with mem-extract's library and written
//!    with mem-index's write path (`write_batch`, invalid records skipped);
//! 4. a written lesson (kind `durable-lesson` or `preference`) whose write
//!    lands on a memory an earlier session wrote (`update`, `unchanged`, or
//!    a `duplicate` of it) is a repeated lesson; it *would have been
//!    recalled* when step 2 recalled that memory for one of the prompts.
//!
//! No model is involved. Output: one row per repeated lesson (text table or
//! JSONL) and the summary "N lessons repeated, M would have been recalled".

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveDate;
use clap::Args;
use mem_core::records::{Event, IndexOp, Kind, Memory};
use mem_recall::RecallError;
use serde::{Deserialize, Serialize};

use mem_core::text::Stems;
use mem_recall::gate::{Action, Query};
use mem_recall::vocab::Vocabulary;

/// Options of `mem-hook backtest`.
#[derive(Debug, Args)]
pub struct BacktestArgs {
    /// Transcript files or folders of them (`*.jsonl` directly inside;
    /// `agent-*.jsonl` sub-agent files are not sessions). Default: the
    /// project's folder under ~/.claude/projects/ for the cwd.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Recall for this many of each session's first user prompts.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub prompts: usize,

    /// text (a table and the summary line) or jsonl (one record per
    /// repeated lesson, then a summary record).
    #[arg(long, value_enum, default_value = "text")]
    pub format: BacktestFormat,

    /// Keep the memory directory built from the sessions here (it must be
    /// missing or empty) instead of a scratch directory.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,

    /// The project to act for (default: the working directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// Output formats of `backtest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BacktestFormat {
    /// A table and the summary line.
    Text,
    /// JSONL records.
    Jsonl,
}

/// One repeated lesson: a line of `mem-hook backtest --format jsonl`
/// (docs/records.md "Backtest: `mem-hook backtest`").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Repeat {
    /// The session that repeated it (its file stem).
    pub session: String,
    /// The session's date (UTC, YYYY-MM-DD).
    pub date: String,
    /// The id of the memory an earlier session wrote.
    pub lesson: String,
    /// Its kind.
    pub kind: String,
    /// The write's op for this session's record (`update`, `unchanged`, `duplicate`).
    pub op: String,
    /// The session that first wrote it.
    pub learned_in: String,
    /// True when recall for one of the session's first prompts that came
    /// before the repeat (before the first line of its evidence) recalled it.
    pub recalled: bool,
    /// Why it was not recalled (empty when it was): `no-prompt` (no prompt
    /// came before the repeat), `low-trust` (the lesson is `trust: low`,
    /// which the hook never injects, whatever the prompt), or the gate's
    /// reason for the first prompt (`no-match`, `expired`, `budget`, …).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why_not: String,
    /// When recalled: the task words (stems, triggers) that matched it, so a
    /// recall by a chance overlap can be told from one that bears on the task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<String>,
}

/// The last line of `mem-hook backtest --format jsonl`, after the
/// [`Repeat`]s (docs/records.md "Backtest: `mem-hook backtest`").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BacktestSummary {
    /// The summary line of the text format ([`Report::summary`]).
    pub summary: String,
    /// Sessions replayed.
    pub sessions: usize,
    /// Memories written (created) across the sessions.
    pub created: usize,
    /// Lessons repeated.
    pub repeated: usize,
    /// Of those, how many recall would have injected.
    pub recalled: usize,
}

/// What a backtest found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Sessions replayed, in order.
    pub sessions: usize,
    /// Memories written (created) across the sessions.
    pub created: usize,
    /// The repeated lessons, in session order.
    pub repeats: Vec<Repeat>,
    /// Problems met (unreadable sessions), worded.
    pub warnings: Vec<String>,
}

impl Report {
    /// `N lessons repeated, M would have been recalled`.
    pub fn summary(&self) -> String {
        let m = self.repeats.iter().filter(|r| r.recalled).count();
        let lessons = mem_recall::render::counted(self.repeats.len(), "lesson", "lessons");
        format!("{lessons} repeated, {m} would have been recalled")
    }
}

/// One session to replay.
struct SessionFile {
    path: PathBuf,
    id: String,
    events: Vec<Event>,
    first_ts: Option<chrono::DateTime<chrono::Utc>>,
}

/// The session files of `paths` (folders: their `*.jsonl`, not
/// `agent-*.jsonl`), sorted by path.
pub fn session_files(paths: &[PathBuf]) -> crate::error::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let rd = std::fs::read_dir(p).map_err(|err| RecallError::Cannot {
                action: "list",
                path: p.clone(),
                err,
            })?;
            for e in rd.flatten() {
                let f = e.path();
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".jsonl")
                    && !name.starts_with("agent-")
                    && !name.starts_with('.')
                    && f.is_file()
                {
                    out.push(f);
                }
            }
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(crate::error::HookError::NoSuchPath(p.clone()));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The events of one transcript, through mem-transcript's `replay`.
fn replay(path: &Path) -> crate::error::Result<Vec<Event>> {
    let cli = <mem_transcript::Cli as clap::Parser>::try_parse_from([
        std::ffi::OsStr::new("mem-transcript"),
        std::ffi::OsStr::new("replay"),
        std::ffi::OsStr::new("--format"),
        std::ffi::OsStr::new("jsonl"),
        path.as_os_str(),
    ])?;
    let mut buf: Vec<u8> = Vec::new();
    mem_transcript::run_cli(cli, &mut buf)?;
    let (ok, errs) = mem_core::jsonl::read_records::<Event>(&buf[..], &path.display().to_string());
    if let Some(e) = errs.into_iter().next() {
        return Err(e.into());
    }
    Ok(ok.into_iter().map(|(_, e)| e).collect())
}

/// The main agent's first `n` user prompts with their transcript lines
/// (text, not side chains; slash command wrappers and empty texts left out).
pub fn first_prompts(events: &[Event], n: usize) -> Vec<(u64, String)> {
    events
        .iter()
        .filter(|e| !e.sidechain && e.role == "user" && e.kind == "text")
        .filter_map(|e| Some((e.line, e.text.as_deref()?.trim())))
        .filter(|(_, t)| {
            !t.is_empty() && !t.starts_with("<command-") && !t.starts_with("<local-command")
        })
        .take(n)
        .map(|(l, t)| (l, t.to_string()))
        .collect()
}

/// The first transcript line a memory's evidence points to
/// (`transcript:<digest>#<line>`), if any.
fn evidence_line(m: &Memory) -> Option<u64> {
    m.evidence
        .iter()
        .filter_map(|e| e.rsplit_once('#').and_then(|(_, l)| l.parse().ok()))
        .min()
}

/// Run the backtest over `files` into the memory directory `dir` (empty).
///
/// Errors: the memory directory cannot be written. A session that cannot
/// be read is a warning of the report.
pub fn run_backtest(
    files: &[PathBuf],
    dir: &Path,
    prompts: usize,
    cwd: Option<&Path>,
) -> crate::error::Result<Report> {
    let stems = Stems::default();
    let vocab = Arc::new(Vocabulary::load()?);
    let mut report = Report::default();
    let mut sessions = Vec::new();
    for f in files {
        match replay(f) {
            Ok(events) => {
                let first_ts = events
                    .iter()
                    .find_map(|e| e.ts.as_deref().and_then(mem_core::time::parse_ts));
                let id = f
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                sessions.push(SessionFile {
                    path: f.clone(),
                    id,
                    events,
                    first_ts,
                });
            }
            Err(e) => report
                .warnings
                .push(format!("{}: {e:#} (left out)", f.display())),
        }
    }
    sessions.sort_by(|a, b| {
        a.first_ts
            .cmp(&b.first_ts)
            .then_with(|| a.path.cmp(&b.path))
    });
    std::fs::create_dir_all(dir).map_err(|err| RecallError::Cannot {
        action: "create",
        path: dir.to_path_buf(),
        err,
    })?;
    // Which session first wrote each memory.
    let mut learned_in: BTreeMap<String, String> = BTreeMap::new();
    for s in &sessions {
        if s.events.is_empty() {
            continue;
        }
        report.sessions += 1;
        let today: NaiveDate = s
            .first_ts
            .map(|t| t.date_naive())
            .unwrap_or_else(|| chrono::Utc::now().date_naive());
        // 1. Recall with what earlier sessions wrote.
        let items = mem_recall::load::load_dir(dir, None, &stems)?.items;
        // Per prompt: its line and, per memory, the gate's verdict for it.
        let mut recalls: Vec<(u64, BTreeMap<String, Verdict>)> = Vec::new();
        for (line, p) in first_prompts(&s.events, prompts) {
            let mut recalled = BTreeMap::new();
            // as the hook does: `trust: low` memories are not recalled
            let q = Query::with_defaults(p, today, Some(vocab.clone()));
            for d in mem_recall::decide(&items, &q, &stems) {
                let v = if d.action == Action::Recall {
                    Verdict::Recalled(d.matched())
                } else {
                    Verdict::Not(d.reason.unwrap_or("no-match"))
                };
                recalled.insert(items[d.doc].doc.id.to_string(), v);
            }
            recalls.push((line, recalled));
        }
        // 2. Extract and write this session's memories.
        let root = mem_extract::project_root_for(cwd, &s.events, false);
        let opts = mem_extract::extract::ExtractOptions {
            project_id: root.as_deref().map(mem_core::memdir::project_id),
            project_root: root,
            ..Default::default()
        };
        let mems: Vec<Memory> = mem_extract::extract::extract(&s.events, &opts).memories;
        if mems.is_empty() {
            continue;
        }
        // Per record id: its kind and the first line of its evidence.
        let kinds: BTreeMap<String, (Kind, Option<u64>)> = mems
            .iter()
            .filter_map(|m| {
                m.resolve_id()
                    .ok()
                    .map(|id| (id, (m.effective_kind(), evidence_line(m))))
            })
            .collect();
        let batch: Vec<(usize, Memory)> = mems
            .into_iter()
            .enumerate()
            .map(|(i, m)| (i + 1, m))
            .collect();
        let wopts = mem_index::write::WriteOptions {
            skip_invalid: true,
            today,
            ..Default::default()
        };
        let lock = mem_core::store::lock_index(dir)?;
        let rep = mem_index::write::write_batch(&lock, dir, batch, &s.id, Vec::new(), &wopts)?;
        drop(lock);
        for r in &rep.results {
            let id = r.id().unwrap_or_default().to_string();
            let (kind, at) = match kinds.get(&id) {
                Some((k, at)) => (Some(*k), *at),
                None => (None, None),
            };
            let earlier = match r {
                IndexOp::Create { .. } => None,
                IndexOp::Duplicate { duplicate_of, .. } => Some(duplicate_of.clone()),
                _ => Some(id.clone()),
            };
            if let IndexOp::Create { .. } = r {
                report.created += 1;
                learned_in.insert(id, s.id.clone());
                continue;
            }
            let Some(lesson) = earlier else { continue };
            let Some(first) = learned_in.get(&lesson).filter(|f| **f != s.id) else {
                continue;
            };
            if !matches!(kind, Some(Kind::DurableLesson | Kind::Preference)) {
                continue;
            }
            // Only prompts before the repeat count.
            let before: Vec<Option<&Verdict>> = recalls
                .iter()
                .filter(|(line, _)| at.is_none_or(|a| *line < a))
                .map(|(_, v)| v.get(&lesson))
                .collect();
            let (recalled, why_not, matched) = verdict(&before);
            report.repeats.push(Repeat {
                session: s.id.clone(),
                date: today.to_string(),
                kind: kind.map_or("", Kind::as_str).to_string(),
                op: r.op().to_string(),
                learned_in: first.clone(),
                recalled,
                why_not,
                matched,
                lesson,
            });
        }
    }
    Ok(report)
}

/// The gate's verdict on one memory for one prompt.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    /// Recalled, with what matched.
    Recalled(Vec<String>),
    /// Not recalled, with the gate's reason.
    Not(&'static str),
}

/// Sums up the verdicts on a lesson for the prompts before its repeat:
/// (recalled, why not, matched). A prompt that recalled it wins; else a
/// `low-trust` skip (the lesson is never injected), else the first
/// prompt's reason; `no-prompt` when no prompt came before the
/// repeat. A memory the gate did not rule on is `no-match`.
fn verdict(before: &[Option<&Verdict>]) -> (bool, String, Vec<String>) {
    if let Some(Verdict::Recalled(m)) = before
        .iter()
        .flatten()
        .find(|v| matches!(v, Verdict::Recalled(_)))
    {
        return (true, String::new(), m.clone());
    }
    if before.is_empty() {
        return (false, "no-prompt".into(), Vec::new());
    }
    let reasons: Vec<&str> = before
        .iter()
        .map(|v| match v {
            Some(Verdict::Not(r)) => *r,
            _ => "no-match",
        })
        .collect();
    let why = if reasons.contains(&"low-trust") {
        "low-trust"
    } else {
        reasons[0]
    };
    (false, why.to_string(), Vec::new())
}

/// The text table of a report (a header, one row per repeated lesson).
pub fn table(report: &Report) -> String {
    let mut s = String::from(
        "| session | date | lesson | kind | op | learned in | recalled |\n|---|---|---|---|---|---|---|\n",
    );
    for r in &report.repeats {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            short(&r.session),
            r.date,
            r.lesson,
            r.kind,
            r.op,
            short(&r.learned_in),
            if r.recalled {
                format!("yes ({})", r.matched.join(", "))
            } else {
                format!("no ({})", r.why_not)
            }
        ));
    }
    s
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// Run `mem-hook backtest`.
///
/// Errors: no sessions found, a path that does not exist, a memory
/// directory that cannot be written, a bad vocabulary file.
pub fn run(args: &BacktestArgs) -> crate::error::Result<mem_core::Exit> {
    let cwd = match &args.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().map_err(RecallError::WorkingDir)?,
    };
    let paths = if args.paths.is_empty() {
        let root = mem_core::memdir::project_root(&cwd, false);
        mem_core::memdir::transcript_dirs_for(&[root])?
    } else {
        args.paths.clone()
    };
    let files = session_files(&paths)?;
    if files.is_empty() {
        return Err(crate::error::HookError::NoSessions(paths));
    }
    let scratch;
    let dir = match &args.keep {
        Some(d) => {
            if std::fs::read_dir(d).is_ok_and(|mut r| r.next().is_some()) {
                return Err(crate::error::HookError::KeepNotEmpty(d.clone()));
            }
            d.clone()
        }
        None => {
            scratch = tempfile::tempdir().map_err(crate::error::HookError::Scratch)?;
            scratch.path().to_path_buf()
        }
    };
    let cwd_arg = args.cwd.as_deref();
    let report = run_backtest(&files, &dir, args.prompts, cwd_arg)?;
    for w in &report.warnings {
        mem_core::cli::warn(crate::error::NAME, w);
    }
    let mut out = mem_core::cli::Output::stdout(false);
    match args.format {
        BacktestFormat::Text => {
            use std::io::Write as _;
            out.write_all(table(&report).as_bytes())?;
            out.line(&format!(
                "{}, {} written; {}",
                mem_recall::render::counted(report.sessions, "session", "sessions"),
                mem_recall::render::counted(report.created, "memory", "memories"),
                report.summary()
            ))?;
        }
        BacktestFormat::Jsonl => {
            for r in &report.repeats {
                out.record(r)?;
            }
            let m = report.repeats.iter().filter(|r| r.recalled).count();
            out.record(&BacktestSummary {
                summary: report.summary(),
                sessions: report.sessions,
                created: report.created,
                repeated: report.repeats.len(),
                recalled: m,
            })?;
        }
    }
    out.flush()?;
    Ok(mem_core::Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::{Report, Verdict, verdict};
    use mem_recall::render::counted;

    /// "1 lessons repeated" and "1 memories written" read wrong.
    #[test]
    fn counts_take_the_singular_for_one() {
        assert_eq!(counted(1, "lesson", "lessons"), "1 lesson");
        assert_eq!(counted(0, "lesson", "lessons"), "0 lessons");
        assert_eq!(counted(2, "memory", "memories"), "2 memories");
        let report = Report {
            sessions: 2,
            created: 1,
            repeats: Vec::new(),
            warnings: Vec::new(),
        };
        assert_eq!(
            report.summary(),
            "0 lessons repeated, 0 would have been recalled"
        );
    }

    #[test]
    fn a_recall_wins_then_low_trust_then_the_first_reason() {
        let rec = Verdict::Recalled(vec!["npm".into()]);
        let low = Verdict::Not("low-trust");
        let miss = Verdict::Not("no-match");
        assert_eq!(
            verdict(&[Some(&miss), Some(&rec)]),
            (true, String::new(), vec!["npm".to_string()])
        );
        assert_eq!(
            verdict(&[Some(&miss), Some(&low)]),
            (false, "low-trust".to_string(), Vec::new())
        );
        assert_eq!(
            verdict(&[None, Some(&miss)]),
            (false, "no-match".to_string(), Vec::new())
        );
        assert_eq!(verdict(&[]), (false, "no-prompt".to_string(), Vec::new()));
    }
}
