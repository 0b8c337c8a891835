//! A fast path for reading one event line: a hand-written scanner that
//! accepts only what the serde path ([`crate::stream`]) accepts and reads it
//! the same way, and gives up (returns `None`) on anything it is not sure
//! of — a key or a known string with a `\u` escape, a duplicate field, a
//! number that is not a plain integer where one is expected, deep nesting,
//! any syntax error — so the serde path decides (and names the error).
//!
//! Strings are found with `memchr`, checked (escapes, no control
//! characters) and borrowed; the text is kept as its JSON literal.

use std::borrow::Cow;

use memchr::{memchr, memchr2};
use serde_json::Value;

/// Nesting deeper than this is left to serde (its own limit is 128).
const MAX_DEPTH: usize = 64;

/// A string read by [`Scanner::string`]: the inside of the literal.
pub(crate) struct RawStr<'a> {
    /// Between the quotes, as written.
    pub raw: &'a str,
    /// True when it holds a backslash.
    pub escaped: bool,
    /// True when it holds a `\u` escape.
    pub unicode: bool,
}

impl<'a> RawStr<'a> {
    /// The decoded string, unless it holds a `\u` escape (left to serde,
    /// which checks surrogates).
    pub fn decoded(&self) -> Option<Cow<'a, str>> {
        if !self.escaped {
            return Some(Cow::Borrowed(self.raw));
        }
        if self.unicode {
            return None;
        }
        Some(crate::text::unescape_prefix(self.raw, usize::MAX))
    }
}

/// True when a byte is below 0x20 (one pass the compiler vectorizes).
fn has_control(b: &[u8]) -> bool {
    b.iter().fold(0xFF, |m, &c| m.min(c)) < 0x20
}

/// One pass over a string body followed by its closing quote (`w`): true
/// (bad) when a byte of the body is below 0x20 or a backslash is followed
/// by anything but `"\/bfnrt`. Branch-free so the compiler vectorizes it.
fn check_body(w: &[u8]) -> bool {
    let n = w.len() - 1;
    let (body, next) = (&w[..n], &w[1..]);
    let mut bad = 0u8;
    for (&a, &c) in body.iter().zip(next) {
        let is_bs = a == b'\\';
        let ok_next = (c == b'"')
            | (c == b'\\')
            | (c == b'/')
            | (c == b'b')
            | (c == b'f')
            | (c == b'n')
            | (c == b'r')
            | (c == b't');
        bad |= u8::from(a < 0x20) | u8::from(is_bs & !ok_next);
    }
    bad != 0
}

/// A cursor over one line (valid UTF-8).
pub(crate) struct Scanner<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    pub fn new(s: &'a str) -> Self {
        Scanner {
            s,
            b: s.as_bytes(),
            i: 0,
        }
    }

    /// Skip JSON whitespace.
    pub fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    /// The next byte (after whitespace), not consumed.
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    /// Consume `c` (after whitespace).
    pub fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// Consume `c` when it comes next (after whitespace).
    pub fn eat_if(&mut self, c: u8) -> Option<bool> {
        if self.peek()? == c {
            self.i += 1;
            Some(true)
        } else {
            Some(false)
        }
    }

    /// True at the end of the line (after whitespace).
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// A literal (`true`, `false`, `null`) at the cursor.
    fn word(&mut self, w: &[u8]) -> Option<()> {
        if self.b.get(self.i..self.i + w.len())? == w {
            self.i += w.len();
            Some(())
        } else {
            None
        }
    }

    /// `null` (consumed) or not (nothing consumed).
    pub fn null(&mut self) -> Option<bool> {
        if self.peek()? == b'n' {
            self.word(b"null")?;
            Some(true)
        } else {
            Some(false)
        }
    }

    /// `true` or `false`.
    pub fn bool(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.word(b"true").map(|_| true),
            b'f' => self.word(b"false").map(|_| false),
            _ => None,
        }
    }

    /// A plain non-negative integer (`0` or digits without a leading zero,
    /// not followed by a fraction or exponent) that fits in a u64.
    pub fn u64(&mut self) -> Option<u64> {
        self.ws();
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(&c) = self.b.get(self.i) {
            if !c.is_ascii_digit() {
                break;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            self.i += 1;
        }
        let n = self.i - start;
        if n == 0 || (n > 1 && self.b[start] == b'0') {
            return None;
        }
        if matches!(self.b.get(self.i), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(v)
    }

    /// A string literal: checked (valid escapes, no control characters).
    ///
    /// Fast path: the closing quote is the first `"` not preceded by an odd
    /// run of backslashes; the body then passes one branch-free pass when
    /// every byte is at least 0x20 and every backslash is followed by one of
    /// `"\/bfnrt` (which makes every escape valid). Anything else (a `\u`
    /// escape, an escaped backslash before a letter) takes the exact loop.
    pub fn string(&mut self) -> Option<RawStr<'a>> {
        self.eat(b'"')?;
        let start = self.i;
        // most strings are short: a plain loop over the first bytes finds the
        // end (or an escape) before memchr would be worth calling
        let lim = (start + 32).min(self.b.len());
        let mut j = start;
        while j < lim {
            let c = self.b[j];
            if c == b'"' {
                self.i = j + 1;
                return Some(RawStr {
                    raw: &self.s[start..j],
                    escaped: false,
                    unicode: false,
                });
            }
            if c == b'\\' || c < 0x20 {
                break;
            }
            j += 1;
        }
        let first = if j < lim {
            if self.b[j] < 0x20 {
                return None;
            }
            j
        } else {
            lim + memchr2(b'"', b'\\', &self.b[lim..])?
        };
        if self.b[first] == b'"' {
            // no escape: only control characters to refuse
            if has_control(&self.b[lim..first]) {
                return None;
            }
            self.i = first + 1;
            return Some(RawStr {
                raw: &self.s[start..first],
                escaped: false,
                unicode: false,
            });
        }
        let mut q = first;
        loop {
            q += memchr(b'"', &self.b[q..])?;
            let run = self.b[start..q]
                .iter()
                .rev()
                .take_while(|&&c| c == b'\\')
                .count();
            if run % 2 == 0 {
                break;
            }
            q += 1;
        }
        // body and the closing quote: each byte with the one after it
        if !check_body(&self.b[start..=q]) {
            self.i = q + 1;
            return Some(RawStr {
                raw: &self.s[start..q],
                escaped: true,
                unicode: false,
            });
        }
        self.string_exact(start)
    }

    /// [`Scanner::string`] one escape at a time, from `start` (after the
    /// opening quote).
    fn string_exact(&mut self, start: usize) -> Option<RawStr<'a>> {
        self.i = start;
        let mut escaped = false;
        let mut unicode = false;
        loop {
            let j = self.i + memchr2(b'"', b'\\', &self.b[self.i..])?;
            if self.b[j] == b'"' {
                let body = &self.b[start..j];
                // no control characters (one pass the compiler vectorizes)
                if body.iter().fold(false, |a, &c| a | (c < 0x20)) {
                    return None;
                }
                self.i = j + 1;
                return Some(RawStr {
                    raw: &self.s[start..j],
                    escaped,
                    unicode,
                });
            }
            escaped = true;
            match self.b.get(j + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i = j + 2,
                b'u' => {
                    let h = self.b.get(j + 2..j + 6)?;
                    if !h.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    unicode = true;
                    self.i = j + 6;
                }
                _ => return None,
            }
        }
    }

    /// A key and its colon; `None` for a key with an escape (or a control
    /// character: not JSON).
    pub fn key(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let mut j = start;
        loop {
            let c = *self.b.get(j)?;
            if c == b'"' {
                break;
            }
            if c == b'\\' || c < 0x20 {
                return None;
            }
            j += 1;
        }
        self.i = j + 1;
        self.eat(b':')?;
        Some(&self.s[start..j])
    }

    /// After a member: `true` when another follows (`,`), `false` at the
    /// closing `close`.
    pub fn more(&mut self, close: u8) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.i += 1;
                Some(true)
            }
            c if c == close => {
                self.i += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// Skip one value, checking it.
    pub fn skip(&mut self) -> Option<()> {
        self.skip_at(0)
    }

    fn skip_at(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' => {
                self.i += 1;
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.string()?;
                    self.eat(b':')?;
                    self.skip_at(depth + 1)?;
                    if !self.more(b'}')? {
                        return Some(());
                    }
                }
            }
            b'[' => {
                self.i += 1;
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.skip_at(depth + 1)?;
                    if !self.more(b']')? {
                        return Some(());
                    }
                }
            }
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// A JSON number (grammar only, as serde checks an ignored one).
    fn number(&mut self) -> Option<()> {
        let digits = |sc: &mut Self| {
            let s = sc.i;
            while sc.b.get(sc.i).is_some_and(u8::is_ascii_digit) {
                sc.i += 1;
            }
            sc.i - s
        };
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i)? {
            b'0' => {
                self.i += 1;
                if self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                    return None;
                }
            }
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return None;
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        Some(())
    }

    /// One value as a [`serde_json::Value`] (checked first, then parsed by
    /// serde_json from its span).
    pub fn value(&mut self) -> Option<Value> {
        self.ws();
        let start = self.i;
        self.skip()?;
        serde_json::from_str(&self.s[start..self.i]).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_what_serde_accepts_and_refuses_the_rest() {
        for ok in [
            r#"{}"#,
            r#"{"a": [1, -2.5e+3, 0, true, false, null, {"b": "c\"\\\/\b\f\n\r\t\u00e9"}], "d": []}"#,
            "  {\"a\" :\t\"x\" }  ",
        ] {
            let mut s = Scanner::new(ok);
            assert!(s.skip().is_some() && s.at_end(), "{ok}");
            assert!(serde_json::from_str::<Value>(ok).is_ok(), "{ok}");
        }
        for bad in [
            r#"{"a": 01}"#,
            r#"{"a": 1.}"#,
            r#"{"a": -}"#,
            r#"{"a": "\x"}"#,
            r#"{"a": "\u12g4"}"#,
            "{\"a\": \"tab\there\"}",
            r#"{"a": tru}"#,
            r#"{"a": 1,}"#,
            r#"{"a" 1}"#,
            r#"["a""#,
            r#"{"a": "open}"#,
        ] {
            let mut s = Scanner::new(bad);
            assert!(s.skip().is_none() || !s.at_end(), "{bad}");
        }
    }

    #[test]
    fn integers_are_plain() {
        for (t, v) in [
            ("0", Some(0)),
            ("42", Some(42)),
            ("18446744073709551615", Some(u64::MAX)),
        ] {
            assert_eq!(Scanner::new(t).u64(), v, "{t}");
        }
        for t in ["", "-1", "01", "1.0", "1e3", "18446744073709551616", "x"] {
            assert_eq!(Scanner::new(t).u64(), None, "{t}");
        }
    }
}
