//! The expansion vocabulary: groups of developer synonyms and a Chinese ↔
//! English glossary, applied to the task (never to a memory's text).
//!
//! File format (the built-in `data/synonyms.txt` and `data/zh-en.txt`, and a
//! user's file): UTF-8 text, one group per line, its terms separated by
//! commas; blank lines and lines starting with `#` are ignored. A term is a
//! word or a phrase. A term of the task (matched on words after stemming, so
//! "deploys" meets "deploy"; a Chinese term as a run of characters) brings in
//! every other term of each group it is in; a Chinese term also brings in the
//! English synonyms of those terms (one hop). The longest term wins where
//! two overlap.
//!
//! A user's file is read from `$MEM_VOCABULARY`, else
//! `$XDG_CONFIG_HOME/mem/vocabulary.txt`, else `~/.config/mem/vocabulary.txt`
//! (a missing file is no error); its groups are added to the built-in ones.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod vocab_key;

use crate::vocab_key::{key, term_key};
use mem_text::{Stems, is_cjk, is_stop_word, words};

/// The built-in vocabulary indexed and stemmed at compile time
/// (`build.rs`): its lines and, per term key, the lines with a term of that
/// key; per term its text, stems and key; and the stem of every word of its
/// terms and of every stop word. Text plus integer offsets (no relocations
/// at start-up).
mod index {
    use std::ops::Range;

    include!(concat!(env!("OUT_DIR"), "/vocab_index.rs"));

    /// Item `i` of a text table: `text` cut at the offsets `ends`.
    fn item(text: &'static str, ends: &[u32], i: usize) -> &'static str {
        let start = if i == 0 { 0 } else { ends[i - 1] as usize };
        &text[start..ends[i] as usize]
    }

    /// Line `i` of the built-in vocabulary.
    pub fn line(i: usize) -> &'static str {
        item(LINES_TEXT, &LINE_ENDS, i)
    }

    /// Every line of the built-in vocabulary, in order.
    #[cfg(test)]
    pub fn lines() -> impl Iterator<Item = &'static str> {
        (0..LINE_ENDS.len()).map(line)
    }

    /// The terms of line `i` (indexes into the term tables), in order.
    pub fn terms_of_line(i: usize) -> Range<usize> {
        let start = if i == 0 { 0 } else { LINE_TERM_ENDS[i - 1] };
        usize::from(start)..usize::from(LINE_TERM_ENDS[i])
    }

    /// Term `j`'s text (trimmed, lowercased).
    pub fn term_text(j: usize) -> &'static str {
        item(TERMS_TEXT, &TERM_ENDS, j)
    }

    /// Term `j`'s stems of every word, joined by spaces.
    pub fn term_stems(j: usize) -> &'static str {
        item(TERM_STEMS_TEXT, &TERM_STEM_ENDS, j)
    }

    /// Term `j`'s stems of the words that are not stop words, joined by
    /// spaces.
    pub fn term_content(j: usize) -> &'static str {
        item(TERM_CONTENT_TEXT, &TERM_CONTENT_ENDS, j)
    }

    /// The key of term `j`'s first word.
    pub fn term_key(j: usize) -> &'static str {
        item(TERM_KEYS_TEXT, &TERM_KEY_ENDS, j)
    }

    /// The `vocab_key::term_key` of term `j` as written, empty for a term
    /// with a CJK character.
    pub fn term_pick_key(j: usize) -> &'static str {
        item(TERM_PICK_KEYS_TEXT, &TERM_PICK_KEY_ENDS, j)
    }

    /// The stem of `word` (lowercased) when it is a word of a built-in term
    /// or a stop word.
    pub fn stem_of(word: &str) -> Option<&'static str> {
        let (mut lo, mut hi) = (0, WORD_ENDS.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match item(WORDS_TEXT, &WORD_ENDS, mid).cmp(word) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return Some(item(WORD_STEMS_TEXT, &WORD_STEM_ENDS, mid));
                }
            }
        }
        None
    }

    /// The indexes (ascending) of the lines with a term of key `k`.
    pub fn lines_of_key(k: &str) -> Option<&'static [u16]> {
        let (mut lo, mut hi) = (0, KEY_ENDS.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match item(KEYS_TEXT, &KEY_ENDS, mid).cmp(k) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let start = if mid == 0 {
                        0
                    } else {
                        KEY_LINE_ENDS[mid - 1] as usize
                    };
                    return Some(&KEY_LINES[start..KEY_LINE_ENDS[mid] as usize]);
                }
            }
        }
        None
    }

    #[cfg(test)]
    mod tests {
        use mem_text::{STOP_WORDS, Stems, is_stop_word, words};

        #[test]
        fn the_tables_hold_every_line_and_key() {
            let want: Vec<&str> = [super::super::SYNONYMS, super::super::ZH_EN]
                .into_iter()
                .flat_map(str::lines)
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .collect();
            assert_eq!(super::lines().collect::<Vec<_>>(), want);
            assert_eq!(super::line(0), want[0]);
            // every term's key finds its line, and only lines with such a term
            for (i, l) in want.iter().enumerate() {
                for t in l.split(',') {
                    let k = crate::vocab_key::term_key(t.trim()).unwrap();
                    let ls = super::lines_of_key(&k).unwrap();
                    assert!(ls.contains(&(i as u16)), "{k}: {l}");
                    assert!(ls.windows(2).all(|w| w[0] < w[1]), "{k}");
                }
            }
            assert_eq!(super::lines_of_key("zz-not-a-key"), None);
            let deploy = super::lines_of_key("de").unwrap();
            assert!(
                deploy
                    .iter()
                    .any(|&i| super::line(usize::from(i)).starts_with("deploy, ship"))
            );
        }

        /// The stems made at compile time are the ones recall computes at
        /// run time, for every term of every line and every stop word.
        #[test]
        fn the_stems_made_at_build_time_are_the_run_time_ones() {
            let s = Stems::default();
            let mut n = 0;
            for i in 0..super::LINE_ENDS.len() {
                let terms: Vec<String> = super::line(i)
                    .split(',')
                    .map(|t| t.trim().to_lowercase())
                    .collect();
                let js = super::terms_of_line(i);
                let mut t_as_written = super::line(i).split(',');
                assert_eq!(js.len(), terms.len(), "{}", super::line(i));
                for (t, j) in terms.iter().zip(js) {
                    let ws = words(t);
                    assert_eq!(super::term_text(j), t);
                    assert_eq!(super::term_stems(j), s.all(t).join(" "), "{t}");
                    assert_eq!(super::term_content(j), s.content(t).join(" "), "{t}");
                    assert_eq!(super::term_key(j), crate::vocab_key::key(&ws[0]), "{t}");
                    let as_written = t_as_written.next().unwrap().trim();
                    let pick = if as_written.chars().any(mem_text::is_cjk) {
                        String::new()
                    } else {
                        crate::vocab_key::term_key(as_written).unwrap().into_owned()
                    };
                    assert_eq!(super::term_pick_key(j), pick, "{t}");
                    for w in &ws {
                        assert_eq!(super::stem_of(w), Some(s.stem(w).as_str()), "{w}");
                    }
                    n += 1;
                }
            }
            assert_eq!(n, super::TERM_ENDS.len());
            for w in STOP_WORDS {
                assert_eq!(super::stem_of(w), Some(s.stem(w).as_str()), "{w}");
            }
            // the word table holds those words only, sorted
            let table: Vec<&str> = (0..super::WORD_ENDS.len())
                .map(|i| super::item(super::WORDS_TEXT, &super::WORD_ENDS, i))
                .collect();
            assert!(table.windows(2).all(|w| w[0] < w[1]));
            assert!(
                table
                    .iter()
                    .all(|w| is_stop_word(w) || super::TERMS_TEXT.contains(w))
            );
            assert_eq!(super::stem_of("deploying"), None);
            assert_eq!(super::stem_of("deploy"), Some("deploy"));
            assert_eq!(super::stem_of("does"), Some("doe"));
            assert_eq!(super::term_text(0), "deploy");
            let j = (0..n).find(|&j| super::term_text(j) == "部署").unwrap();
            assert_eq!((super::term_stems(j), super::term_key(j)), ("部 署", "部"));
            let j = (0..n).find(|&j| super::term_text(j) == "roll out").unwrap();
            assert_eq!(
                (super::term_stems(j), super::term_content(j)),
                ("roll out", "roll")
            );
        }
    }
}

/// The stem of a lowercased word ([`Stems::stem`]): from the table made at
/// compile time when the word is a word of a built-in term or a stop word
/// (no stemming), else computed.
pub fn stem(stems: &Stems, word: &str) -> Cow<'static, str> {
    match index::stem_of(word) {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(stems.stem(word)),
    }
}

/// The built-in developer synonyms.
pub const SYNONYMS: &str = include_str!("../data/synonyms.txt");
/// The built-in Chinese ↔ English glossary.
pub const ZH_EN: &str = include_str!("../data/zh-en.txt");

/// One term of the vocabulary. A built-in term's stems were computed at
/// compile time; a user's term's are computed when first needed (a recall
/// stems only the few terms that could meet its task).
#[derive(Debug, Clone)]
pub struct Term {
    /// As written (trimmed, lowercased).
    pub text: Cow<'static, str>,
    /// True when the term has a CJK character.
    pub cjk: bool,
    /// Stems of every word (stop words included: what is matched in a
    /// task), and of the words that are not stop words (what is scored),
    /// each joined by spaces.
    stems: OnceLock<(Cow<'static, str>, Cow<'static, str>)>,
}

impl Term {
    fn stems(&self, stems: &Stems) -> &(Cow<'static, str>, Cow<'static, str>) {
        self.stems.get_or_init(|| {
            // each word stemmed once: the content stems are those of `all`
            // whose word is not a stop word
            let (mut all, mut content) = (String::new(), String::new());
            for w in words(&self.text) {
                let s = stem(stems, &w);
                for (out, keep) in [(&mut all, true), (&mut content, !is_stop_word(&w))] {
                    if keep {
                        if !out.is_empty() {
                            out.push(' ');
                        }
                        out.push_str(&s);
                    }
                }
            }
            (Cow::Owned(all), Cow::Owned(content))
        })
    }

    /// Stems of the words that are not stop words (what is scored), joined
    /// by spaces; empty when every word is a stop word.
    pub fn content(&self, stems: &Stems) -> &str {
        &self.stems(stems).1
    }
}

/// A term found in a task: word positions `start..end` of the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// First word.
    pub start: usize,
    /// One past the last word.
    pub end: usize,
    /// The term (index into [`Vocabulary::terms`]).
    pub term: usize,
}

/// Groups of terms that mean the same for recall.
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    /// Every distinct term.
    pub terms: Vec<Term>,
    /// The groups, as term indexes.
    groups: Vec<Vec<usize>>,
    /// For each term, the groups it is in.
    term_groups: Vec<Vec<usize>>,
    /// Term index by its text.
    by_text: HashMap<Cow<'static, str>, usize>,
    /// Terms by the [`key`] of their first word.
    by_key: HashMap<Cow<'static, str>, Vec<usize>>,
}

/// A line of a vocabulary: of the built-in one (its index) or of a user's
/// file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line<'a> {
    Builtin(usize),
    User(&'a str),
}

impl<'a> Line<'a> {
    fn text(self) -> &'a str {
        match self {
            Line::Builtin(i) => index::line(i),
            Line::User(l) => l,
        }
    }
}

impl Vocabulary {
    /// The built-in vocabulary (both data files).
    pub fn builtin() -> Vocabulary {
        let mut v = Vocabulary::default();
        for i in 0..index::LINE_ENDS.len() {
            v.add_builtin(i);
        }
        v
    }

    /// The built-in vocabulary plus the user's file ([`user_file`]), when
    /// there is one.
    ///
    /// Errors: the user's file cannot be read, or a line of it is bad
    /// (`FILE:LINE: reason`).
    pub fn load() -> Result<Vocabulary, mem_core::Error> {
        let mut v = Vocabulary::builtin();
        if let Some(p) = user_file()
            && let Some(text) = read_user_file(&p)?
        {
            v.add(&text, &p.display().to_string())?;
        }
        Ok(v)
    }

    /// The user's vocabulary file ([`user_file`]) as `(text, origin)`,
    /// checked line by line; `None` when there is none.
    ///
    /// Errors: the file cannot be read, or a line of it is bad
    /// (`FILE:LINE: reason`).
    pub fn user_source() -> Result<Option<(String, String)>, mem_core::Error> {
        let Some(p) = user_file() else {
            return Ok(None);
        };
        let Some(text) = read_user_file(&p)? else {
            return Ok(None);
        };
        let origin = p.display().to_string();
        Vocabulary::default().add(&text, &origin)?;
        Ok(Some((text, origin)))
    }

    /// The part of the built-in vocabulary and of `user` (as
    /// [`Vocabulary::user_source`] gives it, already checked) that can bear
    /// on `task`. For a task without a Chinese character: the groups with a
    /// term whose first word has the key (`vocab_key::key`) and the stem of
    /// a word of the task (built-in groups looked up in an index made at
    /// compile time, `build.rs`, their stems made then too). For a task with
    /// one: the groups with a term whose first word starts as a word of the
    /// task does, or a Chinese term that occurs in the task, and for a
    /// Chinese term's group the groups of its English terms. Recall with it
    /// finds the same terms, bringing in the same terms in the same order,
    /// as with the whole vocabulary, without reading the rest.
    pub fn for_task(task: &str, user: Option<&(String, String)>) -> Vocabulary {
        let lower = task.to_lowercase();
        let ws = words(&lower);
        let mut keys: Vec<&str> = ws.iter().map(|w| key(w)).collect();
        keys.sort_unstable();
        keys.dedup();
        let key_hit = |t: &str| term_key(t).is_some_and(|k| keys.binary_search(&&*k).is_ok());
        let user_lines = user
            .into_iter()
            .flat_map(|(text, _)| text.lines())
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(Line::User);
        let mut v = Vocabulary::default();
        if lower.chars().any(is_cjk) {
            let lines: Vec<Line<'_>> = (0..index::LINE_ENDS.len())
                .map(Line::Builtin)
                .chain(user_lines)
                .collect();
            for line in for_cjk_task(&lower, &lines, key_hit) {
                v.add_line(line);
            }
            return v;
        }
        // A Chinese term can only occur in a task with a Chinese character:
        // without one, only the built-in lines the compile-time index gives
        // for the task's keys can bear on it (a superset), then the user's
        // lines. Of those, only the groups with a term that
        // [`Vocabulary::find`] can find in the task: its first word has a
        // key and a stem of a word of the task. Every group of every term
        // found is kept (in order), so the terms found and what they bring
        // in are the same.
        let mut ids: Vec<u16> = keys
            .iter()
            .filter_map(|k| index::lines_of_key(k))
            .flatten()
            .copied()
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let stems = Stems::default();
        // The stems of the task's distinct words (as `words(task)` gives
        // them: the same as `ws` unless the task has a capital sigma),
        // sorted; made when first needed.
        let task_stems_cell: std::cell::OnceCell<Vec<Cow<'static, str>>> =
            std::cell::OnceCell::new();
        let task_stems = || {
            task_stems_cell.get_or_init(|| {
                let own;
                let tws = if task.contains('Σ') {
                    own = words(task);
                    &own
                } else {
                    &ws
                };
                let mut distinct: Vec<&str> = tws.iter().map(String::as_str).collect();
                distinct.sort_unstable();
                distinct.dedup();
                let mut out: Vec<Cow<'static, str>> =
                    distinct.into_iter().map(|w| stem(&stems, w)).collect();
                out.sort_unstable();
                out.dedup();
                out
            })
        };
        for i in ids.into_iter().map(usize::from) {
            let found = index::terms_of_line(i).any(|j| {
                // (`key_hit` of the term as written; a Chinese term's
                // pick key is empty, never a key)
                if keys.binary_search(&index::term_pick_key(j)).is_err() {
                    return false;
                }
                let first = index::term_stems(j).split(' ').next().unwrap_or_default();
                task_stems().binary_search_by(|s| (**s).cmp(first)).is_ok()
            });
            if found {
                v.add_builtin(i);
            }
        }
        // A user's term's first word stemmed once.
        let mut seen: Vec<(String, bool)> = Vec::new();
        for line in user_lines {
            let found = line.text().split(',').any(|t| {
                let t = t.trim();
                if t.chars().any(is_cjk) || !key_hit(t) {
                    return false;
                }
                let lower_t = t.to_lowercase();
                let Some(first) = words(&lower_t).into_iter().next() else {
                    return false;
                };
                if let Some((_, ok)) = seen.iter().find(|(w, _)| *w == first) {
                    return *ok;
                }
                let s = stem(&stems, &first);
                let ok = task_stems().binary_search(&s).is_ok();
                seen.push((first, ok));
                ok
            });
            if found {
                v.add_line(line);
            }
        }
        v
    }

    /// Add the groups of `text` (the file format above); `origin` names it
    /// in errors.
    ///
    /// Errors: [`mem_core::Error::Input`] (`ORIGIN:LINE: reason`) for an
    /// empty term or a group of one term; nothing of `text` is added then.
    pub fn add(&mut self, text: &str, origin: &str) -> Result<(), mem_core::Error> {
        let mut groups: Vec<Vec<String>> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let terms: Vec<String> = line.split(',').map(|t| t.trim().to_lowercase()).collect();
            if terms.iter().any(|t| words(t).is_empty()) {
                return Err(mem_core::Error::input(
                    origin,
                    n + 1,
                    format!("an empty term (a term needs a letter or digit): {line:?}"),
                ));
            }
            if terms.len() < 2 {
                return Err(mem_core::Error::input(
                    origin,
                    n + 1,
                    format!("a group needs two terms or more, separated by commas: {line:?}"),
                ));
            }
            groups.push(terms);
        }
        for g in groups {
            let ids: Vec<usize> = g.into_iter().map(|t| self.user_term(t)).collect();
            self.push_group(ids);
        }
        Ok(())
    }

    /// Add a line already checked (a built-in line, or one of a checked
    /// user's file).
    fn add_line(&mut self, line: Line<'_>) {
        match line {
            Line::Builtin(i) => self.add_builtin(i),
            Line::User(l) => {
                let ids: Vec<usize> = l
                    .split(',')
                    .map(|t| self.user_term(t.trim().to_lowercase()))
                    .collect();
                self.push_group(ids);
            }
        }
    }

    /// Add line `i` of the built-in vocabulary, its terms and stems read
    /// from the compile-time tables.
    fn add_builtin(&mut self, i: usize) {
        let ids: Vec<usize> = index::terms_of_line(i)
            .map(|j| {
                let text = index::term_text(j);
                self.term(Cow::Borrowed(text), || {
                    (
                        Cow::Borrowed(index::term_key(j)),
                        OnceLock::from((
                            Cow::Borrowed(index::term_stems(j)),
                            Cow::Borrowed(index::term_content(j)),
                        )),
                    )
                })
            })
            .collect();
        self.push_group(ids);
    }

    /// A group of the terms `ids` (in order; a term twice counts once).
    fn push_group(&mut self, ids: Vec<usize>) {
        let gi = self.groups.len();
        let mut group = Vec::with_capacity(ids.len());
        let mut seen = HashSet::with_capacity(ids.len());
        for id in ids {
            if seen.insert(id) {
                group.push(id);
                self.term_groups[id].push(gi);
            }
        }
        self.groups.push(group);
    }

    /// The index of a user's term `text` (lowercased, with a word), added
    /// when new (stemmed when first needed).
    fn user_term(&mut self, text: String) -> usize {
        if let Some(&i) = self.by_text.get(text.as_str()) {
            return i;
        }
        let k = key(&words(&text)[0]).to_string();
        self.term(Cow::Owned(text), || (Cow::Owned(k), OnceLock::new()))
    }

    /// The index of the term `text`, added when new with the key and stems
    /// `made` gives.
    #[allow(clippy::type_complexity)]
    fn term(
        &mut self,
        text: Cow<'static, str>,
        made: impl FnOnce() -> (
            Cow<'static, str>,
            OnceLock<(Cow<'static, str>, Cow<'static, str>)>,
        ),
    ) -> usize {
        let i = self.terms.len();
        match self.by_text.entry(text.clone()) {
            std::collections::hash_map::Entry::Occupied(e) => return *e.get(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(i),
        };
        let (k, stems) = made();
        self.by_key.entry(k).or_default().push(i);
        self.terms.push(Term {
            cjk: text.chars().any(is_cjk),
            text,
            stems,
        });
        self.term_groups.push(Vec::new());
        i
    }

    /// The terms found in a task of words `ws` (as [`words`] gives them)
    /// whose stems are `all` (every word, stop words included): longest
    /// first, never overlapping, in task order.
    pub fn find<S: AsRef<str>>(&self, ws: &[String], all: &[S], stems: &Stems) -> Vec<Found> {
        let mut found = Vec::new();
        for (i, w) in ws.iter().enumerate() {
            for &t in self.by_key.get(key(w)).into_iter().flatten() {
                let term = &self.terms[t].stems(stems).0;
                let mut n = 0;
                let matches = term.split(' ').all(|s| {
                    n += 1;
                    all.get(i + n - 1).is_some_and(|a| a.as_ref() == s)
                });
                if matches {
                    found.push(Found {
                        start: i,
                        end: i + n,
                        term: t,
                    });
                }
            }
        }
        found.sort_by(|a, b| {
            (b.end - b.start)
                .cmp(&(a.end - a.start))
                .then(a.start.cmp(&b.start))
        });
        let mut taken = vec![false; all.len()];
        let mut out: Vec<Found> = Vec::new();
        for f in found {
            if taken[f.start..f.end].iter().any(|&x| x) {
                continue;
            }
            taken[f.start..f.end].iter_mut().for_each(|x| *x = true);
            out.push(f);
        }
        out.sort_by_key(|f| f.start);
        out
    }

    /// The English terms of the groups of a Chinese term (its direct
    /// translations); nothing for an English term.
    pub fn translations(&self, term: usize) -> Vec<usize> {
        if !self.terms[term].cjk {
            return Vec::new();
        }
        let mut out: Vec<usize> = Vec::new();
        let mut seen = HashSet::new();
        for &g in &self.term_groups[term] {
            for &t in &self.groups[g] {
                if !self.terms[t].cjk && seen.insert(t) {
                    out.push(t);
                }
            }
        }
        out
    }

    /// The terms that `term` brings in: every other term of its groups; for
    /// a Chinese term, also the groups of those terms (one hop).
    pub fn alternatives(&self, term: usize) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        // `seen` keeps the collection linear in the groups' sizes (a user's
        // group of thousands of terms).
        let mut seen = HashSet::from([term]);
        let push = |t: usize, out: &mut Vec<usize>, seen: &mut HashSet<usize>| {
            if seen.insert(t) {
                out.push(t);
            }
        };
        for &g in &self.term_groups[term] {
            for &t in &self.groups[g] {
                push(t, &mut out, &mut seen);
            }
        }
        if self.terms[term].cjk {
            let first: Vec<usize> = out.clone();
            for t in first.into_iter().filter(|&t| !self.terms[t].cjk) {
                for &g in &self.term_groups[t] {
                    for &u in &self.groups[g] {
                        if !self.terms[u].cjk {
                            push(u, &mut out, &mut seen);
                        }
                    }
                }
            }
        }
        out
    }
}

/// Most bytes of a user's vocabulary file: 1 MiB (a larger file is an
/// error naming its size).
pub const USER_FILE_BYTES: u64 = 1 << 20;

/// The text of a user's vocabulary file at `path`, `None` when there is no
/// such file. A link is followed (the file is the user's own setting), but
/// only a regular file is read, opened without waiting (a FIFO or a device
/// is refused, never blocks), and at most [`USER_FILE_BYTES`] of it.
///
/// Errors: not a regular file, larger than [`USER_FILE_BYTES`], not UTF-8,
/// or unreadable — each naming the file.
fn read_user_file(path: &Path) -> Result<Option<String>, mem_core::Error> {
    match mem_core::confine::read_capped(path, USER_FILE_BYTES, true) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            let e = std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            );
            mem_core::Error::io(path, e)
        }),
        Err(mem_core::Error::Io { err, .. }) if err.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// For a task with a Chinese character (`lower`, lowercased): of `lines`
/// (every line), those with a Chinese term that occurs in the task or a term
/// whose key `key_hit` accepts, in order, then the lines with an English
/// term of a line whose Chinese term occurs (one hop), in order.
fn for_cjk_task<'a>(
    lower: &str,
    lines: &[Line<'a>],
    key_hit: impl Fn(&str) -> bool,
) -> Vec<Line<'a>> {
    let mut picked: Vec<Line<'a>> = Vec::new();
    let mut english: Vec<String> = Vec::new();
    for &line in lines {
        let mut hit = false;
        let mut cjk_hit = false;
        for t in line.text().split(',') {
            let t = t.trim();
            if t.chars().any(is_cjk) {
                if lower.contains(t) || lower.contains(&t.to_lowercase()) {
                    hit = true;
                    cjk_hit = true;
                }
            } else if key_hit(t) {
                hit = true;
            }
        }
        if hit {
            picked.push(line);
        }
        if cjk_hit {
            english.extend(
                line.text()
                    .split(',')
                    .map(|t| t.trim().to_lowercase())
                    .filter(|t| !t.chars().any(is_cjk)),
            );
        }
    }
    if !english.is_empty() {
        for &line in lines {
            // (a line is compared by its text, as a repeated line counts once)
            if !picked.iter().any(|p| p.text() == line.text())
                && line
                    .text()
                    .split(',')
                    .any(|t| english.iter().any(|e| *e == t.trim().to_lowercase()))
            {
                picked.push(line);
            }
        }
    }
    picked
}

/// Where a user's vocabulary file is looked for: `$MEM_VOCABULARY`, else
/// `$XDG_CONFIG_HOME/mem/vocabulary.txt`, else `$HOME/.config/mem/vocabulary.txt`.
pub fn user_file() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = var("MEM_VOCABULARY") {
        return Some(PathBuf::from(p));
    }
    let base = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| Path::new(&h).join(".config")))?;
    Some(base.join("mem").join("vocabulary.txt"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(v: &Vocabulary, ts: &[usize]) -> Vec<String> {
        ts.iter().map(|&t| v.terms[t].text.to_string()).collect()
    }

    #[test]
    fn builtin_parses_and_finds_phrases_longest_first() {
        let s = Stems::default();
        let v = Vocabulary::builtin();
        let task = "roll out the integration tests to prod";
        let f = v.find(&words(task), &s.all(task), &s);
        let got: Vec<&str> = f.iter().map(|f| &*v.terms[f.term].text).collect();
        assert_eq!(got, ["roll out", "integration test", "prod"]);
        assert!(texts(&v, &v.alternatives(f[0].term)).contains(&"deploy".to_string()));
    }

    #[test]
    fn chinese_terms_bring_in_english_synonyms() {
        let s = Stems::default();
        let v = Vocabulary::builtin();
        let f = v.find(&words("部署热修复"), &s.all("部署热修复"), &s);
        let got: Vec<&str> = f.iter().map(|f| &*v.terms[f.term].text).collect();
        assert_eq!(got, ["部署", "热修复"]);
        let alts = texts(&v, &v.alternatives(f[0].term));
        assert!(alts.contains(&"deploy".to_string()) && alts.contains(&"ship".to_string()));
        assert!(alts.contains(&"上线".to_string()));
    }

    #[test]
    fn the_part_for_a_task_finds_what_the_whole_does() {
        let s = Stems::default();
        let whole = Vocabulary::builtin();
        for task in [
            "roll out the integration tests to prod",
            "部署热修复到生产环境",
            "use fakes for the datastore in the order specs",
            "rename the variable foo",
        ] {
            let part = Vocabulary::for_task(task, None);
            let (ws, all) = (words(task), s.all(task));
            let alts = |v: &Vocabulary| -> Vec<Vec<String>> {
                v.find(&ws, &all, &s)
                    .iter()
                    .map(|f| {
                        let mut a = texts(v, &v.alternatives(f.term));
                        a.sort();
                        a
                    })
                    .collect()
            };
            assert_eq!(alts(&part), alts(&whole), "{task}");
            assert!(
                part.terms.len() < whole.terms.len() / 2,
                "{task}: {} of {}",
                part.terms.len(),
                whole.terms.len()
            );
        }
    }

    /// A term found: start, end, text, what it brings in, its translations.
    type Seen = (usize, usize, String, Vec<String>, Vec<String>);

    /// What recall takes from a vocabulary for a task: each term found
    /// (where, which), what it brings in and its translations, in order.
    fn found(v: &Vocabulary, task: &str, s: &Stems) -> Vec<Seen> {
        let ws = words(task);
        let all: Vec<String> = ws.iter().map(|w| s.stem(w)).collect();
        v.find(&ws, &all, s)
            .iter()
            .map(|f| {
                (
                    f.start,
                    f.end,
                    v.terms[f.term].text.to_string(),
                    texts(v, &v.alternatives(f.term)),
                    texts(v, &v.translations(f.term)),
                )
            })
            .collect()
    }

    #[test]
    fn the_part_for_a_task_brings_in_what_the_whole_does_in_order() {
        let s = Stems::default();
        let user = (
            "# mine\nFlob, Widget thing\n部件, widget\ndeploy, yeet\nTests, checks\n".to_string(),
            "my.txt".to_string(),
        );
        let mut whole_user = Vocabulary::builtin();
        whole_user.add(&user.0, &user.1).unwrap();
        let whole = Vocabulary::builtin();
        // every term of the vocabulary as a task (alone, upper-cased, in a
        // sentence, inflected), every line, and some tasks of the eval set
        let mut tasks: Vec<String> = vec![
            String::new(),
            "Roll out the integration tests to PROD".into(),
            "部署热修复到生产环境".into(),
            "use fakes for the datastore in the order specs".into(),
            "rename the variable foo".into(),
            "fix the Flob widget things".into(),
            "检查部件".into(),
            "the API token for the CI pipeline".into(),
            "fix the deploy of the api cache and check the grafana latency of the proxy worker"
                .into(),
        ];
        for text in [SYNONYMS, ZH_EN] {
            for line in text.lines().filter(|l| !l.starts_with('#')) {
                tasks.push(line.to_string());
                for t in line.split(',') {
                    let t = t.trim();
                    tasks.push(t.to_string());
                    tasks.push(t.to_uppercase());
                    tasks.push(format!("please {t}s now, {t}ing it"));
                }
            }
        }
        for task in &tasks {
            for (u, w) in [(None, &whole), (Some(&user), &whole_user)] {
                let part = Vocabulary::for_task(task, u);
                assert_eq!(found(&part, task, &s), found(w, task, &s), "{task:?}");
            }
        }
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let s = Stems::default();
        let mut v = Vocabulary::default();
        assert_eq!(
            v.add("# mine\nship, deploy\nlonely\n", "my.txt")
                .unwrap_err()
                .to_string(),
            "my.txt:3: a group needs two terms or more, separated by commas: \"lonely\""
        );
        assert!(v.terms.is_empty());
        assert_eq!(
            v.add("a, , b\n", "my.txt").unwrap_err().to_string(),
            "my.txt:1: an empty term (a term needs a letter or digit): \"a, , b\""
        );
        v.add("flob, widget\n", "my.txt").unwrap();
        let f = v.find(&words("fix the flobs"), &s.all("fix the flobs"), &s);
        assert_eq!(texts(&v, &v.alternatives(f[0].term)), ["widget"]);
    }
}
