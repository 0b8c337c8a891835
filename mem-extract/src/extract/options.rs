//! What every part of extraction shares: its options, its result and the
//! hash sets and maps of one run.

use std::path::PathBuf;

use mem_core::records::Memory;

use crate::note::Note;
use crate::rules::Rules;

/// The per-event sets and maps (foldhash: fast, and their iteration order
/// is never output).
pub(crate) type FastSet<T> = foldhash::HashSet<T>;
pub(crate) type FastMap<K, V> = foldhash::HashMap<K, V>;

/// Options of [`extract`](super::extract).
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// The rules (default: [`Rules::default_rules`]).
    pub rules: Rules,
    /// The project root: absolute paths inside it become relative, others are dropped.
    pub project_root: Option<PathBuf>,
    /// The `project` field of every candidate (12 hex, `memdir::project_id`).
    pub project_id: Option<String>,
    /// Keep at most this many candidates (highest confidence first).
    pub max_candidates: Option<usize>,
    /// Byte budget of the one error line a lesson may quote from tool output
    /// (cut at a character boundary, `…` after a cut).
    pub max_quote_bytes: usize,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            rules: Rules::default_rules(),
            project_root: None,
            project_id: None,
            max_candidates: None,
            max_quote_bytes: DEFAULT_MAX_QUOTE,
        }
    }
}

/// Most evidence pointers kept on one merged candidate.
pub const MAX_EVIDENCE: usize = 8;

/// Default byte budget of quoted tool output.
pub const DEFAULT_MAX_QUOTE: usize = 400;

/// The result of [`extract`](super::extract): the memories to emit and the notes (kept and
/// dropped candidates, sensitive drops) for `--explain` / stderr.
#[derive(Debug, Clone, Default)]
pub struct Extraction {
    /// Candidate memories, scrubbed, merged, in source order.
    pub memories: Vec<Memory>,
    /// One note per classified sentence or lesson, in source order.
    pub notes: Vec<Note>,
    /// Candidates dropped because they still carried something sensitive
    /// (always reported on stderr): `name: field (what)`.
    pub sensitive_drops: Vec<String>,
}
