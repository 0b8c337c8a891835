//! Sentences of a message: splitting, cleaning, titles.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

use mem_core::truncate::floor_to_chars;

pub(super) fn filler_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:(?:please|pls|again|remember|right|ok|okay|so|and|also|heads[- ]up|fyi|note|btw|oh|but|hey|actually|important|note that|remember that|keep in mind that|(?:just )?to be clear|to clarify|for the record|fwiw|one more thing|from now on|going forward|moving forward|henceforth|from here on(?: out)?)(?:[:,!.]|\s+that)?\s+)+")
            .expect("filler regex")
    })
}

/// An approval after the instruction ("…, otherwise gtg", "otherwise all
/// good", "otherwise LGTM!"): a word to the agent about this plan, never
/// part of what the memory says.
fn approval_tail_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(?:[,;]\s*|\s+)(?:but\s+|and\s+)?otherwise,?\s+(?:it(?:'s| is)\s+|that(?:'s| is)\s+|it\s+)?(?:all\s+|looks\s+|all looks\s+|pretty\s+|very\s+)?(?:gtg|good to go|lgtm|good|fine|ok|okay|great|perfect|correct)\s*[.!]*\s*$")
            .expect("approval regex")
    })
}

/// Split a message into sentences (byte slices of `text`): on newlines, on
/// `.`/`!`/`?` followed by whitespace, and after `。！？`. Fenced code blocks
/// and quoted lines (`>`) are skipped.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_fence = false;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let t = line.trim();
        if t.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || t.is_empty() || t.starts_with('>') {
            continue;
        }
        let mut s = start;
        let bytes = text.as_bytes();
        let end = start + line.len();
        let mut cut = |at: usize, cl: usize, s: &mut usize| {
            let piece = text[*s..at + cl].trim();
            if !piece.is_empty() {
                out.push(piece);
            }
            *s = at + cl;
        };
        if bytes[start..end].is_ascii() {
            // only `.` `!` `?` can end a sentence: jump between them
            for p in memchr::memchr3_iter(b'.', b'!', b'?', &bytes[start..end]) {
                let i = start + p;
                if i + 1 >= end || bytes[i + 1].is_ascii_whitespace() {
                    cut(i, 1, &mut s);
                }
            }
        } else {
            let mut i = start;
            // bytes, not chars: the enders are ASCII or start with E3 / EF,
            // which never occur inside a character
            while i < end {
                let (split_here, cl) = match bytes[i] {
                    b'.' | b'!' | b'?' => (i + 1 >= end || bytes[i + 1].is_ascii_whitespace(), 1),
                    // 。
                    0xE3 if bytes.get(i + 1..i + 3) == Some(&[0x80, 0x82]) => (true, 3),
                    // ！ ？
                    0xEF if matches!(bytes.get(i + 1..i + 3), Some([0xBC, 0x81 | 0x9F])) => {
                        (true, 3)
                    }
                    _ => (false, 1),
                };
                if split_here {
                    cut(i, cl, &mut s);
                }
                i += cl;
            }
        }
        let piece = text[s..end].trim();
        if !piece.is_empty() {
            out.push(piece);
        }
    }
    out
}

pub(crate) fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// `s` in at most `n` characters: whole when it fits, else cut at the last
/// word that fits (never inside a word, a backticked command or a quote
/// left open) with `...` after it.
pub(super) fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let head = floor_to_chars(s, n.saturating_sub(1));
    let mut t = match head.rfind(' ') {
        Some(i) if i >= head.len() / 2 => &head[..i],
        _ => head,
    };
    loop {
        let before = t;
        t = t.trim_end_matches([',', ';', ':', ' ', '-', '(', '—']);
        for q in ['`', '"'] {
            if t.matches(q).count() % 2 == 1
                && let Some(i) = t.rfind(q)
                && i >= t.len() / 2
            {
                t = &t[..i];
            }
        }
        if t == before {
            break;
        }
    }
    // (three dots: an ASCII text stays ASCII, which the instruction
    // detector reads on its fast path)
    format!("{t}...")
}

pub(super) fn clean_sentence(s: &str) -> String {
    let s = filler_re().replace(s.trim(), "");
    let s = approval_tail_re().replace(s.trim(), "");
    let s = file_mentions(s.trim());
    let s = s.trim();
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Claude Code's file mentions written as code: "reuse
/// @templates/nav.html" → "reuse `templates/nav.html`". A mention starts a
/// word and ends in a file extension; an address (`me@example.com`) or a
/// package scope (`@types/node`) stays.
fn file_mentions(s: &str) -> Cow<'_, str> {
    if !s.contains('@') {
        return Cow::Borrowed(s);
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?:^|[\s(\[])@((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[A-Za-z][A-Za-z0-9]{0,7})")
            .expect("mention regex")
    });
    let mut out = String::new();
    let mut last = 0;
    for c in re.captures_iter(s) {
        let path = c.get(1).expect("group 1");
        // the mention ends the word: a space, a closing mark, a sentence's end
        let rest = &s[path.end()..];
        let ends = rest.is_empty()
            || rest.starts_with(|ch: char| ch.is_whitespace() || ",;:!?)]".contains(ch))
            || rest
                .strip_prefix('.')
                .is_some_and(|r| r.is_empty() || r.starts_with(char::is_whitespace));
        if !ends {
            continue;
        }
        out.push_str(&s[last..path.start() - 1]);
        out.push('`');
        out.push_str(path.as_str());
        out.push('`');
        last = path.end();
    }
    if last == 0 {
        return Cow::Borrowed(s);
    }
    out.push_str(&s[last..]);
    Cow::Owned(out)
}

/// A short title from a sentence: the sentence itself up to 72
/// characters (a name a little long beats one cut mid-phrase), else at
/// most 60, cut at a phrase boundary. A longer sentence ends where a new
/// clause starts (`, but`,
/// `, which`, `, use`, `;`, ` — `, ` (`) when that leaves at least 20
/// characters; else at a word, without the words a phrase cannot end on
/// (`instead of`, `which is`, `the`, `and`) and without a half-quoted
/// `` `command ``.
pub(super) fn title_of(s: &str) -> String {
    let s = s
        .trim()
        .trim_end_matches(['.', '!', '。', '！', ';', ':', ',']);
    if s.chars().count() <= 72 {
        return s.to_string();
    }
    let head = floor_to_chars(s, 60);
    if let Some(i) = clause_end(head)
        && i >= 20
    {
        return head[..i].trim_end_matches([',', ';', ':', ' ']).to_string();
    }
    // the next character starts a new word: `head` ends at a whole word
    let whole = s[head.len()..].starts_with(char::is_whitespace);
    let mut t = match head.rfind(' ') {
        Some(i) if i > 20 && !whole => &head[..i],
        _ => head,
    };
    loop {
        let before = t;
        t = t.trim_end_matches([',', ';', ':', ' ', '-', '(', '—']);
        if t.matches('`').count() % 2 == 1
            && let Some(i) = t.rfind('`')
            && i > 20
        {
            t = &t[..i];
            continue;
        }
        if let Some(i) = t.rfind(' ')
            && i > 20
            && DANGLING.contains(&lower(&t[i + 1..]).as_str())
        {
            t = &t[..i];
        }
        if t == before {
            break;
        }
    }
    t.to_string()
}

/// Words a title cannot end on: they need what follows them.
pub(super) const DANGLING: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "nor", "of", "to", "for", "with", "without", "by",
    "from", "in", "into", "on", "onto", "at", "as", "than", "instead", "rather", "which", "that",
    "who", "whose", "where", "when", "while", "because", "since", "so", "if", "unless", "is",
    "are", "was", "were", "be", "been", "it", "its", "this", "these", "those", "my", "your", "our",
    "their", "we", "i", "you", "they", "not", "no", "both", "either", "neither", "using", "via",
    "per", "about", "after", "before", "then", "also", "just", "very", "more", "most", "make",
    "can", "could", "should", "would", "will", "must", "do", "does", "don't",
];

/// Where the last clause of `head` that a new one follows ends: before
/// `;`, ` — `, ` - `, ` (`, or a comma followed by a word that opens a
/// clause (`but`, `which`, `the`, `use`, …).
pub(super) fn clause_end(head: &str) -> Option<usize> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)(?:;\s| [—–-] | \(| but |, (?:but|and|so|or|which|because|since|though|although|while|whereas|the|this|that|use|don't|do|please|not|instead|otherwise|then) )")
            .expect("clause regex")
    });
    re.find_iter(head).map(|m| m.start()).last()
}

pub(super) fn normalize_quotes(s: &str) -> Cow<'_, str> {
    // U+2018, U+2019, U+201C, U+201D all start with the byte E2
    if memchr::memchr(0xE2, s.as_bytes()).is_none() {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.replace(['\u{2019}', '\u{2018}'], "'")
            .replace(['\u{201c}', '\u{201d}'], "\""),
    )
}

/// A user message as compared with a summary's quote of it: a 64-bit hash
/// of the text lowercased, whitespace collapsed, closing punctuation and an
/// ellipsis dropped.
pub(crate) fn quote_key(s: &str) -> u64 {
    use std::hash::BuildHasher;
    let s = s.trim().trim_end_matches(['.', '!', '?', '…', ' ']);
    let hash = |b: &[u8]| foldhash::fast::FixedState::default().hash_one(b);
    if s.is_ascii() {
        let b = s.as_bytes();
        // the usual message: no control character (every other whitespace
        // byte is one) and no two spaces in a row, so only the case
        // changes (a loop the compiler runs many bytes at a time)
        let control = b.iter().fold(false, |any, &c| any | (c < 0x20));
        if !control && memchr::memmem::find(b, b"  ").is_none() {
            let lower: Vec<u8> = b.iter().map(u8::to_ascii_lowercase).collect();
            return hash(&lower);
        }
        // a byte at a time (the same result as below)
        let mut bytes = Vec::with_capacity(s.len());
        let mut space = false;
        for &b in b {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r') {
                space = !bytes.is_empty();
                continue;
            }
            if space {
                bytes.push(b' ');
                space = false;
            }
            bytes.push(b.to_ascii_lowercase());
        }
        return hash(&bytes);
    }
    let mut norm = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !norm.is_empty() {
            norm.push(' ');
        }
        norm.extend(word.chars().flat_map(char::to_lowercase));
    }
    hash(norm.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::{clean_sentence, cut};

    /// Claude Code's `@path` file mentions read as code; addresses and
    /// package scopes stay as written.
    #[test]
    fn a_file_mention_is_written_as_code() {
        for (s, want) in [
            (
                "could we reuse @claude_code_log/templates/components/session_nav.html",
                "Could we reuse `claude_code_log/templates/components/session_nav.html`",
            ),
            (
                "keep @src/app.ts and @README.md in sync.",
                "Keep `src/app.ts` and `README.md` in sync.",
            ),
            (
                "see (@docs/setup.md), then run it",
                "See (`docs/setup.md`), then run it",
            ),
            (
                "mail me@example.com about it",
                "Mail me@example.com about it",
            ),
            (
                "add @types/node as a dev dependency",
                "Add @types/node as a dev dependency",
            ),
            (
                "ping @alice about the review",
                "Ping @alice about the review",
            ),
            (
                "use @scope/pkg.v2beta instead",
                "Use `scope/pkg.v2beta` instead",
            ),
            ("read @notes.md.bak", "Read `notes.md.bak`"),
            ("the file @a.py: it fails", "The file `a.py`: it fails"),
        ] {
            assert_eq!(clean_sentence(s), want, "{s}");
        }
    }

    /// An approval after the instruction is no part of it.
    #[test]
    fn an_approval_tail_is_cut() {
        for (s, want) in [
            (
                "keep the name of the py file but change the pyproject script to reference it, otherwise gtg",
                "Keep the name of the py file but change the pyproject script to reference it",
            ),
            (
                "Use the v3 client; otherwise all good!",
                "Use the v3 client",
            ),
            ("Rename the flag, otherwise LGTM.", "Rename the flag"),
            ("Use pnpm otherwise it's fine", "Use pnpm"),
            // "otherwise" that gives a reason stays
            (
                "Run the migrations first, otherwise the tests fail",
                "Run the migrations first, otherwise the tests fail",
            ),
            ("Looks good", "Looks good"),
        ] {
            assert_eq!(clean_sentence(s), want, "{s}");
        }
    }

    /// Names are cut at a phrase boundary, never in the middle of one.
    /// A long text is cut at a word, never inside a quote or a command.
    #[test]
    fn a_cut_ends_at_a_word() {
        assert_eq!(cut("short enough", 20), "short enough");
        assert_eq!(
            cut(
                "`git add x.css` fails here; `git add -f x.css` (with a flag added) works",
                50
            ),
            "`git add x.css` fails here; `git add -f x.css`..."
        );
        assert_eq!(
            cut(
                "Asked \"Which rig do these beads belong to?\", the user answered \"No rig\".",
                60
            ),
            "Asked \"Which rig do these beads belong to?\", the user..."
        );
        assert!(cut(&"word ".repeat(100), 150).chars().count() <= 150);
    }

    /// A word to the agent before the instruction ("To be clear:", "FWIW,")
    /// is not part of what the memory says.
    #[test]
    fn a_lead_in_is_dropped() {
        for (s, want) in [
            (
                "To be clear: don't use ClMail for communication",
                "Don't use ClMail for communication",
            ),
            ("Just to be clear, never push to main", "Never push to main"),
            (
                "For the record: we deploy on Fridays",
                "We deploy on Fridays",
            ),
            ("FWIW prefer rg over grep", "Prefer rg over grep"),
            // a sentence that only starts with the words keeps them
            (
                "To be clearer, name the flag",
                "To be clearer, name the flag",
            ),
        ] {
            assert_eq!(clean_sentence(s), want, "{s}");
        }
    }

    #[test]
    fn titles_end_at_a_phrase_boundary() {
        for (s, want) in [
            (
                "Always run cargo fmt before committing.",
                "Always run cargo fmt before committing",
            ),
            (
                "I have both Node and Python, but I don't want to make it assumptions about people's env",
                "I have both Node and Python",
            ),
            (
                "To be clear: don't use ClMail for communication, use the builtin subagent messaging",
                "To be clear: don't use ClMail for communication",
            ),
            (
                "You can set group.visible using the vis library which is less work than looping",
                "You can set group.visible using the vis library",
            ),
            (
                "Use `git push --set-upstream origin <branch>` instead of `git push`",
                "Use `git push --set-upstream origin <branch>` instead of `git push`",
            ),
            (
                "Use `cd assets && node build.js` instead of `node assets/build.js --watch --minify`",
                "Use `cd assets && node build.js`",
            ),
            (
                "As someone who mostly writes Go, I find these TS generics hard to follow in reviews",
                "As someone who mostly writes Go, I find these TS generics",
            ),
            (
                "Keep the generated files out of the repository and regenerate them in the CI job",
                "Keep the generated files out of the repository",
            ),
        ] {
            let t = super::title_of(s);
            assert_eq!(t, want, "{s}");
            assert!(t.chars().count() <= 72, "{t}");
        }
    }

    #[test]
    fn sentences_split_ascii_and_cjk_alike() {
        use super::sentences;
        assert_eq!(
            sentences("Never push. Use v1.2 here! Why?no\n> quoted. x\n```\na. b\n```\nlast"),
            ["Never push.", "Use v1.2 here!", "Why?no", "last"]
        );
        assert_eq!(
            sentences("不要直接修改数据库。请用迁移！好吗？ok. é. fin"),
            [
                "不要直接修改数据库。",
                "请用迁移！",
                "好吗？",
                "ok.",
                "é.",
                "fin"
            ]
        );
    }
}
