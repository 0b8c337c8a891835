//! What stops a `mem-transcript` command, and the exit code each maps to
//! (docs/records.md "Exit codes"): [`TranscriptError::code`].
//!
//! A transcript with problems `verify` finds is not an error: it reports
//! them and exits 1 itself (`--strict`: on any warning too).

use std::path::PathBuf;

use mem_core::error::Exit;

/// An error of `mem-transcript` (its library and its binary). Printed once
/// as `mem-transcript: {err}`; every variant exits 1.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// An error of the shared library: a transcript that cannot be read
    /// (naming it; a directory given as a transcript file is one), a bad
    /// line at `FILE:LINE`, an output that cannot be written, …
    #[error(transparent)]
    Core(#[from] mem_core::Error),
    /// Writing the output failed (a closed pipe exits 0 quietly).
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// `verify --repair OUT` with more than one FILE.
    #[error("--repair takes exactly one FILE")]
    RepairNeedsOneFile,
    /// `verify --repair OUT` where OUT is the input file itself.
    #[error("{}: --repair OUT must differ from the input (the input is never touched)", .0.display())]
    RepairOverInput(PathBuf),
    /// `locate POINTER`: no transcript of the session the pointer's digest
    /// names under the folders searched.
    #[error("{pointer}: no transcript with this session digest under {}", .dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", "))]
    NoSuchSession {
        /// The pointer as given (`DIGEST:LINE`).
        pointer: String,
        /// The folders searched.
        dirs: Vec<PathBuf>,
    },
}

impl TranscriptError {
    /// The exit code: the shared library's own for [`TranscriptError::Core`],
    /// 1 for everything else.
    pub fn code(&self) -> Exit {
        match self {
            TranscriptError::Core(e) => e.exit(),
            _ => Exit::Failure,
        }
    }
}

impl mem_core::error::UError for TranscriptError {
    fn code(&self) -> Exit {
        TranscriptError::code(self)
    }

    fn is_broken_pipe(&self) -> bool {
        match self {
            TranscriptError::Output(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
            TranscriptError::Core(e) => mem_core::error::is_broken_pipe(e),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_know_their_exit_code_and_words() {
        let e = TranscriptError::NoSuchSession {
            pointer: "abc123:4".into(),
            dirs: vec!["/p".into(), "/s".into()],
        };
        assert_eq!(e.code(), Exit::Failure);
        assert_eq!(
            e.to_string(),
            "abc123:4: no transcript with this session digest under /p, /s"
        );
        assert_eq!(
            TranscriptError::RepairOverInput("/t/a.jsonl".into()).to_string(),
            "/t/a.jsonl: --repair OUT must differ from the input (the input is never touched)"
        );
    }
}
