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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::vocab_key::{key, term_key};
use mem_core::text::{Stems, is_cjk, is_stop_word, words};

/// The built-in vocabulary indexed at compile time (`build.rs`): its lines
/// and, per term key, the lines with a term of that key, as text plus
/// integer offsets (no relocations at start-up).
mod index {
    include!(concat!(env!("OUT_DIR"), "/vocab_index.rs"));

    /// Line `i` of the built-in vocabulary.
    pub fn line(i: usize) -> &'static str {
        let start = if i == 0 { 0 } else { LINE_ENDS[i - 1] as usize };
        &LINES_TEXT[start..LINE_ENDS[i] as usize]
    }

    /// Every line of the built-in vocabulary, in order.
    pub fn lines() -> impl Iterator<Item = &'static str> {
        (0..LINE_ENDS.len()).map(line)
    }

    /// The indexes (ascending) of the lines with a term of key `k`.
    pub fn lines_of_key(k: &str) -> Option<&'static [u16]> {
        let key = |i: usize| {
            let start = if i == 0 { 0 } else { KEY_ENDS[i - 1] as usize };
            &KEYS_TEXT[start..KEY_ENDS[i] as usize]
        };
        let (mut lo, mut hi) = (0, KEY_ENDS.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match key(mid).cmp(k) {
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
    }
}

/// The built-in developer synonyms.
pub const SYNONYMS: &str = include_str!("../data/synonyms.txt");
/// The built-in Chinese ↔ English glossary.
pub const ZH_EN: &str = include_str!("../data/zh-en.txt");

/// One term of the vocabulary. Its stems are computed when first needed
/// (a recall stems only the few terms that could meet its task).
#[derive(Debug, Clone)]
pub struct Term {
    /// As written (lowercased).
    pub text: String,
    /// Its words.
    words: Vec<String>,
    /// True when the term has a CJK character.
    pub cjk: bool,
    /// Stems of every word (stop words included: what is matched in a
    /// task), and of the words that are not stop words (what is scored).
    stems: OnceLock<(Vec<String>, Vec<String>)>,
}

impl Term {
    fn stems(&self, stems: &Stems) -> &(Vec<String>, Vec<String>) {
        self.stems.get_or_init(|| {
            let all = self.words.iter().map(|w| stems.stem(w)).collect();
            let content = self
                .words
                .iter()
                .filter(|w| !is_stop_word(w))
                .map(|w| stems.stem(w))
                .collect();
            (all, content)
        })
    }

    /// Stems of the words that are not stop words (what is scored).
    pub fn content(&self, stems: &Stems) -> &[String] {
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
    by_text: HashMap<String, usize>,
    /// Terms by the [`key`] of their first word.
    by_key: HashMap<String, Vec<usize>>,
}

impl Vocabulary {
    /// The built-in vocabulary (both data files).
    pub fn builtin() -> Vocabulary {
        let mut v = Vocabulary::default();
        v.add(SYNONYMS, "data/synonyms.txt")
            .expect("the built-in synonyms parse");
        v.add(ZH_EN, "data/zh-en.txt")
            .expect("the built-in glossary parses");
        v
    }

    /// The built-in vocabulary plus the user's file ([`user_file`]), when
    /// there is one.
    ///
    /// Errors: the user's file cannot be read, or a line of it is bad
    /// (`FILE:LINE: reason`).
    pub fn load() -> Result<Vocabulary, mem_core::Error> {
        let mut v = Vocabulary::builtin();
        if let Some(p) = user_file() {
            match std::fs::read_to_string(&p) {
                Ok(text) => v.add(&text, &p.display().to_string())?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(mem_core::Error::io(&p, e)),
            }
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
        match std::fs::read_to_string(&p) {
            Ok(text) => {
                let origin = p.display().to_string();
                Vocabulary::default().add(&text, &origin)?;
                Ok(Some((text, origin)))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(mem_core::Error::io(&p, e)),
        }
    }

    /// The part of the built-in vocabulary and of `user` (as
    /// [`Vocabulary::user_source`] gives it, already checked) that can bear
    /// on `task`. For a task without a Chinese character: the groups with a
    /// term whose first word has the key (`vocab_key::key`) and the stem of a word of
    /// the task (built-in groups looked up in an index made at compile time,
    /// `build.rs`). For a task with one: the groups with a term whose first
    /// word starts as a word of the task does, or a Chinese term that occurs
    /// in the task, and for a Chinese term's group the groups of its English
    /// terms. Recall with it finds the same terms, bringing in the same
    /// terms in the same order, as with the whole vocabulary, without
    /// reading the rest.
    pub fn for_task(task: &str, user: Option<&(String, String)>) -> Vocabulary {
        let lower = task.to_lowercase();
        let ws = words(&lower);
        let mut keys: Vec<&str> = ws.iter().map(|w| key(w)).collect();
        keys.sort_unstable();
        keys.dedup();
        let user_lines = user
            .into_iter()
            .flat_map(|(text, _)| text.lines())
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        // A Chinese term can only occur in a task with a Chinese character:
        // without one, only the built-in lines the compile-time index gives
        // for the task's keys can bear on it (a superset; each is checked as
        // every line is), then the user's lines.
        let cjk_task = lower.chars().any(is_cjk);
        let lines: Vec<&str> = if cjk_task {
            let mut all: Vec<&str> = index::lines().collect();
            all.extend(user_lines);
            all
        } else {
            let mut ids: Vec<u16> = keys
                .iter()
                .filter_map(|k| index::lines_of_key(k))
                .flatten()
                .copied()
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids.into_iter()
                .map(|i| index::line(usize::from(i)))
                .chain(user_lines)
                .collect()
        };
        let mut picked: Vec<&str> = Vec::new();
        let mut english: Vec<String> = Vec::new();
        for &line in &lines {
            let mut hit = false;
            let mut cjk_hit = false;
            for t in line.split(',') {
                let t = t.trim();
                if t.chars().any(is_cjk) {
                    if lower.contains(t) || lower.contains(&t.to_lowercase()) {
                        hit = true;
                        cjk_hit = true;
                    }
                } else if term_key(t).is_some_and(|k| keys.binary_search(&&*k).is_ok()) {
                    hit = true;
                }
            }
            if hit {
                picked.push(line);
            }
            if cjk_hit {
                english.extend(
                    line.split(',')
                        .map(|t| t.trim().to_lowercase())
                        .filter(|t| !t.chars().any(is_cjk)),
                );
            }
        }
        // (only after a Chinese term: `lines` holds every line then)
        if !english.is_empty() {
            for &line in &lines {
                if !picked.contains(&line)
                    && line
                        .split(',')
                        .any(|t| english.iter().any(|e| *e == t.trim().to_lowercase()))
                {
                    picked.push(line);
                }
            }
        }
        if !cjk_task {
            // Of those, only the groups with a term that [`Vocabulary::find`]
            // can find in the task: its first word has a key and a stem of a
            // word of the task. Every group of every term found is kept (in
            // order), so the terms found and what they bring in are the same.
            let stems = Stems::default();
            let mut task_stems: Vec<String> = words(task).iter().map(|w| stems.stem(w)).collect();
            task_stems.sort_unstable();
            task_stems.dedup();
            let mut seen: Vec<(String, bool)> = Vec::new();
            picked.retain(|line| {
                line.split(',').any(|t| {
                    let t = t.trim();
                    if t.chars().any(is_cjk)
                        || term_key(t).is_none_or(|k| keys.binary_search(&&*k).is_err())
                    {
                        return false;
                    }
                    let lower_t = t.to_lowercase();
                    let Some(first) = words(&lower_t).into_iter().next() else {
                        return false;
                    };
                    if let Some((_, ok)) = seen.iter().find(|(w, _)| *w == first) {
                        return *ok;
                    }
                    let ok = task_stems.binary_search(&stems.stem(&first)).is_ok();
                    seen.push((first, ok));
                    ok
                })
            });
        }
        let mut v = Vocabulary::default();
        let text = picked.join("\n");
        v.add(&text, "vocabulary")
            .expect("lines of checked vocabularies parse");
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
            let gi = self.groups.len();
            let mut ids = Vec::with_capacity(g.len());
            for t in g {
                let id = self.term(&t);
                if !ids.contains(&id) {
                    ids.push(id);
                    self.term_groups[id].push(gi);
                }
            }
            self.groups.push(ids);
        }
        Ok(())
    }

    fn term(&mut self, text: &str) -> usize {
        if let Some(&i) = self.by_text.get(text) {
            return i;
        }
        let ws = words(text);
        let i = self.terms.len();
        self.by_key
            .entry(key(&ws[0]).to_string())
            .or_default()
            .push(i);
        self.terms.push(Term {
            text: text.to_string(),
            words: ws,
            cjk: text.chars().any(is_cjk),
            stems: OnceLock::new(),
        });
        self.term_groups.push(Vec::new());
        self.by_text.insert(text.to_string(), i);
        i
    }

    /// The terms found in a task of words `ws` (as [`words`] gives them)
    /// whose stems are `all` (every word, stop words included): longest
    /// first, never overlapping, in task order.
    pub fn find(&self, ws: &[String], all: &[String], stems: &Stems) -> Vec<Found> {
        let mut found = Vec::new();
        for (i, w) in ws.iter().enumerate() {
            for &t in self.by_key.get(key(w)).into_iter().flatten() {
                let term = &self.terms[t].stems(stems).0;
                let n = term.len();
                if all.len() >= i + n && all[i..i + n] == term[..] {
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
        for &g in &self.term_groups[term] {
            for &t in &self.groups[g] {
                if !self.terms[t].cjk && !out.contains(&t) {
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
        let push = |t: usize, out: &mut Vec<usize>| {
            if t != term && !out.contains(&t) {
                out.push(t);
            }
        };
        for &g in &self.term_groups[term] {
            for &t in &self.groups[g] {
                push(t, &mut out);
            }
        }
        if self.terms[term].cjk {
            let first: Vec<usize> = out.clone();
            for t in first.into_iter().filter(|&t| !self.terms[t].cjk) {
                for &g in &self.term_groups[t] {
                    for &u in &self.groups[g] {
                        if !self.terms[u].cjk {
                            push(u, &mut out);
                        }
                    }
                }
            }
        }
        out
    }
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
        ts.iter().map(|&t| v.terms[t].text.clone()).collect()
    }

    #[test]
    fn builtin_parses_and_finds_phrases_longest_first() {
        let s = Stems::default();
        let v = Vocabulary::builtin();
        let task = "roll out the integration tests to prod";
        let f = v.find(&words(task), &s.all(task), &s);
        let got: Vec<&str> = f.iter().map(|f| v.terms[f.term].text.as_str()).collect();
        assert_eq!(got, ["roll out", "integration test", "prod"]);
        assert!(texts(&v, &v.alternatives(f[0].term)).contains(&"deploy".to_string()));
    }

    #[test]
    fn chinese_terms_bring_in_english_synonyms() {
        let s = Stems::default();
        let v = Vocabulary::builtin();
        let f = v.find(&words("部署热修复"), &s.all("部署热修复"), &s);
        let got: Vec<&str> = f.iter().map(|f| v.terms[f.term].text.as_str()).collect();
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
                    v.terms[f.term].text.clone(),
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
