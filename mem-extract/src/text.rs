//! An event's text, decoded or still as the JSON string it was read as.
//!
//! The binary reads events from JSONL and most texts are never looked at
//! (assistant words, the output of a tool call that succeeded), so the reader
//! keeps a text as the inside of its JSON string literal and decodes it only
//! when extraction reads it, and then only as far as it reads.

use std::borrow::Cow;

use memchr::memchr;

/// The text of an event (see the module docs).
#[derive(Debug, Clone)]
pub enum EventText<'a> {
    /// The decoded text, whole.
    Plain(Cow<'a, str>),
    /// The inside of a JSON string literal (between its quotes), escapes not
    /// decoded. The reader checked it is valid JSON; an unpaired surrogate
    /// escape (which [`mem_core::jsonl::sanitize`] already replaced) decodes
    /// to U+FFFD.
    Escaped(Cow<'a, str>),
}

impl<'a> EventText<'a> {
    /// Byte length of the decoded text.
    pub fn byte_len(&self) -> usize {
        match self {
            EventText::Plain(s) => s.len(),
            EventText::Escaped(raw) => unescaped_len(raw),
        }
    }

    /// The decoded text: whole when it is shorter than `n` bytes, else at
    /// least its first `n` bytes (whole characters).
    pub fn prefix(&self, n: usize) -> Cow<'_, str> {
        match self {
            EventText::Plain(s) => Cow::Borrowed(s),
            EventText::Escaped(raw) => unescape_prefix(raw, n),
        }
    }

    /// The whole decoded text.
    pub fn whole(&self) -> Cow<'_, str> {
        self.prefix(usize::MAX)
    }

    /// An owned copy.
    pub fn into_owned(self) -> EventText<'static> {
        match self {
            EventText::Plain(s) => EventText::Plain(Cow::Owned(s.into_owned())),
            EventText::Escaped(s) => EventText::Escaped(Cow::Owned(s.into_owned())),
        }
    }
}

/// Four hex digits at `at`.
fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let h = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &c in h {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// The escape starting at `b[at]` (a backslash): bytes consumed and the
/// character it stands for. Never panics; anything malformed (never seen
/// after the reader's checks) is U+FFFD.
fn decode_escape(b: &[u8], at: usize) -> (usize, char) {
    let c = match b.get(at + 1) {
        Some(&c) => c,
        None => return (1, '\u{FFFD}'),
    };
    let ch = match c {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let Some(u) = hex4(b, at + 2) else {
                return (2, '\u{FFFD}');
            };
            if (0xD800..0xDC00).contains(&u) {
                if b.get(at + 6..at + 8) == Some(b"\\u")
                    && let Some(lo) = hex4(b, at + 8).filter(|l| (0xDC00..0xE000).contains(l))
                {
                    let cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    return (12, char::from_u32(cp).unwrap_or('\u{FFFD}'));
                }
                return (6, '\u{FFFD}');
            }
            return (6, char::from_u32(u).unwrap_or('\u{FFFD}'));
        }
        _ => return (1, '\u{FFFD}'),
    };
    (2, ch)
}

/// Decode the inside of a JSON string literal: whole when the result is
/// shorter than `n` bytes, else at least its first `n` bytes. Borrowed when
/// no escape comes before byte `n`.
pub fn unescape_prefix(raw: &str, n: usize) -> Cow<'_, str> {
    let b = raw.as_bytes();
    let Some(first) = memchr(b'\\', b) else {
        return Cow::Borrowed(raw);
    };
    if first >= n {
        return Cow::Borrowed(&raw[..first]);
    }
    let mut out = String::with_capacity(raw.len().min(n.saturating_add(16)));
    let mut i = 0;
    let mut esc = first;
    loop {
        out.push_str(&raw[i..esc]);
        if out.len() >= n {
            return Cow::Owned(out);
        }
        let (used, ch) = decode_escape(b, esc);
        out.push(ch);
        i = esc + used;
        match next_backslash(b, i) {
            Some(k) => esc = k,
            None => {
                out.push_str(&raw[i..]);
                return Cow::Owned(out);
            }
        }
    }
}

/// Index of the first backslash at or after `i`: by mem-core's string scan
/// (sixteen bytes a step, inlined: escapes are often a few bytes apart,
/// where a `memchr` call costs more than the search), which also stops at
/// a quote or a control byte (not in a checked literal; skipped here).
fn next_backslash(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        let p = mem_core::scan::next_special(b, i)?;
        if b[p] == b'\\' {
            return Some(p);
        }
        i = p + 1;
    }
}

/// Byte length of the decoded inside of a JSON string literal.
pub fn unescaped_len(raw: &str) -> usize {
    let b = raw.as_bytes();
    let mut len = b.len();
    let mut i = 0;
    while let Some(k) = memchr(b'\\', &b[i..]) {
        let (used, ch) = decode_escape(b, i + k);
        len = len + ch.len_utf8() - used;
        i += k + used;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> String {
        let j = serde_json::to_string(s).unwrap();
        j[1..j.len() - 1].to_string()
    }

    #[test]
    fn decodes_like_serde_json() {
        for s in [
            "",
            "plain text",
            "line\nline\n\"q\" \\ / \t\r\u{8}\u{c}",
            "\u{1}\u{1f}é ü 🙂 \u{2028}",
            "output line\n".repeat(50).as_str(),
        ] {
            let raw = lit(s);
            assert_eq!(unescape_prefix(&raw, usize::MAX), s);
            assert_eq!(unescaped_len(&raw), s.len());
            for n in [0, 1, 5, 13, 100] {
                let p = unescape_prefix(&raw, n);
                assert!(s.starts_with(&*p), "{s:?} {n}");
                assert!(p.len() >= n.min(s.len()), "{s:?} {n}");
            }
        }
        // \u escapes, a pair, a lone surrogate, `/` escaped
        let raw = r#"a\u00e9\ud83d\ude00\ud83d x\/y\u2028"#;
        assert_eq!(unescape_prefix(raw, usize::MAX), "aé😀\u{FFFD} x/y\u{2028}");
        assert_eq!(unescaped_len(raw), "aé😀\u{FFFD} x/y\u{2028}".len());
        // a quote or a control byte left unescaped (never in a checked
        // literal) is kept as it is, escapes after it decoded
        let raw = "a\"b\\nc\u{1}d\\t\"\u{1f}\\\\e";
        assert_eq!(
            unescape_prefix(raw, usize::MAX),
            "a\"b\nc\u{1}d\t\"\u{1f}\\e"
        );
        // malformed input never panics
        for raw in [r"\", r"\u12", r"\q", "\\é", r"\ud83d\u"] {
            let _ = unescape_prefix(raw, usize::MAX);
            let _ = unescaped_len(raw);
        }
    }
}
