//! `replay --project DIR`: every session of a project (Claude Code and
//! Codex, every worktree), oldest first, in one event stream; with
//! `--since-last`, only the sessions that are new or changed since the last
//! such run.
//!
//! State (`--since-last`): a JSON file, by default
//! `$XDG_CACHE_HOME/mem/<digest of the memory dir>/replay-state.json`
//! (the memory dir resolved as `mem-index path` does, from `--memory-dir`,
//! `MEM_MEMORY_DIR`, the user settings or the project folder). It maps each
//! session file's path to its size and modification time (ns since the
//! epoch) when it was last read, or found to belong to another project:
//!
//! ```json
//! {"version":1,"files":{"/home/u/.claude/projects/-home-u-p/6f1c.jsonl":{"size":1234,"mtime_ns":1760000000000000000}}}
//! ```
//!
//! A file whose size or mtime differs is read again, whole. The state is
//! written (atomically) only after every event was written to stdout; a run
//! that fails writes none, so the next run reads the same sessions again.

use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use mem_core::memdir;
use mem_core::{Error, Exit};
use serde::{Deserialize, Serialize};

use crate::event::Sink;
use crate::ls::{ListedSession, session_files, summarize};
use crate::{Global, Notice, ReplayArgs, ReplayOptions, replay_file, report_warnings};

/// What became of one session file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Its events were written.
    Read,
    /// The file is empty (0 bytes).
    Empty,
    /// No user/assistant entry to start a branch from.
    NoConversation,
}

/// Replay one session into `sink`, its warnings on stderr; what became of it.
///
/// Errors: as [`replay_file`].
fn replay_one(
    path: &Path,
    opts: &ReplayOptions,
    strict: bool,
    sink: &mut Sink<'_>,
) -> Result<Outcome, Error> {
    let mut outcome = Outcome::Read;
    replay_file(path, opts, sink, &mut |n| match n {
        Notice::Warnings(ws) => report_warnings(ws, strict),
        Notice::Empty(_) => {
            outcome = Outcome::Empty;
            Ok(())
        }
        Notice::NoConversation(_) => {
            outcome = Outcome::NoConversation;
            Ok(())
        }
        Notice::LeafIgnored(_) => Ok(()),
    })?;
    Ok(outcome)
}

/// The state file's name in the cache directory.
pub const STATE_FILE: &str = "replay-state.json";

/// One file as it was when last read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (0 when unknown).
    pub mtime_ns: i128,
    /// The session belongs to another project (a Codex rollout recorded
    /// elsewhere): left unread.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub other: bool,
}

impl Seen {
    /// Same size and modification time.
    pub fn same_file(&self, other: &Seen) -> bool {
        self.size == other.size && self.mtime_ns == other.mtime_ns
    }
}

/// The `--since-last` state (format: module docs). Unknown keys are kept.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct State {
    /// Format version (1).
    #[serde(default)]
    pub version: u32,
    /// Session file path → what it was when last read.
    #[serde(default)]
    pub files: BTreeMap<String, Seen>,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl State {
    /// Read the state file; a missing file is an empty state.
    ///
    /// Errors: [`Error::Io`] when it cannot be read, [`Error::Input`] naming
    /// the file when it is not the state's JSON (delete it to start over).
    pub fn load(path: &Path) -> Result<State, Error> {
        match std::fs::read(path) {
            Ok(b) => serde_json::from_slice(&b).map_err(|e| {
                Error::input(
                    path.display().to_string(),
                    e.line(),
                    format!(
                        "not a replay state file ({}); remove it to read every session again",
                        mem_core::jsonl::describe(&e)
                    ),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State::default()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Write the state atomically. Errors: [`Error::Io`] naming the file.
    pub fn save(&mut self, path: &Path) -> Result<(), Error> {
        self.version = 1;
        let mut b = serde_json::to_vec_pretty(self).map_err(|e| Error::io(path, e.into()))?;
        b.push(b'\n');
        mem_core::atomic::write_atomic(path, &b)
    }
}

/// What a file is now, for comparison with [`Seen`]; `None` when it cannot
/// be read.
pub fn seen_now(path: &Path) -> Option<Seen> {
    let m = std::fs::metadata(path).ok()?;
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    Some(Seen {
        size: m.len(),
        mtime_ns,
        other: false,
    })
}

/// The default state file for the project at `dir` and the memory dir
/// `memory_dir` (else resolved as `mem-index path` does).
///
/// Errors: [`Error::Env`] (no home, unreadable settings).
pub fn default_state_path(dir: &Path, memory_dir: Option<&Path>) -> Result<PathBuf, Error> {
    let r = memdir::resolve(&memdir::MemdirOptions {
        memory_dir: memory_dir.map(Path::to_path_buf),
        cwd: Some(dir.to_path_buf()),
        ..Default::default()
    })?;
    Ok(memdir::cache_dir_for(&r.dir)?.join(STATE_FILE))
}

/// Every session file that may belong to the project with worktree `roots`:
/// the files of its Claude Code project folders, then Codex's sessions.
/// Each comes with whether it sits in a project folder of its own.
///
/// Errors: [`Error::Env`] (no home).
pub fn candidate_files(roots: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>, Error> {
    let mut files = Vec::new();
    for d in memdir::transcript_dirs_for(roots)? {
        files.extend(session_files(&d, false).into_iter().map(|p| (p, true)));
    }
    let codex = memdir::codex_home()?.join("sessions");
    files.extend(session_files(&codex, true).into_iter().map(|p| (p, false)));
    Ok(files)
}

/// True when the session belongs to the project (same rule as `ls`): a
/// recorded cwd inside a root, or no cwd at all in the project's own folder.
pub fn belongs(session: &ListedSession, in_project_folder: bool, roots: &[PathBuf]) -> bool {
    if session.cwds.is_empty() {
        in_project_folder
    } else {
        session.cwds.iter().any(|c| memdir::cwd_in_roots(c, roots))
    }
}

/// What a file that is not a regular one is, in words.
fn kind_of(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Counts for the summary line.
#[derive(Debug, Default)]
pub struct Summary {
    /// Sessions whose events were written.
    pub read: usize,
    /// Unchanged since the last run (`--since-last`).
    pub unchanged: usize,
    /// Session files of other projects (Codex keeps every project's).
    pub other_projects: usize,
    /// Skipped: reason → count, plus the first file for each.
    pub skipped: BTreeMap<String, (usize, String)>,
}

impl Summary {
    fn skip(&mut self, reason: &str, file: &Path) {
        let e = self
            .skipped
            .entry(reason.to_string())
            .or_insert((0, file.display().to_string()));
        e.0 += 1;
    }

    /// The summary line: `N session(s) read, M unchanged since the last
    /// run, K skipped (2 empty, 1 unreadable: FILE: reason)`.
    pub fn line(&self) -> String {
        let mut s = format!(
            "{} session{} read",
            self.read,
            if self.read == 1 { "" } else { "s" }
        );
        if self.unchanged > 0 {
            s += &format!(", {} unchanged since the last run", self.unchanged);
        }
        let n: usize = self.skipped.values().map(|(n, _)| n).sum();
        s += &format!(", {n} skipped");
        if n > 0 {
            let why: Vec<String> = self
                .skipped
                .iter()
                .map(|(r, (n, f))| {
                    if r.starts_with("unreadable") {
                        format!("{n} {r} (first: {f})")
                    } else {
                        format!("{n} {r}")
                    }
                })
                .collect();
            s += &format!(" ({})", why.join("; "));
        }
        if self.other_projects > 0 {
            s += &format!(
                "; {} session file(s) of other projects left alone",
                self.other_projects
            );
        }
        s
    }
}

fn progress_bar(n: usize) -> Option<indicatif::ProgressBar> {
    if n == 0 || !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::with_draw_target(
        Some(n as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(st) = indicatif::ProgressStyle::with_template(
        "{spinner} reading sessions {bar:30} {pos}/{len} {elapsed} {wide_msg}",
    ) {
        b.set_style(st);
    }
    Some(b)
}

/// `replay --project DIR [--since-last] [--state FILE]`.
///
/// Errors: [`Error::Env`] (no home), the state file's errors, I/O on the
/// output; with `--strict`, the first session with a warning. A session that
/// cannot be read is skipped and counted, not an error.
pub fn replay_project(
    dir: &Path,
    a: &ReplayArgs,
    g: &Global,
    opts: &ReplayOptions,
    sink: &mut Sink<'_>,
) -> Result<Exit, Error> {
    if !dir.is_dir() {
        return Err(Error::Env(format!(
            "--project {}: not a directory",
            dir.display()
        )));
    }
    let roots = memdir::project_worktrees(dir);
    let state_path = match (&a.state, a.since_last) {
        (Some(p), _) => Some(p.clone()),
        (None, true) => Some(default_state_path(dir, a.memory_dir.as_deref())?),
        (None, false) => None,
    };
    let old = match &state_path {
        Some(p) if a.since_last => State::load(p)?,
        _ => State::default(),
    };
    let mut sum = Summary::default();
    let mut state = State {
        extra: old.extra.clone(),
        ..State::default()
    };
    // Which files to look at: new or changed ones.
    let mut todo: Vec<(ListedSession, Seen)> = Vec::new();
    let mut seen_paths: HashMap<String, ()> = HashMap::new();
    for (f, own_folder) in candidate_files(&roots)? {
        let key = f.display().to_string();
        if seen_paths.insert(key.clone(), ()).is_some() {
            continue;
        }
        // regular files only (a link to one is fine): a FIFO would block
        // the read, a link to /dev/zero never end it
        match std::fs::metadata(&f) {
            Ok(m) if !m.is_file() => {
                let what = kind_of(&m.file_type());
                crate::note(&format!(
                    "{}: is {what}, not a regular file: session skipped",
                    f.display()
                ));
                sum.skip("unreadable (not a regular file)", &f);
                continue;
            }
            _ => {}
        }
        let Some(now) = seen_now(&f) else {
            sum.skip("unreadable (gone or no permission)", &f);
            continue;
        };
        if let Some(was) = old.files.get(&key).filter(|w| w.same_file(&now)) {
            if was.other {
                sum.other_projects += 1;
            } else {
                sum.unchanged += 1;
            }
            state.files.insert(key, *was);
            continue;
        }
        let s = summarize(&f);
        if !belongs(&s, own_folder, &roots) {
            sum.other_projects += 1;
            state.files.insert(key, Seen { other: true, ..now });
            continue;
        }
        todo.push((s, now));
    }
    // Oldest first: a later session's memories update an earlier one's.
    todo.sort_by(|(x, _), (y, _)| {
        x.start
            .unwrap_or(i64::MAX)
            .cmp(&y.start.unwrap_or(i64::MAX))
            .then_with(|| x.path.cmp(&y.path))
    });
    let bar = progress_bar(todo.len());
    crate::set_progress(bar.clone());
    let result = (|| -> Result<(), Error> {
        for (s, now) in &todo {
            if let Some(b) = &bar {
                b.set_message(
                    s.path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                );
            }
            match replay_one(&s.path, opts, g.strict, sink) {
                Ok(Outcome::Read) => sum.read += 1,
                Ok(Outcome::Empty) => sum.skip("empty (0 bytes)", &s.path),
                Ok(Outcome::NoConversation) => sum.skip("without conversation entries", &s.path),
                Err(e @ Error::Io { .. }) if crate::is_output_error(&e) => return Err(e),
                Err(e) if g.strict => return Err(e),
                Err(e) => {
                    crate::note(&format!("{e}: session skipped"));
                    sum.skip("unreadable", &s.path);
                }
            }
            state.files.insert(s.path.display().to_string(), *now);
            if let Some(b) = &bar {
                b.inc(1);
            }
        }
        sink.flush().map_err(|e| Error::io("<stdout>", e))
    })();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    crate::set_progress(None);
    result?;
    if let Some(p) = &state_path {
        state.save(p)?;
    }
    eprintln!("mem-transcript: {}", sum.line());
    Ok(Exit::Success)
}
