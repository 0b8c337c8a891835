//! What the gate knows of one memory ([`Doc`]) and the texts it holds
//! ([`Text`], [`Texts`]): built from a topic file or a record
//! ([`Doc::from_memory`]), or decoded from the recall cache
//! ([`crate::cache`]), and decided on by [`crate::gate`]. Kept apart from
//! both so that the cache and the gate each use it and neither uses the
//! other's types.

use std::borrow::Cow;
use std::collections::HashMap;

use mem_core::frontmatter::body_text;
use mem_core::records::{Expires, Kind, Memory, MemoryType, Scope, Source, Trust};
use mem_core::text::Stems;

/// Weight of a stem in a memory's name, in its term frequencies.
pub const NAME_WEIGHT: u32 = 3;
/// Weight of a stem in a memory's description.
pub const DESCRIPTION_WEIGHT: u32 = 2;
/// Weight of a stem of a memory's triggers (not `re:` ones).
pub const TRIGGER_WEIGHT: u32 = 2;
/// Weight of a stem in a memory's body (Fact / Why / How to use).
pub const BODY_WEIGHT: u32 = 1;

/// Text held by a [`Doc`]: borrowed from the loaded cache (which lives for
/// the rest of the process) or owned (a file parsed now, a record).
pub type Text = Cow<'static, str>;

/// A list of [`Text`]s: owned, or still encoded in the loaded recall cache
/// (`LEN:BYTES` each, LEN in decimal bytes; checked when the cache entry
/// was decoded), read as it is walked. Compares by its texts.
#[derive(Clone, Default)]
pub struct Texts(TextsRepr);

#[derive(Clone)]
enum TextsRepr {
    Owned(Vec<Text>),
    Encoded { len: usize, enc: &'static str },
}

impl Default for TextsRepr {
    fn default() -> TextsRepr {
        TextsRepr::Owned(Vec::new())
    }
}

impl Texts {
    /// `len` texts encoded in `enc` as `LEN:BYTES` each (the caller checked
    /// it: a malformed rest reads as the end of the list).
    pub(crate) fn encoded(len: usize, enc: &'static str) -> Texts {
        Texts(TextsRepr::Encoded { len, enc })
    }

    /// The texts, in order.
    pub fn iter(&self) -> TextsIter<'_> {
        match &self.0 {
            TextsRepr::Owned(v) => TextsIter {
                owned: v.iter(),
                enc: "",
                left: 0,
            },
            TextsRepr::Encoded { len, enc } => TextsIter {
                owned: [].iter(),
                enc,
                left: *len,
            },
        }
    }

    /// How many texts.
    pub fn len(&self) -> usize {
        match &self.0 {
            TextsRepr::Owned(v) => v.len(),
            TextsRepr::Encoded { len, .. } => *len,
        }
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a> IntoIterator for &'a Texts {
    type Item = &'a str;
    type IntoIter = TextsIter<'a>;

    /// [`Texts::iter`].
    fn into_iter(self) -> TextsIter<'a> {
        self.iter()
    }
}

impl From<Vec<Text>> for Texts {
    fn from(v: Vec<Text>) -> Texts {
        Texts(TextsRepr::Owned(v))
    }
}

impl PartialEq for Texts {
    fn eq(&self, other: &Texts) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Texts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The texts of a [`Texts`].
pub struct TextsIter<'a> {
    owned: std::slice::Iter<'a, Text>,
    enc: &'a str,
    left: usize,
}

impl<'a> Iterator for TextsIter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if let Some(t) = self.owned.next() {
            return Some(t);
        }
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        // LEN (decimal digits, checked) then `:`.
        let b = self.enc.as_bytes();
        let mut n = 0usize;
        let mut i = 0;
        while let Some(&c) = b.get(i) {
            if c == b':' {
                break;
            }
            n = n
                .wrapping_mul(10)
                .wrapping_add(usize::from(c.wrapping_sub(b'0')));
            i += 1;
        }
        let t = self.enc.get(i + 1..(i + 1).checked_add(n)?)?;
        self.enc = &self.enc[i + 1 + n..];
        Some(t)
    }
}

/// What the gate knows of one memory: the fields it decides on and the
/// lexical statistics of name, description and body. Built once per file
/// version and kept in the cache.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    /// The memory's id (file stem).
    pub id: Text,
    /// Claude Code's type.
    pub mem_type: MemoryType,
    /// The effective kind.
    pub kind: Kind,
    /// Where it applies.
    pub scope: Scope,
    /// The project it came from (12 hex), when stamped.
    pub project: Option<Text>,
    /// Trigger words, phrases and `re:` regexes, as written.
    pub triggers: Texts,
    /// For each trigger, its non-stop-word stems joined by spaces.
    pub trigger_stems: Texts,
    /// Globs of the paths it is about.
    pub paths: Texts,
    /// Expiry.
    pub expires: Option<Expires>,
    /// The id that replaced it.
    pub superseded_by: Option<Text>,
    /// Ids it replaces (field and "supersedes `<id>`" in its text).
    pub supersedes: Vec<Text>,
    /// True when `retired_at` is set.
    pub retired: bool,
    /// Who said it (absent in the file: `manual`).
    pub source: Source,
    /// `low`: injected only when the query allows it ([`crate::gate::Query::low_trust`]).
    pub trust: Trust,
    /// Term frequencies: ` stem:tf stem:tf … ` (leading and trailing space,
    /// stems sorted); each occurrence counts by its field's weight
    /// ([`NAME_WEIGHT`], [`DESCRIPTION_WEIGHT`], [`TRIGGER_WEIGHT`],
    /// [`BODY_WEIGHT`]).
    pub terms: Text,
    /// Document length in stems of name, description and body (stop words
    /// left out; unweighted).
    pub len: u32,
    /// Estimated tokens of its injected markdown (ceil(bytes / 4)).
    pub tokens: usize,
}

fn owned_all(v: &[String]) -> Vec<Text> {
    v.iter().map(|s| Text::Owned(s.clone())).collect()
}

impl Doc {
    /// Build from a memory with id `id`. `stems` is the shared stemmer.
    pub fn from_memory(id: &str, m: &Memory, stems: &Stems) -> Doc {
        let mut tf: HashMap<String, u32> = HashMap::new();
        let mut len = 0u32;
        let body = body_text(m);
        for (text, w) in [
            (m.title(), NAME_WEIGHT),
            (m.description.as_str(), DESCRIPTION_WEIGHT),
            (&*body, BODY_WEIGHT),
        ] {
            for s in stems.content(text) {
                *tf.entry(s).or_default() += w;
                len += 1;
            }
            // a name of several words also whole (`real-database-tests`):
            // a task that writes it meets it as one phrase (gate.rs)
            mem_core::text::each_term(text, |t| {
                if mem_core::text::is_name_term(t) {
                    *tf.entry(t.to_string()).or_default() += w;
                    // a file's name said without its extension is the same
                    // name (`extract-feedback` for `extract-feedback.py`)
                    if let Some((stem, ext)) = t.rsplit_once('.')
                        && (1..=5).contains(&ext.len())
                        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                        && mem_core::text::is_name_term(stem)
                    {
                        *tf.entry(stem.to_string()).or_default() += w;
                    }
                }
            });
        }
        for t in m.triggers.iter().filter(|t| !t.starts_with("re:")) {
            for s in stems.content(t) {
                *tf.entry(s).or_default() += TRIGGER_WEIGHT;
            }
        }
        let mut tfv: Vec<_> = tf.into_iter().collect();
        tfv.sort();
        let mut terms = String::from(" ");
        for (s, n) in tfv {
            terms.push_str(&s);
            terms.push(':');
            terms.push_str(&n.to_string());
            terms.push(' ');
        }
        let supersedes = mem_core::index_md::supersedes_of(id, m);
        Doc {
            id: Text::Owned(id.to_string()),
            mem_type: m.mem_type,
            kind: m.effective_kind(),
            scope: m.scope.unwrap_or_default(),
            project: m.project.clone().map(Text::Owned),
            trigger_stems: m
                .triggers
                .iter()
                .map(|t| {
                    Text::Owned(if t.starts_with("re:") {
                        String::new()
                    } else {
                        stems.content(t).join(" ")
                    })
                })
                .collect::<Vec<Text>>()
                .into(),
            triggers: owned_all(&m.triggers).into(),
            paths: owned_all(&m.paths).into(),
            expires: m.expires,
            superseded_by: m.superseded_by.clone().map(Text::Owned),
            supersedes: supersedes.into_iter().map(Text::Owned).collect(),
            retired: m.retired_at.is_some(),
            source: m.effective_source(),
            trust: mem_core::lesson::believed_trust(m),
            terms: Text::Owned(terms),
            len,
            tokens: mem_core::truncate::estimate_tokens(&crate::inject::memory_md(id, m)),
        }
    }
}
