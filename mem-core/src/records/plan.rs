//! The consolidation plan `mem-dream` prints (and journals), as a type
//! (docs/records.md "Consolidation plan: `mem-dream`"): one [`PlanOp`] per
//! operation, tagged by `op`, in the order they are applied.
//!
//! The fields of each variant are printed in the order declared, after
//! `op`. Unknown fields are kept in `extra` and written back after the known
//! ones.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Extra;

/// One operation of a consolidation plan: `{"op":…, …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum PlanOp {
    /// The memories in `from` are folded into `id`.
    Merge {
        /// The memory that stays.
        id: String,
        /// The memories folded into it (retired).
        from: Vec<String>,
        /// Why (`same fact`).
        reason: String,
        /// Unknown fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
    /// `id` is replaced by a newer memory saying the opposite.
    Supersede {
        /// The memory replaced.
        id: String,
        /// The memory that replaces it.
        superseded_by: String,
        /// Unknown fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
    /// Moved to `retired/`.
    Retire {
        /// The memory retired.
        id: String,
        /// Why (`expired 2026-07-12`, `over --max-files`, …).
        reason: String,
        /// Unknown fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
    /// Secrets or paths of one kind removed from a memory.
    Redact {
        /// The memory.
        id: String,
        /// The kind of what was removed (the scrubber's label).
        what: String,
        /// How many were removed.
        count: usize,
        /// Unknown fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
    /// A relative date ("tomorrow") written as the day it meant.
    AbsolutizeDate {
        /// The memory.
        id: String,
        /// The field rewritten (`description`, `body`, `fact`, `how`).
        field: String,
        /// The phrase as it was.
        from: String,
        /// The day it meant, `YYYY-MM-DD`.
        to: String,
        /// What the phrase was read against: a timestamp or a day.
        basis: String,
        /// Unknown fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
    /// A memory gathered from the sessions.
    Create {
        /// The new memory.
        id: String,
        /// Where it came from: `logs/…` (a daily log) or
        /// `transcript:<digest>` (a session).
        source: String,
        /// Unknown fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
    /// A memory of the directory updated by one gathered from a daily log
    /// or a session: the memory `mem-index write` would have updated with
    /// that record (the same id), merged as `write` merges.
    Update {
        /// The memory updated.
        id: String,
        /// Where the record came from: `logs/…` or `transcript:<digest>`.
        source: String,
        /// Unknown fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
    /// `MEMORY.md` rebuilt.
    Index {
        /// Lines of the index.
        lines: usize,
        /// Bytes of the index.
        bytes: usize,
        /// Topic files it indexes.
        files: usize,
        /// Unknown fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
}

impl PlanOp {
    /// The `op` as printed (`merge`, `absolutize-date`, …).
    pub fn op(&self) -> &'static str {
        match self {
            PlanOp::Merge { .. } => "merge",
            PlanOp::Supersede { .. } => "supersede",
            PlanOp::Retire { .. } => "retire",
            PlanOp::Redact { .. } => "redact",
            PlanOp::AbsolutizeDate { .. } => "absolutize-date",
            PlanOp::Create { .. } => "create",
            PlanOp::Update { .. } => "update",
            PlanOp::Index { .. } => "index",
        }
    }

    /// The memory acted on (`None` for `index`).
    pub fn id(&self) -> Option<&str> {
        match self {
            PlanOp::Merge { id, .. }
            | PlanOp::Supersede { id, .. }
            | PlanOp::Retire { id, .. }
            | PlanOp::Redact { id, .. }
            | PlanOp::AbsolutizeDate { id, .. }
            | PlanOp::Create { id, .. }
            | PlanOp::Update { id, .. } => Some(id),
            PlanOp::Index { .. } => None,
        }
    }

    /// The fields after `op` and `id`, in order, as JSON values (what the
    /// text format prints as `key=value`).
    pub fn fields(&self) -> Vec<(String, Value)> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m
                .into_iter()
                .filter(|(k, _)| k != "op" && k != "id")
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_round_trip_in_order() {
        for line in [
            r#"{"op":"merge","id":"no-db-mocks","from":["no-db-mocks-2"],"reason":"same fact"}"#,
            r#"{"op":"supersede","id":"use-npm","superseded_by":"use-pnpm"}"#,
            r#"{"op":"retire","id":"mirror-slow","reason":"expired 2026-07-12"}"#,
            r#"{"op":"redact","id":"a","what":"github-token","count":2}"#,
            r#"{"op":"absolutize-date","id":"a","field":"description","from":"tomorrow","to":"2026-07-12","basis":"2026-07-11T10:00:00Z"}"#,
            r#"{"op":"create","id":"a","source":"transcript:3f9a0c1d2e4b#17"}"#,
            r#"{"op":"update","id":"use-pnpm","source":"logs/2026/07/2026-07-15.md"}"#,
            r#"{"op":"index","lines":7,"bytes":554,"files":7}"#,
            r#"{"op":"merge","id":"a","from":["b"],"reason":"same fact","x-basis":{"k":1}}"#,
        ] {
            let o: PlanOp = serde_json::from_str(line).unwrap();
            assert_eq!(serde_json::to_string(&o).unwrap(), line);
        }
        let o: PlanOp = serde_json::from_str(
            r#"{"op":"absolutize-date","id":"a","field":"how","from":"today","to":"2026-07-11","basis":"2026-07-11"}"#,
        )
        .unwrap();
        assert_eq!((o.op(), o.id()), ("absolutize-date", Some("a")));
        let f = o.fields();
        assert_eq!(
            f.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["field", "from", "to", "basis"]
        );
        assert_eq!(f[1].1, "today");
    }
}
