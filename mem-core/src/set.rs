//! A regex set that is cheap to build: compiled in ASCII mode for ASCII
//! text, and in Unicode mode only the first time a text that is not ASCII
//! comes (most sessions never bring one).
//!
//! On ASCII text the two modes find the same patterns: `\w`, `\d`, `\s`,
//! `\b` and `.` agree on ASCII characters, and so does case-insensitive
//! matching, except for the two non-ASCII characters that fold to ASCII
//! letters (`ſ`, the Kelvin sign): a set whose patterns hold one of them,
//! or that does not compile in ASCII mode (`\p{…}`), is Unicode only. The
//! Unicode set costs several times as much to build (its classes and case
//! folding are UTF-8 automata).

use std::sync::OnceLock;

use regex::{RegexSet, RegexSetBuilder, bytes};

/// The set (see the module docs).
#[derive(Debug, Clone)]
pub struct AsciiFirstSet {
    patterns: Vec<String>,
    case_insensitive: bool,
    multi_line: bool,
    ascii: Option<bytes::RegexSet>,
    unicode: OnceLock<RegexSet>,
}

/// Which patterns of an [`AsciiFirstSet`] matched a text.
pub enum SetHits {
    /// From the ASCII set.
    Ascii(bytes::SetMatches),
    /// From the Unicode set.
    Unicode(regex::SetMatches),
}

impl SetHits {
    /// Pattern `i` matched.
    pub fn matched(&self, i: usize) -> bool {
        match self {
            SetHits::Ascii(m) => m.matched(i),
            SetHits::Unicode(m) => m.matched(i),
        }
    }
}

impl AsciiFirstSet {
    /// The set of `patterns`, with the builder's `case_insensitive` and
    /// `multi_line` flags. The Unicode set is not built here: a caller
    /// that must know the patterns compile calls [`AsciiFirstSet::check`].
    pub fn new(patterns: &[&str], case_insensitive: bool, multi_line: bool) -> Self {
        let folds_to_ascii = patterns.iter().any(|p| p.contains(['ſ', '\u{212A}']));
        let ascii = (!folds_to_ascii)
            .then(|| {
                bytes::RegexSetBuilder::new(patterns)
                    .unicode(false)
                    .case_insensitive(case_insensitive)
                    .multi_line(multi_line)
                    .build()
                    .ok()
            })
            .flatten();
        AsciiFirstSet {
            patterns: patterns.iter().map(|p| p.to_string()).collect(),
            case_insensitive,
            multi_line,
            ascii,
            unicode: OnceLock::new(),
        }
    }

    fn builder(&self) -> RegexSetBuilder {
        let mut b = RegexSetBuilder::new(&self.patterns);
        b.case_insensitive(self.case_insensitive)
            .multi_line(self.multi_line);
        b
    }

    /// Build the Unicode set now.
    ///
    /// Errors: the regex error of a pattern that does not compile.
    pub fn check(&self) -> Result<(), regex::Error> {
        if self.unicode.get().is_none() {
            let set = self.builder().build()?;
            let _ = self.unicode.set(set);
        }
        Ok(())
    }

    fn unicode(&self) -> &RegexSet {
        self.unicode.get_or_init(|| {
            self.builder()
                .build()
                .expect("patterns checked when the set was made")
        })
    }

    /// Which patterns match `text`.
    pub fn matches(&self, text: &str) -> SetHits {
        match &self.ascii {
            Some(a) if text.is_ascii() => SetHits::Ascii(a.matches(text.as_bytes())),
            _ => SetHits::Unicode(self.unicode().matches(text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AsciiFirstSet;

    /// ASCII text takes the ASCII set, other text the Unicode one; both
    /// find the same patterns where both apply.
    #[test]
    fn both_modes_find_the_same_patterns() {
        let pats = [
            r"\bnever\s+push\b",
            r"(?i)don'?t \w+ it",
            r"\d{4}",
            r"^\s*-",
        ];
        let set = AsciiFirstSet::new(&pats, false, true);
        assert!(set.ascii.is_some());
        set.check().unwrap();
        let unicode = set.unicode.get().unwrap();
        for text in [
            "never  push on friday",
            "DON'T do it, 2026",
            "  - a bullet",
            "nevermind",
            "x\n - next line",
        ] {
            let hits = set.matches(text);
            assert!(matches!(hits, super::SetHits::Ascii(_)), "{text}");
            let want: Vec<usize> = unicode.matches(text).into_iter().collect();
            let got: Vec<usize> = (0..pats.len()).filter(|&i| hits.matched(i)).collect();
            assert_eq!(got, want, "{text}");
        }
        // not ASCII: the Unicode set, whose `\w` takes `é`
        let hits = set.matches("don't créé it");
        assert!(matches!(hits, super::SetHits::Unicode(_)));
        assert!(hits.matched(1) && !hits.matched(0));
    }

    /// A pattern that folds a non-ASCII letter onto an ASCII one (the long
    /// s matches `s` case-insensitively), or that needs Unicode classes, is
    /// never matched in ASCII mode.
    #[test]
    fn sets_that_need_unicode_are_unicode_only() {
        let long_s = AsciiFirstSet::new(&["(?i)ſkip"], false, false);
        assert!(long_s.ascii.is_none());
        assert!(long_s.matches("skip it").matched(0));
        let letters = AsciiFirstSet::new(&[r"\p{Han}+"], false, false);
        assert!(letters.ascii.is_none());
        assert!(!letters.matches("plain").matched(0));
        assert!(letters.matches("不要").matched(0));
    }
}
