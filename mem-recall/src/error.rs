//! What stops a `mem-recall` command, and the exit code each maps to
//! (docs/records.md "Exit codes"): [`RecallError::code`].
//!
//! The hook is `mem-hook`'s (`mem_hook::error`); `mem-recall --hook` only
//! runs it ([`crate::alias`]).

use std::path::PathBuf;

use mem_core::error::Exit;

/// The tool's name in messages.
pub const NAME: &str = "mem-recall";

/// An error of `mem-recall` (its library and its binary). Printed once as
/// `mem-recall: {err}`.
#[derive(Debug, thiserror::Error)]
pub enum RecallError {
    /// An error of the shared library: I/O naming the file, a bad record
    /// or vocabulary line at `FILE:LINE`, a bad `--today`/`--now`, an
    /// unresolvable memory directory, …
    #[error(transparent)]
    Core(#[from] mem_core::Error),
    /// Settings or a session's state that cannot be turned into JSON (not
    /// expected: both are JSON values).
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Writing the output failed (a closed pipe exits 0 quietly).
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// A folder, file or process that cannot be made, opened, listed,
    /// locked or started (`cannot create DIR: why`).
    #[error("cannot {action} {}: {err}", .path.display())]
    Cannot {
        /// `create`, `open`, `list`, `lock` or `start`.
        action: &'static str,
        /// What it was done to.
        path: PathBuf,
        /// The system's error.
        err: std::io::Error,
    },
    /// The working directory cannot be read (no `--cwd`).
    #[error("cannot read the working directory: {0}")]
    WorkingDir(std::io::Error),
    /// The path of the running executable is unknown (`mem-hook install`
    /// without `--bin-dir`, or the alias looking for `mem-hook`).
    #[error("cannot find the path of the running program: {0}")]
    NoProgramPath(std::io::Error),
    /// `--hook`, `hooks`, `backtest`: the `mem-hook` they run cannot be
    /// started (not installed next to `mem-recall`).
    #[error("cannot run {}: {err} (the hook, its installer and backtest are mem-hook's now; install it next to mem-recall)", .path.display())]
    NoMemHook {
        /// Where it was looked for.
        path: PathBuf,
        /// The system's error.
        err: std::io::Error,
    },
    /// `--records -`: lines of stdin that are not memory records; the
    /// first is given (the others are printed on stderr before).
    #[error("{count} bad record(s) on stdin: {first}")]
    BadRecords {
        /// How many lines are bad.
        count: usize,
        /// The first (`<stdin>:LINE: reason`).
        first: mem_core::Error,
    },
    /// `--records` with anything but `-`.
    #[error(
        "--records {0:?}: only \"-\" (stdin) is accepted; without it memories come from the memory directory"
    )]
    RecordsNotStdin(String),
    /// `context --update FILE`: FILE is a symbolic link (`to` its target).
    #[error("{}: is a symbolic link (to {to}); not written: name the file itself (--update FILE)", .path.display())]
    SymbolicLink {
        /// The link.
        path: PathBuf,
        /// Its target, or `?`.
        to: String,
    },
    /// `context --update --tier team` of a file outside the checkout:
    /// nothing of a team tier is written outside its checkout.
    #[error("{}: outside the checkout; nothing of a repository's team tier is written outside it (--tier team refused)", .0.display())]
    TeamOutsideCheckout(PathBuf),
    /// `context --update FILE`: FILE has the mem section's begin marker but
    /// no end marker.
    #[error("{}: has the begin marker of the mem section but no end marker; fix it by hand", .0.display())]
    NoEndMarker(PathBuf),
}

impl RecallError {
    /// The exit code: the library's own for [`RecallError::Core`] (75 for
    /// a busy lock), 1 for everything else.
    pub fn code(&self) -> Exit {
        match self {
            RecallError::Core(e) => e.exit(),
            _ => Exit::Failure,
        }
    }
}

impl mem_core::error::UError for RecallError {
    fn code(&self) -> Exit {
        RecallError::code(self)
    }

    fn is_broken_pipe(&self) -> bool {
        match self {
            RecallError::Output(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
            RecallError::Core(e) => mem_core::error::is_broken_pipe(e),
            _ => false,
        }
    }
}

/// Result with [`RecallError`].
pub type Result<T, E = RecallError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_know_their_exit_code_and_words() {
        let e = RecallError::BadRecords {
            count: 2,
            first: mem_core::Error::input("<stdin>", 1, "not JSON"),
        };
        assert_eq!(e.code(), Exit::Failure);
        assert_eq!(
            e.to_string(),
            "2 bad record(s) on stdin: <stdin>:1: not JSON"
        );
        let e = RecallError::Cannot {
            action: "create",
            path: "/c".into(),
            err: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        assert_eq!(e.to_string(), "cannot create /c: permission denied");
        let busy = RecallError::Core(mem_core::Error::Busy {
            path: "/m/.consolidate-lock".into(),
            pid: 7,
        });
        assert_eq!(busy.code(), Exit::TempFail);
    }
}
