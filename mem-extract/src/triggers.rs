//! Triggers and the content words they come from: the terms of a text
//! ([`mem_core::text::each_term`]) without the stop words of
//! [`mem_core::text`] and extraction's generic words.

use crate::extract::options::FastSet;

/// Words that never make a trigger or tell two candidates apart, besides
/// the stop words of [`mem_core::text`]: contractions (a term keeps its
/// apostrophe), the words of an instruction itself ("never", "use",
/// "instead"), generic verbs and adjectives (a trigger names the subject).
/// Sorted (binary search).
pub(crate) const GENERIC: &[&str] = &[
    "able",
    "actually",
    "add",
    "added",
    "adds",
    "already",
    "always",
    "anything",
    "aren't",
    "ask",
    "asked",
    "avoid",
    "back",
    "bad",
    "bit",
    "call",
    "called",
    "can't",
    "change",
    "changed",
    "changes",
    "come",
    "create",
    "created",
    "creates",
    "doesn't",
    "don't",
    "dont",
    "easy",
    "either",
    "else",
    "end",
    "even",
    "ever",
    "every",
    "everything",
    "existing",
    "find",
    "finds",
    "fine",
    "finishing",
    "first",
    "fix",
    "fixed",
    "found",
    "fyi",
    "gets",
    "getting",
    "give",
    "goes",
    "going",
    "good",
    "hard",
    "heads",
    "help",
    "i'd",
    "i'll",
    "i'm",
    "i've",
    "instead",
    "isn't",
    "it's",
    "keep",
    "kept",
    "know",
    "last",
    "let's",
    "like",
    "little",
    "live",
    "lives",
    "look",
    "looks",
    "lot",
    "love",
    "made",
    "main",
    "make",
    "makes",
    "many",
    "maybe",
    "mind",
    "mostly",
    "much",
    "must",
    "need",
    "needed",
    "needs",
    "never",
    "new",
    "next",
    "nothing",
    "okay",
    "one",
    "onto",
    "part",
    "per",
    "prefer",
    "probably",
    "put",
    "rather",
    "real",
    "really",
    "remember",
    "reporting",
    "reuse",
    "right",
    "run",
    "said",
    "saved",
    "say",
    "says",
    "sec",
    "seems",
    "set",
    "shouldn't",
    "show",
    "since",
    "somebody",
    "someone",
    "something",
    "start",
    "still",
    "stop",
    "sure",
    "take",
    "tell",
    "thank",
    "thanks",
    "thing",
    "things",
    "think",
    "tried",
    "try",
    "update",
    "updated",
    "use",
    "using",
    "via",
    "wait",
    "want",
    "wanted",
    "wants",
    "way",
    "we'll",
    "we're",
    "we've",
    "well",
    "went",
    "whole",
    "won't",
    "work",
    "worked",
    "works",
    "write",
    "writes",
    "wrote",
    "yes",
    "yet",
    "you're",
];

/// Words most development tasks contain ("run the tests", "fix the build",
/// "this file"): a memory triggered by one alone is recalled for nearly
/// every task. Never a trigger alone; next to a word that names the subject
/// they make a phrase ("unit test", "browser tests"). Sorted.
pub(crate) const WEAK: &[&str] = &[
    "another",
    "app",
    "available",
    "big",
    "bottom",
    "bug",
    "bugs",
    "build",
    "builds",
    "case",
    "cases",
    "check",
    "checks",
    "class",
    "clean",
    "clear",
    "code",
    "command",
    "commands",
    "current",
    "data",
    "detail",
    "details",
    "different",
    "error",
    "errors",
    "extra",
    "feature",
    "features",
    "few",
    "field",
    "fields",
    "file",
    "files",
    "fixes",
    "function",
    "functions",
    "handle",
    "handled",
    "handles",
    "include",
    "includes",
    "including",
    "index",
    "info",
    "issue",
    "issues",
    "item",
    "items",
    "large",
    "left",
    "less",
    "level",
    "line",
    "lines",
    "list",
    "match",
    "method",
    "mode",
    "module",
    "more",
    "most",
    "name",
    "names",
    "option",
    "options",
    "other",
    "output",
    "own",
    "page",
    "parts",
    "place",
    "point",
    "problem",
    "process",
    "processes",
    "project",
    "ready",
    "repo",
    "result",
    "results",
    "running",
    "runs",
    "same",
    "script",
    "scripts",
    "see",
    "seen",
    "several",
    "simple",
    "skip",
    "small",
    "started",
    "state",
    "step",
    "steps",
    "stuff",
    "support",
    "supported",
    "test",
    "testing",
    "tests",
    "top",
    "treat",
    "treats",
    "type",
    "types",
    "value",
    "values",
    "version",
];

/// True for a [`WEAK`] word.
pub(crate) fn is_weak(w: &str) -> bool {
    WEAK.binary_search(&w).is_ok()
}

/// The phrase a weak word makes in `text` with the word before it (else
/// after it) when that word names something: "unit test", "type issues".
fn phrase_of(text: &str, weak: &str) -> Option<String> {
    let toks: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '\'')))
        .map(|t| t.trim_matches('.').to_lowercase())
        .filter(|t| !t.is_empty())
        .collect();
    let good = |t: &str| {
        t.chars().nth(2).is_some()
            && !is_stop(t)
            && !is_weak(t)
            && !t.bytes().all(|b| b.is_ascii_digit())
            && !t.contains('.')
    };
    let i = toks.iter().position(|t| t == weak)?;
    if i > 0 && good(&toks[i - 1]) {
        return Some(format!("{} {weak}", toks[i - 1]));
    }
    toks.get(i + 1)
        .filter(|t| good(t))
        .map(|t| format!("{weak} {t}"))
}

/// True for a stop word ([`mem_core::text::is_stop_word`]) or a
/// [`GENERIC`] word.
pub(crate) fn is_stop(w: &str) -> bool {
    // one hash lookup instead of two binary searches (a word of every text
    // comes here)
    static STOP: std::sync::LazyLock<FastSet<&'static str>> = std::sync::LazyLock::new(|| {
        mem_core::text::STOP_WORDS
            .iter()
            .chain(GENERIC)
            .copied()
            .collect()
    });
    STOP.contains(w)
}

/// Content words of a text: its terms ([`mem_core::text::each_term`]) of 3
/// characters or more, not all digits, not stop words, for triggers and
/// near-duplicate detection.
pub(crate) fn content_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    mem_core::text::each_term(text, |t| {
        // fewer than 3 characters, or only digits
        if t.chars().nth(2).is_none() || t.bytes().all(|b| b.is_ascii_digit()) {
            return;
        }
        if is_stop(t) || (t.len() >= 8 && t.contains("redacted")) {
            return;
        }
        out.push(t.to_owned());
    });
    out
}

pub(crate) fn triggers_of(text: &str, n: usize) -> Vec<String> {
    triggers_with(text, content_words(text), n)
}

/// [`triggers_of`] with the content words of `text` already known.
pub(crate) fn triggers_with(text: &str, words: Vec<String>, n: usize) -> Vec<String> {
    let mut seen = FastSet::default();
    let mut out = Vec::new();
    // backticked spans first
    for part in text.split('`').skip(1).step_by(2) {
        let p = part.trim().to_lowercase();
        if !p.is_empty() && p.len() <= 40 && seen.insert(p.clone()) {
            out.push(p);
        }
    }
    // names first (`session_nav.html`, `pre-commit`, `ty`), then the other
    // words in order: a trigger says what the memory is about
    let named = |w: &String| w.contains(['.', '_', '-']) || w.bytes().any(|b| b.is_ascii_digit());
    let (names, plain): (Vec<String>, Vec<String>) = words.into_iter().partition(named);
    // the directories of a path the text names (`templates`, `components` of
    // `app/templates/components/nav.html`) are where it lives, not what it is
    let dirs: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == '`')
        .filter(|t| t.contains('/') && !t.contains("://"))
        .flat_map(|t| {
            let mut parts: Vec<&str> = t.split('/').collect();
            parts.pop();
            parts
        })
        .map(|d| {
            d.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|d| !d.is_empty())
        .collect();
    for w in names.into_iter().chain(plain) {
        if dirs.contains(&w) {
            continue;
        }
        if out.len() >= n {
            break;
        }
        if w.contains('/') || w.ends_with('.') || !seen.insert(w.clone()) {
            continue;
        }
        if is_weak(&w) {
            if let Some(p) = phrase_of(text, &w)
                && seen.insert(p.clone())
            {
                out.push(p);
            }
            continue;
        }
        out.push(w);
    }
    // a word just before a phrase is part of its noun ("session" + "html
    // page" in "the session HTML page"): one phrase, never the word alone
    let lower = text.to_lowercase();
    let mut i = 0;
    while i < out.len() {
        let t = out[i].clone();
        let merged = (!t.contains([' ', '.', '_', '-', '/']))
            .then(|| {
                out.iter()
                    .position(|p| p.contains(' ') && lower.contains(&format!("{t} {p}")))
            })
            .flatten();
        match merged {
            Some(j) => {
                out[j] = format!("{t} {}", out[j]);
                out.remove(i);
            }
            None => i += 1,
        }
    }
    // a word a phrase already holds adds nothing
    let phrases: Vec<String> = out.iter().filter(|t| t.contains(' ')).cloned().collect();
    if !phrases.is_empty() {
        out.retain(|t| t.contains(' ') || !phrases.iter().any(|p| p.split(' ').any(|w| w == t)));
    }
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stop check is the two sorted lists' membership.
    #[test]
    fn is_stop_is_membership_of_both_lists() {
        for w in mem_core::text::STOP_WORDS.iter().chain(GENERIC) {
            assert!(is_stop(w), "{w}");
        }
        for w in ["database", "context", "pnpm", "", "The", "wont", "you'r"] {
            let want = mem_core::text::is_stop_word(w) || GENERIC.binary_search(&w).is_ok();
            assert_eq!(is_stop(w), want, "{w}");
            assert!(!want, "{w}");
        }
    }

    /// A word most tasks contain is never a trigger alone: it makes a
    /// phrase with the word that names the subject, or it is left out.
    #[test]
    fn weak_words_make_phrases_or_nothing() {
        assert!(WEAK.windows(2).all(|w| w[0] < w[1]));
        // a word just before the phrase is part of its noun
        assert_eq!(
            triggers_of("I'd love that saved as a permanent unit test", 5),
            ["permanent unit test"]
        );
        assert_eq!(
            triggers_of("Open the session HTML page instead of the TUI", 5),
            ["open", "session html page", "tui"]
        );
        assert_eq!(
            triggers_of("Run the browser tests with xvfb", 5),
            ["browser tests", "xvfb"]
        );
        for text in [
            "Always run the tests before you fix the file",
            "Check the output of the build",
        ] {
            let t = triggers_of(text, 5);
            assert!(
                t.iter().all(|w| w.contains(' ') || !is_weak(w)),
                "{text}: {t:?}"
            );
        }
        assert!(triggers_of("Fix the test file", 5).is_empty());
    }

    /// A path's directories are not triggers; its file is.
    #[test]
    fn a_paths_directories_are_no_triggers() {
        assert_eq!(
            triggers_of(
                "Reuse @claude_code_log/templates/components/session_nav.html for the navigation",
                5
            ),
            ["session_nav.html", "navigation"]
        );
        assert_eq!(
            triggers_of("Keep fixtures in tests/data, never in src", 5),
            ["fixtures", "src"]
        );
    }

    /// Triggers leave out the shared stop words (`down`, `their`) as well as
    /// the generic ones, and keep names whole.
    #[test]
    fn triggers_skip_stop_and_generic_words() {
        assert!(GENERIC.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            triggers_of(
                "Staging is down until Friday for the database upgrade, don't run e2e against it",
                5
            ),
            ["e2e", "staging", "friday", "database", "upgrade"]
        );
        assert_eq!(
            triggers_of("Use `pnpm` over their npm in build-token.mjs", 3),
            ["pnpm", "build-token.mjs", "npm"]
        );
    }
}
