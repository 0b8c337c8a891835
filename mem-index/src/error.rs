//! What stops a `mem-index` command, and the exit code each maps to
//! (docs/records.md "Exit codes"): [`IndexError::code`].
//!
//! A refused batch is not an error: `write` and `log` report every bad
//! record on stderr and exit 1 themselves; `check` exits 1 on error
//! findings and 3 on a secret in the team tier.

use std::path::PathBuf;

use mem_core::error::{Exit, IdError};

use mem_core::confine::INDEX_UPDATE_BYTES;

/// An error of `mem-index` (its library and its binary). Printed once as
/// `mem-index: {err}`.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// An error of the shared library: I/O naming the file, bad input at
    /// `FILE:LINE`, a refused id, a busy lock (exit 75), …
    #[error(transparent)]
    Core(#[from] mem_core::Error),
    /// Writing the output failed (a closed pipe exits 0 quietly).
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// `show`, `promote`, `demote`: no topic file with that id; `near` are
    /// the closest ids on disk (at most three).
    #[error("{}: no such memory{}", .path.display(), did_you_mean(.near))]
    NoSuchMemory {
        /// The topic file looked for.
        path: PathBuf,
        /// Ids on disk close to the one asked for, closest first.
        near: Vec<String>,
    },
    /// `demote`: no team topic file with that id.
    #[error("{}: no such memory in the team tier", .0.display())]
    NoSuchTeamMemory(PathBuf),
    /// `demote`: a team file the user does not trust as it is now.
    #[error("{}: not trusted as it is (added or changed since `mem-index team trust`); review it first: `mem-index team review` and `mem-index team trust`", .0.display())]
    TeamUntrusted(PathBuf),
    /// `retire`: no topic file with that id.
    #[error("{}: no such topic file", .0.display())]
    NoSuchTopic(PathBuf),
    /// `restore`: no retired file with that id.
    #[error("{}: not retired (no such file)", .0.display())]
    NotRetired(PathBuf),
    /// `restore`: a topic with that id exists.
    #[error("{}: a topic with this id exists; retire or rename it first", .0.display())]
    TopicExists(PathBuf),
    /// `MEMORY.md` over [`INDEX_UPDATE_BYTES`]: left unchanged.
    #[error("{}: over {INDEX_UPDATE_BYTES} bytes: left unchanged (mem rewrites only an index it can read whole)", .0.display())]
    IndexTooLarge(PathBuf),
    /// `MEMORY.md` not UTF-8: left unchanged.
    #[error("{}: not valid UTF-8 (byte {valid_up_to}): left unchanged", .path.display())]
    IndexNotUtf8 {
        /// The index file.
        path: PathBuf,
        /// Bytes of valid UTF-8 before the first bad one.
        valid_up_to: usize,
    },
    /// `write`: new files would pass `--max-files` (without `--evict`).
    #[error("{}: {creates} new topic files would make {after}, over --max-files {max_files} (use --evict to retire expired and lowest-ranked memories, or raise --max-files)", .dir.display())]
    OverMaxFiles {
        /// The memory directory.
        dir: PathBuf,
        /// New topic files in the batch.
        creates: usize,
        /// Topic files there would be.
        after: usize,
        /// The limit.
        max_files: usize,
    },
    /// `write --evict`: not enough memories may be retired to make room.
    #[error("{}: cannot make room for {creates} new topic files under --max-files {max_files}{}", .dir.display(), if *.include_foreign { "" } else { " (memories mem did not write are kept; --include-foreign lets --evict retire them too)" })]
    NoRoom {
        /// The memory directory.
        dir: PathBuf,
        /// New topic files in the batch.
        creates: usize,
        /// The limit.
        max_files: usize,
        /// Whether `--include-foreign` was given.
        include_foreign: bool,
    },
    /// A thread writing topic files panicked.
    #[error("a writer thread panicked")]
    WriterPanicked,
    /// `write`, `retire`, `restore`, `log`, `snapshot` with `--tier team`.
    #[error(
        "`{0}` acts on the personal memory directory only; share a memory with `mem-index promote ID`, take one back with `mem-index demote ID`"
    )]
    PersonalOnly(&'static str),
    /// `list --since` that is not a day.
    #[error("--since: {0:?} is not a date (YYYY-MM-DD)")]
    BadSince(String),
    /// `snapshot` without `--agent`.
    #[error("snapshot needs --agent NAME")]
    NeedsAgent,
    /// `snapshot sync`: the resolved project scope is not an agent folder.
    #[error("{}: not an agent folder", .0.display())]
    NotAgentFolder(PathBuf),
    /// `snapshot save`: the scope is not a project-scope agent-memory folder.
    #[error("{}: not an agent-memory folder", .0.display())]
    NotAgentMemoryFolder(PathBuf),
    /// `merge-driver --install` outside a git repository.
    #[error("{}: not a git repository", .0.display())]
    NotGitRepo(PathBuf),
    /// `merge-driver --install`: this program's own path is unknown.
    #[error("cannot find this program's path: {0}")]
    NoProgramPath(std::io::Error),
    /// A git command the merge driver runs failed (`git ls-tree …: why`).
    #[error("git {command}: {detail}")]
    Git {
        /// The git subcommand and what it was given (`ls-tree <commit>`,
        /// `config merge.mem.driver in <root>`).
        command: String,
        /// What it said, or why it could not run.
        detail: String,
    },
}

fn did_you_mean(near: &[String]) -> String {
    if near.is_empty() {
        String::new()
    } else {
        format!(" (did you mean: {}?)", near.join(", "))
    }
}

impl IndexError {
    /// The exit code: the shared library's own for [`IndexError::Core`]
    /// (75 for a busy lock), 1 for everything else.
    pub fn code(&self) -> Exit {
        match self {
            IndexError::Core(e) => e.exit(),
            _ => Exit::Failure,
        }
    }

    /// Bad input at `file:line` ([`mem_core::Error::Input`]).
    pub fn input(file: impl Into<String>, line: usize, reason: impl Into<String>) -> Self {
        IndexError::Core(mem_core::Error::input(file, line, reason))
    }

    /// An I/O error on a named file ([`mem_core::Error::Io`]).
    pub fn io(path: impl Into<PathBuf>, err: std::io::Error) -> Self {
        IndexError::Core(mem_core::Error::io(path, err))
    }

    /// A git command that failed: `git {command}: {detail}`.
    pub fn git(command: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        IndexError::Git {
            command: command.into(),
            detail: detail.to_string(),
        }
    }
}

impl From<IdError> for IndexError {
    fn from(e: IdError) -> Self {
        IndexError::Core(e.into())
    }
}

impl mem_core::error::UError for IndexError {
    fn code(&self) -> Exit {
        IndexError::code(self)
    }

    fn is_broken_pipe(&self) -> bool {
        match self {
            IndexError::Output(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
            IndexError::Core(e) => mem_core::error::is_broken_pipe(e),
            _ => false,
        }
    }
}

/// Result with [`IndexError`].
pub type Result<T, E = IndexError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_know_their_exit_code_and_words() {
        let busy = IndexError::Core(mem_core::Error::Busy {
            path: "/m/.index-lock".into(),
            pid: 7,
        });
        assert_eq!(busy.code(), Exit::TempFail);
        let e = IndexError::NoSuchMemory {
            path: "/m/use-pnmp.md".into(),
            near: vec!["use-pnpm".into()],
        };
        assert_eq!(e.code(), Exit::Failure);
        assert_eq!(
            e.to_string(),
            "/m/use-pnmp.md: no such memory (did you mean: use-pnpm?)"
        );
        assert_eq!(
            IndexError::git("ls-tree abc", "bad object").to_string(),
            "git ls-tree abc: bad object"
        );
    }
}
