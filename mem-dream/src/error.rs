//! What stops `mem-dream`, and the exit code each maps to (docs/records.md
//! "Exit codes"): [`DreamError::code`].
//!
//! A consolidation that is not due exits 0 (`nothing to do`) unless
//! `--strict` is given; then it is [`mem_core::Error::NotDue`] (exit 75).

use mem_core::error::Exit;
use mem_core::memdir;

/// An error of `mem-dream` (its library and its binary). Printed once as
/// `mem-dream: {err}`.
#[derive(Debug, thiserror::Error)]
pub enum DreamError {
    /// An error of the shared library: I/O naming the file, a busy lock
    /// (exit 75), not due under `--strict` (exit 75), a file that changed
    /// while consolidating, an interruption (the run rolled back), nothing
    /// to undo, …
    #[error(transparent)]
    Core(#[from] mem_core::Error),
    /// An error of the index library (reading `MEMORY.md` for an update: over
    /// its size limit, not UTF-8).
    #[error(transparent)]
    Index(#[from] mem_index::IndexError),
    /// Writing the output failed (a closed pipe exits 0 quietly).
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// `--tier team` inside a hook's agent ([`memdir::HOOK_GUARD_ENV`] set).
    #[error(
        "--tier team never runs from a hook ({} is set)",
        memdir::HOOK_GUARD_ENV
    )]
    TeamFromHook,
    /// `--tier team undo`: mem-dream never writes the team tier.
    #[error(
        "--tier team: nothing to undo: mem-dream never writes the team tier (undo an applied plan with git, e.g. `git checkout -- {}`)",
        memdir::TEAM_DIR
    )]
    TeamUndo,
    /// `--tier team --transcripts`: sessions are one person's.
    #[error(
        "--tier team: --transcripts is refused: sessions are one person's and are never gathered into the team tier (promote a memory with `mem-index promote ID`)"
    )]
    TeamTranscripts,
}

impl DreamError {
    /// The exit code: the library's own for [`DreamError::Core`] and
    /// [`DreamError::Index`] (75 for a busy lock or, under `--strict`, not
    /// due), 1 for everything else.
    pub fn code(&self) -> Exit {
        match self {
            DreamError::Core(e) => e.exit(),
            DreamError::Index(e) => e.code(),
            _ => Exit::Failure,
        }
    }
}

impl mem_core::error::UError for DreamError {
    fn code(&self) -> Exit {
        DreamError::code(self)
    }

    fn is_broken_pipe(&self) -> bool {
        match self {
            DreamError::Output(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
            DreamError::Core(e) => mem_core::error::is_broken_pipe(e),
            DreamError::Index(e) => mem_core::error::UError::is_broken_pipe(e),
            _ => false,
        }
    }
}

/// Result with [`DreamError`].
pub type Result<T, E = DreamError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_know_their_exit_code_and_words() {
        let e = DreamError::Core(mem_core::Error::NotDue("time".into()));
        assert_eq!(e.code(), Exit::TempFail);
        assert_eq!(e.to_string(), "not due: time");
        let e = DreamError::TeamFromHook;
        assert_eq!(e.code(), Exit::Failure);
        assert_eq!(
            e.to_string(),
            format!(
                "--tier team never runs from a hook ({} is set)",
                memdir::HOOK_GUARD_ENV
            )
        );
    }
}
