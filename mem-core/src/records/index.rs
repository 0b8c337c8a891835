//! The records `mem-index` prints on stdout (`--format jsonl`), as types
//! (docs/records.md "mem-index: what each subcommand prints").
//!
//! - [`IndexOp`]: what a command did, tagged by `op` (`write`, `retire`,
//!   `restore`, `log`, `reindex`, `snapshot save|sync`, `promote`,
//!   `demote`);
//! - [`Finding`]: one finding of `check`;
//! - [`PathInfo`]: `path` (with `--explain`, why that directory);
//! - [`DriverInstalled`]: `merge-driver --install`.
//!
//! `list`, `show` and `snapshot sync --strategy prompt-update` print
//! [`crate::records::Memory`] records. Paths are written as the tool shows
//! them (lossy UTF-8).

use serde::{Deserialize, Serialize};

/// One thing `mem-index` did, as printed: `{"op":…, …}`.
///
/// The fields of each variant are printed in the order declared, after
/// `op`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum IndexOp {
    /// `write`: a new topic file.
    Create {
        /// The memory's id.
        id: String,
        /// The topic file written.
        path: String,
    },
    /// `write`: an existing topic file merged with the record and rewritten.
    Update {
        /// The memory's id.
        id: String,
        /// The topic file written.
        path: String,
    },
    /// `write`: the record changed nothing in its topic file.
    Unchanged {
        /// The memory's id.
        id: String,
        /// The topic file (not rewritten).
        path: String,
    },
    /// `write`: a new record holding the same fact as a memory already
    /// there; nothing written.
    Duplicate {
        /// The record's own id.
        id: String,
        /// The existing topic file with the same fact.
        path: String,
        /// The id of the memory that already holds the fact.
        duplicate_of: String,
    },
    /// `retire` (and `write --evict`): moved to `retired/`.
    Retire {
        /// The memory's id.
        id: String,
        /// Where the file went (`retired/<id>.md`).
        path: String,
        /// Why.
        reason: String,
    },
    /// `retire --purge`: deleted.
    Purge {
        /// The memory's id.
        id: String,
        /// The deleted file.
        path: String,
        /// Why.
        reason: String,
    },
    /// `restore`: back from `retired/`.
    Restore {
        /// The memory's id.
        id: String,
        /// The topic file written.
        path: String,
    },
    /// `log`: a record appended to a daily log.
    Log {
        /// The memory's id (its name when no id can be made from it).
        id: String,
        /// The daily log appended to (`logs/YYYY/MM/YYYY-MM-DD.md`).
        path: String,
    },
    /// `reindex`: `MEMORY.md` rebuilt.
    Index {
        /// Lines written.
        lines: usize,
        /// Bytes written.
        bytes: usize,
        /// Topic files in the directory.
        files: usize,
        /// Entries left out to stay within the limits.
        omitted: usize,
    },
    /// `snapshot save`: the project scope copied into its snapshot folder.
    SnapshotSave {
        /// The snapshot folder.
        path: String,
        /// Files written (unchanged files are not counted).
        files: usize,
        /// The snapshot's time, RFC 3339 UTC (also in `snapshot.json`).
        #[serde(rename = "updatedAt")]
        updated_at: String,
    },
    /// `snapshot sync --strategy initialize`: an empty local scope filled
    /// from the snapshot.
    SnapshotInitialize {
        /// The local scope folder.
        path: String,
        /// Files written.
        files: usize,
        /// The snapshot's time taken.
        #[serde(rename = "updatedAt")]
        updated_at: String,
    },
    /// `promote`: a personal memory copied into the team tier.
    Promote(TierMove),
    /// `demote`: a team memory moved back to the personal directory.
    Demote(TierMove),
}

impl IndexOp {
    /// The `op` value as printed (`create`, `snapshot-save`, …).
    pub fn op(&self) -> &'static str {
        match self {
            IndexOp::Create { .. } => "create",
            IndexOp::Update { .. } => "update",
            IndexOp::Unchanged { .. } => "unchanged",
            IndexOp::Duplicate { .. } => "duplicate",
            IndexOp::Retire { .. } => "retire",
            IndexOp::Purge { .. } => "purge",
            IndexOp::Restore { .. } => "restore",
            IndexOp::Log { .. } => "log",
            IndexOp::Index { .. } => "index",
            IndexOp::SnapshotSave { .. } => "snapshot-save",
            IndexOp::SnapshotInitialize { .. } => "snapshot-initialize",
            IndexOp::Promote(_) => "promote",
            IndexOp::Demote(_) => "demote",
        }
    }

    /// The memory's id, for the ops about one memory.
    pub fn id(&self) -> Option<&str> {
        match self {
            IndexOp::Create { id, .. }
            | IndexOp::Update { id, .. }
            | IndexOp::Unchanged { id, .. }
            | IndexOp::Duplicate { id, .. }
            | IndexOp::Retire { id, .. }
            | IndexOp::Purge { id, .. }
            | IndexOp::Restore { id, .. }
            | IndexOp::Log { id, .. } => Some(id),
            IndexOp::Promote(m) | IndexOp::Demote(m) => Some(&m.id),
            IndexOp::Index { .. }
            | IndexOp::SnapshotSave { .. }
            | IndexOp::SnapshotInitialize { .. } => None,
        }
    }

    /// The file or folder acted on (`None` for `index`).
    pub fn path(&self) -> Option<&str> {
        match self {
            IndexOp::Create { path, .. }
            | IndexOp::Update { path, .. }
            | IndexOp::Unchanged { path, .. }
            | IndexOp::Duplicate { path, .. }
            | IndexOp::Retire { path, .. }
            | IndexOp::Purge { path, .. }
            | IndexOp::Restore { path, .. }
            | IndexOp::Log { path, .. }
            | IndexOp::SnapshotSave { path, .. }
            | IndexOp::SnapshotInitialize { path, .. } => Some(path),
            IndexOp::Promote(m) | IndexOp::Demote(m) => Some(&m.path),
            IndexOp::Index { .. } => None,
        }
    }
}

/// What `promote` or `demote` did with one memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierMove {
    /// The memory's id.
    pub id: String,
    /// The file written (or kept).
    pub path: String,
    /// What happened to the target file.
    pub result: MoveResult,
    /// What was dropped or changed on the way (absent when nothing was).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The `result` of a [`TierMove`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveResult {
    /// A new file.
    Create,
    /// An existing file replaced.
    Update,
    /// The file already said the same.
    Unchanged,
    /// `demote`: the personal directory already had that memory; it stays
    /// as it is.
    Kept,
}

impl MoveResult {
    /// The name as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            MoveResult::Create => "create",
            MoveResult::Update => "update",
            MoveResult::Unchanged => "unchanged",
            MoveResult::Kept => "kept",
        }
    }
}

impl std::fmt::Display for MoveResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How bad a [`Finding`] is. Errors make `check` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Something is wrong (exit 1; `sensitive` in the team tier: exit 3).
    Error,
    /// Worth a look; the run still passes.
    Warning,
    /// For information (the `limits` line).
    Info,
}

impl Level {
    /// The name as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `{:<7}` pads the name (the text table of `check`).
        f.pad(self.as_str())
    }
}

/// What a [`Finding`] is about (docs/records.md "`check` findings").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingCode {
    /// A consolidation or `write` batch was killed before it finished.
    Unfinished,
    /// A topic file's frontmatter does not parse.
    Parse,
    /// Read leniently: a missing `type`, an unknown `kind` or `scope`.
    Lenient,
    /// A file name that is not a valid id.
    BadName,
    /// An index line of 150 characters or more.
    LongLine,
    /// An index line whose target file does not exist.
    MissingFile,
    /// A topic file without an index line.
    NotIndexed,
    /// `MEMORY.md` over its line limit.
    LimitLines,
    /// `MEMORY.md` over its byte limit.
    LimitBytes,
    /// More topic files than `--max-files`.
    LimitFiles,
    /// How close the directory is to its limits (info).
    Limits,
    /// A secret, session id or absolute path.
    Sensitive,
    /// An expired memory still in `MEMORY.md`.
    ExpiredIndexed,
    /// A personal memory overrides a team memory.
    TierConflict,
    /// Team tier: an expired memory.
    Expired,
    /// Team tier: both sides of a merge changed a body.
    MergeConflict,
    /// Team tier: git conflict markers in a file.
    ConflictMarkers,
    /// Team tier: `MEMORY.md` is not what the topic files give.
    IndexDrift,
    /// Team tier: text that reads as an instruction to an agent (a note
    /// addressed to an AI, "ignore previous instructions", a system
    /// message, markup, a URL piped to a shell, a persona, exfiltration).
    Instruction,
    /// Team tier: a lesson that tells the agent to run a risky command
    /// ([`crate::risk`]: downloaded code run, a check switched off, a force
    /// push, a package source, a credential, privilege, …).
    RiskyCommand,
}

impl FindingCode {
    /// The name as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingCode::Unfinished => "unfinished",
            FindingCode::Parse => "parse",
            FindingCode::Lenient => "lenient",
            FindingCode::BadName => "bad-name",
            FindingCode::LongLine => "long-line",
            FindingCode::MissingFile => "missing-file",
            FindingCode::NotIndexed => "not-indexed",
            FindingCode::LimitLines => "limit-lines",
            FindingCode::LimitBytes => "limit-bytes",
            FindingCode::LimitFiles => "limit-files",
            FindingCode::Limits => "limits",
            FindingCode::Sensitive => "sensitive",
            FindingCode::ExpiredIndexed => "expired-indexed",
            FindingCode::TierConflict => "tier-conflict",
            FindingCode::Expired => "expired",
            FindingCode::MergeConflict => "merge-conflict",
            FindingCode::ConflictMarkers => "conflict-markers",
            FindingCode::IndexDrift => "index-drift",
            FindingCode::Instruction => "instruction",
            FindingCode::RiskyCommand => "risky-command",
        }
    }
}

impl std::fmt::Display for FindingCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding of `mem-index check`:
/// `{"level","code","file","line"?,"message", …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// How bad.
    pub level: Level,
    /// What kind of finding.
    pub code: FindingCode,
    /// The file concerned (a name inside the memory directory, `.` for the
    /// directory itself).
    pub file: String,
    /// 1-based line, when it is about one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What is wrong, worded.
    pub message: String,
    /// `limits`: the counts and their limits.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    /// `tier-conflict`: the team file overridden and how.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<TierConflict>,
}

impl Finding {
    /// A finding without a line or extra fields.
    pub fn new(level: Level, code: FindingCode, file: impl Into<String>, message: String) -> Self {
        Finding {
            level,
            code,
            file: file.into(),
            line: None,
            message,
            limits: None,
            conflict: None,
        }
    }

    /// The same finding about line `line` (when known).
    pub fn at(mut self, line: Option<usize>) -> Self {
        self.line = line;
        self
    }
}

/// The extra fields of a `limits` finding: `MEMORY.md`'s size and the
/// directory's file count next to their limits (`max_files` 0: unlimited).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Lines of `MEMORY.md`.
    pub lines: usize,
    /// The line limit.
    pub max_lines: usize,
    /// Bytes of `MEMORY.md`.
    pub bytes: usize,
    /// The byte limit.
    pub max_bytes: usize,
    /// Topic files.
    pub files: usize,
    /// `--max-files` (0 = unlimited).
    pub max_files: usize,
}

/// The extra fields of a `tier-conflict` finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierConflict {
    /// The team file overridden (`.claude/team-memory/<id>.md`).
    pub team_file: String,
    /// `same-id` or `supersedes`.
    pub conflict: String,
}

/// What `mem-index path` prints in JSONL: `{"dir"}`, and with `--explain`
/// `{"dir","rule","root","notes","memory_off"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathInfo {
    /// The memory directory.
    pub dir: String,
    /// With `--explain`: why this directory.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<PathExplain>,
}

/// The `--explain` part of [`PathInfo`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathExplain {
    /// The rule that chose the directory (`--memory-dir`, `project folder
    /// of the main worktree …`, …).
    pub rule: String,
    /// The project root the directory was resolved for.
    pub root: String,
    /// Notes on the resolution.
    pub notes: Vec<String>,
    /// Why memory is off for this project (`null` when it is on).
    pub memory_off: Option<String>,
}

/// What `mem-index merge-driver --install` changed (`true`) or found
/// already in place (`false`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverInstalled {
    /// The `.gitattributes` file.
    pub gitattributes: String,
    /// Whether the line was added.
    pub gitattributes_added: bool,
    /// The command set as `merge.mem.driver`.
    pub driver: String,
    /// Whether the git config changed.
    pub config_changed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_print_op_first_then_their_fields() {
        let d = IndexOp::Duplicate {
            id: "b".into(),
            path: "/m/a.md".into(),
            duplicate_of: "a".into(),
        };
        let line = serde_json::to_string(&d).unwrap();
        assert_eq!(
            line,
            r#"{"op":"duplicate","id":"b","path":"/m/a.md","duplicate_of":"a"}"#
        );
        assert_eq!(serde_json::from_str::<IndexOp>(&line).unwrap(), d);
        let s = IndexOp::SnapshotSave {
            path: "/s".into(),
            files: 4,
            updated_at: "2026-07-13T10:00:00Z".into(),
        };
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"op":"snapshot-save","path":"/s","files":4,"updatedAt":"2026-07-13T10:00:00Z"}"#
        );
        let p = IndexOp::Promote(TierMove {
            id: "a".into(),
            path: "/t/a.md".into(),
            result: MoveResult::Create,
            notes: vec![],
        });
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"op":"promote","id":"a","path":"/t/a.md","result":"create"}"#
        );
        assert_eq!(p.op(), "promote");
        assert_eq!(p.id(), Some("a"));
    }

    #[test]
    fn findings_keep_their_extra_fields_in_order() {
        let mut f = Finding::new(
            Level::Info,
            FindingCode::Limits,
            "MEMORY.md",
            "1/200 lines".into(),
        );
        f.limits = Some(Limits {
            lines: 1,
            max_lines: 200,
            bytes: 54,
            max_bytes: 25000,
            files: 1,
            max_files: 0,
        });
        let line = serde_json::to_string(&f).unwrap();
        assert_eq!(
            line,
            r#"{"level":"info","code":"limits","file":"MEMORY.md","message":"1/200 lines","lines":1,"max_lines":200,"bytes":54,"max_bytes":25000,"files":1,"max_files":0}"#
        );
        assert_eq!(serde_json::from_str::<Finding>(&line).unwrap(), f);
        let plain = r#"{"level":"error","code":"parse","file":"a.md","line":3,"message":"m"}"#;
        let f: Finding = serde_json::from_str(plain).unwrap();
        assert_eq!((f.limits, &f.conflict, f.line), (None, &None, Some(3)));
        assert_eq!(serde_json::to_string(&f).unwrap(), plain);
        assert_eq!(format!("{:<7}|", Level::Error), "error  |");
    }

    #[test]
    fn path_explain_is_all_or_nothing() {
        let bare = r#"{"dir":"/m"}"#;
        let p: PathInfo = serde_json::from_str(bare).unwrap();
        assert_eq!(p.explain, None);
        assert_eq!(serde_json::to_string(&p).unwrap(), bare);
        let full = r#"{"dir":"/m","rule":"--memory-dir","root":"/","notes":[],"memory_off":null}"#;
        let p: PathInfo = serde_json::from_str(full).unwrap();
        assert_eq!(p.explain.as_ref().unwrap().memory_off, None);
        assert_eq!(serde_json::to_string(&p).unwrap(), full);
    }
}
