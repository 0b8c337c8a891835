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
mod constraint;
mod decisions;
mod extractor;
mod finish;
mod judge;
mod lessons;
pub(crate) mod markers;
mod merge;
mod message;
mod notes;
pub(crate) mod options;
mod origin;
mod regen;
mod regen_lesson;
mod repeats;
mod secrets;
pub(crate) mod sentence;
mod summary;
pub(crate) mod view;

use chrono::NaiveDate;

use mem_core::records::Event;
use mem_core::time::{local_day, parse_ts};

pub use crate::command::{
    command_in, command_keywords, command_of, general_cmd, retry_of, specific_cmd,
};
pub use crate::note::{Bucket, Note};
pub use crate::text::EventText;

pub use self::classify::rule_of_question;
pub use self::extractor::Extractor;
pub use self::finish::ensure_id;
pub use self::options::{DEFAULT_MAX_QUOTE, ExtractOptions, Extraction, MAX_EVIDENCE};
pub use self::sentence::sentences;
pub use self::summary::summary_quotes;
pub use self::view::{
    Choice, EventView, MAX_MESSAGE_BYTES, choices_of, min_text_window, write_path_of,
};

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
