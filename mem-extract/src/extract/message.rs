//! One user message into candidates: references, instructions, dated state.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use chrono::NaiveDate;
use regex::Regex;

use mem_core::records::{Expires, Kind, MemoryType, Source, Trust};
use mem_core::scrub::Scrubber;
use mem_core::truncate::floor_to_chars;

use super::classify::{
    Cat, Class, classify, colon_why, instruction_clause, rule_of_question, why_of,
};
use super::constraint::kept_constraint;
use super::judge::{Context, Standing, is_reason, names_lasting, one_off_expiry, stand_alone};
use super::merge::{Cand, Merged, Parts, merge_parts};
use super::notes::{Notes, note};
use super::options::ExtractOptions;
use super::origin::{At, base_memory};
use super::sentence::{clean_sentence, cut, lower, normalize_quotes, sentences, title_of};
use super::view::MAX_MESSAGE_BYTES;
use crate::dates;
use crate::note::Bucket;
use crate::rules::Rules;
use crate::set::AsciiFirstSet;
use crate::triggers::{content_words, triggers_of, triggers_with};

pub(super) fn url_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"https?://[^\s<>"'`)\]}]+"#).expect("url regex"))
}

pub(super) struct Draft<'r> {
    pub(super) cat: Cat,
    pub(super) rule: &'r str,
    pub(super) fact: String,
    pub(super) why: Option<String>,
    pub(super) how: Vec<String>,
    pub(super) date: Option<dates::DateMention>,
    /// The memory's name when it is not the fact's title.
    pub(super) name: Option<String>,
    /// The memory's triggers when they are not read off the fact.
    pub(super) triggers: Vec<String>,
    /// Said about this moment ("did you push?"): it expires soon unless it
    /// names something lasting.
    pub(super) moment: bool,
}

/// Is this URL one the user points to as a resource (dashboard, runbook,
/// tracker, doc)?
pub(super) fn is_reference(rules: &Rules, url: &str, clause: &str) -> bool {
    let host = url
        .split("://")
        .nth(1)
        .unwrap_or("")
        .split(['/', ':', '?', '#'])
        .next()
        .unwrap_or("");
    if rules
        .reference_skip_hosts
        .iter()
        .any(|h| host.eq_ignore_ascii_case(h))
    {
        return false;
    }
    let hay = format!("{} {}", lower(clause), lower(url));
    // a phrase (or non-ASCII word) anywhere, or a word among the words
    rules.reference_phrases().any(|w| hay.contains(w))
        || hay
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .any(|w| !w.is_empty() && rules.is_reference_word(w))
}

/// The title of a reference: the words that name it, then the address.
pub(super) fn reference_title(desc: &str, url: &str, host_path: &str) -> String {
    let (before, after) = desc.split_once(url).unwrap_or((desc, ""));
    let link = [
        "is", "are", "at", "live", "lives", "here", "in", "on", "see", "the", "under", "via",
        "is:", "are:", "-", ":", "—", "to", "check", "use",
    ];
    let trim = |s: &str, from_end: bool| {
        let mut w: Vec<&str> = s.split_whitespace().collect();
        loop {
            let last = if from_end { w.last() } else { w.first() };
            match last {
                Some(x) if link.contains(&x.to_ascii_lowercase().as_str()) => {
                    if from_end {
                        w.pop();
                    } else {
                        w.remove(0);
                    }
                }
                _ => break,
            }
        }
        w.join(" ")
    };
    let mut label = trim(before, true);
    if label.is_empty() {
        label = trim(after, false);
    }
    let label = title_of(&clean_sentence(&label));
    let label = floor_to_chars(&label, 40).trim().to_string();
    let hp = floor_to_chars(host_path, 80);
    if label.is_empty() {
        hp.to_string()
    } else {
        format!("{label}: {hp}")
    }
}

/// The clause of `sentence` around byte range `[s, e)`: cut at `,`, `;`, ` and `.
pub(super) fn clause_around(sentence: &str, s: usize, e: usize) -> &str {
    let before = &sentence[..s];
    let mut start = 0;
    for sep in [", ", "; ", " and ", " or "] {
        if let Some(i) = before.rfind(sep) {
            start = start.max(i + sep.len());
        }
    }
    let after = &sentence[e..];
    let mut end = sentence.len();
    for sep in [", ", "; ", " and ", " or "] {
        if let Some(i) = after.find(sep) {
            end = end.min(e + i);
        }
    }
    sentence[start..end].trim()
}

/// A draft as a candidate, added to `out`: merged into a near-duplicate
/// (its why and how then made only when the kept one lacks them), else kept.
pub(super) fn draft_into(
    d: Draft,
    one_off: bool,
    at: &At,
    base: Option<NaiveDate>,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
    out: &mut Merged,
) {
    let abs = |s: &str| {
        let s = scrubber.scrub(s).text;
        match base {
            Some(b) => dates::absolutize(&s, b).0,
            None => s,
        }
    };
    let fact = abs(&d.fact);
    let (t, kind, conf) = match d.cat {
        Cat::User => (MemoryType::User, Kind::Preference, 0.8),
        Cat::Feedback => (MemoryType::Feedback, Kind::Preference, 0.8),
        Cat::Project => (MemoryType::Project, Kind::DurableLesson, 0.7),
        Cat::Dated => (MemoryType::Project, Kind::OneTimeState, 0.8),
    };
    let words = content_words(&fact);
    // each distinct word copied once (a fact repeats its words), and its names
    let tokens = super::merge::tokens_of(
        &fact,
        words
            .iter()
            .map(String::as_str)
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .map(str::to_owned),
    );
    let why = || d.why.as_deref().map(abs);
    let how = || (!d.how.is_empty()).then(|| abs(&d.how.join(" ")));
    if let Some(i) = out.hit(t, None, &tokens) {
        out.note_merge(|| title_of(&fact));
        let triggers = triggers_with(&fact, words, 5);
        merge_parts(
            &mut out.v[i].mem,
            Parts {
                confidence: Some(conf),
                evidence: vec![at.evidence()],
                triggers,
                verified_at: at.day(),
            },
            why,
            how,
        );
        return;
    }
    let name = d.name.as_deref().map_or_else(|| title_of(&fact), title_of);
    let mut m = base_memory(name, cut(&fact, 150), t, kind, at, opts);
    if let (Cat::Dated, Some(dm)) = (d.cat, &d.date) {
        m.expires = Some(Expires::On(dm.date));
    } else if one_off && let Some(day) = at.day() {
        m.expires = Some(Expires::On(one_off_expiry(day)));
        m.kind = Some(Kind::OneTimeState);
    }
    m.triggers = if d.triggers.is_empty() {
        triggers_with(&fact, words, 5)
    } else {
        d.triggers
    };
    m.why = why();
    m.how = how();
    m.fact = Some(fact);
    m.source = Some(Source::User);
    m.trust = Some(Trust::Normal);
    m.confidence = Some(conf);
    m.extra.insert("rule".into(), d.rule.into());
    out.v.push(Cand {
        mem: m,
        tokens,
        key: None,
    });
}

/// A finished draft judged before it becomes a candidate: a fact that
/// points at what no turn around names is dropped (`drop/context-free`); a
/// remark about the call the user just stopped that names nothing lasting
/// expires soon (`one-off/expires`).
#[allow(clippy::too_many_arguments)]
fn settle(
    d: Option<Draft>,
    ctx: &Context,
    at: &At,
    base: Option<NaiveDate>,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
    out: &mut Merged,
    notes: &mut Notes,
) {
    let Some(mut d) = d else {
        return;
    };
    // what the user said names something lasting, before any referent is added
    let lasting = names_lasting(&d.fact);
    if d.cat != Cat::Dated {
        match stand_alone(&d.fact, ctx) {
            Standing::Keep(f) => d.fact = f,
            Standing::ContextFree => {
                note(
                    notes,
                    false,
                    Bucket::CurrentContext,
                    "drop/context-free",
                    at.line,
                    &d.fact,
                );
                return;
            }
        }
    }
    let one_off = d.cat == Cat::Feedback && (ctx.stopped || d.moment) && !lasting;
    if one_off {
        note(
            notes,
            true,
            Bucket::CurrentContext,
            "one-off/expires",
            at.line,
            &d.fact,
        );
    }
    draft_into(d, one_off, at, base, opts, scrubber, out);
}

/// Extract from one user message; `ctx` is what the turns before it name.
#[allow(clippy::too_many_arguments)]
pub(super) fn from_message(
    at: &At,
    text: &str,
    text_len: usize,
    ctx: &Context,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
    out: &mut Merged,
    notes: &mut Notes,
) {
    let rules = &opts.rules;
    let base = at.day();
    notes.message(scrubber, text);
    let t = text.trim_start();
    // `text` may be a window: the length that counts is the whole text's
    let trimmed_len = text_len - (text.len() - t.len());
    // (a message that starts as a compaction summary is the summary's own
    // words, read when flagged by the summary path, never the user's)
    let summary = t
        .as_bytes()
        .get(..CONTINUED.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(CONTINUED.as_bytes()));
    if t.starts_with('<') || trimmed_len > MAX_MESSAGE_BYTES || summary {
        note(
            notes,
            false,
            Bucket::CurrentContext,
            "drop/wrapped-or-pasted",
            at.line,
            t,
        );
        return;
    }
    let said = cut_pasted_output(text, at.line, notes);
    // a message that pastes a failure asks about that failure: a fix it
    // proposes as a maybe ("maybe we should use the https address?") is a
    // try for it
    let reports_failure = said.len() < text.len() && failure_re().is_match(&text[said.len()..]);
    let norm = normalize_quotes(said);
    let mut current: Option<Draft> = None;
    // the sentence before, whatever its class: what "it" may point at
    let mut prev: Option<&str> = None;
    for s in sentences(&norm) {
        let prev = prev.replace(s);
        if s.len() > 400 {
            note(
                notes,
                false,
                Bucket::CurrentContext,
                "drop/too-long",
                at.line,
                s,
            );
            continue;
        }
        let l = lower(s);
        // "let's use Vite. Actually no, …": the sentence before is taken back
        if current.is_some()
            && retracts(&l)
            && let Some(d) = current.take()
        {
            note(
                notes,
                false,
                Bucket::CurrentContext,
                "drop/retracted",
                at.line,
                &d.fact,
            );
        }
        // references: one per URL the user points to; the sentence is used up
        let urls: Vec<_> = url_re().find_iter(s).collect();
        if !urls.is_empty() {
            let mut any = false;
            for u in &urls {
                let url = u.as_str().trim_end_matches(['.', ',', ';', ':', '!', '?']);
                let clause = clause_around(s, u.start(), u.end());
                if !is_reference(rules, url, clause) {
                    continue;
                }
                any = true;
                let desc = clean_sentence(&scrubber.scrub(clause).text);
                let url = scrubber.scrub(url).text;
                let url = url.as_str();
                let host_path = url.split("://").nth(1).unwrap_or(url).trim_end_matches('/');
                let mut m = base_memory(
                    reference_title(&desc, url, host_path),
                    cut(&desc, 150),
                    MemoryType::Reference,
                    Kind::Reference,
                    at,
                    opts,
                );
                m.fact = Some(desc.clone());
                m.source = Some(Source::User);
                m.trust = Some(Trust::Normal);
                m.evidence.push(format!("url:{url}"));
                m.triggers = triggers_of(&desc.replace(url, ""), 4);
                m.confidence = Some(0.8);
                m.extra.insert("rule".into(), "reference/url".into());
                m.extra.insert("url".into(), url.into());
                note(
                    notes,
                    true,
                    Bucket::AutomaticMemory,
                    "reference/url",
                    at.line,
                    url,
                );
                out.add(Cand {
                    mem: m,
                    tokens: BTreeSet::new(),
                    key: Some(format!("url:{url}")),
                });
            }
            if any {
                continue;
            }
        }
        let (class, date) = classify(rules, &l, base);
        // a request or a question may carry a constraint that outlives it
        if !matches!(class, Class::Keep(..))
            && let Some(c) = kept_constraint(s, &norm)
        {
            note(
                notes,
                true,
                Bucket::DurableInstruction,
                "feedback/kept-constraint",
                at.line,
                s,
            );
            settle(current.take(), ctx, at, base, opts, scrubber, out, notes);
            current = Some(Draft {
                cat: Cat::Feedback,
                rule: "feedback/kept-constraint",
                fact: c.fact,
                why: None,
                how: Vec::new(),
                date: None,
                name: Some(c.name),
                triggers: c.triggers,
                moment: false,
            });
            continue;
        }
        match class {
            Class::Drop(b, rule) => note(notes, false, b, rule, at.line, s),
            Class::Other => match current.as_mut() {
                Some(d) if d.why.is_none() && d.cat != Cat::User && is_reason(s) => {
                    d.why = Some(clean_sentence(s.trim_end_matches(['.', '!'])));
                    note(
                        notes,
                        true,
                        Bucket::DurableInstruction,
                        "why/next-sentence",
                        at.line,
                        s,
                    );
                }
                Some(d) if d.why.is_none() && d.cat != Cat::User => note(
                    notes,
                    false,
                    Bucket::CurrentContext,
                    "drop/unrelated-why",
                    at.line,
                    s,
                ),
                _ => note(
                    notes,
                    false,
                    Bucket::CurrentContext,
                    "unclassified",
                    at.line,
                    s,
                ),
            },
            Class::Keep(cat, rule) => {
                let bucket = if cat == Cat::Dated {
                    Bucket::AutomaticMemory
                } else {
                    Bucket::DurableInstruction
                };
                note(notes, true, bucket, rule, at.line, s);
                if let Some(d) = current.as_mut() {
                    // (a remark about this moment never carries a rule said after it)
                    let joins = !d.moment
                        && (d.cat == cat && cat != Cat::Dated
                            || d.cat == Cat::Dated && cat == Cat::Feedback);
                    if joins {
                        d.how.push(clean_sentence(s));
                        if d.why.is_none() {
                            d.why = why_of(rules, s, &l);
                        }
                        continue;
                    }
                }
                let mut why = why_of(rules, s, &l);
                if why.is_none() && cat == Cat::Feedback {
                    why = colon_why(rules, s);
                }
                let mut how = Vec::new();
                if cat == Cat::Dated {
                    how.extend(instruction_clause(rules, s));
                }
                let mut name = None;
                let fact = match rule {
                    "feedback/correction-question" => {
                        rule_of_question(s).unwrap_or_else(|| clean_sentence(s))
                    }
                    "feedback/tool-for-task" => {
                        tool_for_task(s, prev).unwrap_or_else(|| clean_sentence(s))
                    }
                    "feedback/should-rather" => should_rather(s),
                    "feedback/lets-choose" => match lets_choose(s) {
                        Some((n, f)) => {
                            name = Some(n);
                            f
                        }
                        None => clean_sentence(s),
                    },
                    _ if cat == Cat::Feedback => {
                        clean_sentence(rule_clause(rules, rule, s, &l).unwrap_or(s))
                    }
                    _ => clean_sentence(s),
                };
                settle(current.take(), ctx, at, base, opts, scrubber, out, notes);
                // "did you push?" checks what was done this time; "did you
                // run X before committing?" asks for a step of every commit;
                // a maybe put with a pasted failure proposes a fix for it
                let moment = rule == "feedback/correction-question"
                    && if did_you(&l) {
                        !l.contains(" before ")
                    } else {
                        reports_failure && tentative(&l)
                    };
                current = Some(Draft {
                    cat,
                    rule,
                    fact,
                    why,
                    how,
                    date,
                    name,
                    triggers: Vec::new(),
                    moment,
                });
            }
        }
    }
    settle(current.take(), ctx, at, base, opts, scrubber, out, notes);
}

/// The choice in "ok, fine, let's go with postgres": the name says what to
/// use from now on, the words after the verb to the end of the clause
/// ("Use postgres"), the fact also how it was chosen ("Use postgres: the
/// user chose to go with postgres"); "let's also migrate to AudioWorklet"
/// → "Use AudioWorklet", a state, never a pending job. "let's use X" is
/// "Use X" alone.
pub(super) fn lets_choose(s: &str) -> Option<(String, String)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)(?:^|[^a-z])let(?:'s| us) (?:also |just |then |now |instead )?(?P<verb>use|go with|pick|choose|stick (?:with|to)|switch to|migrate to|move to|adopt|standardi[sz]e on) (?P<what>(?:[^,;.!?]|\.\S)+?(?:, not (?:[^,;.!?]|\.\S)+?)?)(?:\s+(?:and|then|but|so|if|because|to|until|unless|when)\s|[,;!?]|\.(?:\s|$)|$)")
            .expect("lets regex")
    });
    let c = re.captures(s)?;
    let what = c["what"].trim();
    let verb = c["verb"].to_lowercase();
    let name = clean_sentence(&format!("use {what}"));
    let fact = if verb == "use" {
        name.clone()
    } else {
        format!("{name}: the user chose to {verb} {what}")
    };
    Some((name, fact))
}

/// A sentence that takes back the one before: "actually no", "wait, no",
/// "scratch that", "never mind", "on second thought" (`l` lowercased).
fn retracts(l: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\W*(?:(?:hmm+|ah|oh|well|wait|so)[,.]?\s+)*(?:actually[,.]?\s+)?(?:(?:actually,? no|no,? actually|wait,? no|no wait|nah|nope|no)(?:\s*[,.!;:-]|\s*$)|scratch that|forget (?:that|it)|never ?mind(?:\s*[,.!;:-]|\s*$)|on second thoughts?|i take (?:that|it) back|let's not|let us not|don't do that)")
            .expect("retraction regex")
    })
    .is_match(l)
}

/// Words of a failure in pasted output: an error, a fatal stop, a refusal.
fn failure_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(?:^|[^a-z])(?:error|errors|fatal|failed|failure|fails|exception|traceback|panicked|denied|refused|cannot|could not|couldn't|not found|exit (?:code|status) [1-9])(?:[^a-z]|$)")
            .expect("failure regex")
    })
}

/// A proposal made as a maybe ("maybe we should…", "perhaps…", "I think
/// we should…", "I guess…") rather than as a correction (`l` lowercased).
fn tentative(l: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?:^|[^a-z])(?:maybe|perhaps|possibly|i guess|i think|might be worth)(?:[^a-z]|$)",
        )
        .expect("tentative regex")
    })
    .is_match(l)
}

/// A question that checks what the agent did this time: "did you push?",
/// "have you run the tests?" (`l` lowercased).
fn did_you(l: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?:^|[^a-z])(?:did|have) you ").expect("did-you regex"))
        .is_match(l)
}

/// The instruction in "you can test it with `act`": "Test the GitHub Action
/// with `act`" — the verb first, a pointing object ("it", "this", "them")
/// named by what the sentence before asked to add, create or set up (`prev`:
/// "please add a GitHub Action to run tests" → "the GitHub Action"). `None`
/// when the sentence has not that shape or the object points at nothing
/// `prev` names.
pub(super) fn tool_for_task(s: &str, prev: Option<&str>) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    static OBJ: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)(?:^|[^a-z])(?:you|we|one) (?:can|could|should|may) (?:also |always |just |easily )?(?P<verb>[a-z]+)\s+(?P<obj>[^`]{1,60}?)\s(?P<prep>with|using|via|through|by running)\s+(?P<cmd>`[^`]+`)(?P<rest>[^.!?]*)")
            .expect("tool-for-task regex")
    });
    let c = re.captures(s)?;
    let mut obj = c["obj"].trim().to_string();
    if matches!(
        obj.to_ascii_lowercase().as_str(),
        "it" | "this" | "that" | "them" | "these" | "those"
    ) {
        let obj_re = OBJ.get_or_init(|| {
            Regex::new(r"(?i)(?:^|[^a-z])(?:add|create|write|set up|setup|build|make|implement|configure|introduce)\s+(?:a|an|the|our|this|some|new)\s+(?:new\s+)?(?P<np>[a-z0-9_./-]+(?:\s+[a-z0-9_./-]+){0,3}?)(?:\s+(?:to|for|that|which|with|in|on|so|and|from)(?:[^a-z]|$)|[.,;:?!]|$)")
                .expect("object regex")
        });
        let np = obj_re
            .captures(prev?)?
            .name("np")?
            .as_str()
            .trim()
            .to_string();
        obj = format!("the {np}");
    }
    // (clean_sentence capitalises the verb)
    let out = format!(
        "{} {obj} {} {}{}",
        c["verb"].to_ascii_lowercase(),
        &c["prep"],
        &c["cmd"],
        c["rest"].trim_end()
    );
    Some(clean_sentence(out.trim_end_matches([',', ';', ' '])))
}

/// The decision in "now we have a cache, so we should change the TUI so it
/// opens the page rather than regenerating it": the clause from "we
/// should" on, as said ("We should change the TUI …"); the reason before
/// "so" is the memory's `why` (the rules' `why` patterns).
pub(super) fn should_rather(s: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i),?\s+so\s+(?P<rest>(?:we|you|it|they) should\s.+)$")
            .expect("so-should regex")
    });
    match re.captures(s) {
        // (clean_sentence capitalises "we")
        Some(c) => clean_sentence(c.name("rest").map_or(s, |m| m.as_str())),
        None => clean_sentence(s),
    }
}

/// The clause of `s` that holds the instruction when a clause of setting
/// comes first, joined by "but", a semicolon or a dash: "I have both Node
/// and Python, but I don't want to make it only work for me" → "I don't
/// want to make it only work for me". `None` when the instruction starts
/// the sentence or what comes before it is under three words. `l` is `s`
/// lowercased (the same byte offsets for ASCII text; otherwise `None`).
fn rule_clause<'s>(rules: &Rules, label: &str, s: &'s str, l: &str) -> Option<&'s str> {
    if l.len() != s.len() {
        return None;
    }
    let rule = rules.feedback.iter().find(|r| r.label() == label)?;
    let at = rule.match_start(l)?;
    // (a rule's match may begin with the separator itself: ", but never")
    let mut end = (at + 8).min(l.len());
    while !l.is_char_boundary(end) {
        end -= 1;
    }
    let head = &l[..end];
    let (i, sep) = [", but ", " but ", "; ", " — ", " - "]
        .iter()
        .filter_map(|sep| head.rfind(sep).map(|i| (i, *sep)))
        .max_by_key(|(i, _)| *i)?;
    if l[..i].split_whitespace().count() < 3 || !s.is_char_boundary(i + sep.len()) {
        return None;
    }
    let rest = s[i + sep.len()..].trim_start();
    // "tests hit a real database - don't mock it": the clause alone points
    // at what the setting named; the sentence stays whole
    let alone = matches!(
        stand_alone(rest, &Context::default()),
        Standing::Keep(ref f) if f == rest
    );
    (!rest.is_empty() && alone).then_some(rest)
}

/// How Claude Code's compaction summary begins.
const CONTINUED: &str = "This session is being continued from a previous conversation";

/// A log-like line: a timestamp, `fatal:`, `error`, a traceback, a prompt.
const LOG_LINE: &str = r"(?i)^\s*(?:\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:\s|$)|\d{4}-\d{2}-\d{2}[t ]\d|\[\s*\d+[:.\-/]|fatal:|hint:|error[:\[]|\w*error:|warning:|traceback|at \S+[(:]|npm err|\$ |>>> |e\s{2,}|file \x22)";

/// Where the pasted output of a message starts (the byte offset of its
/// first log-like line, when it has three or more: see
/// [`cut_pasted_output`]).
pub(super) fn first_pasted_line(text: &str) -> Option<usize> {
    // compiled for ASCII lines first (see `crate::set`); the test
    // `log_pattern_compiles` checks the Unicode form
    static RE: OnceLock<AsciiFirstSet> = OnceLock::new();
    let re = RE.get_or_init(|| AsciiFirstSet::new(&[LOG_LINE], false, false));
    let mut first = None;
    let mut n = 0;
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        if re.matches(line).matched(0) {
            n += 1;
            first.get_or_insert(off);
        }
        off += line.len();
    }
    first.filter(|_| n >= 3)
}

/// A message with pasted output (three or more log-like lines: timestamps,
/// `fatal:`, `error`, tracebacks, prompts) keeps only the text before the
/// first such line: pasted output is raw evidence, not the user's words.
pub(super) fn cut_pasted_output<'a>(text: &'a str, line: u64, notes: &mut Notes) -> &'a str {
    match first_pasted_line(text) {
        Some(i) => {
            note(
                notes,
                false,
                Bucket::RawEvidence,
                "drop/pasted-output",
                line,
                &text[i..],
            );
            &text[..i]
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::{LOG_LINE, Notes, cut_pasted_output};

    #[test]
    fn log_pattern_compiles() {
        crate::set::AsciiFirstSet::new(&[LOG_LINE], false, false)
            .check()
            .expect("the log pattern compiles for any text");
    }

    /// Three log-like lines, ASCII or not, cut the message before the first.
    #[test]
    fn pasted_output_is_cut() {
        let mut notes = Notes::default();
        for (text, keep) in [
            (
                "it fails:\nerror: no such file\nwarning: x\n12:30:01 done\n",
                "it fails:\n",
            ),
            (
                "ça échoue :\nerror: fichier absent\nwarning: é\n12:30 fin\n",
                "ça échoue :\n",
            ),
            (
                "two lines only\nerror: x\nwarning: y\n",
                "two lines only\nerror: x\nwarning: y\n",
            ),
            // git's advice is the tool's words
            (
                "the push fails:\nhint: prefer the release branch over main\nhint: see git help\nerror: failed to push some refs\n",
                "the push fails:\n",
            ),
            // timestamps in brackets are a log's; numbered reasons are the person's
            (
                "it hangs:\n[12:00:01] start\n[12:00:02] wait\n[2026-03-01 12:00:03] stop\n",
                "it hangs:\n",
            ),
            (
                "Shouldn't the importer validate currency codes?\n[1] typos\n[2] retired codes\n[3] the bank rejects them\n",
                "Shouldn't the importer validate currency codes?\n[1] typos\n[2] retired codes\n[3] the bank rejects them\n",
            ),
        ] {
            assert_eq!(cut_pasted_output(text, 1, &mut notes), keep, "{text}");
        }
    }
}
