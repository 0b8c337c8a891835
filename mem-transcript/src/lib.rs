//! mem-transcript: read and append agent session transcripts (Claude Code
//! JSONL, Codex rollouts).
//!
//! Subcommands: `replay` (the events of the branch resume would continue,
//! docs/transcripts.md "Replay: one branch"), `tree`, `verify`, `stats`, `ls`, `files` (the
//! files a session touched and their backups, docs/transcripts.md),
//! `locate`, `append`. Warnings about the input go to stderr as `FILE:LINE: reason`;
//! `--strict` makes them errors (exit 1).
//!
//! Exit codes: 0 success; 1 bad input (missing file, a directory, a file
//! with no JSON object, `--strict` warnings, `verify` of a broken chain);
//! 2 usage; 75 when `append` cannot take the file's lock (never: it waits).
//! `replay --hook` always exits 0 (a hook never fails the agent's turn).

pub mod append;
pub mod branch_lines;
pub mod capture;
pub mod claude;
pub mod codex;
pub mod commands;
pub mod entries;
pub mod error;
pub mod event;
pub mod input;
pub mod ls;
pub mod project;
mod replay;
pub mod report;
mod run;

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};
use mem_core::Error;
use mem_core::jsonl::Warning;

pub use crate::commands::commands_since;
pub use crate::error::TranscriptError;
use crate::input::{Input, Source};
pub use crate::replay::{Notice, ReplayOptions, replay_file, replay_to_vec};
pub use crate::run::{run, run_cli};

/// Read, check, list and append agent session transcripts.
#[derive(Debug, Parser)]
#[command(name = "mem-transcript", version, about, long_about = None)]
pub struct Cli {
    /// Global options.
    #[command(flatten)]
    pub global: Global,
    /// The subcommand.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// Options every subcommand takes.
#[derive(Debug, Args)]
pub struct Global {
    /// `--format`, `--line-buffered`.
    #[command(flatten)]
    pub output: mem_core::cli::OutputArgs,
    /// Turn transcript warnings (torn or malformed lines, bridged parents,
    /// invalid UTF-8 read as U+FFFD) into errors.
    #[arg(long, global = true, help_heading = "Input")]
    pub strict: bool,
    /// The project to act for (ls, locate). Default: the working directory.
    #[arg(long, global = true, value_name = "DIR", help_heading = "Where")]
    pub cwd: Option<PathBuf>,
    /// Threads that index a large session (files of 32 MB and more are read
    /// in ranges of whole lines at once). Default: the number of CPUs, at most 4.
    #[arg(short = 'j', long, global = true, value_name = "N", help_heading = "Input",
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: Option<u16>,
}

/// Threads for indexing a session when none are asked for: the CPUs, at
/// most 4 (counted once a process: on Linux it reads the cgroup's CPU quota).
pub fn default_threads() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

impl Global {
    /// `--threads`, else [`default_threads`].
    pub fn threads(&self) -> usize {
        self.threads.map_or_else(default_threads, usize::from)
    }
}

/// `--from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum FromArg {
    /// Guess from the file name and the first lines.
    #[default]
    Auto,
    /// Claude Code session JSONL.
    Claude,
    /// Codex CLI rollout.
    Codex,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// The events of the branch resume would continue.
    ///
    /// Leaf: `--leaf`, else the newest user/assistant entry that is not a side
    /// chain. The walk follows parentUuid through every entry type, bridges a
    /// missing parent to the previous conversation entry (with a warning),
    /// crosses compaction boundaries by logicalParentUuid (`--resume` stops at
    /// the last one) and emits user, assistant and system content, root first.
    #[command(after_long_help = "Examples:\n  \
        mem-transcript replay ~/.claude/projects/-home-u-proj/6f1c….jsonl | mem-extract\n  \
        mem-transcript replay --resume --format text SESSION.jsonl\n  \
        mem-transcript replay --hook   # reads Claude Code's hook JSON on stdin\n  \
        mem-transcript replay --project . --since-last | mem-extract | mem-index write")]
    Replay(ReplayArgs),
    /// The structure of a session: roots, forks, leaves, dangling parents,
    /// compaction boundaries, side chains and sub-agent files.
    #[command(after_long_help = "Example:\n  mem-transcript tree --format text SESSION.jsonl")]
    Tree(FilesArgs),
    /// An integrity report per file; exit 1 when a file has entries but no leaf.
    ///
    /// Reports torn and malformed lines, dangling parents, how many
    /// conversation entries the resumed chain reaches out of all, and orphaned
    /// branches. `--repair OUT` writes a repaired copy (parents bridged, torn
    /// lines dropped) and never touches the input.
    #[command(
        after_long_help = "Examples:\n  mem-transcript verify ~/.claude/projects/*/*.jsonl\n  \
        mem-transcript verify --repair fixed.jsonl SESSION.jsonl"
    )]
    Verify(VerifyArgs),
    /// Entries by type, turns, tool calls and errors by tool, tokens (once per
    /// API response), models, first and last timestamp, first prompt.
    #[command(after_long_help = "Example:\n  mem-transcript stats --format text SESSION.jsonl")]
    Stats(FilesArgs),
    /// The sessions of the project at the working directory (Claude Code and
    /// Codex), filtered by each session's recorded cwd.
    ///
    /// With DIR, the sessions found under DIR (still filtered by cwd unless
    /// `--all`). Damaged files are listed and flagged.
    #[command(
        after_long_help = "Examples:\n  mem-transcript ls\n  mem-transcript ls --all\n  \
        mem-transcript ls --latest --cwd ~/src/proj\n  mem-transcript ls ~/.codex/sessions --all"
    )]
    Ls(LsArgs),
    /// The files a session touched and where each pre-edit backup is, as of
    /// an entry (its `file-history-snapshot` and `attribution-snapshot`
    /// entries).
    ///
    /// SESSION is a transcript file or a session id (looked up under
    /// `~/.claude/projects`). The state is the latest snapshot at or before
    /// `--at UUID` on that entry's branch (default: the end of the branch
    /// resume would continue). Backups are
    /// `~/.claude/file-history/<session>/<backupFileName>`
    /// (`$CLAUDE_CONFIG_DIR` replaces `~/.claude`).
    #[command(
        after_long_help = "Examples:\n  mem-transcript files --format text SESSION.jsonl\n  \
        mem-transcript files 4d5611e5-241a-462a-8d15-5122611a9569 --at 28d2acc8-1eae-43d8-96c1-da286dd23353"
    )]
    Files(FilesCmdArgs),
    /// Resolve an evidence pointer `transcript:<digest>#<line>` to a file and entry.
    #[command(after_long_help = "Example:\n  mem-transcript locate transcript:3f9a0c1d2e4b#17")]
    Locate(LocateArgs),
    /// Append entries (JSON objects, one per line on stdin) to a transcript.
    ///
    /// Every entry is validated first (nothing is written on a bad one); the
    /// append starts on a fresh line even after a torn tail; an advisory lock
    /// serialises writers; each entry is one write in append mode.
    #[command(
        after_long_help = "Example:\n  printf '%s\\n' '{\"type\":\"user\",…}' | mem-transcript append SESSION.jsonl"
    )]
    Append(AppendArgs),
}

/// Arguments of `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Transcript files (`-` for stdin).
    #[arg(value_name = "FILE", required_unless_present_any = ["hook", "project"])]
    pub files: Vec<PathBuf>,
    /// Every session of the project at DIR instead of FILEs: Claude Code's
    /// and Codex's, of every worktree (the sessions `ls --cwd DIR` lists),
    /// oldest first; a summary line on stderr at the end, a progress bar
    /// while reading when stderr is a terminal.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["files", "hook", "leaf"], help_heading = "Project")]
    pub project: Option<PathBuf>,
    /// With --project: read only the sessions that are new or changed since
    /// the last --since-last run, and record what was read once every event
    /// is written.
    #[arg(long, requires = "project", help_heading = "Project")]
    pub since_last: bool,
    /// The state file of --since-last (default:
    /// `$XDG_CACHE_HOME/mem/<digest of the memory dir>/replay-state.json`).
    #[arg(
        long,
        value_name = "FILE",
        requires = "since_last",
        help_heading = "Project"
    )]
    pub state: Option<PathBuf>,
    /// The memory directory the events are for: it keys the default state
    /// file (default: as `mem-index path` resolves it; env MEM_MEMORY_DIR).
    #[arg(
        long,
        value_name = "DIR",
        requires = "project",
        help_heading = "Project"
    )]
    pub memory_dir: Option<PathBuf>,
    /// Start at the last compaction boundary: exactly the context resume loads.
    #[arg(long, help_heading = "Branch")]
    pub resume: bool,
    /// Replay the branch ending at this entry uuid.
    #[arg(long, value_name = "UUID", help_heading = "Branch")]
    pub leaf: Option<String>,
    /// Print the original lines of the branch, byte for byte, instead of events.
    #[arg(long, help_heading = "Output")]
    pub raw: bool,
    /// Input format.
    #[arg(long, value_enum, default_value_t = FromArg::Auto, help_heading = "Input")]
    pub from: FromArg,
    /// Read the hook JSON (Claude Code, Codex) on stdin and emit the events
    /// of its `transcript_path` not yet captured: on `Stop` the turns that
    /// ended since the last run, on `SessionEnd` the rest, on `PreCompact`
    /// what the session summary has not read (docs/hooks.md); a watermark
    /// per session keeps the place. Branch and output options do not apply.
    /// Always exits 0: an error is said on stderr and nothing is captured.
    #[arg(long, conflicts_with = "files", help_heading = "Input")]
    pub hook: bool,
}

/// Files and `--from`.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// Transcript files (`-` for stdin).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Input format.
    #[arg(long, value_enum, default_value_t = FromArg::Auto, help_heading = "Input")]
    pub from: FromArg,
}

/// Arguments of `verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Files and format.
    #[command(flatten)]
    pub files: FilesArgs,
    /// Write a repaired copy of the (single) FILE to OUT.
    #[arg(long, value_name = "OUT", help_heading = "Repair")]
    pub repair: Option<PathBuf>,
}

/// Arguments of `ls`.
#[derive(Debug, Args)]
pub struct LsArgs {
    /// A directory to list instead of the project's transcript folders.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Every project's sessions (no cwd filter).
    #[arg(long)]
    pub all: bool,
    /// Only the newest session (what "continue" would pick).
    #[arg(long)]
    pub latest: bool,
}

/// Arguments of `files`.
#[derive(Debug, Args)]
pub struct FilesCmdArgs {
    /// A transcript file, or a session id.
    #[arg(value_name = "SESSION")]
    pub session: PathBuf,
    /// The state as of this entry (uuid): the latest snapshot at or before
    /// it on its branch.
    #[arg(long, value_name = "UUID")]
    pub at: Option<String>,
    /// Compare each backup with the file on disk now and say which files
    /// changed since (`status`: unchanged, changed, missing, created,
    /// no-backup). Reads only.
    #[arg(long)]
    pub check: bool,
    /// Write each changed or missing file back from its backup (implies
    /// `--check`): only files inside the session's working directory, never
    /// through a link, never a file the session created (nothing is
    /// deleted). Without it nothing is written.
    #[arg(long)]
    pub restore: bool,
}

/// Arguments of `locate`.
#[derive(Debug, Args)]
pub struct LocateArgs {
    /// `transcript:<12 hex>#<line>`.
    #[arg(value_name = "POINTER")]
    pub pointer: String,
    /// Where to look (default: Claude Code's projects and Codex's sessions).
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Arguments of `append`.
#[derive(Debug, Args)]
pub struct AppendArgs {
    /// The transcript to append to (created when missing).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

static PROGRESS: std::sync::Mutex<Option<indicatif::ProgressBar>> = std::sync::Mutex::new(None);

/// The progress bar stderr lines must not tear (set while `replay
/// --project` draws one).
pub(crate) fn set_progress(bar: Option<indicatif::ProgressBar>) {
    if let Ok(mut p) = PROGRESS.lock() {
        *p = bar;
    }
}

/// Print a line on stderr (above the progress bar, if any).
pub(crate) fn eprint_line(line: &str) {
    let bar = PROGRESS.lock().ok().and_then(|p| p.clone());
    match bar {
        Some(b) => b.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    }
}

/// Print `mem-transcript: MSG` on stderr (above the progress bar, if any).
pub fn note(msg: &str) {
    eprint_line(&format!("mem-transcript: {msg}"));
}

/// True for an error writing the output (`<stdout>`), not reading input.
pub(crate) fn is_output_error(e: &Error) -> bool {
    matches!(e, Error::Io { path, .. } if path.as_os_str() == "<stdout>")
}

/// Print warnings on stderr (`mem-transcript: warning: FILE:LINE: reason`),
/// each once; with `strict`, fail on
/// the first. Errors: [`Error::Input`] naming the first warning.
pub fn report_warnings(ws: &[Warning], strict: bool) -> Result<(), Error> {
    for w in ws {
        note(&format!("warning: {w}"));
    }
    if strict && let Some(w) = ws.first() {
        return Err(Error::input(
            &w.file,
            w.line,
            format!("{} (--strict: {} warning(s))", w.reason, ws.len()),
        ));
    }
    Ok(())
}

/// Which reader a file takes.
pub fn source_of(input: &Input, from: FromArg) -> Result<Source, Error> {
    match from.source() {
        Some(s) => Ok(s),
        None => input::sniff(input),
    }
}

impl FromArg {
    /// The reader chosen (`None`: guess).
    pub fn source(self) -> Option<Source> {
        match self {
            FromArg::Auto => None,
            FromArg::Claude => Some(Source::Claude),
            FromArg::Codex => Some(Source::Codex),
        }
    }
}

/// `p` with a leading `~/` made the home directory.
pub(crate) fn expand_tilde(p: &str) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return Path::new(&home).join(rest);
    }
    PathBuf::from(p)
}

/// True when `path` is a sub-agent's transcript: a file inside a
/// `subagents` folder, or named `agent-*.jsonl`. Its entries are side
/// chains whatever their lines say (`replay` marks every event
/// `sidechain: true`), so nothing in it is read as the user's words.
pub fn is_subagent_path(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy());
    if name.is_some_and(|n| n.starts_with("agent-") && n.ends_with(".jsonl")) {
        return true;
    }
    path.parent()
        .is_some_and(|d| d.components().any(|c| c.as_os_str() == "subagents"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn subagent_paths_are_known_by_folder_or_name() {
        for (p, want) in [
            ("/p/6f1c/subagents/agent-a1.jsonl", true),
            ("/p/6f1c/subagents/x.jsonl", true),
            ("subagents/deep/x.jsonl", true),
            ("/p/agent-a1b2.jsonl", true),
            ("/p/6f1c.jsonl", false),
            ("/p/subagents.jsonl", false),
            ("/p/my-agent-notes.jsonl", false),
            ("-", false),
        ] {
            assert_eq!(is_subagent_path(Path::new(p)), want, "{p}");
        }
    }

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }
}
