//! The recall gate (docs/recall.md "Relevance"): for one task, decide per memory
//! `recall`, `evict`, `drop` or `skip`.
//!
//! Order of the checks: retired → skip; other project (only when the guard
//! is on) → skip; expired (`expires < today`) → evict; superseded → skip;
//! then relevance (a trigger, a `paths` glob, the lexical score, or a
//! `type: user` memory without triggers or paths); the relevant ones are
//! ranked by trigger and path matches, then score, then id, and cut from the
//! bottom by `max_items` and `max_tokens` (each cut one is a `drop`).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;
use globset::{GlobBuilder, GlobMatcher};
use mem_core::records::{MemoryType, Scope, Source, Trust};

use mem_core::text::{Stems, is_cjk};

pub use crate::doc::{
    BODY_WEIGHT, DESCRIPTION_WEIGHT, Doc, NAME_WEIGHT, TRIGGER_WEIGHT, Text, Texts, TextsIter,
};

/// BM25 term-frequency saturation.
pub const BM25_K1: f64 = 1.2;
/// BM25 length normalisation.
pub const BM25_B: f64 = 0.75;
/// Distinct matched task terms (a word of the task with its synonyms counts
/// once) the lexical score needs before it counts.
pub const MIN_MATCHED_STEMS: usize = 2;
/// Default `--min-score`: the lowest lexical score that makes a memory
/// relevant on its own (docs/recall.md "The gate" tells how it was set).
pub const DEFAULT_MIN_SCORE: f64 = 5.0;
/// Default `--max-items`: at most this many memories recalled.
pub const DEFAULT_MAX_ITEMS: usize = 20;
/// Default `--max-tokens`: at most this many tokens (ceil(bytes / 4)) of
/// recalled Markdown.
pub const DEFAULT_MAX_TOKENS: usize = 2000;
/// Factor on the score of a term the vocabulary brought in (a synonym or a
/// translation of a task word), next to the task's own word (1.0).
pub const EXPANSION_WEIGHT: f64 = 0.7;
/// The idf of a stem is computed as if the memory directory held at least
/// this many memories, so that a small directory's scores are on the same
/// scale as a larger one's (with 3 memories, BM25's idf of a word found in
/// one of them would be 0.85; with this floor it is 2.6).
pub const MIN_IDF_DOCS: f64 = 20.0;

/// The term frequency of each of the stems `wanted` (sorted, distinct) in
/// each doc: `out[j][i]` for `wanted[j]` in `docs[i]` (0 when absent).
///
/// Docs whose terms are borrowed from a recall cache file read in this
/// process take them from the file's postings ([`crate::cache::Postings`]:
/// per wanted stem, the entries holding it), the others are scanned
/// ([`scan_term_frequencies`]); both give the same numbers.
fn term_frequencies(docs: &[&Doc], wanted: &[&str]) -> Vec<Vec<u32>> {
    let indexes = crate::cache::postings();
    if indexes.is_empty() {
        return scan_term_frequencies(docs, wanted);
    }
    let mut out = vec![vec![0u32; docs.len()]; wanted.len()];
    // Per cache file: (offset of the terms in it, doc), and the docs of none.
    let mut groups: Vec<Vec<(usize, usize)>> = vec![Vec::new(); indexes.len()];
    let mut rest: Vec<usize> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let found = match &d.terms {
            Text::Borrowed(t) => indexes
                .iter()
                .enumerate()
                .find_map(|(x, p)| Some((x, p.offset(t)?))),
            Text::Owned(_) => None,
        };
        match found {
            Some((x, at)) => groups[x].push((at, i)),
            None => rest.push(i),
        }
    }
    for (p, mut g) in indexes.iter().zip(groups) {
        if g.is_empty() {
            continue;
        }
        if !g.is_sorted() {
            g.sort_unstable();
        }
        let Some(lists) = wanted.iter().map(|w| p.list(w)).collect::<Option<Vec<_>>>() else {
            // Malformed postings: these docs are scanned.
            rest.extend(g.iter().map(|&(_, i)| i));
            continue;
        };
        for (col, list) in out.iter_mut().zip(lists) {
            // Both by offset: one pass over the two.
            let mut k = 0;
            for (at, tf) in list {
                while k < g.len() && g[k].0 < at {
                    k += 1;
                }
                match g.get(k) {
                    Some(&(o, i)) if o == at => col[i] = tf,
                    Some(_) => {}
                    None => break,
                }
            }
        }
    }
    if !rest.is_empty() {
        rest.sort_unstable();
        let some: Vec<&Doc> = rest.iter().map(|&i| docs[i]).collect();
        let cols = scan_term_frequencies(&some, wanted);
        for (col, got) in out.iter_mut().zip(cols) {
            for (&i, n) in rest.iter().zip(got) {
                col[i] = n;
            }
        }
    }
    out
}

/// [`term_frequencies`] by reading every doc's terms.
///
/// A doc's [`Doc::terms`] are sorted, so the tokens of the stems that
/// start with one byte form one run: per doc and first byte of a wanted
/// stem, one vectorised search for a space followed by that byte finds the
/// run, and only its tokens are read (a doc's other tokens are skipped
/// unread). The wanted stems are taken in order, so the search only moves
/// forward. From [`crate::load::PARALLEL_FROM`] docs on, half of them are
/// read on another thread.
fn scan_term_frequencies(docs: &[&Doc], wanted: &[&str]) -> Vec<Vec<u32>> {
    let mut out = vec![vec![0u32; docs.len()]; wanted.len()];
    // The runs to look for: (first byte, the wanted stems starting with it),
    // in order. An empty stem never occurs in the terms.
    let mut runs: Vec<(memchr::memmem::Finder<'static>, std::ops::Range<usize>)> = Vec::new();
    let mut j = 0;
    while j < wanted.len() {
        let Some(&first) = wanted[j].as_bytes().first() else {
            j += 1;
            continue;
        };
        let from = j;
        while j < wanted.len() && wanted[j].as_bytes().first() == Some(&first) {
            j += 1;
        }
        runs.push((
            memchr::memmem::Finder::new(&[b' ', first]).into_owned(),
            from..j,
        ));
    }
    if runs.is_empty() {
        return out;
    }
    // Doc by doc (`row[i * w + j]`), half of the docs on another thread
    // when there are many.
    let w = wanted.len();
    let halves = crate::load::par_halves(docs, |docs| {
        let mut row = vec![0u32; docs.len() * w];
        for (i, d) in docs.iter().enumerate() {
            let t = d.terms.as_bytes();
            // Where the search for the next run starts: 0, or a space.
            let mut k = 0;
            for (finder, ws) in &runs {
                let first = wanted[ws.start].as_bytes()[0];
                // the run's first token (the terms start with a space; a token
                // right at the start is found too)
                let mut p = if k == 0 && t.first() == Some(&first) {
                    0
                } else {
                    match finder.find(&t[k..]) {
                        Some(at) => k + at + 1,
                        None => continue,
                    }
                };
                let mut j = ws.start;
                while j < ws.end && p < t.len() && t[p] == first {
                    // a token `stem:tf`
                    let mut c = p;
                    while c < t.len() && t[c] != b':' && t[c] != b' ' {
                        c += 1;
                    }
                    let mut e = c;
                    while e < t.len() && t[e] != b' ' {
                        e += 1;
                    }
                    if c < t.len() && t[c] == b':' {
                        let stem = &t[p..c];
                        while j < ws.end {
                            match wanted[j].as_bytes().cmp(stem) {
                                std::cmp::Ordering::Less => j += 1,
                                std::cmp::Ordering::Greater => break,
                                std::cmp::Ordering::Equal => {
                                    let mut n = 0u32;
                                    for &b in &t[c + 1..e] {
                                        if !b.is_ascii_digit() {
                                            break;
                                        }
                                        n = n
                                            .saturating_mul(10)
                                            .saturating_add(u32::from(b - b'0'));
                                    }
                                    row[i * w + j] = n;
                                    j += 1;
                                    break;
                                }
                            }
                        }
                    }
                    // the next token
                    p = e + 1;
                }
                // Every token read starts with `first`, before the next run's
                // byte: the next search starts at the space before the first
                // token not read.
                k = (p - 1).min(t.len());
            }
        }
        row
    });
    let mut at = 0;
    for row in halves {
        for (i, tfs) in row.chunks_exact(w).enumerate() {
            for (col, &n) in out.iter_mut().zip(tfs) {
                col[at + i] = n;
            }
        }
        at += row.len() / w;
    }
    out
}

/// One task to recall for.
#[derive(Debug, Clone)]
pub struct Query {
    /// The task text (a prompt, a command).
    pub task: String,
    /// Repository-relative paths the task touches (`--path` and path-looking
    /// words of the task), `/`-separated.
    pub paths: Vec<String>,
    /// Today (expiry is `expires < today`).
    pub today: NaiveDate,
    /// At most this many recalled memories.
    pub max_items: usize,
    /// At most this many estimated tokens of recalled markdown.
    pub max_tokens: usize,
    /// Lowest BM25 score that counts.
    pub min_score: f64,
    /// When set (a project folder shared by several cwds): the current
    /// project id; memories of other projects are skipped.
    pub guard: Option<String>,
    /// The expansion vocabulary applied to the task (`None`: none).
    pub vocabulary: Option<std::sync::Arc<crate::vocab::Vocabulary>>,
    /// Report every expired memory as `evict`, relevant to the task or not
    /// (otherwise an expired memory the task does not bear on is a `skip`
    /// with reason `expired`).
    pub all_expired: bool,
    /// When true, `trust: low` memories are recalled like others
    /// (`--trust low`); else they are skipped as `low-trust`. Hooks never
    /// set it.
    pub low_trust: bool,
}

impl Query {
    /// A query for `task` on `today` with `mem-recall`'s defaults: no paths,
    /// [`DEFAULT_MAX_ITEMS`], [`DEFAULT_MAX_TOKENS`], [`DEFAULT_MIN_SCORE`],
    /// no project guard, expired memories evicted only when relevant, and
    /// `trust: low` memories left out (as the hook does).
    pub fn with_defaults(
        task: String,
        today: NaiveDate,
        vocabulary: Option<std::sync::Arc<crate::vocab::Vocabulary>>,
    ) -> Query {
        Query {
            task,
            paths: Vec::new(),
            today,
            max_items: DEFAULT_MAX_ITEMS,
            max_tokens: DEFAULT_MAX_TOKENS,
            min_score: DEFAULT_MIN_SCORE,
            guard: None,
            vocabulary,
            all_expired: false,
            low_trust: false,
        }
    }
}

/// Why a memory was found relevant (or not).
#[derive(Debug, Clone, PartialEq)]
pub enum Why {
    /// A trigger matched (the trigger as written).
    Trigger(String),
    /// A `paths` glob matched a path of the task.
    Path {
        /// The glob as written.
        glob: String,
        /// The path it matched.
        path: String,
    },
    /// The lexical score passed (score, what matched: a stem of the task, or
    /// `TERM (via WORD)` for a term the vocabulary brought in for a word of
    /// the task).
    Score(f64, Vec<String>),
    /// A `type: user` memory without triggers or paths.
    Always,
}

/// What the gate decided for one memory.
#[derive(Debug, Clone, PartialEq, Eq, Copy)]
pub enum Action {
    /// Injected.
    Recall,
    /// Expired: never injected, always reported.
    Evict,
    /// Relevant but cut by the budget.
    Drop,
    /// Left out (shown with `--explain`).
    Skip,
}

/// One decision: the memory (index into the docs), the action, and why.
#[derive(Debug, Clone)]
pub struct Decision {
    /// Index of the memory in the docs given to [`decide`].
    pub doc: usize,
    /// The action.
    pub action: Action,
    /// `expired` (an evict, or a skip of an expired memory the task does
    /// not bear on), `budget`, `no-match`, `other-project`, `retired`,
    /// `superseded`, `low-trust`.
    pub reason: Option<&'static str>,
    /// What matched.
    pub why: Vec<Why>,
    /// BM25 score (0 when no query stem matched).
    pub score: f64,
    /// Distinct task terms that matched the memory's text (a term and its
    /// synonyms count once); the gate needs [`MIN_MATCHED_STEMS`].
    pub terms: usize,
    /// For drops: which budget (`max-items` or `max-tokens`).
    pub budget: Option<&'static str>,
}

impl Decision {
    fn new(doc: usize, action: Action, reason: Option<&'static str>) -> Decision {
        Decision {
            doc,
            action,
            reason,
            why: Vec::new(),
            score: 0.0,
            terms: 0,
            budget: None,
        }
    }

    /// Matched triggers, globs, or stems (for the `matched` field).
    pub fn matched(&self) -> Vec<String> {
        let mut out = Vec::new();
        for w in &self.why {
            match w {
                Why::Trigger(t) => out.push(t.clone()),
                Why::Path { glob, .. } => out.push(glob.clone()),
                Why::Score(_, stems) => {
                    if !self
                        .why
                        .iter()
                        .any(|w| matches!(w, Why::Trigger(_) | Why::Path { .. }))
                    {
                        out.extend(stems.iter().cloned());
                    }
                }
                Why::Always => out.push("type: user".into()),
            }
        }
        out
    }

    fn hits(&self) -> usize {
        self.why
            .iter()
            .filter(|w| matches!(w, Why::Trigger(_) | Why::Path { .. }))
            .count()
    }
}

/// The task prepared once for matching against every memory.
struct Prepared {
    lower: String,
    /// Stems of the task's words that are not stop words, in order.
    content_stems: Vec<Cow<'static, str>>,
    /// The task's terms, each with its alternatives.
    concepts: Vec<Concept>,
    /// English translations of the task's Chinese terms (content stems
    /// joined by spaces): a trigger equal to one matches, as if the task
    /// had said it in English. Synonyms never match triggers.
    translated: Vec<String>,
    paths: Vec<String>,
    /// File names of `paths`.
    names: Vec<String>,
    globs: HashMap<String, Option<GlobMatcher>>,
    /// Compiled `re:` triggers (`None`: the regex does not compile).
    regexes: HashMap<String, Option<regex::Regex>>,
    /// The byte pairs that occur in `lower` (bit `a << 8 | b`): a trigger
    /// with a pair not in it cannot occur in the task.
    pairs: Vec<u64>,
}

impl Prepared {
    fn new(q: &Query, stems: &Stems) -> Prepared {
        // The task's words and their stems, each distinct word stemmed once
        // (a word of the built-in vocabulary or a stop word is looked up in
        // the table made at compile time); its content stems are those of
        // the words that are not stop words.
        let ws = mem_core::text::words(&q.task);
        let all = task_stems(&ws, stems);
        let content_stems = ws
            .iter()
            .zip(&all)
            .filter(|(w, _)| !mem_core::text::is_stop_word(w))
            .map(|(_, s)| s.clone())
            .collect();
        let lower = q.task.to_lowercase();
        let (concepts, translated) = concepts(&q.task, &ws, &all, q.vocabulary.as_deref(), stems);
        let names = q
            .paths
            .iter()
            .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
            .collect();
        Prepared {
            pairs: byte_pairs(&lower),
            lower,
            content_stems,
            concepts,
            translated,
            paths: q.paths.clone(),
            names,
            globs: HashMap::new(),
            regexes: HashMap::new(),
        }
    }

    /// False when `needle` cannot occur in the task (a byte pair of it does
    /// not); true when it may.
    fn may_occur(&self, needle: &str) -> bool {
        needle.as_bytes().windows(2).all(|w| {
            let bit = usize::from(w[0]) << 8 | usize::from(w[1]);
            self.pairs[bit / 64] & (1 << (bit % 64)) != 0
        })
    }

    /// True when `trigger` (with its precomputed stems) matches the task.
    fn trigger_matches(&mut self, trigger: &str, trigger_stems: &str) -> bool {
        let t = trigger.trim();
        if let Some(re) = t.strip_prefix("re:") {
            let lower = &self.lower;
            return self
                .regexes
                .entry(re.trim().to_string())
                .or_insert_with_key(|re| {
                    regex::RegexBuilder::new(re)
                        .case_insensitive(true)
                        .size_limit(1 << 20)
                        .build()
                        .ok()
                })
                .as_ref()
                .is_some_and(|r| r.is_match(lower));
        }
        if t.is_empty() {
            return false;
        }
        let lower: Cow<'_, str> = if t.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
            Cow::Owned(t.to_lowercase())
        } else {
            Cow::Borrowed(t)
        };
        if !lower.is_ascii() && lower.chars().any(is_cjk) {
            return self.lower.contains(&*lower);
        }
        if self.may_occur(&lower) && literal_match(&self.lower, &lower) {
            return true;
        }
        if trigger_stems.is_empty() {
            return false;
        }
        if self.translated.iter().any(|t| t == trigger_stems) {
            return true;
        }
        if !trigger_stems.contains(' ') {
            return self.content_stems.iter().any(|s| s == trigger_stems);
        }
        let n = trigger_stems.split(' ').count();
        self.content_stems
            .windows(n)
            .any(|w| w.iter().map(|s| &**s).eq(trigger_stems.split(' ')))
    }

    /// The phrase of a memory's name that the task holds, for a memory
    /// without triggers: two adjacent content words of `id` (the name as
    /// its file stem, `webhook-tests-need-the-stub-server`) in a row in the
    /// task ("add webhook tests for billing"), or the task's only content
    /// word when the name has it ("webhooks"). Stems compared.
    fn name_phrase(&self, id: &str, stems: &Stems) -> Option<String> {
        let ws: Vec<String> = id
            .split(['-', '_', ' '])
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let content = |w: &str| {
            w.chars().nth(2).is_some()
                && !w.bytes().all(|b| b.is_ascii_digit())
                && !mem_core::text::is_stop_word(w)
        };
        let stem = |w: &str| crate::vocab::stem(stems, w);
        for pair in ws.windows(2) {
            if !(content(&pair[0]) && content(&pair[1])) {
                continue;
            }
            let (a, b) = (stem(&pair[0]), stem(&pair[1]));
            if self
                .content_stems
                .windows(2)
                .any(|w| w[0] == a && w[1] == b)
            {
                return Some(format!("{} {}", pair[0], pair[1]));
            }
        }
        if let [only] = self.content_stems.as_slice()
            && let Some(w) = ws.iter().find(|w| content(w) && stem(w) == *only)
        {
            return Some(w.clone());
        }
        None
    }

    /// The first task path `glob` matches, if any.
    fn glob_match(&mut self, glob: &str) -> Option<String> {
        let g = glob.trim().trim_start_matches("./");
        if g.is_empty() || self.paths.is_empty() {
            return None;
        }
        let anchored = g.contains('/');
        let g = g.trim_start_matches('/');
        // Cheap prefilter on the literal prefix before compiling the glob.
        let lit_end = g.find(['*', '?', '[', '{', '\\']).unwrap_or(g.len());
        let lit = &g[..lit_end];
        let cands = if anchored { &self.paths } else { &self.names };
        if !cands.iter().any(|p| p.starts_with(lit)) {
            return None;
        }
        let m = self
            .globs
            .entry(g.to_string())
            .or_insert_with(|| {
                GlobBuilder::new(g)
                    .literal_separator(true)
                    .build()
                    .ok()
                    .map(|g| g.compile_matcher())
            })
            .as_ref()?;
        let cands = if anchored { &self.paths } else { &self.names };
        cands
            .iter()
            .position(|p| m.is_match(p))
            .map(|i| self.paths[i].clone())
    }
}

/// One term of the task for the lexical score: its own stems and what the
/// vocabulary brings in. A memory matches it once, by its best alternative.
#[derive(Debug, Clone)]
struct Concept {
    alts: Vec<Alt>,
}

/// One way a [`Concept`] can occur in a memory: all of `stems` present.
#[derive(Debug, Clone)]
struct Alt {
    stems: Vec<String>,
    weight: f64,
    /// A task verb ([`is_task_verb`]): it scores, but never counts as a
    /// word of what the task is about.
    verb: bool,
    /// How it shows in `matched`.
    show: String,
    /// The task's name it comes from ([`compounds`]): the words of one
    /// name (`coderabbit-extract`, `src/app.ts`) count once among the
    /// [`MIN_MATCHED_STEMS`] words a memory must share with the task.
    name: usize,
    /// The whole name (`real-database-tests`), met only where the memory
    /// writes it so ([`mem_core::text::is_name_term`]): a phrase the task
    /// and the memory share.
    whole: bool,
}

/// The task's concepts: each vocabulary term found in it (its own content
/// stems, then every term it brings in at [`EXPANSION_WEIGHT`]), and each
/// other word that is not a stop word (its stem; with the next such word,
/// also the two joined, so "test suite" meets "testsuite"). Concepts whose
/// own stems repeat an earlier one's are left out. Also returns the
/// English translations of the task's Chinese terms (see
/// [`crate::vocab::Vocabulary::translations`]), stems joined by spaces.
fn concepts(
    task: &str,
    ws: &[String],
    all: &[Cow<'static, str>],
    vocab: Option<&crate::vocab::Vocabulary>,
    stems: &Stems,
) -> (Vec<Concept>, Vec<String>) {
    let (names, wholes) = compounds(task, ws.len());
    // each name of several words, whole: one more concept of its name
    let mut out: Vec<Concept> = wholes
        .into_iter()
        .map(|(term, name)| Concept {
            alts: vec![Alt {
                show: term.clone(),
                stems: vec![term],
                weight: 1.0,
                verb: false,
                name,
                whole: true,
            }],
        })
        .collect();
    let found = vocab.map(|v| v.find(ws, all, stems)).unwrap_or_default();
    let mut covered = vec![false; ws.len()];
    let mut translated: Vec<String> = Vec::new();
    let mut seen: HashSet<Vec<String>> = HashSet::new();
    let content = |i: usize| !mem_core::text::is_stop_word(&ws[i]);
    let mut by_start: HashMap<usize, crate::vocab::Found> = HashMap::new();
    for f in &found {
        covered[f.start..f.end].iter_mut().for_each(|c| *c = true);
        by_start.insert(f.start, *f);
    }
    for i in 0..ws.len() {
        if let (Some(f), Some(v)) = (by_start.get(&i), vocab) {
            let own: Vec<String> = (f.start..f.end)
                .filter(|&j| content(j))
                .map(|j| all[j].to_string())
                .collect();
            let label = ws[f.start..f.end].join(if v.terms[f.term].cjk { "" } else { " " });
            translated.extend(
                v.translations(f.term)
                    .into_iter()
                    .map(|t| v.terms[t].content(stems).to_string()),
            );
            let mut alts = Vec::new();
            // The alternatives' stems so far, joined by spaces: a set, so a
            // user's group of thousands of terms costs linear time.
            let mut taken: HashSet<String> = HashSet::new();
            if !own.is_empty() {
                if !seen.insert(own.clone()) {
                    continue;
                }
                taken.insert(own.join(" "));
                alts.push(Alt {
                    show: own.join(" "),
                    stems: own,
                    weight: 1.0,
                    verb: f.end - f.start == 1 && is_task_verb(&ws[f.start]),
                    name: names[f.start],
                    whole: false,
                });
            }
            for t in v.alternatives(f.term) {
                let term = &v.terms[t];
                let content = term.content(stems);
                if content.is_empty() || !taken.insert(content.to_string()) {
                    continue;
                }
                alts.push(Alt {
                    stems: content.split(' ').map(str::to_string).collect(),
                    weight: EXPANSION_WEIGHT,
                    verb: false,
                    show: format!("{} (via {label})", term.text),
                    name: names[f.start],
                    whole: false,
                });
            }
            if !alts.is_empty() {
                out.push(Concept { alts });
            }
            continue;
        }
        if covered[i] || !content(i) {
            continue;
        }
        if !seen.insert(vec![all[i].to_string()]) {
            continue;
        }
        let mut alts = vec![Alt {
            stems: vec![all[i].to_string()],
            weight: 1.0,
            verb: is_task_verb(&ws[i]),
            show: all[i].to_string(),
            name: names[i],
            whole: false,
        }];
        let next = i + 1;
        if next < ws.len()
            && !covered[next]
            && content(next)
            && !ws[i].chars().any(is_cjk)
            && !ws[next].chars().any(is_cjk)
        {
            let joined = stems.stem(&format!("{}{}", ws[i], ws[next]));
            alts.push(Alt {
                stems: vec![joined.clone()],
                weight: 1.0,
                verb: false,
                show: joined,
                name: names[i],
                whole: false,
            });
        }
        out.push(Concept { alts });
    }
    (out, translated)
}

/// The name each of the task's `n` words (as [`mem_core::text::words`]
/// reads them) belongs to: words written together with `-`, `_`, `.` or
/// `/` and no space between (`coderabbit-extract`, `src/app.ts`) share
/// one number, every other word has its own; also each name of several
/// words joined by `-`, `_` or `.` ([`mem_core::text::is_name_term`]),
/// whole, with its number. A task whose words cannot be lined up with its
/// whitespace-separated pieces gives each word its own and no names.
fn compounds(task: &str, n: usize) -> (Vec<usize>, Vec<(String, usize)>) {
    let mut out = Vec::with_capacity(n);
    let mut wholes: Vec<(String, usize)> = Vec::new();
    let mut name = 0;
    // a path's parts are names of their own (`web/checkout/payment-form.tsx`
    // names `web`, `checkout` and `payment-form.tsx`)
    for piece in task.split(|c: char| c.is_whitespace() || matches!(c, '/' | '\\')) {
        let k = mem_core::text::words(piece).len();
        // the names of several words in the piece, by the number of the
        // name their first word gets below
        let first = out.len();
        let mut at = 0;
        mem_core::text::each_term(piece, |t| {
            let w = mem_core::text::words(t).len();
            if mem_core::text::is_name_term(t) && !wholes.iter().any(|(x, _)| x == t) {
                wholes.push((t.to_string(), first + at));
            }
            at += w;
        });
        // a name is written with one of the joiners (and may end in `'s` or
        // `:42`); other marks (a comma, a quote, words of a script without
        // spaces) separate words
        let joined = piece
            .trim_matches(|c: char| !c.is_alphanumeric())
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '\'' | ':'));
        for _ in 0..k {
            out.push(name);
            if !joined {
                name += 1;
            }
        }
        if joined {
            name += 1;
        }
    }
    if out.len() != n {
        return ((0..n).collect(), Vec::new());
    }
    // word index → the number of its name
    for w in &mut wholes {
        w.1 = out.get(w.1).copied().unwrap_or(w.1);
    }
    (out, wholes)
}

/// True for a verb nearly every task starts with (lowercased): it names
/// what to do, never what the task is about. It still scores, but counts
/// among the [`MIN_MATCHED_STEMS`] words a memory must share with the task
/// only beside a phrase they share ("add a third-party library"): "add a
/// check to the pre-commit hook" never recalls `git add`'s lesson by "add"
/// and one other word.
pub fn is_task_verb(w: &str) -> bool {
    matches!(
        w,
        "add"
            | "adding"
            | "fix"
            | "make"
            | "use"
            | "create"
            | "update"
            | "change"
            | "write"
            | "remove"
            | "implement"
            | "start"
            | "show"
            | "set"
            | "put"
            | "move"
            | "rename"
            | "pick"
            | "try"
            | "need"
            | "want"
            | "include"
            | "handle"
            | "improve"
    )
}

/// The stems of the words `ws`, in order: each distinct word stemmed once
/// ([`crate::vocab::stem`]: a word of the built-in vocabulary or a stop
/// word is looked up, not stemmed).
fn task_stems(ws: &[String], stems: &Stems) -> Vec<Cow<'static, str>> {
    let mut order: Vec<usize> = (0..ws.len()).collect();
    order.sort_unstable_by(|&a, &b| ws[a].cmp(&ws[b]));
    let mut out: Vec<Cow<'static, str>> = vec![Cow::Borrowed(""); ws.len()];
    let mut prev: Option<usize> = None;
    for i in order {
        out[i] = match prev {
            Some(p) if ws[p] == ws[i] => out[p].clone(),
            _ => crate::vocab::stem(stems, &ws[i]),
        };
        prev = Some(i);
    }
    out
}

/// The set of adjacent byte pairs of `s`, as 65,536 bits.
fn byte_pairs(s: &str) -> Vec<u64> {
    let mut set = vec![0u64; 1024];
    for w in s.as_bytes().windows(2) {
        let bit = usize::from(w[0]) << 8 | usize::from(w[1]);
        set[bit / 64] |= 1 << (bit % 64);
    }
    set
}

/// True when `needle` occurs in `hay` with no letter or digit right before
/// or right after it (both lowercased).
pub fn literal_match(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let s = from + i;
        let e = s + needle.len();
        let before = hay[..s].chars().next_back();
        let after = hay[e..].chars().next();
        let edge_ok = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        // A trigger that starts or ends with a non-word character has its
        // own boundary there.
        let first_word = needle.chars().next().is_some_and(char::is_alphanumeric);
        let last_word = needle
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        if (!first_word || edge_ok(before)) && (!last_word || edge_ok(after)) {
            return true;
        }
        from = s + hay[s..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Decide for every doc. Returns the decisions in output order: recalls
/// (ranked), drops (ranked), evicts, skips.
pub fn decide(docs: &[&Doc], q: &Query, stems: &Stems) -> Vec<Decision> {
    let mut p = Prepared::new(q, stems);
    // Superseded: named by `superseded_by`, or by a live memory's supersedes.
    let mut superseded: HashSet<&str> = HashSet::new();
    for d in docs {
        if !d.retired && !d.expires.is_some_and(|e| e.is_expired(q.today)) {
            superseded.extend(d.supersedes.iter().map(|s| &**s));
        }
    }
    // BM25 statistics over every doc: the term frequency of every stem of
    // the task's concepts in every doc (one scan of the terms per stem),
    // then per alternative its frequency (the least of its stems'), idf and
    // weight; alternatives found in no doc are left out.
    let n = docs.len().max(1) as f64;
    let avgdl = (docs.iter().map(|d| d.len as f64).sum::<f64>() / n).max(1.0);
    let concepts = std::mem::take(&mut p.concepts);
    let mut wanted: Vec<&str> = concepts
        .iter()
        .flat_map(|c| &c.alts)
        .flat_map(|a| &a.stems)
        .map(String::as_str)
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let cols = term_frequencies(docs, &wanted);
    let tf_of: HashMap<&str, &Vec<u32>> = wanted.iter().copied().zip(&cols).collect();
    let idf_n = n.max(MIN_IDF_DOCS);
    // Per concept: (alternative, idf × weight, tf per doc).
    let mut scored: Vec<Vec<(&Alt, f64, Vec<u32>)>> = Vec::with_capacity(concepts.len());
    for c in &concepts {
        let mut live = Vec::new();
        for a in &c.alts {
            let cols: Vec<&Vec<u32>> = a.stems.iter().map(|s| tf_of[s.as_str()]).collect();
            let tfs: Vec<u32> = match cols[..] {
                [one] => one.clone(),
                _ => (0..docs.len())
                    .map(|i| cols.iter().map(|c| c[i]).min().unwrap_or(0))
                    .collect(),
            };
            let df = tfs.iter().filter(|&&t| t > 0).count() as f64;
            if df == 0.0 {
                continue;
            }
            let w = (1.0 + (idf_n - df + 0.5) / (df + 0.5)).ln() * a.weight;
            if w > 0.0 {
                live.push((a, w, tfs));
            }
        }
        if !live.is_empty() {
            scored.push(live);
        }
    }

    // All decisions end up in `relevant` (no reallocation when they join).
    let mut relevant = Vec::with_capacity(docs.len());
    let mut evicts = Vec::new();
    let mut skips = Vec::with_capacity(docs.len());
    // The alternatives a doc matched (one per concept), reused per doc.
    let mut hit: Vec<&Alt> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let mut expired = false;
        if d.retired {
            skips.push(Decision::new(i, Action::Skip, Some("retired")));
            continue;
        }
        if let Some(cur) = &q.guard {
            let ours = d.scope == Scope::AllRepos
                || match &d.project {
                    Some(p) => p == cur,
                    None => d.mem_type == MemoryType::User,
                };
            if !ours {
                skips.push(Decision::new(i, Action::Skip, Some("other-project")));
                continue;
            }
        }
        if d.trust == Trust::Low && !q.low_trust {
            skips.push(Decision::new(i, Action::Skip, Some("low-trust")));
            continue;
        }
        if d.expires.is_some_and(|e| e.is_expired(q.today)) {
            expired = true;
        } else if d.superseded_by.is_some() || superseded.contains(&*d.id) {
            skips.push(Decision::new(i, Action::Skip, Some("superseded")));
            continue;
        }
        let mut dec = Decision::new(i, Action::Recall, None);
        for (t, ts) in d.triggers.iter().zip(d.trigger_stems.iter()) {
            if p.trigger_matches(t, ts) {
                dec.why.push(Why::Trigger(t.to_string()));
            }
        }
        // a memory without triggers is about what its name says: the task
        // that names it is about it, however many memories there are
        if d.triggers.is_empty()
            && let Some(phrase) = p.name_phrase(&d.id, stems)
        {
            dec.why.push(Why::Trigger(phrase));
        }
        for g in d.paths.iter() {
            if let Some(path) = p.glob_match(g) {
                dec.why.push(Why::Path {
                    glob: g.to_string(),
                    path,
                });
            }
        }
        let mut score = 0.0;
        // Length normalisation: a memory shorter than the average is
        // scored as one of average length (short files are not punished,
        // nor favoured by chance); a longer one as BM25 does.
        let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * (d.len as f64).max(avgdl) / avgdl);
        hit.clear();
        for live in &scored {
            let mut best: Option<(f64, &Alt)> = None;
            for (a, w, tfs) in live {
                let tf = f64::from(tfs[i]);
                if tf > 0.0 {
                    let s = w * tf * (BM25_K1 + 1.0) / (tf + norm);
                    if best.is_none_or(|(b, _)| s > b) {
                        best = Some((s, a));
                    }
                }
            }
            // Two task words that meet the memory in the same term (both
            // synonyms of "package") count once.
            if let Some((s, a)) = best
                && !hit.iter().any(|h| h.stems == a.stems)
            {
                hit.push(a);
                score += s;
            }
        }
        dec.score = score;
        // a task verb is no word of what the task is about: it counts only
        // beside a phrase the task shares with the memory ("add a
        // third-party library"; see [`is_task_verb`])
        let phrase = hit.iter().any(|a| a.stems.len() > 1 || a.whole);
        let mut names: Vec<usize> = hit
            .iter()
            .filter(|a| phrase || !a.verb)
            .map(|a| a.name)
            .collect();
        names.sort_unstable();
        names.dedup();
        // a name the memory writes whole is a phrase they share: two words
        let whole = hit.iter().filter(|a| a.whole).count();
        dec.terms = names.len() + whole;
        // A passing score makes the memory relevant; a failing one is still
        // shown beside other matches (for --explain).
        let passes = dec.terms >= MIN_MATCHED_STEMS && score >= q.min_score;
        if passes || (!hit.is_empty() && !dec.why.is_empty()) {
            let matched = hit.iter().map(|a| a.show.clone()).collect();
            dec.why.push(Why::Score(score, matched));
        }
        if d.mem_type == MemoryType::User && d.triggers.is_empty() && d.paths.is_empty() {
            dec.why.push(Why::Always);
        }
        let relevant_now = passes || dec.why.iter().any(|w| !matches!(w, Why::Score(..)));
        if expired {
            if relevant_now || q.all_expired {
                dec.action = Action::Evict;
                dec.reason = Some("expired");
                evicts.push(dec);
            } else {
                dec.action = Action::Skip;
                dec.reason = Some("expired");
                skips.push(dec);
            }
        } else if relevant_now {
            relevant.push(dec);
        } else {
            dec.action = Action::Skip;
            dec.reason = Some("no-match");
            skips.push(dec);
        }
    }
    // Personal memories first: a team memory (`source: team`, set by the
    // team tier's loader) never takes the budget of a relevant personal
    // one; team memories fill what is left.
    let team = |d: &Decision| docs[d.doc].source == Source::Team;
    relevant.sort_by(|a, b| {
        team(a)
            .cmp(&team(b))
            .then(b.hits().cmp(&a.hits()))
            .then(b.score.total_cmp(&a.score))
            .then_with(|| docs[a.doc].id.cmp(&docs[b.doc].id))
    });
    let mut tokens = 0usize;
    let mut cut: Option<&'static str> = None;
    for (n, dec) in relevant.iter_mut().enumerate() {
        if cut.is_none() {
            if n >= q.max_items {
                cut = Some("max-items");
            } else if tokens + docs[dec.doc].tokens > q.max_tokens {
                cut = Some("max-tokens");
            }
        }
        match cut {
            Some(b) => {
                dec.action = Action::Drop;
                dec.reason = Some("budget");
                dec.budget = Some(b);
            }
            None => tokens += docs[dec.doc].tokens,
        }
    }
    relevant.extend(evicts);
    relevant.extend(skips);
    relevant
}

#[cfg(test)]
mod tests {
    use super::*;
    use mem_core::records::{Kind, Memory};

    /// A doc of id `x` whose term frequencies are `terms`.
    fn doc_with_terms(terms: &str) -> Doc {
        Doc {
            id: Text::Borrowed("x"),
            mem_type: MemoryType::Project,
            kind: Kind::Reference,
            scope: Scope::ThisRepo,
            project: None,
            triggers: Texts::default(),
            trigger_stems: Texts::default(),
            paths: Texts::default(),
            expires: None,
            superseded_by: None,
            supersedes: Vec::new(),
            retired: false,
            source: Source::Manual,
            trust: Trust::Normal,
            terms: Text::Owned(terms.to_string()),
            len: 1,
            tokens: 1,
        }
    }

    #[test]
    fn term_frequencies_merge_the_sorted_terms() {
        let d = doc_with_terms;
        let (a, b, c) = (
            d(" a:1 ab:2 b:10 c:3 ü:4 "),
            d(" "),
            d(" bb:7 z:99999999999 "),
        );
        let wanted = ["a", "ab", "b", "bb", "c", "z", "ü"];
        assert_eq!(
            term_frequencies(&[&a, &b, &c], &wanted),
            [
                [1, 0, 0],
                [2, 0, 0],
                [10, 0, 0],
                [0, 0, 7],
                [3, 0, 0],
                [0, 0, u32::MAX],
                [4, 0, 0]
            ]
        );
    }

    #[test]
    fn term_frequencies_agree_with_a_plain_reading_on_many_docs() {
        // More docs than `PARALLEL_FROM`: read in two halves.
        let stems = [
            "a", "ab", "b", "ba", "bb", "cach", "chang", "check", "z", "ü",
        ];
        let docs: Vec<Doc> = (0..crate::load::PARALLEL_FROM + 101)
            .map(|i| {
                let mut terms = String::from(" ");
                for (k, s) in stems.iter().enumerate() {
                    if (i + k) % (k + 2) == 0 {
                        terms.push_str(&format!("{s}:{} ", i % 7 + k));
                    }
                }
                doc_with_terms(&terms)
            })
            .collect();
        let refs: Vec<&Doc> = docs.iter().collect();
        let wanted = ["ab", "b", "bb", "bc", "chang", "check", "y", "ü"];
        let got = term_frequencies(&refs, &wanted);
        for (j, w) in wanted.iter().enumerate() {
            for (i, d) in docs.iter().enumerate() {
                let plain = d
                    .terms
                    .split(' ')
                    .filter_map(|t| t.split_once(':'))
                    .find(|(s, _)| s == w)
                    .map_or(0, |(_, n)| n.parse::<u32>().unwrap());
                assert_eq!(got[j][i], plain, "{w} in doc {i}: {:?}", d.terms);
            }
        }
        // Doc 2 holds ab (k = 1), check (k = 7) and ü (k = 9), each with
        // tf = 2 % 7 + k.
        assert_eq!((got[0][2], got[5][2], got[7][2]), (3, 9, 11));
    }

    /// Docs loaded through the recall cache take their term frequencies
    /// from its postings: the same numbers as reading their terms, beside
    /// docs of no cache.
    #[test]
    fn term_frequencies_from_the_postings_equal_a_scan() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mem");
        std::fs::create_dir_all(&dir).unwrap();
        let words = ["build", "cache", "checks", "deploy", "token", "tokens"];
        for i in 0..40 {
            let w = |k: usize| words[(i * k + k) % words.len()];
            let text = format!(
                "---\nname: \"{} {}\"\ndescription: \"{} before {}\"\ntype: feedback\n---\nFact: {} {} {}.\n",
                w(1),
                w(2),
                w(3),
                w(4),
                w(5),
                w(1),
                w(7)
            );
            let p = dir.join(format!("m-{i:02}.md"));
            std::fs::write(&p, text).unwrap();
            filetime::set_file_mtime(&p, filetime::FileTime::from_unix_time(1_700_000_000, 0))
                .unwrap();
        }
        let cache = tmp.path().join("cache/recall.cache");
        std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
        let stems = Stems::default();
        // past a short racy window (the files' ctime is now)
        let racy = std::time::Duration::from_millis(50);
        std::thread::sleep(racy * 2);
        crate::load::load_dir_within(&dir, Some(&cache), &stems, racy).unwrap();
        let loaded = crate::load::load_dir_within(&dir, Some(&cache), &stems, racy).unwrap();
        assert_eq!(loaded.cached, 40);
        let fresh = crate::load::load_dir(&dir, None, &stems).unwrap();
        // Cached docs, with one doc of no cache amid them.
        let mut docs: Vec<&Doc> = loaded.items.iter().map(|i| &i.doc).collect();
        docs.insert(7, &fresh.items[3].doc);
        assert!(matches!(docs[0].terms, Text::Borrowed(_)));
        assert!(matches!(docs[7].terms, Text::Owned(_)));
        let wanted = ["", "build", "cach", "check", "deploy", "nowher", "token"];
        let got = term_frequencies(&docs, &wanted);
        assert_eq!(got, scan_term_frequencies(&docs, &wanted));
        assert!(got[1].iter().filter(|&&n| n > 0).count() > 5, "{got:?}");
        assert!(got[5].iter().all(|&n| n == 0));
        // The cached docs' numbers come from the records read from the
        // file (one record per cached doc holding the stem).
        let p = crate::cache::postings()
            .into_iter()
            .find(|p| p.offset(&docs[0].terms).is_some())
            .expect("the cache's postings");
        let build = p.list("build").expect("records read from the file");
        let cached_with_build = (0..docs.len()).filter(|&i| i != 7 && got[1][i] > 0).count();
        assert_eq!(build.len(), cached_with_build);
        // Out of file order too.
        docs.reverse();
        assert_eq!(
            term_frequencies(&docs, &wanted),
            scan_term_frequencies(&docs, &wanted)
        );
    }

    #[test]
    fn literal_needs_word_boundaries() {
        assert!(literal_match("run node src/build-token.mjs", "build-token"));
        assert!(!literal_match("fix the login page", "log"));
        assert!(literal_match("add a log line", "log"));
        assert!(literal_match("tag #ship now", "#ship"));
        assert!(!literal_match("prebuild-token", "build-token"));
    }

    /// In a directory of memories without triggers, a task that names a
    /// memory's subject phrase, or a one-word task naming a word of its
    /// name, recalls it; tasks that share one loose word with the names do
    /// not.
    #[test]
    fn a_task_naming_a_memorys_subject_recalls_it() {
        let stems = Stems::default();
        let names = [
            (
                "webhook-tests-need-the-stub-server",
                "Webhook tests need the stub server",
            ),
            (
                "deploys-go-through-the-release-train",
                "Deploys go through the release train",
            ),
            (
                "invoice-pdfs-are-rendered-server-side",
                "Invoice PDFs are rendered server side",
            ),
        ];
        let docs: Vec<Doc> = names
            .iter()
            .map(|(id, name)| {
                let m = Memory::new(*name, "", MemoryType::Feedback);
                Doc::from_memory(id, &m, &stems)
            })
            .collect();
        let refs: Vec<&Doc> = docs.iter().collect();
        let today = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        let recalled = |task: &str| -> Vec<String> {
            let q = Query::with_defaults(task.to_string(), today, None);
            decide(&refs, &q, &stems)
                .into_iter()
                .filter(|d| d.action == Action::Recall)
                .map(|d| docs[d.doc].id.to_string())
                .collect()
        };
        assert_eq!(
            recalled("add webhook tests for billing"),
            ["webhook-tests-need-the-stub-server"]
        );
        assert_eq!(recalled("webhooks"), ["webhook-tests-need-the-stub-server"]);
        assert_eq!(
            recalled("why is the release train late"),
            ["deploys-go-through-the-release-train"]
        );
        for task in [
            "restart the server",
            "fix the billing page",
            "rename the invoice model",
        ] {
            assert!(recalled(task).is_empty(), "{task}: {:?}", recalled(task));
        }
    }

    /// The words of one name in the task (`coderabbit-extract`,
    /// `api/billing.rs`) are one word of what the task is about: they meet
    /// a memory that names `extract-coderabbit-feedback.py` once, short of
    /// the two words the score needs; said apart, they are two.
    #[test]
    fn a_name_in_the_task_counts_once() {
        assert_eq!(
            compounds("run coderabbit-extract now", 4),
            (
                vec![0, 1, 1, 2],
                vec![("coderabbit-extract".to_string(), 1)]
            )
        );
        assert_eq!(
            compounds("see src/app.ts, then fix", 6),
            (vec![0, 1, 2, 2, 3, 4], vec![("app.ts".to_string(), 2)])
        );
        // a name with `'s` or a line number is still one name
        assert_eq!(
            compounds("coderabbit-extract's output at tool.py:42", 8),
            (
                vec![0, 0, 0, 1, 2, 3, 3, 3],
                vec![
                    ("coderabbit-extract's".to_string(), 0),
                    ("tool.py".to_string(), 3)
                ]
            )
        );
        // words of a script without spaces are words of their own
        assert_eq!(compounds("修复 登录", 2), (vec![0, 1], vec![]));
        // words that do not line up with the pieces: each its own
        assert_eq!(compounds("a b", 3), (vec![0, 1, 2], vec![]));
        let stems = Stems::default();
        let today = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        // is the one memory named `name` (triggers `triggers`) recalled for `task`?
        let recalls = |name: &str, triggers: &[&str], task: &str| {
            let mut m = Memory::new(name, "", MemoryType::Feedback);
            m.triggers = triggers.iter().map(|t| t.to_string()).collect();
            let docs = [Doc::from_memory("m", &m, &stems)];
            let refs: Vec<&Doc> = docs.iter().collect();
            let q = Query::with_defaults(task.to_string(), today, None);
            decide(&refs, &q, &stems)
                .into_iter()
                .any(|d| d.action == Action::Recall)
        };
        let keep = "Keep the name of the file `extract-coderabbit-feedback.py`";
        let file = ["extract-coderabbit-feedback.py"];
        assert!(!recalls(
            keep,
            &file,
            "improve the error message of coderabbit-extract"
        ));
        assert!(recalls(
            keep,
            &file,
            "the extract script of coderabbit prints nothing"
        ));
        // the file's name without its extension is its name too
        assert!(recalls(keep, &file, "rename extract-coderabbit-feedback"));
        // the name itself is the memory's trigger
        assert!(recalls(
            keep,
            &file,
            "split extract-coderabbit-feedback.py into modules"
        ));
        // a name the memory writes whole is a phrase they share
        let vpn = "Staging deploys need the VPN; see real-database-tests";
        assert!(recalls(vpn, &[], "the real-database-tests schema"));
        assert!(!recalls(vpn, &[], "the tests-real-database schema"));
        // the parts of a path name different things
        let form = "The checkout payment form needs the card stub";
        assert!(recalls(form, &[], "fix web/checkout/payment-form.tsx"));
    }
}
