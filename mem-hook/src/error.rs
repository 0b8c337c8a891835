//! What stops a `mem-hook` command, and the exit code each maps to
//! (docs/records.md "Exit codes"): [`HookError::code`].
//!
//! The hook itself (no subcommand) never fails: an error there is printed
//! on stderr and it exits 0 with nothing added to the context.

use std::path::PathBuf;

use mem_core::error::Exit;
use mem_recall::RecallError;

/// The tool's name in messages: `mem-hook: {err}`, the installer's and
/// backtest's warnings. (The hook's own lines keep `mem-recall: hook:`, as
/// before the hook was a tool of its own.)
pub const NAME: &str = "mem-hook";

/// An error of `mem-hook` (its library and its binary). Printed once as
/// `mem-hook: {err}`.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// An error of recall (`mem_recall`): loading the memory directory,
    /// reading the options, …
    #[error(transparent)]
    Recall(#[from] RecallError),
    /// An error of the shared library: I/O naming the file, a bad record,
    /// an unresolvable memory directory, …
    #[error(transparent)]
    Core(#[from] mem_core::Error),
    /// Settings or a session's state that cannot be turned into JSON (not
    /// expected: both are JSON values).
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Writing the output failed (a closed pipe exits 0 quietly).
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// `backtest`: replaying a transcript failed.
    #[error(transparent)]
    Transcript(#[from] mem_transcript::TranscriptError),
    /// `backtest`: an error of the index library (writing a session's
    /// memories).
    #[error(transparent)]
    Index(#[from] mem_index::IndexError),
    /// `backtest`: the replay's own command line was refused.
    #[error(transparent)]
    ReplayArgs(#[from] clap::Error),
    /// `backtest`: the scratch memory directory cannot be made.
    #[error("cannot create a scratch memory directory: {0}")]
    Scratch(std::io::Error),
    /// the hook: stdin cannot be read.
    #[error("cannot read stdin: {0}")]
    Stdin(std::io::Error),
    /// the hook: stdin is not one hook JSON object with `hook_event_name`.
    #[error("stdin is not hook JSON: {0}")]
    NotHookJson(String),
    /// the hook: an event other than SessionStart, UserPromptSubmit,
    /// PreToolUse and Stop.
    #[error("event {0:?} is not handled (use SessionStart, UserPromptSubmit, PreToolUse or Stop)")]
    UnknownEvent(String),
    /// the hook on `Stop`: the session memory's state could not be read or
    /// written (the message names the file).
    #[error("session memory: {0}")]
    SessionMemory(String),
    /// `backtest`: a path that is neither a file nor a folder.
    #[error("{}: no such file or folder", .0.display())]
    NoSuchPath(PathBuf),
    /// `backtest`: no session transcripts in the folders given or found.
    #[error("{}", no_sessions(.0))]
    NoSessions(Vec<PathBuf>),
    /// `backtest --keep DIR` with a folder that is not empty.
    #[error("--keep {}: the folder is not empty", .0.display())]
    KeepNotEmpty(PathBuf),
    /// `install`/`uninstall`: a settings file of a shape mem does not
    /// change (`not UTF-8 text`, `not a JSON object`, `"hooks" is not an
    /// object`, …).
    #[error("{}: {what}; left untouched", .path.display())]
    Settings {
        /// The settings file.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// `install`/`uninstall`: a settings file that is not JSON.
    #[error("{}:{line}: not JSON ({reason}); left untouched", .path.display())]
    SettingsNotJson {
        /// The settings file.
        path: PathBuf,
        /// 1-based line of the JSON error.
        line: usize,
        /// The JSON error, described.
        reason: String,
    },
    /// `install` (not `--dry-run`): tools missing from the bin
    /// directory the hooks would run.
    #[error("{}: {} not found there (or not executable); install the tools there (scripts/install.sh) or name their directory with --bin-dir; nothing written", .bin.display(), .missing.join(", "))]
    ToolsMissing {
        /// The bin directory.
        bin: PathBuf,
        /// The tools not found there.
        missing: Vec<&'static str>,
    },
}

impl HookError {
    /// The exit code: the library's own for [`HookError::Recall`],
    /// [`HookError::Core`], [`HookError::Transcript`] and
    /// [`HookError::Index`] (75 for a busy lock), 1 for everything else.
    pub fn code(&self) -> Exit {
        match self {
            HookError::Recall(e) => e.code(),
            HookError::Core(e) => e.exit(),
            HookError::Transcript(e) => e.code(),
            HookError::Index(e) => e.code(),
            _ => Exit::Failure,
        }
    }
}

impl mem_core::error::UError for HookError {
    fn code(&self) -> Exit {
        HookError::code(self)
    }

    fn is_broken_pipe(&self) -> bool {
        match self {
            HookError::Output(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
            HookError::Recall(e) => mem_core::error::UError::is_broken_pipe(e),
            HookError::Core(e) => mem_core::error::is_broken_pipe(e),
            HookError::Transcript(e) => mem_core::error::UError::is_broken_pipe(e),
            HookError::Index(e) => mem_core::error::UError::is_broken_pipe(e),
            _ => false,
        }
    }
}

/// The words of [`HookError::NoSessions`]: the folders looked in, or,
/// when the project has none, that none was found and what to give.
fn no_sessions(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "no session transcripts found for this project (no folder of its sessions in \
                Claude Code's projects folder, ~/.claude/projects or $CLAUDE_CONFIG_DIR/projects): \
                give the folders or files to replay"
            .to_string();
    }
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    format!("no session transcripts in {}", shown.join(", "))
}

/// Result with [`HookError`].
pub type Result<T, E = HookError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_know_their_exit_code() {
        let busy = HookError::Recall(RecallError::Core(mem_core::Error::Busy {
            path: "/m/.consolidate-lock".into(),
            pid: 7,
        }));
        assert_eq!(busy.code(), Exit::TempFail);
        assert_eq!(HookError::KeepNotEmpty("/k".into()).code(), Exit::Failure);
        assert_eq!(
            HookError::KeepNotEmpty("/k".into()).to_string(),
            "--keep /k: the folder is not empty"
        );
    }

    /// With no folder of the project's sessions found, the error said "no
    /// session transcripts in " and named nothing.
    #[test]
    fn no_sessions_names_the_folders_or_says_none_was_found() {
        assert_eq!(
            HookError::NoSessions(vec!["/a".into(), "/b".into()]).to_string(),
            "no session transcripts in /a, /b"
        );
        assert_eq!(
            HookError::NoSessions(Vec::new()).to_string(),
            "no session transcripts found for this project (no folder of its sessions in Claude \
             Code's projects folder, ~/.claude/projects or $CLAUDE_CONFIG_DIR/projects): give the \
             folders or files to replay"
        );
    }
}
