//! How decisions and memories are printed: the text lines of docs/records.md
//! "Recall decision" and the JSONL `RecallDecision` records; the Markdown
//! injected into an agent's context is [`crate::inject`]'s (re-exported
//! here). The imports run one way: render uses the gate, the gate never
//! uses render.

use chrono::NaiveDate;
use mem_core::records::{Extra, RecallDecision, recall as rec};
use mem_core::tier::Tier;

use crate::gate::{Action, Decision, Doc, Why};
pub use crate::inject::{
    MD_HEADER, Recalled, Rendered, TEAM_NOTE, memories_md, memory_md, memory_md_in, neutralize,
    rendered_md,
};

/// The text line of one decision (`RECALL id [kind]`, `EVICT  id — …`,
/// `DROP   id [kind] — budget (…)`, `SKIP   id — reason`); with `explain`
/// the matches and score follow on recall and drop lines.
pub fn text_line(decision: &Decision, doc: &Doc, today: NaiveDate, explain: bool) -> String {
    let kind = doc.kind.as_str();
    match decision.action {
        Action::Recall => {
            let mut s = format!("RECALL {} [{kind}]", doc.id);
            if explain {
                s.push_str(&format!(
                    " — {}; {}",
                    explain_why(decision),
                    provenance(doc)
                ));
            }
            s
        }
        Action::Evict => {
            let exp = doc.expires.map_or_else(String::new, |e| e.to_string());
            format!(
                "EVICT  {} — expired (expires {exp} < {today}), not injected",
                doc.id
            )
        }
        Action::Drop => {
            let mut s = format!(
                "DROP   {} [{kind}] — budget ({}), not injected",
                doc.id,
                decision.budget.unwrap_or("budget")
            );
            if explain {
                s.push_str(&format!("; {}; {}", explain_why(decision), provenance(doc)));
            }
            s
        }
        Action::Skip => {
            let mut s = format!(
                "SKIP   {} — {}",
                doc.id,
                decision.reason.unwrap_or("no-match")
            );
            if explain && decision.reason == Some("no-match") && decision.score > 0.0 {
                s.push_str(&gate_miss(decision));
            }
            if decision.reason == Some("superseded")
                && let Some(by) = &doc.superseded_by
            {
                s.push_str(&format!(" by {by}"));
            }
            if decision.reason == Some("low-trust") {
                s.push_str(&format!(" ({}; --trust low recalls it)", provenance(doc)));
            }
            s
        }
    }
}

/// Why a memory the task's words touched stayed under the gate, for
/// `--explain`: ` (score S: N distinct term(s) matched, M needed)`, or
/// ` (score S under --min-score)` when enough terms matched.
fn gate_miss(decision: &Decision) -> String {
    let need = crate::gate::MIN_MATCHED_STEMS;
    let n = decision.terms;
    if n < need {
        format!(
            " (score {:.2}: {} matched, {need} needed)",
            decision.score,
            counted(n, "distinct term", "distinct terms")
        )
    } else {
        format!(" (score {:.2} under --min-score)", decision.score)
    }
}

/// `n` and the noun: `1 lesson`, `2 lessons`, `0 lessons`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `source S, trust T` of a memory.
pub fn provenance(doc: &Doc) -> String {
    format!(
        "source {}, trust {}",
        doc.source.as_str(),
        doc.trust.as_str()
    )
}

/// Why a memory was relevant, in words.
pub fn explain_why(decision: &Decision) -> String {
    let parts: Vec<String> = decision
        .why
        .iter()
        .map(|w| match w {
            Why::Trigger(t) => format!("trigger {t:?}"),
            Why::Path { glob, path } => format!("path {glob:?} matches {path}"),
            Why::Score(s, stems) => format!("score {s:.2} ({})", stems.join(", ")),
            Why::Always => "type user, always".to_string(),
        })
        .collect();
    parts.join("; ")
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The JSONL record of one decision, with the memory's `tier` when given.
pub fn record(
    decision: &Decision,
    doc: &Doc,
    today: NaiveDate,
    tier: Option<Tier>,
) -> RecallDecision {
    let id = doc.id.to_string();
    let kind = doc.kind;
    let provenance = rec::Provenance {
        source: doc.source,
        trust: doc.trust,
        tier,
    };
    let extra = Extra::new();
    match decision.action {
        Action::Recall => RecallDecision::Recall(rec::Recalled {
            id,
            kind,
            score: round(decision.score),
            matched: decision.matched(),
            provenance,
            extra,
        }),
        Action::Evict => RecallDecision::Evict(rec::Evicted {
            id,
            kind,
            reason: rec::EvictReason::Expired,
            expires: doc.expires,
            today,
            provenance,
            extra,
        }),
        Action::Drop => RecallDecision::Drop(rec::Dropped {
            id,
            kind,
            reason: rec::DropReason::Budget,
            score: round(decision.score),
            matched: decision.matched(),
            provenance,
            extra,
        }),
        Action::Skip => RecallDecision::Skip(rec::Skipped {
            id,
            reason: decision.reason.map(rec::SkipReason::parse),
            score: (decision.score > 0.0).then(|| round(decision.score)),
            source: Some(provenance.source),
            trust: Some(provenance.trust),
            tier,
            by: None,
            conflict: None,
            extra,
        }),
    }
}

/// Counts of recalled, evicted and dropped decisions.
pub fn counts(ds: &[Decision]) -> (u64, u64, u64) {
    let c = |a: Action| ds.iter().filter(|d| d.action == a).count() as u64;
    (c(Action::Recall), c(Action::Evict), c(Action::Drop))
}

/// `summary: N recalled, M evicted` (`, K dropped` when K > 0).
pub fn summary_line(ds: &[Decision]) -> String {
    let (r, e, k) = counts(ds);
    let mut s = format!("summary: {r} recalled, {e} evicted");
    if k > 0 {
        s.push_str(&format!(", {k} dropped"));
    }
    s
}

/// The JSONL summary record.
pub fn summary_record(ds: &[Decision]) -> RecallDecision {
    let (recalled, evicted, dropped) = counts(ds);
    RecallDecision::Summary(rec::RecallSummary {
        recalled,
        evicted,
        dropped,
        extra: Extra::new(),
    })
}
