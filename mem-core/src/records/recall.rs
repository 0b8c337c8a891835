//! The records `mem-recall --format jsonl` prints, as types (docs/records.md
//! "Recall decision"): one [`RecallDecision`] per memory, tagged by
//! `action`, then a `summary`.
//!
//! The fields of each variant are printed in the order declared, after
//! `action`; optional fields that are absent are not printed. Unknown fields
//! are kept in `extra` and written back after the known ones.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::{Expires, Extra, Kind, Source, Trust};
use crate::tier::{ConflictKind, Tier};

/// One recall decision: `{"action":…, …}` (docs/records.md "Recall
/// decision").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum RecallDecision {
    /// The memory is injected.
    Recall(Recalled),
    /// An expired memory the task bears on: left out, and said so.
    Evict(Evicted),
    /// A relevant memory left out to stay within the budget.
    Drop(Dropped),
    /// A memory not recalled (printed with `--explain`, or `--all`).
    Skip(Skipped),
    /// The counts, last.
    Summary(RecallSummary),
}

impl RecallDecision {
    /// The `action` as printed (`recall`, `evict`, `drop`, `skip`,
    /// `summary`).
    pub fn action(&self) -> &'static str {
        match self {
            RecallDecision::Recall(_) => "recall",
            RecallDecision::Evict(_) => "evict",
            RecallDecision::Drop(_) => "drop",
            RecallDecision::Skip(_) => "skip",
            RecallDecision::Summary(_) => "summary",
        }
    }

    /// The memory's id (`None` for the summary).
    pub fn id(&self) -> Option<&str> {
        match self {
            RecallDecision::Recall(r) => Some(&r.id),
            RecallDecision::Evict(e) => Some(&e.id),
            RecallDecision::Drop(d) => Some(&d.id),
            RecallDecision::Skip(s) => Some(&s.id),
            RecallDecision::Summary(_) => None,
        }
    }
}

/// Who said a memory, how far recall trusts it and the tier it comes from:
/// the last fields of a `recall`, `evict` and `drop` record (`source`,
/// `trust`, `tier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// Who said it.
    pub source: Source,
    /// How far recall trusts it.
    pub trust: Trust,
    /// The tier it comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
}

/// `recall`: the memory is injected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recalled {
    /// The memory's id.
    pub id: String,
    /// Its kind (the type's default when the file has none).
    pub kind: Kind,
    /// Relevance score, rounded to 2 decimals.
    pub score: f64,
    /// The triggers, paths (`path:<glob>`) and query stems that matched.
    pub matched: Vec<String>,
    /// Who said it, how far recall trusts it, its tier.
    #[serde(flatten)]
    pub provenance: Provenance,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `evict`: an expired memory the task bears on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evicted {
    /// The memory's id.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// Always `expired`.
    pub reason: EvictReason,
    /// Its expiry date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<Expires>,
    /// The day recall ran for.
    pub today: NaiveDate,
    /// Who said it, how far recall trusts it, its tier.
    #[serde(flatten)]
    pub provenance: Provenance,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `reason` of an [`Evicted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvictReason {
    /// `expires` is before today.
    Expired,
}

/// `drop`: a relevant memory left out by the budget (`--max-items`,
/// `--max-tokens`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dropped {
    /// The memory's id.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// Always `budget`.
    pub reason: DropReason,
    /// Relevance score, rounded to 2 decimals.
    pub score: f64,
    /// What matched.
    pub matched: Vec<String>,
    /// Who said it, how far recall trusts it, its tier.
    #[serde(flatten)]
    pub provenance: Provenance,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `reason` of a [`Dropped`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DropReason {
    /// Over `--max-items` or `--max-tokens`.
    Budget,
}

/// `skip`: a memory not recalled. A team memory a personal one overrides is
/// a skip with reason `overridden`, `tier: team`, `by` and `conflict` (and
/// no `source` or `trust`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// The memory's id.
    pub id: String,
    /// Why it was left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<SkipReason>,
    /// Relevance score, when some query stem matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Who said it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// How far recall trusts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<Trust>,
    /// The tier it comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// For `overridden`: the personal memory's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// For `overridden`: how it overrides the team memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<ConflictKind>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `reason` of a [`Skipped`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// Not relevant to the task: no trigger or path matched, and its text
    /// did not pass the gate (fewer than 2 distinct task terms matched, or
    /// a score under `--min-score`; the record's `score` is given when any
    /// term matched).
    NoMatch,
    /// Expired, and the task does not bear on it.
    Expired,
    /// Another project's memory.
    OtherProject,
    /// Retired.
    Retired,
    /// Replaced by another memory.
    Superseded,
    /// `trust: low`, left out without `--trust low`.
    LowTrust,
    /// A team memory a personal memory overrides.
    Overridden,
    /// A team memory the user has not reviewed and trusted yet (added or
    /// changed since `mem-index team trust`).
    Unreviewed,
    /// A reason this version does not know, kept as written.
    #[serde(untagged)]
    Other(String),
}

impl SkipReason {
    /// The reason named `s` (a name this version does not know is
    /// [`SkipReason::Other`]).
    pub fn parse(s: &str) -> SkipReason {
        match s {
            "no-match" => SkipReason::NoMatch,
            "expired" => SkipReason::Expired,
            "other-project" => SkipReason::OtherProject,
            "retired" => SkipReason::Retired,
            "superseded" => SkipReason::Superseded,
            "low-trust" => SkipReason::LowTrust,
            "overridden" => SkipReason::Overridden,
            "unreviewed" => SkipReason::Unreviewed,
            other => SkipReason::Other(other.to_string()),
        }
    }
}

/// `summary`: how many memories were recalled, evicted and dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecallSummary {
    /// `recall` decisions.
    pub recalled: u64,
    /// `evict` decisions.
    pub evicted: u64,
    /// `drop` decisions.
    pub dropped: u64,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_serialize_as_documented() {
        let d = RecallDecision::Evict(Evicted {
            id: "mirror-slow-on-0711".into(),
            kind: Kind::OneTimeState,
            reason: EvictReason::Expired,
            expires: Expires::parse("2026-07-12"),
            today: NaiveDate::from_ymd_opt(2026, 7, 13).unwrap(),
            provenance: Provenance {
                source: Source::User,
                trust: Trust::Normal,
                tier: Some(Tier::Personal),
            },
            extra: Extra::new(),
        });
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            r#"{"action":"evict","id":"mirror-slow-on-0711","kind":"one-time-state","reason":"expired","expires":"2026-07-12","today":"2026-07-13","source":"user","trust":"normal","tier":"personal"}"#
        );
        let line = r#"{"action":"skip","id":"use-npm","reason":"overridden","tier":"team","by":"use-pnpm","conflict":"supersedes"}"#;
        let s: RecallDecision = serde_json::from_str(line).unwrap();
        assert!(
            matches!(&s, RecallDecision::Skip(k) if k.reason == Some(SkipReason::Overridden) && k.conflict == Some(ConflictKind::Supersedes)),
            "{s:?}"
        );
        assert_eq!(serde_json::to_string(&s).unwrap(), line);
        let odd = r#"{"action":"skip","id":"a","reason":"quarantined"}"#;
        let s: RecallDecision = serde_json::from_str(odd).unwrap();
        assert!(
            matches!(&s, RecallDecision::Skip(k) if k.reason == Some(SkipReason::Other("quarantined".into()))),
            "{s:?}"
        );
        assert_eq!(serde_json::to_string(&s).unwrap(), odd);
        let sum = r#"{"action":"summary","recalled":2,"evicted":1,"dropped":0}"#;
        let s: RecallDecision = serde_json::from_str(sum).unwrap();
        assert_eq!((s.action(), s.id()), ("summary", None));
        assert_eq!(serde_json::to_string(&s).unwrap(), sum);
    }
}
