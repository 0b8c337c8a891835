//! The consolidation plan (docs/consolidation.md, docs/records.md "Consolidation plan"): from the
//! memories of the directory and those gathered, decide every change — merge
//! duplicates, supersede contradictions, absolutize relative dates, redact,
//! retire expired, contaminated and surplus memories, rebuild the index —
//! as [`PlanOp`] records and whole-file [`Change`]s. Nothing is written here.
//!
//! No all-pairs comparison: duplicates meet in hash buckets of normalized
//! content, contradictions in buckets of a normalized subject, so the cost is
//! linear in the number of memories (plus sorting).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::SystemTime;

use chrono::{DateTime, NaiveDate, Utc};
use mem_core::frontmatter;
use mem_core::index_md;
use mem_core::merge::unite;
use mem_core::records::{Extra, Memory, MemoryType, PlanOp, Trust};
use mem_core::scrub::Scrubber;
use mem_core::store::{self, Broken, Store, Topic};
use mem_core::text;
use regex::Regex;

use mem_extract::dates;

use crate::meaning::{self, Claim};

/// The day (or instant) relative dates of a memory are resolved against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The timestamp of the source entry (UTC); its local day is used.
    Ts(DateTime<Utc>),
    /// A day already local (the memory's `verified_at`).
    Day(NaiveDate),
}

impl Basis {
    /// The local calendar day of the basis.
    pub fn day(self) -> NaiveDate {
        match self {
            Basis::Ts(t) => mem_core::time::local_day(t),
            Basis::Day(d) => d,
        }
    }

    /// As written in an `absolutize-date` op (`basis`).
    pub fn label(self) -> String {
        match self {
            Basis::Ts(t) => mem_core::time::fmt_ts(t),
            Basis::Day(d) => d.to_string(),
        }
    }
}

/// Where a memory of the plan comes from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// A topic file of the directory, with its bytes as read.
    Existing {
        /// The file.
        path: PathBuf,
        /// Its bytes at orient time.
        bytes: Vec<u8>,
        /// Its mtime.
        mtime: SystemTime,
    },
    /// Gathered from a daily log or a transcript (`source` names it).
    New {
        /// `logs/…` or `transcript:<digest>`.
        source: String,
    },
}

/// One memory in the plan.
#[derive(Debug, Clone)]
pub struct PlannedMemory {
    /// Its id (file stem).
    pub id: String,
    /// The memory as it will be written.
    pub mem: Memory,
    /// Where it comes from.
    pub origin: Origin,
    /// The basis for relative dates, when known.
    pub basis: Option<Basis>,
    /// Whether the memory changed.
    pub dirty: bool,
    /// Why it changed (one per operation).
    pub reasons: Vec<String>,
    /// `Some(reason)` once retired.
    pub retired: Option<String>,
}

impl PlannedMemory {
    fn mtime(&self) -> SystemTime {
        match &self.origin {
            Origin::Existing { mtime, .. } => *mtime,
            Origin::New { .. } => SystemTime::now(),
        }
    }
    fn is_new(&self) -> bool {
        matches!(self.origin, Origin::New { .. })
    }

    /// True when mem wrote this memory: gathered by this run, or carrying
    /// mem's keys ([`Memory::written_by_mem`]).
    pub fn is_mems(&self) -> bool {
        self.is_new() || self.mem.written_by_mem()
    }
}

/// A change of one file, relative to the memory directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Path relative to the memory directory (`id.md`, `retired/id.md`, `MEMORY.md`).
    pub rel: String,
    /// The bytes before (`None`: the file does not exist).
    pub before: Option<Vec<u8>>,
    /// The bytes after (`None`: the file is removed).
    pub after: Option<Vec<u8>>,
    /// Why, one entry per operation.
    pub reasons: Vec<String>,
}

/// Options of a consolidation.
#[derive(Debug, Clone)]
pub struct Options {
    /// Today (retirement dates, expiry).
    pub today: NaiveDate,
    /// Most topic files kept (0 = unlimited).
    pub max_files: usize,
    /// Let `max_files` retire memories mem did not write
    /// ([`mem_core::Memory::written_by_mem`]); without it they are kept.
    pub include_foreign: bool,
    /// File names (`x.md`) of the directory's files whose names are not
    /// valid ids (index lines pointing at them are kept).
    pub other_files: HashSet<String>,
}

/// The plan: the ops in order and the file changes that carry them out.
#[derive(Debug, Default)]
pub struct Plan {
    /// The ops (docs/records.md "Consolidation plan: `mem-dream`").
    pub ops: Vec<PlanOp>,
    /// Every file change, in order of path.
    pub changes: Vec<Change>,
}

/// The labels of a rendered body ("Fact:", "How to apply:") that are not
/// stop words ([`mem_core::text::is_stop_word`]): never content.
const SECTION_LABELS: &[&str] = &["apply", "fact"];

/// Content of a text for comparing two memories: the stems of its words
/// ([`mem_core::text`]) without stop words and section labels, in order.
pub fn content_stems(text: &str) -> Vec<String> {
    let stems = text::stems();
    let mut out = Vec::new();
    text::each_word(text, |w| {
        if !text::is_stop_word(w) && !SECTION_LABELS.contains(&w) {
            out.push(stems.stem(w));
        }
    });
    out
}

/// Hash of a sorted word set (order and repetition do not matter).
fn set_key(prefix: &str, ws: &[String]) -> Option<[u8; 16]> {
    if ws.is_empty() {
        return None;
    }
    let mut v: Vec<&str> = ws.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    let mut h = blake3::Hasher::new();
    h.update(prefix.as_bytes());
    for w in v {
        h.update(b"\0");
        h.update(w.as_bytes());
    }
    let mut out = [0u8; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    Some(out)
}

struct Dsu(Vec<usize>);
impl Dsu {
    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.0[r] != r {
            r = self.0[r];
        }
        let mut y = x;
        while self.0[y] != r {
            let n = self.0[y];
            self.0[y] = r;
            y = n;
        }
        r
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[rb.max(ra)] = rb.min(ra);
        }
    }
}

static TASK_STATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:i'?m|i am|we'?re|we are) (?:halfway|in the middle of|currently|still) |\bnext,? (?:i'll|i will|we'll|we will)\b|^\s*(?:todo|wip)\b|\bwork in progress\b|\bcurrently (?:working on|debugging|fixing)\b|\bwhere (?:i|we) left off\b",
    )
    .expect("regex")
});
static ONE_OFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:in|for|during) this session\b|\bjust now\b|\bthis time only\b|\b(?:the|this) (?:build|test|tests|run|ci) (?:passed|failed|is green|is red|went green)\b",
    )
    .expect("regex")
});

/// Why a memory does not belong in memory (task state or a one-off
/// conclusion), judged on its name, description and fact.
pub fn contamination(memory: &Memory) -> Option<&'static str> {
    let text = format!(
        "{}\n{}\n{}",
        memory.name,
        memory.description,
        memory.fact.as_deref().unwrap_or("")
    );
    if TASK_STATE.is_match(&text) {
        Some("contaminated: task state")
    } else if ONE_OFF.is_match(&text) {
        Some("contaminated: one-off conclusion")
    } else {
        None
    }
}

/// What each memory says ([`crate::meaning::claim`]), by item.
type Stances = Vec<Option<Claim>>;

/// Build the plan. `items` are the existing topics (sorted by id) followed by
/// gathered memories; `broken` the unparsable files (kept, flagged in the
/// index); `old_index` the current `MEMORY.md`.
///
/// The steps, in order: `redact`, `absolutize_dates`,
/// `merge_duplicates`, `supersede_contradictions`, `retire`,
/// `file_changes`, `rebuild_index`; each appends its ops.
pub fn plan(
    dir: &std::path::Path,
    mut items: Vec<PlannedMemory>,
    broken: Vec<Broken>,
    old_index: Option<&str>,
    scrubber: &Scrubber,
    opts: &Options,
) -> Plan {
    let mut ops = Vec::new();
    redact(&mut items, scrubber, &mut ops);
    absolutize_dates(&mut items, &mut ops);
    // The subject and stance of each memory, for both the merge (the
    // direction of a preference) and the supersession below: neither
    // changes the description, fact or type a stance is read from.
    let stances: Stances = items.iter().map(|it| meaning::claim(&it.mem)).collect();
    merge_duplicates(&mut items, &stances, opts, &mut ops);
    supersede_contradictions(&mut items, &stances, &mut ops);
    retire(&mut items, opts, &mut ops);
    let (mut changes, final_topics) = file_changes(dir, items, opts, &mut ops);
    if let Some(c) = rebuild_index(dir, final_topics, broken, old_index, opts, &mut ops) {
        changes.push(c);
    }
    changes.sort_by(|a, b| a.rel.cmp(&b.rel));
    Plan { ops, changes }
}

/// Redact secrets and personal data in every memory: a `redact` op per kind
/// of finding and memory.
fn redact(items: &mut [PlannedMemory], scrubber: &Scrubber, ops: &mut Vec<PlanOp>) {
    for it in items.iter_mut() {
        let r = scrubber.scrub_memory(&mut it.mem);
        if !r.changed.is_empty() {
            let mut by: Vec<(String, usize)> = Vec::new();
            for f in &r.changed {
                for x in &f.findings {
                    let l = x.kind.label().to_string();
                    match by.iter_mut().find(|(k, _)| *k == l) {
                        Some((_, n)) => *n += 1,
                        None => by.push((l, 1)),
                    }
                }
            }
            for (what, count) in by {
                ops.push(PlanOp::Redact {
                    id: it.id.clone(),
                    what: what.clone(),
                    count,
                    extra: Extra::new(),
                });
                it.reasons.push(format!("redact {count} {what}"));
            }
            it.dirty = true;
        }
    }
}

/// Absolutize relative dates in descriptions and bodies against each
/// memory's [`Basis`]: an `absolutize-date` op per phrase.
fn absolutize_dates(items: &mut [PlannedMemory], ops: &mut Vec<PlanOp>) {
    for it in items.iter_mut() {
        let Some(basis) = it.basis else { continue };
        let day = basis.day();
        let mut fields: Vec<(&str, &mut String)> = vec![("description", &mut it.mem.description)];
        if let Some(b) = it.mem.body.as_mut() {
            fields.push(("body", b));
        } else {
            if let Some(f) = it.mem.fact.as_mut() {
                fields.push(("fact", f));
            }
            if let Some(h) = it.mem.how.as_mut() {
                fields.push(("how", h));
            }
        }
        let mut any = false;
        let mut new_ops = Vec::new();
        for (name, text) in fields {
            let (new, found) = dates::absolutize(text, day);
            if new == *text {
                continue;
            }
            for f in &found {
                let iso = f.date.to_string();
                let annotated = text[f.end..].trim_start().starts_with(&format!("({iso}"));
                if f.phrase.contains(&iso) || annotated {
                    continue;
                }
                new_ops.push(PlanOp::AbsolutizeDate {
                    id: it.id.clone(),
                    field: name.to_string(),
                    from: f.phrase.to_string(),
                    to: iso,
                    basis: basis.label(),
                    extra: Extra::new(),
                });
            }
            *text = new;
            any = true;
        }
        if any {
            if it.mem.body.is_some() {
                // Keep fact/why/how in step with the body.
                let (f, w, h) =
                    frontmatter::parse_body_sections(it.mem.body.as_deref().unwrap_or(""));
                if f.is_some() || w.is_some() || h.is_some() {
                    it.mem.fact = f;
                    it.mem.why = w;
                    it.mem.how = h;
                }
            }
            it.dirty = true;
            it.reasons.push("absolutize relative dates".into());
            ops.extend(new_ops);
        }
    }
}

/// Merge duplicates (hash buckets of normalized description + body): the
/// survivor takes the others' triggers, paths and evidence; a `merge` op per
/// group.
fn merge_duplicates(
    items: &mut [PlannedMemory],
    stances: &Stances,
    opts: &Options,
    ops: &mut Vec<PlanOp>,
) {
    let n = items.len();
    let mut dsu = Dsu((0..n).collect());
    let by_name = numbered_copies(items);
    for &(i, j) in &by_name {
        dsu.union(i, j);
    }
    {
        let mut pair: HashMap<([u8; 16], Option<[u8; 16]>), usize> = HashMap::new();
        let mut body: HashMap<[u8; 16], usize> = HashMap::new();
        // the same subject with the same value: the same thing said in
        // other words
        let mut said: HashMap<([u8; 16], &str), usize> = HashMap::new();
        for (i, it) in items.iter().enumerate() {
            if it.retired.is_some() {
                continue;
            }
            if let Some(c) = stances[i].as_ref().filter(|c| c.merges) {
                match said.get(&(c.key, c.value.as_str())) {
                    Some(&j) => dsu.union(i, j),
                    None => {
                        said.insert((c.key, c.value.as_str()), i);
                    }
                }
            }
            // The direction of a preference is part of the fact: "use npm
            // instead of pnpm" and "use pnpm instead of npm" share their
            // words but never merge (the newer supersedes the older below).
            let direction = stances[i].as_ref().map_or("", |c| c.value.as_str());
            let ty = &format!("{}\0{direction}", it.mem.mem_type.as_str());
            let bw = content_stems(&frontmatter::body_text(&it.mem));
            let bk = set_key(ty, &bw);
            if let Some(dk) = set_key(ty, &content_stems(&it.mem.description)) {
                match pair.get(&(dk, bk)) {
                    Some(&j) => dsu.union(i, j),
                    None => {
                        pair.insert((dk, bk), i);
                    }
                }
            }
            if bw.len() >= 6
                && let Some(bk) = bk
            {
                match body.get(&bk) {
                    Some(&j) => dsu.union(i, j),
                    None => {
                        body.insert(bk, i);
                    }
                }
            }
        }
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        if it.retired.is_none() {
            groups.entry(dsu.find(i)).or_default().push(i);
        }
    }
    let mut group_list: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 1).collect();
    group_list.sort();
    for g in group_list {
        // Survivor: existing before gathered, then (unless include_foreign)
        // a memory mem did not write, then earliest verified_at (a missing
        // date counts as latest), then shortest id, then first.
        let mine = |i: usize| opts.include_foreign || items[i].is_mems();
        let &s = g
            .iter()
            .min_by(|&&a, &&b| {
                let (x, y) = (&items[a], &items[b]);
                // a trusted copy survives over a suspect one
                let low = |i: &PlannedMemory| i.mem.effective_trust() == Trust::Low;
                low(x)
                    .cmp(&low(y))
                    .then(x.is_new().cmp(&y.is_new()))
                    .then(mine(a).cmp(&mine(b)))
                    .then_with(|| match (x.mem.verified_at, y.mem.verified_at) {
                        (Some(p), Some(q)) => p.cmp(&q),
                        (Some(_), None) => std::cmp::Ordering::Less,
                        (None, Some(_)) => std::cmp::Ordering::Greater,
                        (None, None) => std::cmp::Ordering::Equal,
                    })
                    .then(x.id.len().cmp(&y.id.len()))
                    .then(a.cmp(&b))
            })
            .expect("group is not empty");
        // A memory mem did not write is never merged away, and is never
        // rewritten: mem's duplicates of it are retired into it as it is.
        let others: Vec<usize> = g.iter().copied().filter(|&i| i != s && mine(i)).collect();
        if others.is_empty() {
            continue;
        }
        let from: Vec<String> = others.iter().map(|&i| items[i].id.clone()).collect();
        let sid = items[s].id.clone();
        let keep_as_is = !mine(s);
        for &o in &others {
            if keep_as_is {
                let it = &mut items[o];
                it.mem.superseded_by = Some(sid.clone());
                it.retired = Some(format!("merged into {sid}"));
                continue;
            }
            let om = items[o].mem.clone();
            let sm = &mut items[s].mem;
            if om.effective_trust() == Trust::Low && sm.effective_trust() != Trust::Low {
                // a suspect duplicate lends nothing but its evidence
                unite(&mut sm.evidence, &om.evidence);
                let it = &mut items[o];
                it.mem.superseded_by = Some(sid.clone());
                it.retired = Some(format!("merged into {sid}"));
                continue;
            }
            if by_name
                .iter()
                .any(|&(a, b)| (a, b) == (o, s) || (a, b) == (s, o))
            {
                // a numbered copy is the record `mem-index write` would
                // have merged into the original: merged the same way (the
                // newer `verified_at` wins field by field)
                let id = sm.id.clone();
                *sm = mem_index::write::merge(sm, &om);
                sm.id = id;
                let it = &mut items[o];
                it.mem.superseded_by = Some(sid.clone());
                it.retired = Some(format!("merged into {sid}"));
                continue;
            }
            unite(&mut sm.triggers, &om.triggers);
            unite(&mut sm.paths, &om.paths);
            unite(&mut sm.evidence, &om.evidence);
            if om.verified_at > sm.verified_at {
                sm.verified_at = om.verified_at;
            }
            if let Some(c) = om.confidence {
                sm.confidence = Some(sm.confidence.map_or(c, |x| x.max(c)));
            }
            if sm.body.as_deref().is_none_or(|b| b.trim().is_empty())
                && om.body.as_deref().is_some_and(|b| !b.trim().is_empty())
            {
                sm.body = om.body.clone();
            }
            for (k, v) in &om.extra {
                if !sm.extra.contains_key(k) {
                    sm.extra.insert(k.clone(), v.clone());
                }
            }
            // the [[name]] links of the memory folded in stay
            frontmatter::keep_links(sm, [&om]);
            let it = &mut items[o];
            it.mem.superseded_by = Some(sid.clone());
            it.retired = Some(format!("merged into {sid}"));
        }
        // "same fact" when the words are the same; else what they both say
        let words = |i: usize| set_key("", &content_stems(&items[i].mem.description));
        let copy = |o: usize| {
            by_name
                .iter()
                .any(|&(a, b)| (a, b) == (o, s) || (a, b) == (s, o))
        };
        let reason = match &stances[s] {
            _ if others.iter().all(|&o| copy(o)) => format!(
                "same name ({}): {} numbered copy of {sid}; `mem-index write` keeps one memory per name",
                items[s].mem.name,
                if from.len() == 1 {
                    "a"
                } else {
                    "numbered copies"
                }
            ),
            Some(c) if others.iter().any(|&o| words(o) != words(s)) => {
                format!("same meaning: {} is {}", c.subject, c.value)
            }
            _ => "same fact".to_string(),
        };
        let it = &mut items[s];
        it.dirty |= !keep_as_is;
        it.reasons
            .push(format!("merge {} into {sid}: {reason}", from.join(", ")));
        ops.push(PlanOp::Merge {
            id: sid.clone(),
            from,
            reason,
            extra: Extra::new(),
        });
    }
}

/// The pairs `(copy, original)` of live memories where `copy`'s id is
/// `original`'s with a number (`use-pnpm-2` of `use-pnpm`), both of one
/// type and of the same name ([`mem_core::id::full_slug`]; a slug name
/// equal to the id, Claude Code's current shape, is read from its `title`):
/// the same memory `mem-index write` would have updated, written twice by
/// an earlier distillation.
fn numbered_copies(items: &[PlannedMemory]) -> Vec<(usize, usize)> {
    let name_of = |it: &PlannedMemory| -> Option<String> {
        let name = match it
            .mem
            .extra
            .get("title")
            .and_then(serde_json::Value::as_str)
        {
            Some(t) if it.mem.name == it.id => t.to_string(),
            _ => it.mem.name.clone(),
        };
        mem_core::id::full_slug(&name).ok()
    };
    let by_id: HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .filter(|(_, it)| it.retired.is_none())
        .map(|(i, it)| (it.id.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (i, it) in items.iter().enumerate() {
        if it.retired.is_some() {
            continue;
        }
        let Some((base, num)) = it.id.rsplit_once('-') else {
            continue;
        };
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) || num.starts_with('0') {
            continue;
        }
        let Some(&j) = by_id.get(base) else { continue };
        let o = &items[j];
        if o.mem.mem_type == it.mem.mem_type && name_of(it).is_some() && name_of(it) == name_of(o) {
            out.push((i, j));
        }
    }
    out
}

/// Supersede contradictions (buckets of a normalized subject): the newer
/// memory retires the others of another stance; a `supersede` op each.
fn supersede_contradictions(items: &mut [PlannedMemory], stances: &Stances, ops: &mut Vec<PlanOp>) {
    let mut subjects: HashMap<[u8; 16], Vec<(usize, String)>> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        if it.retired.is_some() || it.mem.mem_type == MemoryType::Reference {
            continue;
        }
        if let Some(c) = &stances[i] {
            subjects
                .entry(c.key)
                .or_default()
                .push((i, c.value.clone()));
        }
    }
    let mut buckets: Vec<Vec<(usize, String)>> = subjects
        .into_values()
        .filter(|v| v.iter().any(|(_, s)| *s != v[0].1))
        .collect();
    buckets.sort();
    for b in buckets {
        let &(w, ref ws) = b
            .iter()
            .max_by(|(a, _), (c, _)| {
                let (x, y) = (&items[*a], &items[*c]);
                x.mem
                    .verified_at
                    .cmp(&y.mem.verified_at)
                    .then(x.mtime().cmp(&y.mtime()))
                    .then(x.is_new().cmp(&y.is_new()))
                    .then(c.cmp(a))
            })
            .expect("bucket is not empty");
        let wid = items[w].id.clone();
        for (o, s) in &b {
            if s == ws {
                continue;
            }
            let oid = items[*o].id.clone();
            let subject = stances[w].as_ref().map_or("", |c| c.subject.as_str());
            let day = |i: usize| {
                items[i]
                    .mem
                    .verified_at
                    .map_or_else(|| "undated".to_string(), |d| d.to_string())
            };
            let reason = format!(
                "same subject ({subject}), another value: {ws} (verified {}) is newer than {s} (verified {})",
                day(w),
                day(*o)
            );
            let it = &mut items[*o];
            it.mem.superseded_by = Some(wid.clone());
            it.retired = Some(format!("superseded by {wid}"));
            let win = &mut items[w];
            unite(&mut win.mem.supersedes, std::slice::from_ref(&oid));
            win.dirty = true;
            win.reasons.push(format!("supersede {oid}: {reason}"));
            let mut extra = Extra::new();
            extra.insert("reason".into(), reason.into());
            ops.push(PlanOp::Supersede {
                id: oid.clone(),
                superseded_by: wid.clone(),
                extra,
            });
        }
    }
}

/// Retire what is already superseded, expired or contaminated, and the
/// oldest beyond `max_files`: a `retire` op each (merged and superseded
/// memories have theirs already).
fn retire(items: &mut [PlannedMemory], opts: &Options, ops: &mut Vec<PlanOp>) {
    let live: HashSet<String> = items
        .iter()
        .filter(|i| i.retired.is_none())
        .map(|i| i.id.clone())
        .collect();
    for it in items.iter_mut() {
        if it.retired.is_some() {
            continue;
        }
        let reason = if it
            .mem
            .superseded_by
            .as_ref()
            .is_some_and(|s| live.contains(s) && *s != it.id)
        {
            Some(format!(
                "superseded by {}",
                it.mem.superseded_by.as_deref().unwrap_or("")
            ))
        } else if it.mem.is_expired(opts.today) {
            Some("expired".to_string())
        } else if opts.include_foreign || it.is_mems() {
            // the contamination rules are for what mem extracted
            contamination(&it.mem).map(str::to_string)
        } else {
            None
        };
        it.retired = reason;
    }
    // Keep at most max_files: retire the oldest beyond it (memories mem
    // did not write count, but are retired only with include_foreign).
    if opts.max_files > 0 {
        let live = (0..items.len())
            .filter(|&i| items[i].retired.is_none())
            .count();
        let mut active: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].retired.is_none())
            .filter(|&i| opts.include_foreign || items[i].is_mems())
            .collect();
        if live > opts.max_files {
            active.sort_by(|&a, &b| {
                let (x, y) = (&items[a], &items[b]);
                x.mem
                    .verified_at
                    .cmp(&y.mem.verified_at)
                    .then(x.mtime().cmp(&y.mtime()))
                    .then(x.id.cmp(&y.id))
            });
            let cut = (live - opts.max_files).min(active.len());
            for &i in &active[..cut] {
                items[i].retired = Some(format!("over max-files ({})", opts.max_files));
            }
        }
    }
    for it in items.iter() {
        if let Some(r) = &it.retired
            && !r.starts_with("merged into")
            && !r.starts_with("superseded by")
        {
            ops.push(PlanOp::Retire {
                id: it.id.clone(),
                reason: r.clone(),
                extra: Extra::new(),
            });
        } else if let Some(r) = &it.retired
            && r.starts_with("superseded by")
            && !ops
                .iter()
                .any(|o| matches!(o, PlanOp::Supersede { id, .. } if *id == it.id))
        {
            ops.push(PlanOp::Retire {
                id: it.id.clone(),
                reason: r.clone(),
                extra: Extra::new(),
            });
        }
    }
}

/// The file change of every memory (retired ones move to `retired/`), and
/// the topics left in the directory; a `create` op per gathered memory.
fn file_changes(
    dir: &std::path::Path,
    items: Vec<PlannedMemory>,
    opts: &Options,
    ops: &mut Vec<PlanOp>,
) -> (Vec<Change>, Vec<Topic>) {
    let mut changes = Vec::new();
    let mut retired_taken: HashSet<String> = HashSet::new();
    let mut final_topics = Vec::new();
    for it in items {
        let rel = format!("{}.md", it.id);
        let (before, mtime) = match &it.origin {
            Origin::Existing { bytes, mtime, .. } => (Some(bytes.clone()), *mtime),
            Origin::New { .. } => (None, SystemTime::now()),
        };
        if let Some(reason) = &it.retired {
            let mut m = it.mem.clone();
            m.retired_at = Some(opts.today);
            m.retired_reason = Some(reason.clone());
            m.hash = None;
            let target = store::retired_rel(&it.id, opts.today, |rel| {
                retired_taken.contains(rel) || dir.join(rel).exists()
            });
            retired_taken.insert(target.clone());
            let mut reasons = it.reasons.clone();
            reasons.push(format!("retire: {reason}"));
            if before.is_some() {
                changes.push(Change {
                    rel: rel.clone(),
                    before: before.clone(),
                    after: None,
                    reasons: reasons.clone(),
                });
            }
            changes.push(Change {
                rel: target,
                before: None,
                after: Some(frontmatter::render(&m).into_bytes()),
                reasons,
            });
            continue;
        }
        let mut m = it.mem.clone();
        m.hash = None;
        let bytes = if it.dirty || before.is_none() {
            frontmatter::render(&m).into_bytes()
        } else {
            before.clone().unwrap_or_default()
        };
        if before.as_deref() != Some(bytes.as_slice()) {
            let mut reasons = it.reasons.clone();
            if let Origin::New { source } = &it.origin {
                reasons.insert(0, format!("create from {source}"));
            }
            changes.push(Change {
                rel: rel.clone(),
                before: before.clone(),
                after: Some(bytes.clone()),
                reasons,
            });
        }
        if let Origin::New { source } = &it.origin {
            ops.push(PlanOp::Create {
                id: it.id.clone(),
                source: source.clone(),
                extra: Extra::new(),
            });
        }
        final_topics.push(Topic {
            id: it.id.clone(),
            path: dir.join(&rel),
            mtime,
            size: bytes.len() as u64,
            hash: store::hash_bytes(&bytes),
            memory: m,
        });
    }
    (changes, final_topics)
}

/// The `index` op and the change of `MEMORY.md` (none when it stays the
/// same, or would be created empty).
fn rebuild_index(
    dir: &std::path::Path,
    final_topics: Vec<Topic>,
    broken: Vec<Broken>,
    old_index: Option<&str>,
    opts: &Options,
    ops: &mut Vec<PlanOp>,
) -> Option<Change> {
    let files = final_topics.len() + broken.len();
    let st = Store {
        dir: dir.to_path_buf(),
        topics: final_topics,
        broken,
        bad_names: Vec::new(),
    };
    let entries = index_md::entries_for(&st, old_index);
    let rendered = index_md::update(old_index, &entries, &opts.other_files, opts.today);
    ops.push(PlanOp::Index {
        lines: rendered.lines,
        bytes: rendered.bytes,
        files,
        extra: Extra::new(),
    });
    // An index that would be empty is not created.
    if old_index.map(str::as_bytes) != Some(rendered.text.as_bytes())
        && (old_index.is_some() || !rendered.text.is_empty())
    {
        let mut reasons = vec![format!(
            "rebuild index: {} lines, {} bytes",
            rendered.lines, rendered.bytes
        )];
        if let Some(w) = &rendered.warning {
            reasons.push(w.clone());
        }
        return Some(Change {
            rel: store::INDEX_FILE.to_string(),
            before: old_index.map(|s| s.as_bytes().to_vec()),
            after: Some(rendered.text.into_bytes()),
            reasons,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, desc: &str, body: &str, day: &str) -> PlannedMemory {
        let mut m = Memory::new(id, desc, MemoryType::Feedback);
        m.body = Some(body.to_string());
        m.verified_at = mem_core::time::parse_day(day);
        PlannedMemory {
            id: id.into(),
            mem: m,
            origin: Origin::New {
                source: "test".into(),
            },
            basis: None,
            dirty: false,
            reasons: vec![],
            retired: None,
        }
    }

    /// The plan of `items` alone (no broken files, no old index) in `dir`.
    fn plan_items(dir: &std::path::Path, items: Vec<PlannedMemory>) -> Plan {
        plan(dir, items, vec![], None, &Scrubber::new(None), &opts())
    }

    /// The kept id and the merged ids of the plan's one merge (it has
    /// exactly one).
    fn only_merge(p: &Plan) -> (&str, Vec<&str>) {
        let mut merges: Vec<_> = p
            .ops
            .iter()
            .filter_map(|o| match o {
                PlanOp::Merge { id, from, .. } => {
                    Some((id.as_str(), from.iter().map(String::as_str).collect()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(merges.len(), 1, "{:?}", p.ops);
        merges.swap_remove(0)
    }

    fn opts() -> Options {
        Options {
            today: mem_core::time::parse_day("2026-02-01").unwrap(),
            max_files: 200,
            include_foreign: false,
            other_files: HashSet::new(),
        }
    }

    #[test]
    fn wording_variants_merge_into_one() {
        let dir = tempfile::tempdir().unwrap();
        let items = vec![
            item(
                "a",
                "Never mock the database.",
                "Use the real DB container in tests.",
                "2026-01-05",
            ),
            item(
                "bb",
                "never MOCK the Database",
                "use the real db container in tests",
                "2026-01-12",
            ),
            item("c", "Something else entirely", "Other text.", "2026-01-01"),
        ];
        let p = plan_items(dir.path(), items);
        assert_eq!(only_merge(&p), ("a", vec!["bb"]));
    }

    #[test]
    fn inflections_and_stop_words_do_not_keep_the_same_fact_apart() {
        // the one stemmer and stop list (mem_core::text): "mocking
        // databases" is "mock the database", "containers" a "container"
        let dir = tempfile::tempdir().unwrap();
        let items = vec![
            item(
                "a",
                "Never mock the database in tests.",
                "Tests use the real DB container.",
                "2026-01-05",
            ),
            item(
                "bb",
                "Never mocking databases in our tests",
                "Testing uses real DB containers.",
                "2026-01-12",
            ),
        ];
        let p = plan_items(dir.path(), items);
        assert_eq!(only_merge(&p), ("a", vec!["bb"]));
    }

    #[test]
    fn a_suspect_duplicate_never_survives_nor_lends_its_words() {
        let dir = tempfile::tempdir().unwrap();
        let mut low = item(
            "a",
            "Never mock the database.",
            "Use the real DB container in tests.",
            "2026-01-05",
        );
        low.mem.trust = Some(Trust::Low);
        low.mem.triggers = vec!["evil-trigger".into()];
        let items = vec![
            low,
            item(
                "bb",
                "never MOCK the Database",
                "use the real db container in tests",
                "2026-01-12",
            ),
        ];
        let p = plan_items(dir.path(), items);
        assert_eq!(only_merge(&p), ("bb", vec!["a"]));
        let kept = p.changes.iter().find(|c| c.rel == "bb.md").unwrap();
        let text = String::from_utf8_lossy(kept.after.as_deref().unwrap());
        assert!(
            !text.contains("evil-trigger") && !text.contains("trust: low"),
            "{text}"
        );
    }

    #[test]
    fn contradiction_newer_wins() {
        let dir = tempfile::tempdir().unwrap();
        let items = vec![
            item(
                "old",
                "Always run the linter before commit",
                "x",
                "2026-01-01",
            ),
            item(
                "new",
                "Never run the linter before commit",
                "y",
                "2026-01-10",
            ),
            item("npm", "Use npm instead of pnpm", "z", "2026-01-02"),
            item("pnpm", "Use pnpm instead of npm", "w", "2026-01-09"),
        ];
        let p = plan_items(dir.path(), items);
        let sup: Vec<_> = p
            .ops
            .iter()
            .filter_map(|o| match o {
                PlanOp::Supersede {
                    id, superseded_by, ..
                } => Some((id.as_str(), superseded_by.as_str())),
                _ => None,
            })
            .collect();
        assert!(sup.contains(&("old", "new")), "{sup:?}");
        assert!(sup.contains(&("npm", "pnpm")), "{sup:?}");
    }

    /// Regression: "use npm instead of pnpm" and the later "use pnpm
    /// instead of npm" share every word; they were merged as the same fact
    /// into the older one, retiring the newer correction.
    #[test]
    fn the_newer_direction_of_a_preference_supersedes_the_older_in_both_orders() {
        let dir = tempfile::tempdir().unwrap();
        let pref = |id: &str, x: &str, y: &str, day: &str| {
            let text = format!("Use {x} instead of {y}.");
            let mut it = item(id, &text, &text, day);
            it.mem.fact = Some(text);
            it
        };
        for (npm_day, pnpm_day, winner, loser) in [
            ("2026-07-01", "2026-07-05", "use-pnpm", "use-npm"),
            ("2026-07-05", "2026-07-01", "use-npm", "use-pnpm"),
        ] {
            for flip in [false, true] {
                let mut items = vec![
                    pref("use-npm", "npm", "pnpm", npm_day),
                    pref("use-pnpm", "pnpm", "npm", pnpm_day),
                ];
                if flip {
                    items.reverse();
                }
                let p = plan_items(dir.path(), items);
                let ops: Vec<(String, Option<String>, String)> = p
                    .ops
                    .iter()
                    .filter(|o| matches!(o, PlanOp::Merge { .. } | PlanOp::Supersede { .. }))
                    .map(|o| {
                        let by = match o {
                            PlanOp::Supersede { superseded_by, .. } => format!("{superseded_by:?}"),
                            _ => String::new(),
                        };
                        (o.op().to_string(), o.id().map(str::to_string), by)
                    })
                    .collect();
                assert_eq!(
                    ops,
                    [(
                        "supersede".to_string(),
                        Some(loser.to_string()),
                        format!("\"{winner}\"")
                    )],
                    "npm {npm_day}, pnpm {pnpm_day}, flipped {flip}"
                );
            }
        }
    }

    #[test]
    fn content_is_stems_without_stop_words_and_labels() {
        assert_eq!(
            content_stems("Fact: The Tests of THE build, and Ünïcode ÉTATS"),
            ["test", "build", "ünïcode", "état"]
        );
        // wording variants meet
        assert_eq!(
            content_stems("running the tests"),
            content_stems("run tests")
        );
    }

    #[test]
    fn contamination_is_found() {
        let m = Memory::new("x", "I'm halfway through the refactor", MemoryType::Project);
        assert!(contamination(&m).is_some());
        let m = Memory::new("x", "The build passed", MemoryType::Project);
        assert!(contamination(&m).is_some());
        let m = Memory::new("x", "Run setup before build-token", MemoryType::Feedback);
        assert!(contamination(&m).is_none());
    }
}
