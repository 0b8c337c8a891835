//! The shared library's error type, the exit codes, and [`UError`]: the
//! trait each tool's own error enum implements to say its exit code.
//!
//! Exit codes (docs/records.md "Exit codes"): 0 success (also "nothing to
//! do"), 1 bad input or environment, 2 usage error (clap's own), 3 a secret
//! (`mem-index check --tier team`), 75 (`EX_TEMPFAIL`) a lock is busy, or a
//! consolidation is not due under `--strict`.

use std::path::PathBuf;

/// The process exit codes used by every mem tool, in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: success, also "nothing to do".
    Success,
    /// 1: bad input or environment; the message names the file and line.
    Failure,
    /// 2: usage error (clap reports these itself).
    Usage,
    /// 75 (`EX_TEMPFAIL`): a lock is busy, or a strict gate said "not due".
    TempFail,
    /// 3: a secret or other sensitive value was found (`mem-index check
    /// --tier team`, for CI).
    Sensitive,
}

impl Exit {
    /// The numeric status for `std::process::exit`.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::TempFail => 75,
            Exit::Sensitive => 3,
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        std::process::ExitCode::from(e.code())
    }
}

/// Why an id (or a name turned into an id) was refused.
///
/// One variant per rule of docs/records.md "Memory ids": each refused name gets its own
/// error, so a batch report says exactly what was wrong with every line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// The name (or id) is empty, or only whitespace.
    #[error("name is empty")]
    Empty,
    /// The name contains `/` (a path separator).
    #[error("name contains '/': {0:?}")]
    Slash(String),
    /// The name contains `\` (a Windows path separator).
    #[error("name contains '\\': {0:?}")]
    Backslash(String),
    /// The name contains `..` (a parent-directory step).
    #[error("name contains '..': {0:?}")]
    DotDot(String),
    /// The name contains `%` (percent-encoding can smuggle separators).
    #[error("name contains '%' (percent-encoding): {0:?}")]
    Percent(String),
    /// The name contains NUL or another control character.
    #[error("name contains a control character: {0:?}")]
    Control(String),
    /// The name starts with `~` (a home-directory path).
    #[error("name starts with '~': {0:?}")]
    Tilde(String),
    /// Nothing of `[a-z0-9]` is left once the name is slugged.
    #[error("name has no letters or digits to make an id from: {0:?}")]
    NoSlug(String),
    /// The id is a Windows device name (`con`, `nul`, `com1`, …) or
    /// `memory` in any case (the index `MEMORY.md`).
    #[error("name is reserved (a device name, or the index MEMORY): {0:?}")]
    Reserved(String),
    /// An existing file stem that does not match `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`.
    #[error("not a valid id: {0:?}")]
    Invalid(String),
    /// The path made from the id would leave its directory.
    #[error("path escapes its directory: {0}")]
    Escapes(PathBuf),
}

/// The error type of every mem library.
///
/// Each variant knows its exit code ([`Error::exit`]); binaries print it once
/// as `mem-x: {err:#}` and exit with that code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O error on a named file. The message already holds the cause, so
    /// it is not chained again (`{err:#}` prints it once).
    #[error("{}: {err}", path.display())]
    Io {
        /// The file or directory acted on.
        path: PathBuf,
        /// The underlying error.
        err: std::io::Error,
    },
    /// Bad input at a place in a file or stream (`FILE:LINE: reason`).
    #[error("{file}:{line}: {reason}")]
    Input {
        /// File name, or `<stdin>`.
        file: String,
        /// 1-based line number (0 when the whole file is meant).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A refused id or name.
    #[error(transparent)]
    Id(#[from] IdError),
    /// Frontmatter that does not parse (`FILE:LINE: reason`).
    #[error("{file}:{line}: frontmatter: {reason}")]
    Frontmatter {
        /// The topic file.
        file: String,
        /// 1-based line in the file where the YAML error lies.
        line: usize,
        /// The YAML parser's message.
        reason: String,
    },
    /// A lock held by a live process (exit 75).
    #[error("{path}: lock busy (held by pid {pid})")]
    Busy {
        /// The lock file.
        path: PathBuf,
        /// The holder's PID.
        pid: u32,
    },
    /// A strict gate said "not due" (exit 75).
    #[error("not due: {0}")]
    NotDue(String),
    /// A bad environment: a setting, a variable, a missing home directory.
    #[error("{0}")]
    Env(String),
    /// A path given as a lock file is not one (`is a directory`, `is not a
    /// regular file (a FIFO, device or socket)`).
    #[error("{}: {what}, not a lock file", .path.display())]
    NotALockFile {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        what: &'static str,
    },
    /// The lock file kept changing while it was being taken.
    #[error("{}: the lock kept changing under us; gave up", .0.display())]
    LockRace(PathBuf),
    /// A file changed between reading it and a consolidation's write:
    /// another writer; nothing written.
    #[error("{}: changed while consolidating; nothing written", .0.display())]
    ChangedWhileConsolidating(PathBuf),
    /// A consolidation interrupted by a signal (rolled back).
    #[error("interrupted")]
    Interrupted,
    /// `undo` of a memory directory without a finished consolidation.
    #[error("{}: no consolidation to undo", .0.display())]
    NothingToUndo(PathBuf),
    /// `undo`: files changed since the consolidation (without `--force`).
    #[error("changed since the last consolidation (use --force to restore anyway): {}", .0.join(", "))]
    ChangedSinceConsolidation(Vec<String>),
    /// The scrub rules file does not parse, or a rule is wrong
    /// (`scrub rules: …`, `scrub rule NAME: …`).
    #[error("scrub rule{}: {reason}", .rule.as_ref().map_or_else(|| "s".to_string(), |r| format!(" {r}")))]
    ScrubRules {
        /// The rule at fault (`None`: the file).
        rule: Option<String>,
        /// What is wrong.
        reason: String,
    },
    /// A worker thread panicked (`a sync thread panicked`).
    #[error("a {0} thread panicked")]
    ThreadPanicked(&'static str),
}

impl Error {
    /// The exit code this error maps to.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Busy { .. } | Error::NotDue(_) => Exit::TempFail,
            _ => Exit::Failure,
        }
    }

    /// Wrap an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            err: source,
        }
    }

    /// Bad input at `file:line`.
    pub fn input(file: impl Into<String>, line: usize, reason: impl Into<String>) -> Self {
        Error::Input {
            file: file.into(),
            line,
            reason: reason.into(),
        }
    }
}

/// An error a tool stops on, knowing its exit code (as uucore's `UError`).
///
/// Each tool has its own enum (`mem_index::IndexError`,
/// `mem_lock::LockError`, …) whose variants say what went wrong; the one
/// `main` shape ([`crate::cli::main_with`]) prints it once as
/// `mem-x: {err}` and exits with [`UError::code`].
pub trait UError: std::error::Error + Send + Sync + Sized + 'static {
    /// The exit code (default 1).
    fn code(&self) -> Exit {
        Exit::Failure
    }

    /// True when the error is a closed output pipe (`mem-x … | head`),
    /// which exits 0 quietly. The default looks through the cause chain.
    fn is_broken_pipe(&self) -> bool {
        is_broken_pipe(self)
    }
}

impl UError for Error {
    fn code(&self) -> Exit {
        self.exit()
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// True when `err` (or its cause chain) is a broken pipe: the reader went away
/// (`mem-x … | head`), which mem tools treat as a quiet success.
pub fn is_broken_pipe(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::BrokenPipe
        {
            return true;
        }
        if let Some(Error::Io { err, .. }) = e.downcast_ref::<Error>()
            && err.kind() == std::io::ErrorKind::BrokenPipe
        {
            return true;
        }
        cur = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_the_documented_numbers() {
        assert_eq!(Exit::Success.code(), 0);
        assert_eq!(Exit::Failure.code(), 1);
        assert_eq!(Exit::Usage.code(), 2);
        assert_eq!(Exit::TempFail.code(), 75);
        let busy = Error::Busy {
            path: "x".into(),
            pid: 7,
        };
        assert_eq!(busy.exit(), Exit::TempFail);
        assert_eq!(Error::NotDue("time".into()).exit(), Exit::TempFail);
        assert_eq!(Error::input("f", 3, "bad").exit(), Exit::Failure);
        assert_eq!(Error::input("f", 3, "bad").to_string(), "f:3: bad");
    }

    #[test]
    fn typed_errors_keep_their_documented_words() {
        let e = Error::NotALockFile {
            path: "/m/.consolidate-lock".into(),
            what: "is a directory",
        };
        assert_eq!(
            e.to_string(),
            "/m/.consolidate-lock: is a directory, not a lock file"
        );
        assert_eq!(e.exit(), Exit::Failure);
        let e = Error::ScrubRules {
            rule: None,
            reason: "bad yaml".into(),
        };
        assert_eq!(e.to_string(), "scrub rules: bad yaml");
        let e = Error::ScrubRules {
            rule: Some("aws".into()),
            reason: "group 3 does not exist".into(),
        };
        assert_eq!(e.to_string(), "scrub rule aws: group 3 does not exist");
        assert_eq!(
            Error::ChangedSinceConsolidation(vec!["a.md".into(), "b.md".into()]).to_string(),
            "changed since the last consolidation (use --force to restore anyway): a.md, b.md"
        );
        assert_eq!(
            Error::ThreadPanicked("sync").to_string(),
            "a sync thread panicked"
        );
    }

    #[test]
    fn io_errors_name_the_path_once() {
        let e = anyhow::Error::new(Error::io(
            "/nope.jsonl",
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
        assert_eq!(format!("{e:#}"), "/nope.jsonl: entity not found");
    }

    #[test]
    fn broken_pipe_is_found_through_wrappers() {
        let e = Error::io(
            "<stdout>",
            std::io::Error::from(std::io::ErrorKind::BrokenPipe),
        );
        assert!(is_broken_pipe(&e));
        let e = Error::io("x", std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(!is_broken_pipe(&e));
    }
}
