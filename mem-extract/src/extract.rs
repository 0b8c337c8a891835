//! Rule-based extraction: events in, candidate memories out (docs/extraction.md
//! "The rules' kinds"). Deterministic and offline.
//!
//! Only the main agent's user text is read for intent (never side chains,
//! meta entries, tool output or the assistant's words); tool calls and their
//! results are read for lessons (a command fails, another runs, the first then
//! succeeds): such a lesson names only the commands the agent ran and quotes
//! at most the error's first line, never one that reads as an instruction
//! ([`crate::instruction`]); when the fix was named by the failing output
//! itself the lesson is `source: tool`, `trust: low`. Every candidate is classified into a lifecycle bucket
//! ([`Bucket`]); only cross-session buckets are emitted. Candidates are merged
//! when near-duplicate, scrubbed ([`mem_core::scrub`]), and dropped when they
//! would still carry a secret, session id or absolute path.

//!
//! The parts, one idea each: [`EventView`] (the fields of an event that
//! extraction reads), sentences and titles, the classification of a
//! sentence, one user message into candidates, lessons (fail → fix → pass),
//! decisions inside tool results (answers, rejections, corrections after an
//! interrupt), compaction summaries, the secret values learnt from the
//! session, the merge of near-duplicates, and the [`Extractor`] that drives
//! them, event by event.

mod classify;
mod decisions;
mod extractor;
mod finish;
mod judge;
mod lessons;
mod merge;
mod message;
mod notes;
mod origin;
mod regen;
mod repeats;
mod secrets;
mod sentence;
mod summary;
mod view;

use std::path::PathBuf;

use chrono::NaiveDate;

use mem_core::records::{Event, Memory};
use mem_core::time::{local_day, parse_ts};

pub use crate::command::{
    command_in, command_keywords, command_of, general_cmd, retry_of, specific_cmd,
};
pub use crate::note::{Bucket, Note};
use crate::rules::Rules;
pub use crate::text::EventText;

pub use self::classify::rule_of_question;
pub(crate) use self::decisions::may_start_with_marker;
pub use self::extractor::Extractor;
pub use self::finish::ensure_id;
pub(crate) use self::sentence::lower;
pub use self::sentence::sentences;
pub use self::summary::summary_quotes;
pub use self::view::{EventView, MAX_MESSAGE_BYTES, min_text_window, write_path_of};

/// The per-event sets and maps (foldhash: fast, and their iteration order
/// is never output).
pub(crate) type FastSet<T> = foldhash::HashSet<T>;
pub(crate) type FastMap<K, V> = foldhash::HashMap<K, V>;

/// Options of [`extract`].
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

/// The result of [`extract`]: the memories to emit and the notes (kept and
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

/// The evidence pointer of an event: `transcript:<12 hex BLAKE3 of the session id>#<line>`.
pub fn evidence_of(ev: &Event) -> String {
    format!(
        "transcript:{}#{}",
        mem_core::session::digest(&ev.session),
        ev.line
    )
}

/// The local day of an event's timestamp (machine time zone).
pub fn day_of(ev: &Event) -> Option<NaiveDate> {
    ev.ts.as_deref().and_then(parse_ts).map(local_day)
}

/// Extract candidate memories from the events of one (or more) sessions.
///
/// Never fails: input validation is the caller's job (records already
/// parsed). Side chains and meta events are ignored; see the module docs.
pub fn extract(events: &[Event], opts: &ExtractOptions) -> Extraction {
    let mut x = Extractor::new(opts.clone());
    for ev in events {
        x.push(&EventView::of(ev));
    }
    x.finish()
}

#[cfg(test)]
mod tests {
    use super::command_keywords;

    #[test]
    fn command_keywords_pick_the_distinctive_names() {
        assert_eq!(
            command_keywords("node src/build-token.mjs"),
            ["build-token"]
        );
        assert_eq!(command_keywords("sh build-token.sh"), ["build-token"]);
        assert_eq!(command_keywords("make verify"), ["verify"]);
        assert_eq!(
            command_keywords("cargo nextest run --workspace"),
            ["nextest"]
        );
        assert_eq!(command_keywords("FOO=1 npm run e2e && echo ok"), ["e2e"]);
    }
}
