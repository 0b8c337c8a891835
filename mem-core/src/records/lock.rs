//! The records `mem-lock` prints on stdout (`--format jsonl`), one type per
//! subcommand (docs/records.md "mem-lock"). `run` prints nothing of
//! its own.
//!
//! Times are RFC 3339 UTC with `Z`; `null` stands for "never" (no lock). A
//! lock's content is given as its text: `"0"` (free), a PID (`"4242"`), `""`
//! (empty: corrupt), the first 64 characters of anything else (corrupt), or
//! `null` when there is no file.

use serde::{Deserialize, Serialize};

/// `mem-lock status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockStatus {
    /// The lock file.
    pub path: String,
    /// Whether it exists (missing: never consolidated).
    pub exists: bool,
    /// What it says (see the module docs).
    pub content: Option<String>,
    /// The holder's PID, when it holds one.
    pub pid: Option<u32>,
    /// Whether that PID is a live process.
    pub alive: bool,
    /// The last consolidation time (or, while held, when it was taken).
    pub mtime: Option<String>,
    /// Seconds since `mtime`.
    pub age_secs: Option<u64>,
    /// `mtime` is older than the stale window.
    pub stale: bool,
    /// The stale window, in seconds.
    pub stale_after_secs: u64,
    /// The file is empty or holds garbage.
    pub corrupt: bool,
    /// A live holder inside the stale window: `acquire` would exit 75.
    pub busy: bool,
}

/// `mem-lock acquire`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockAcquired {
    /// The lock file.
    pub path: String,
    /// The PID now written in the lock.
    pub pid: u32,
    /// The mtime now (when it was taken).
    pub mtime: String,
    /// The mtime before (`null`: there was no lock); hand it to `rollback
    /// --to` when the work fails.
    pub previous_mtime: Option<String>,
    /// The content before.
    pub previous_content: Option<String>,
    /// Why a holder or a corrupt file was taken over, if one was.
    pub reclaimed: Option<ReclaimKind>,
    /// The warnings also printed on stderr.
    pub warnings: Vec<String>,
}

/// The `reclaimed` of [`LockAcquired`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReclaimKind {
    /// The holder's PID was not a live process.
    DeadPid,
    /// The holder was alive but its mtime older than the stale window.
    Stale,
    /// An empty file.
    Empty,
    /// Anything else that is not a PID.
    Garbage,
}

/// `mem-lock release`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockReleased {
    /// The lock file.
    pub path: String,
    /// What happened.
    pub result: ReleaseResult,
    /// For `not_holder`: the content of the lock, left alone.
    pub holder: Option<String>,
}

/// The `result` of [`LockReleased`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseResult {
    /// Released: `0` written, mtime kept.
    Released,
    /// Nobody held it.
    AlreadyFree,
    /// There is no lock file.
    Missing,
    /// `--pid` does not hold it: left alone (a warning on stderr).
    NotHolder,
}

/// `mem-lock stamp`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockStamped {
    /// The lock file.
    pub path: String,
    /// The mtime set.
    pub mtime: String,
}

/// `mem-lock rollback`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockRolledBack {
    /// The lock file.
    pub path: String,
    /// The mtime restored (`null`: `--to never`).
    pub mtime: Option<String>,
    /// Whether the lock file was removed (`--to never`).
    pub removed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_records_print_as_documented() {
        let r = LockReleased {
            path: "/m/.consolidate-lock".into(),
            result: ReleaseResult::NotHolder,
            holder: Some("1".into()),
        };
        let line = serde_json::to_string(&r).unwrap();
        assert_eq!(
            line,
            r#"{"path":"/m/.consolidate-lock","result":"not_holder","holder":"1"}"#
        );
        assert_eq!(serde_json::from_str::<LockReleased>(&line).unwrap(), r);
        assert_eq!(
            serde_json::to_string(&ReclaimKind::DeadPid).unwrap(),
            r#""dead_pid""#
        );
    }
}
