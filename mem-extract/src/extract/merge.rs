//! The merge of near-duplicate candidates.

use std::collections::BTreeSet;

use chrono::NaiveDate;

use mem_core::records::{Memory, MemoryType};

use super::notes::{Notes, note};
use super::options::MAX_EVIDENCE;
use crate::note::Bucket;

/// A candidate before merging.
pub(super) struct Cand {
    pub(super) mem: Memory,
    pub(super) tokens: BTreeSet<String>,
    pub(super) key: Option<String>,
}

pub(super) fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.intersection(b).count();
    shared as f64 / (a.len() + b.len() - shared) as f64
}

pub(super) fn merge_into(into: &mut Memory, from: Memory) {
    // a low trust on either side stays low (docs/records.md)
    if from.trust == Some(mem_core::records::Trust::Low) {
        into.trust = from.trust;
        if let Some(r) = from.extra.get(mem_core::lesson::RISK_KEY) {
            into.extra
                .entry(mem_core::lesson::RISK_KEY.to_string())
                .or_insert_with(|| r.clone());
        }
    }
    let (why, how) = (from.why, from.how);
    merge_parts(
        into,
        Parts {
            confidence: from.confidence,
            evidence: from.evidence,
            triggers: from.triggers,
            verified_at: from.verified_at,
        },
        || why,
        || how,
    );
}

/// What a merge takes from a near-duplicate besides its why and how.
pub(super) struct Parts {
    pub(super) confidence: Option<f64>,
    pub(super) evidence: Vec<String>,
    pub(super) triggers: Vec<String>,
    pub(super) verified_at: Option<NaiveDate>,
}

impl Parts {
    /// A lesson's parts: a lesson is kept at confidence 0.7.
    pub(super) fn lesson(
        evidence: Vec<String>,
        triggers: Vec<String>,
        verified_at: Option<NaiveDate>,
    ) -> Parts {
        Parts {
            confidence: Some(0.7),
            evidence,
            triggers,
            verified_at,
        }
    }
}

/// Triggers a merged memory keeps (its own first, then the others' new ones).
pub(super) const MAX_TRIGGERS: usize = 10;

/// A name's mark in a token set: names sort before every word.
const NAME: char = '\u{1}';

/// The tokens a candidate merges by: the distinct content `words` of its
/// text, and what the text names, marked ([`NAME`]): its code spans (`` `make
/// check-api` ``) and its file and identifier names
/// ([`super::judge::names_in`]), lowercased. Two memories that name
/// different things are different memories ([`Merged::hit`]).
pub(super) fn tokens_of(text: &str, words: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = words.into_iter().collect();
    for n in super::judge::names_in(text) {
        out.insert(format!("{NAME}{}", n.to_lowercase()));
    }
    for span in text.split('`').skip(1).step_by(2) {
        let span = span.trim();
        if !span.is_empty() && span.len() <= 200 && !span.contains('\n') {
            out.insert(format!("{NAME}{}", span.to_lowercase()));
        }
    }
    // "never run `make e2e` before pushing" takes "always run …" back: a
    // prohibition is never the same statement as its opposite
    if prohibits(text) {
        out.insert(format!("{NAME}!never"));
    }
    out
}

/// A text that forbids (never, don't, do not, avoid, must not, stop).
fn prohibits(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)(?:^|[^a-z])(?:never|don't|dont|do not|avoid|must not|mustn't|shouldn't|should not|stop|no longer)(?:[^a-z]|$)")
            .expect("prohibition regex")
    })
    .is_match(text)
}

/// The names among `tokens` (see [`tokens_of`]).
fn names(tokens: &BTreeSet<String>) -> impl Iterator<Item = &String> {
    tokens.iter().take_while(|t| t.starts_with(NAME))
}

/// [`merge_into`] with the near-duplicate in parts; its why and how are
/// made only when `into` lacks them. The merge policy is mem's
/// ([`mem_core::merge`]: confidence confirmed, triggers united); evidence
/// is united too, but kept to [`MAX_EVIDENCE`] pointers.
pub(super) fn merge_parts(
    into: &mut Memory,
    from: Parts,
    why: impl FnOnce() -> Option<String>,
    how: impl FnOnce() -> Option<String>,
) {
    into.confidence = Some(mem_core::merge::confirmed_confidence(
        into.confidence,
        from.confidence,
    ));
    // pointers, not copies: at most MAX_EVIDENCE, the newest replacing the last
    for e in from.evidence {
        if into.evidence.contains(&e) {
            continue;
        }
        if into.evidence.len() < MAX_EVIDENCE {
            into.evidence.push(e);
        } else if let Some(last) = into.evidence.last_mut() {
            *last = e;
        }
    }
    mem_core::merge::unite(&mut into.triggers, &from.triggers);
    // a memory merged a thousand times keeps a trigger list a task can use
    into.triggers.truncate(MAX_TRIGGERS);
    into.verified_at = into.verified_at.max(from.verified_at);
    if into.why.is_none() {
        into.why = why();
    }
    if into.how.is_none() {
        into.how = how();
    }
}

/// Candidates merged as they come: a near-duplicate of an earlier one (same
/// type and key, or no key and similar words) raises its confidence instead
/// of being kept. Message candidates and lessons never merge with each
/// other (their keys differ), so each has its own list.
#[derive(Default)]
pub(super) struct Merged {
    pub(super) v: Vec<Cand>,
    pub(super) notes: Notes,
}

impl Merged {
    /// The kept candidate a new one of type `t` with `key` (else `tokens`,
    /// see [`tokens_of`]) merges into. Words alike are not enough: "always
    /// run `make check-api` before committing" and "… `make check-web` …"
    /// name different commands, and their names must be the same.
    pub(super) fn hit(
        &self,
        t: MemoryType,
        key: Option<&str>,
        tokens: &BTreeSet<String>,
    ) -> Option<usize> {
        self.v.iter().position(|m| {
            m.mem.mem_type == t
                && match (m.key.as_deref(), key) {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => {
                        // (the names first: they are few and tell most apart)
                        names(&m.tokens).eq(names(tokens)) && jaccard(&m.tokens, tokens) >= 0.6
                    }
                    _ => false,
                }
        })
    }

    /// Note a merge of the candidate named `name()` (made only when notes
    /// are collected).
    pub(super) fn note_merge(&mut self, name: impl FnOnce() -> String) {
        if !self.notes.off {
            let name = name();
            note(
                &mut self.notes,
                false,
                Bucket::DurableInstruction,
                "merge/near-duplicate",
                0,
                &name,
            );
        }
    }

    /// Merge a repeated lesson (type feedback, `key`) into the kept one when
    /// there is one; else `from` comes back for a new candidate. `name` is
    /// made only for the note, `why`/`how` only when the kept one lacks them.
    pub(super) fn repeat_lesson(
        &mut self,
        key: &str,
        name: impl FnOnce() -> String,
        from: Parts,
        why: impl FnOnce() -> Option<String>,
        how: impl FnOnce() -> Option<String>,
    ) -> Option<Parts> {
        let Some(i) = self.hit(MemoryType::Feedback, Some(key), &BTreeSet::new()) else {
            return Some(from);
        };
        self.note_merge(name);
        merge_parts(&mut self.v[i].mem, from, why, how);
        None
    }

    pub(super) fn add(&mut self, c: Cand) {
        match self.hit(c.mem.mem_type, c.key.as_deref(), &c.tokens) {
            // a suspect candidate never merges into a trusted one, nor the
            // other way round: "never force-push" and a picked `git push
            // --force` share their words, not their trust
            Some(i) if self.v[i].mem.trust == c.mem.trust => {
                self.note_merge(|| c.mem.name.clone());
                merge_into(&mut self.v[i].mem, c.mem);
            }
            _ => self.v.push(c),
        }
    }
}
