//! The classification of a sentence of user text.

use std::sync::OnceLock;

use chrono::NaiveDate;
use regex::Regex;

use super::sentence::{clean_sentence, lower};
use crate::dates;
use crate::note::Bucket;
use crate::rules::Rules;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Cat {
    User,
    Feedback,
    Project,
    Dated,
}

/// A sentence's class, with the label of the rule that decided it.
pub(super) enum Class<'r> {
    Drop(Bucket, &'r str),
    Keep(Cat, &'r str),
    Other,
}

pub(super) fn classify<'r>(
    rules: &'r Rules,
    l: &str,
    base: Option<NaiveDate>,
) -> (Class<'r>, Option<dates::DateMention>) {
    // one pass for every rule's pattern, then only the matching ones' `unless`
    let m = rules.matching(l);
    if let Some(r) = rules.first_firing(&m, 0, l) {
        let b = match r.bucket.as_deref() {
            Some("task-state") => Bucket::TaskState,
            _ => Bucket::CurrentContext,
        };
        return (Class::Drop(b, r.label()), None);
    }
    if let Some(r) = rules.first_firing(&m, 1, l) {
        return (Class::Keep(Cat::User, r.label()), None);
    }
    if let Some(base) = base
        && let Some(m) = dates::future_bound(l, base)
    {
        return (Class::Keep(Cat::Dated, "project/dated-state"), Some(m));
    }
    if let Some(r) = rules.first_firing(&m, 2, l) {
        return (Class::Keep(Cat::Feedback, r.label()), None);
    }
    if let Some(r) = rules.first_firing(&m, 3, l) {
        return (Class::Keep(Cat::Project, r.label()), None);
    }
    if let Some(r) = rules.first_firing(&m, 4, l) {
        return (Class::Drop(Bucket::CurrentContext, r.label()), None);
    }
    (Class::Other, None)
}

pub(super) fn why_of(rules: &Rules, orig: &str, l: &str) -> Option<String> {
    for re in &rules.why {
        // a quick test first: `captures` sets up capture slots every time
        if !re.is_match(l) {
            continue;
        }
        if let Some(c) = re.captures(l)
            && let Some(g) = c.get(1)
        {
            let w = orig[g.start()..g.end()].trim().trim_end_matches(['.', '!']);
            if !w.is_empty() {
                return Some(clean_sentence(w));
            }
        }
    }
    None
}

/// The colon tail of an instruction (`never npm: npm rewrites the lockfile`).
pub(super) fn colon_why(rules: &Rules, orig: &str) -> Option<String> {
    let i = orig.find(": ")?;
    let (head, tail) = (&orig[..i], orig[i + 2..].trim());
    if head.chars().count() < 12 || tail.is_empty() {
        return None;
    }
    let lt = lower(tail);
    if rules.feedback.iter().any(|r| r.fires(&lt)) {
        return None;
    }
    Some(clean_sentence(tail.trim_end_matches(['.', '!'])))
}

/// The instruction inside a dated sentence (`…, so don't run X before then`).
pub(super) fn instruction_clause(rules: &Rules, orig: &str) -> Option<String> {
    let mut parts = Vec::new();
    let mut s = 0;
    for (i, c) in orig.char_indices() {
        if matches!(c, ',' | ';' | ':' | '—') {
            parts.push(&orig[s..i]);
            s = i + c.len_utf8();
        }
    }
    parts.push(&orig[s..]);
    parts.into_iter().skip(1).find_map(|p| {
        let l = lower(p.trim());
        rules
            .feedback
            .iter()
            .any(|r| r.fires(&l))
            .then(|| clean_sentence(p.trim().trim_end_matches(['.', '!'])))
    })
}

/// The rule a correction asked as a question stands for: "shouldn't this
/// live in utils?" → "This should live in utils", "why not reuse the client?"
/// → "Reuse the client", "did you run the linter?" → "Run the linter before
/// finishing", "I don't think we need to X" → "Don't X". `None`
/// when the question has none of those shapes.
pub fn rule_of_question(question: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?i)(?:^|[^a-z'])(?:(?P<sn>shouldn't|should not) (?P<subj>this|that|it|these|those|we|you|the [\w-]+) (?P<pred>.+)|why (?:not|don't (?:we|you)|aren't (?:we|you)|didn't you) (?P<why>.+)|(?:wouldn't|won't) it be (?:better|simpler|cleaner|easier|nicer) (?:to )?(?P<better>.+)|(?:could|can|couldn't|can't) (?:we|you) (?:just |simply )?(?P<could>(?:reuse|re-use|keep|share) .+)|(?:did|have) you (?P<did>.+)|(?:i think|maybe|perhaps) (?:we|you) should (?P<should>.+)|i don't think (?:we|you) (?:need|should|want)(?: to)? (?P<dont>.+))$",
        )
        .expect("question regex")
    });
    let c = re.captures(question.trim())?;
    let tail = |name: &str| {
        c.name(name).map(|m| {
            m.as_str()
                .trim()
                .trim_end_matches(['?', '.', '!', ' '])
                .trim_end_matches(" then")
                .to_string()
        })
    };
    let out = if let Some(p) = tail("pred") {
        format!("{} should {p}", c.name("subj").map_or("", |m| m.as_str()))
    } else if let Some(p) = tail("did") {
        if p.contains(" before ") {
            p
        } else {
            format!("{p} before finishing")
        }
    } else if let Some(p) = tail("dont") {
        format!("Don't {p}")
    } else {
        ["why", "better", "could", "should"]
            .iter()
            .find_map(|n| tail(n))?
    };
    (!out.trim().is_empty()).then(|| clean_sentence(&out))
}
