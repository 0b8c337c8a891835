//! Words, stems and stop words: the one vocabulary of every tool that
//! compares texts (recall's trigger matching and lexical score, extraction's
//! triggers and near-duplicates, consolidation's grouping).
//!
//! A word is a run of Unicode letters and digits, lowercased; each CJK
//! character is a word of its own (CJK text has no spaces). Stems come from
//! the English Snowball stemmer (rust-stemmers), so "tests" meets "test".
//!
//! The hot function is [`each_word`]: one pass over the text, one reused
//! buffer, no allocation per word. [`words`] collects it.

use rust_stemmers::{Algorithm, Stemmer};

/// English stop words left out of the lexical score and of phrase matching
/// (lowercase, sorted).
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each",
    "few", "for", "from", "further", "get", "got", "had", "has", "have", "having", "he", "her",
    "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
    "just", "let", "me", "more", "most", "my", "no", "nor", "not", "now", "of", "off", "on",
    "once", "only", "or", "other", "our", "ours", "out", "over", "own", "please", "same", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "us", "very",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your", "yours",
];

/// True for a stop word (given lowercased).
pub fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

/// True for a character of a CJK script (Han, kana, Hangul), where words are
/// not separated by spaces.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x20000..=0x2FFFF)
}

/// Calls `f` with each lowercased word of `text`, in order (see module
/// docs). The `&str` lives until the next call; nothing is allocated per
/// word (one buffer, grown to the longest word).
pub fn each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut cur = String::new();
    let mut one = [0u8; 4];
    for c in text.chars() {
        if is_cjk(c) {
            if !cur.is_empty() {
                f(&cur);
                cur.clear();
            }
            f(c.encode_utf8(&mut one));
        } else if c.is_ascii_alphanumeric() {
            cur.push(c.to_ascii_lowercase());
        } else if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            f(&cur);
            cur.clear();
        }
    }
    if !cur.is_empty() {
        f(&cur);
    }
}

/// True for a character that joins the words of a name: `build-token.mjs`,
/// `session_nav`, `don't`.
fn joins_name(c: char) -> bool {
    matches!(c, '-' | '_' | '.' | '\'')
}

/// Calls `f` with each lowercased term of `text`, in order: a term is a run
/// of letters, digits and the characters that join a name (`-`, `_`, `.`,
/// `'`), those trimmed from its ends, so a name stays whole
/// (`src/build-token.mjs` gives `src` and `build-token.mjs`) where
/// [`each_word`] splits it. CJK characters are letters here. Empty terms are
/// skipped; the `&str` lives until the next call (one reused buffer).
pub fn each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    let mut emit = |t: &str| {
        let t = t.trim_matches(joins_name);
        if t.is_empty() {
            return;
        }
        buf.clear();
        buf.push_str(t);
        if t.is_ascii() {
            buf.make_ascii_lowercase();
        } else {
            buf = buf.to_lowercase();
        }
        f(&buf);
    };
    if text.is_ascii() {
        // the same split, by bytes
        for t in text
            .as_bytes()
            .split(|&b| !(b.is_ascii_alphanumeric() || joins_name(b as char)))
        {
            emit(std::str::from_utf8(t).expect("ASCII"));
        }
    } else {
        for t in text.split(|c: char| !(c.is_alphanumeric() || joins_name(c))) {
            emit(t);
        }
    }
}

/// True when `term` (one of [`each_term`]'s) is a name of several words
/// joined by `-`, `_` or `.` (`real-database-tests`, `app.ts`,
/// `session_nav`), not a number (`3.12`) or a word with an apostrophe
/// (`don't`). Recall indexes such a name whole, beside its words, so a task
/// that writes the same name meets it as one phrase.
pub fn is_name_term(term: &str) -> bool {
    term.contains(['-', '_', '.'])
        && term.bytes().any(|b| b.is_ascii_alphabetic())
        && term
            .split(['-', '_', '.', '\''])
            .filter(|w| !w.is_empty())
            .count()
            >= 2
}

/// The lowercased words of `text`, in order (see module docs and
/// [`each_word`]).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_word(text, |w| out.push(w.to_owned()));
    out
}

/// The English stemmer with a helper for whole texts.
pub struct Stems {
    stemmer: Stemmer,
}

impl Default for Stems {
    fn default() -> Self {
        Stems {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

/// The one English stemmer of the process (built on first use).
pub fn stems() -> &'static Stems {
    static STEMS: std::sync::LazyLock<Stems> = std::sync::LazyLock::new(Stems::default);
    &STEMS
}

impl Stems {
    /// The stem of one lowercased word. A final doubled consonant that the
    /// Snowball stemmer undoubles before a suffix (bb dd ff gg mm nn pp rr
    /// tt) is undoubled in every stem, so "add" meets "adding" ("ad") and
    /// "commit" meets "committed".
    pub fn stem(&self, w: &str) -> String {
        let mut s = self.stemmer.stem(w).into_owned();
        let b = s.as_bytes();
        if b.len() > 2
            && b[b.len() - 1] == b[b.len() - 2]
            && matches!(
                b[b.len() - 1],
                b'b' | b'd' | b'f' | b'g' | b'm' | b'n' | b'p' | b'r' | b't'
            )
        {
            s.pop();
        }
        s
    }

    /// Stems of every word of `text`, stop words included, in order.
    pub fn all(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        each_word(text, |w| out.push(self.stem(w)));
        out
    }

    /// Stems of the words of `text` that are not stop words, in order.
    pub fn content(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        each_word(text, |w| {
            if !is_stop_word(w) {
                out.push(self.stem(w));
            }
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_several_words_are_name_terms() {
        for t in [
            "real-database-tests",
            "app.ts",
            "session_nav",
            "build-token.mjs",
        ] {
            assert!(is_name_term(t), "{t}");
        }
        for t in ["3.12", "don't", "deploy", "v2", "-x"] {
            assert!(!is_name_term(t), "{t}");
        }
    }

    #[test]
    fn stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_stop_word("the") && !is_stop_word("test"));
    }

    #[test]
    fn words_split_on_non_alphanumerics_and_cjk() {
        assert_eq!(
            words("Run src/build-token.mjs"),
            ["run", "src", "build", "token", "mjs"]
        );
        assert_eq!(words("不要用npm"), ["不", "要", "用", "npm"]);
        assert_eq!(words("Ünïcode über"), ["ünïcode", "über"]);
        // each_word hands out the same words, one buffer reused
        let mut seen = Vec::new();
        each_word("ÄBC-def 日本 x1", |w| seen.push(w.to_owned()));
        assert_eq!(seen, ["äbc", "def", "日", "本", "x1"]);
        let mut terms = Vec::new();
        each_term(
            "Run `src/Build-Token.mjs` -- don't; 日本語 Été.",
            |t| terms.push(t.to_owned()),
        );
        assert_eq!(
            terms,
            ["run", "src", "build-token.mjs", "don't", "日本語", "été"]
        );
    }

    #[test]
    fn stems_meet() {
        let s = Stems::default();
        assert_eq!(s.stem("tests"), s.stem("test"));
        assert_eq!(s.stem("logging"), s.stem("log"));
        assert_eq!(s.stem("adding"), s.stem("add"));
        assert_eq!(s.stem("committed"), s.stem("commit"));
        assert_eq!(s.content("the integration tests"), ["integr", "test"]);
    }
}
