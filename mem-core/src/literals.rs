//! The literals a regex needs, derived from its syntax
//! ([`regex_syntax::hir::literal::Extractor`]): a cheap test a text must
//! pass before the regex runs, that cannot drift from the regex because it
//! is read off it. Used by the scrubber's prefilters ([`crate::scrub`]) and
//! by the date finder of mem-extract.

use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{Hir, HirKind};

/// The most literals kept for one regex; a regex that needs more (a long
/// case-insensitive word has 2^n spellings before they are folded) is cut
/// to shorter literals by the extractor. Small, because the extraction
/// runs whenever a scrubber is made.
const LIMIT_TOTAL: usize = 64;

/// The most suffix literals kept ([`suffixes`]): a date phrase ends in
/// one of about 150 words.
const SUFFIX_LIMIT_TOTAL: usize = 512;

/// Literals of which every match of a regex contains at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Required {
    /// The literals (none empty), sorted, distinct; ASCII-lowercased when
    /// [`Required::icase`].
    pub literals: Vec<String>,
    /// Match them ASCII-case-insensitively: the regex accepts every ASCII
    /// case of them (the extracted set held two spellings of one literal).
    pub icase: bool,
}

/// Parse `pattern` as [`regex::Regex::new`] does (Unicode on, inline
/// flags honoured).
///
/// Errors: the parse error.
pub fn parse(pattern: &str) -> Result<Hir, Box<regex_syntax::Error>> {
    regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(Box::new)
}

/// The literals every match of `pattern` contains one of (see
/// [`needed`]); `None` when the pattern does not parse or no such finite
/// set of non-empty literals is found (the regex must then always run).
pub fn required(pattern: &str) -> Option<Required> {
    needed(&parse(pattern).ok()?)
}

/// The literals every match of `hir` contains one of: the best of the
/// prefix sets of `hir` and of its parts every match must go through (each
/// part of a concatenation, the body of a capture or of a repetition of at
/// least one, every branch of an alternation together). Best: the longest
/// shortest literal, then the fewest literals; a prefix set whose shortest
/// literal has 4 bytes is taken as it is.
pub fn needed(hir: &Hir) -> Option<Required> {
    let lits = best(hir)?;
    let mut lower: Vec<Vec<u8>> = lits.iter().map(|l| l.to_ascii_lowercase()).collect();
    lower.sort();
    lower.dedup();
    let icase = lower.len() < lits.len();
    let mut chosen = if icase { lower } else { lits };
    chosen.sort();
    chosen.dedup();
    // A literal cut inside a character (`paſ` cut after the first byte of
    // `ſ`) keeps its whole characters: a part of a literal a match holds
    // is held too.
    let mut literals: Vec<String> = chosen
        .into_iter()
        .map(|l| match String::from_utf8(l) {
            Ok(s) => s,
            Err(e) => {
                let n = e.utf8_error().valid_up_to();
                String::from_utf8_lossy(&e.as_bytes()[..n]).into_owned()
            }
        })
        .collect();
    literals.sort();
    literals.dedup();
    (!literals.iter().any(String::is_empty)).then_some(Required { literals, icase })
}

/// The `kind` literals of `hir` (at most `limit`) when they are finite
/// and none is empty.
fn prefixes(hir: &Hir, kind: ExtractKind, limit: usize) -> Option<Vec<Vec<u8>>> {
    let mut ex = Extractor::new();
    ex.kind(kind).limit_total(limit);
    let seq: Seq = ex.extract(hir);
    let lits = seq.literals()?;
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    Some(lits.iter().map(|l| l.as_bytes().to_vec()).collect())
}

/// How good a literal set is as a prefilter: its shortest literal, longer
/// first, then fewer literals once case is folded.
fn score(lits: &[Vec<u8>]) -> (usize, std::cmp::Reverse<usize>) {
    let min = lits.iter().map(Vec::len).min().unwrap_or(0);
    let mut folded: Vec<Vec<u8>> = lits.iter().map(|l| l.to_ascii_lowercase()).collect();
    folded.sort();
    folded.dedup();
    (min, std::cmp::Reverse(folded.len()))
}

/// A literal set this good is taken without looking into the parts.
const GOOD_ENOUGH: usize = 4;

fn best(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let mut cands: Vec<Vec<Vec<u8>>> = prefixes(hir, ExtractKind::Prefix, LIMIT_TOTAL)
        .into_iter()
        .collect();
    if cands.first().is_some_and(|c| score(c).0 >= GOOD_ENOUGH) {
        return cands.pop();
    }
    match hir.kind() {
        HirKind::Capture(c) => cands.extend(best(&c.sub)),
        HirKind::Repetition(r) if r.min >= 1 => cands.extend(best(&r.sub)),
        HirKind::Concat(hs) => cands.extend(hs.iter().filter_map(best)),
        HirKind::Alternation(hs) => {
            if let Some(all) = hs.iter().map(best).collect::<Option<Vec<_>>>() {
                cands.push(all.concat());
            }
        }
        _ => {}
    }
    cands.into_iter().max_by_key(|c| score(c))
}

/// The suffix literals of `hir` (every match ends with one of them), as
/// bytes, ASCII-lowercased and distinct; `None` when they are not finite
/// or one is empty.
pub fn suffixes(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let mut lits = prefixes(hir, ExtractKind::Suffix, SUFFIX_LIMIT_TOTAL)?;
    for l in &mut lits {
        l.make_ascii_lowercase();
    }
    lits.sort();
    lits.dedup();
    Some(lits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(p: &str) -> Option<(Vec<&'static str>, bool)> {
        required(p).map(|r| {
            (
                r.literals
                    .into_iter()
                    .map(|s| &*Box::leak(s.into_boxed_str()))
                    .collect(),
                r.icase,
            )
        })
    }

    #[test]
    fn required_literals_of_some_regexes() {
        assert_eq!(req("gh[pousr]_[A-Za-z0-9]{20,}").unwrap().0.len(), 5);
        assert_eq!(req("npm_[A-Za-z0-9]{36}"), Some((vec!["npm_"], false)));
        // a part in the middle
        assert_eq!(
            req(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:([^\s/]+)@"),
            Some((vec!["://"], false))
        );
        // case-insensitive: folded
        assert_eq!(req(r"(?i)bearer\s+(\S{20,})"), Some((vec!["bearer"], true)));
        // an alternation: every branch
        let (l, icase) = req(r"(?i)x*(?:passw(?:or)?d|pwd|passphrase)\s*=").unwrap();
        assert!(icase);
        // every branch's words hold one of them
        for w in ["password", "PassWD", "pwd", "passphrase", "xxpasſword"] {
            assert!(
                l.iter().any(|l| w.to_ascii_lowercase().contains(l)),
                "{w}: {l:?}"
            );
        }
        // nothing every match needs
        assert_eq!(req(r"[A-Za-z0-9/+]{40}"), None);
        assert_eq!(req(r"a|\d+"), None);
        assert_eq!(req(r"x?y?"), None);
        assert_eq!(req("("), None);
    }

    #[test]
    fn suffixes_of_a_regex() {
        let ascii = |p: &str| {
            regex_syntax::ParserBuilder::new()
                .unicode(false)
                .build()
                .parse(p)
                .unwrap()
        };
        let s = suffixes(&ascii(r"(?i)(?:to|by) (?:friday|(?:mon|tues)day|\d)")).unwrap();
        assert!(s.contains(&b" friday".to_vec()), "{s:?}");
        assert!(
            s.iter()
                .all(|l| l.ends_with(b"day") || l.last().is_some_and(u8::is_ascii_digit)),
            "{s:?}"
        );
        // Unicode digits: no finite set
        assert_eq!(suffixes(&parse(r"x\d").unwrap()), None);
    }
}
