//! The reports `mem-transcript` prints on stdout (`--format jsonl`), as
//! types (docs/records.md "Transcript reports: `mem-transcript tree`,
//! `verify`, `stats`" and "Sessions: `mem-transcript ls`, `locate`").
//!
//! One record per file. `tree` and `verify` print one shape for a Claude
//! Code session, another for a Codex rollout and a short one for an empty
//! file: [`TreeReport`] and [`VerifyReport`] hold the three (read back by
//! the fields only each has). Fields are printed in the order declared;
//! `null` fields are printed as `null`. Lines are 1-based line numbers of
//! the file; times are RFC 3339 UTC with `Z`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Counts by name (entry types, tools), sorted by name.
pub type Counts = BTreeMap<String, u64>;

/// The format of a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TranscriptSource {
    /// A Claude Code session.
    Claude,
    /// A Codex rollout.
    Codex,
}

/// A line whose parent is missing, and the entry it was bridged to (the
/// line before it on the branch), if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dangling {
    /// The line.
    pub line: u64,
    /// The line it was bridged to.
    pub bridged_to: Option<u64>,
}

/// An entry with more than one child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fork {
    /// The entry's line.
    pub line: u64,
    /// How many children it has.
    pub children: u64,
}

/// `mem-transcript tree`: one record per file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TreeReport {
    /// A 0-byte file.
    Empty(EmptyTree),
    /// A Codex rollout (a chain: one root, one leaf).
    Codex(CodexTree),
    /// A Claude Code session.
    Claude(ClaudeTree),
}

/// `tree` of a 0-byte file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyTree {
    /// The file as given (`<stdin>` for `-`).
    pub file: String,
    /// Always `null`.
    pub source: Option<TranscriptSource>,
    /// Always true.
    pub empty: bool,
    /// Always empty.
    pub nodes: Counts,
}

/// `tree` of a Claude Code session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaudeTree {
    /// The file as given.
    pub file: String,
    /// `claude`.
    pub source: TranscriptSource,
    /// The session id.
    pub session: Option<String>,
    /// The first recorded working directory.
    pub cwd: Option<String>,
    /// The graph's entries, roots, forks and leaves.
    #[serde(flatten)]
    pub shape: TreeShape,
    /// Its uuid.
    pub leaf_uuid: Option<String>,
    /// Dangling lines, compactions, side chains and sub-agent files.
    #[serde(flatten)]
    pub links: TreeLinks,
    /// Lines repeating an earlier entry's uuid.
    pub duplicates: Vec<u64>,
    /// `summary` entries.
    pub summaries: u64,
}

/// `tree` of a Codex rollout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodexTree {
    /// The file as given.
    pub file: String,
    /// `codex`.
    pub source: TranscriptSource,
    /// The session id (from the file name when the metadata is damaged).
    pub session: String,
    /// The recorded working directory.
    pub cwd: Option<String>,
    /// The `session_meta` line is missing or unreadable.
    pub metadata_damaged: bool,
    /// Entries by type; one root (the first item's line), no forks, one
    /// leaf (the last item's line).
    #[serde(flatten)]
    pub shape: TreeShape,
    /// The compactions (no dangling lines, side chains or sub-agents).
    #[serde(flatten)]
    pub links: TreeLinks,
}

/// The graph of a `tree` report: entries by type, roots, forks, leaves and
/// the leaf resume continues (a Codex rollout is a chain: one root, one
/// leaf, no forks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeShape {
    /// Entries in the graph, by type.
    pub nodes: Counts,
    /// Lines without a parent.
    pub roots: Vec<u64>,
    /// Entries with more than one child.
    pub forks: Vec<Fork>,
    /// Lines without children.
    pub leaves: Vec<u64>,
    /// The leaf resume continues.
    pub leaf: Option<u64>,
}

/// What a `tree` report says beside the graph: dangling lines, compaction
/// boundaries, side chains and sub-agent files (only compactions for a
/// Codex rollout).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeLinks {
    /// Lines whose parent is missing.
    pub dangling: Vec<Dangling>,
    /// Compaction boundaries.
    pub boundaries: Vec<u64>,
    /// Sub-agent (side chain) entries.
    pub sidechain_nodes: u64,
    /// Where side chains start.
    pub sidechain_roots: Vec<u64>,
    /// The session's sub-agent files.
    pub subagents: Vec<String>,
}

/// `mem-transcript verify`: one record per file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum VerifyReport {
    /// A 0-byte file.
    Empty(EmptyVerify),
    /// A Codex rollout.
    Codex(CodexVerify),
    /// A Claude Code session.
    Claude(ClaudeVerify),
}

impl VerifyReport {
    /// Whether the file is sound (exit 1 when not).
    pub fn ok(&self) -> bool {
        match self {
            VerifyReport::Empty(e) => e.ok,
            VerifyReport::Codex(c) => c.check.ok,
            VerifyReport::Claude(c) => c.check.ok,
        }
    }
}

/// `verify` of a 0-byte file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyVerify {
    /// The file as given.
    pub file: String,
    /// Always true.
    pub ok: bool,
    /// Always true.
    pub empty: bool,
    /// Always 0.
    pub lines: u64,
}

/// `verify` of a Claude Code session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaudeVerify {
    /// The file, its lines and the lines that do not parse; `ok`:
    /// conversation entries have a leaf and no parent cycle.
    #[serde(flatten)]
    pub check: LineCheck,
    /// Lines recovered from a concatenation of entries.
    pub recovered: Vec<u64>,
    /// Lines that are not valid UTF-8 (read lossily).
    pub invalid_utf8: Vec<u64>,
    /// Lines whose parent is missing.
    pub dangling: Vec<Dangling>,
    /// Lines repeating an earlier entry's uuid.
    pub duplicates: Vec<u64>,
    /// The leaf's line.
    pub leaf: Option<u64>,
    /// Conversation entries on the leaf's branch.
    pub reached: u64,
    /// Conversation entries on the branch resume continues.
    pub resume_reached: u64,
    /// Conversation entries.
    pub conversation: u64,
    /// Conversation entries outside side chains.
    pub main_conversation: u64,
    /// Main conversation entries off the leaf's branch.
    pub unreached: u64,
    /// Leaves other than the leaf, outside side chains.
    pub orphan_leaves: Vec<u64>,
    /// Where the chain runs into a parent cycle.
    pub cycle_at: Option<u64>,
    /// Warnings printed on stderr.
    pub warnings: u64,
}

/// The first fields of a `verify` report of a session or a rollout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineCheck {
    /// The file as given.
    pub file: String,
    /// `claude` or `codex`.
    pub source: TranscriptSource,
    /// Whether the file is sound.
    pub ok: bool,
    /// Lines in the file.
    pub lines: u64,
    /// Lines that parsed as entries.
    pub entries: u64,
    /// The last line, when cut short.
    pub torn: Vec<u64>,
    /// Other lines that do not parse.
    pub malformed: Vec<u64>,
}

/// `verify` of a Codex rollout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodexVerify {
    /// The file, its lines (`entries`: items read) and the lines that do
    /// not parse; `ok` is always true (a rollout is a chain).
    #[serde(flatten)]
    pub check: LineCheck,
    /// Lines that are not valid UTF-8.
    pub invalid_utf8: Vec<u64>,
    /// The `session_meta` line is missing or unreadable.
    pub metadata_damaged: bool,
    /// The session id.
    pub session: String,
    /// Warnings printed on stderr.
    pub warnings: u64,
}

/// `mem-transcript stats`: one record per file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptStats {
    /// The file as given.
    pub file: String,
    /// `claude`, `codex`, or `""` for an empty file.
    pub source: String,
    /// The session id.
    pub session: Option<String>,
    /// Entries by type.
    pub entries: Counts,
    /// Assistant turns (API responses).
    pub turns: u64,
    /// Prompts the person typed.
    pub prompts: u64,
    /// Tool calls by tool.
    pub tool_calls: Counts,
    /// Tool errors by tool.
    pub tool_errors: Counts,
    /// Tokens, counted once per API response.
    pub tokens: Tokens,
    /// Models, in order of first use.
    pub models: Vec<String>,
    /// The first timestamp.
    pub first: Option<String>,
    /// The last timestamp.
    pub last: Option<String>,
    /// Seconds from `first` to `last`.
    pub duration_s: Option<f64>,
    /// The first prompt (at most 120 characters).
    pub first_prompt: Option<String>,
}

/// The `tokens` of [`TranscriptStats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Tokens {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Tokens written to the prompt cache.
    pub cache_creation: u64,
    /// Tokens read from the prompt cache.
    pub cache_read: u64,
}

/// `mem-transcript ls`: one record per session file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionListing {
    /// The session id.
    pub id: String,
    /// `claude` or `codex` (`""` when unreadable).
    pub source: String,
    /// The file.
    pub path: String,
    /// The first recorded working directory.
    pub cwd: Option<String>,
    /// The first timestamp.
    pub start: Option<String>,
    /// The last timestamp.
    pub end: Option<String>,
    /// File size in bytes.
    pub size: u64,
    /// Conversation entries.
    pub entries: u64,
    /// The first prompt (at most 120 characters).
    pub first_prompt: Option<String>,
    /// Sub-agent files.
    pub subagents: u64,
    /// Whether anything is wrong with the file.
    pub damaged: bool,
    /// What is wrong with it.
    pub damage: Vec<String>,
}

/// `mem-transcript locate POINTER`: the entry an evidence pointer names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    /// The pointer as given (`transcript:<digest>#<line>`).
    pub pointer: String,
    /// The session file.
    pub file: String,
    /// The 1-based line.
    pub line: u64,
    /// The session id.
    pub session: String,
    /// The entry's `type`.
    #[serde(rename = "type")]
    pub entry_type: String,
    /// Its timestamp.
    pub ts: Option<String>,
    /// Its text (at most 300 characters).
    pub text: Option<String>,
}
