//! A fast path for reading one event line: a hand-written scanner that
//! accepts only what the serde path ([`crate::stream`]) accepts and reads it
//! the same way, and gives up (returns `None`) on anything it is not sure
//! of — a key or a known string with a `\u` escape, a duplicate field, a
//! number that is not a plain integer where one is expected, deep nesting,
//! any syntax error — so the serde path decides (and names the error).
//!
//! Strings and skipped values are checked by mem-core's scanner
//! ([`mem_core::scan`], the one `mem-transcript replay` uses) and
//! borrowed; the text is kept as its JSON literal.

use std::borrow::Cow;

use serde_json::Value;

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

    /// A string literal: checked (valid escapes, no control characters) by
    /// [`mem_core::scan::string`].
    pub fn string(&mut self) -> Option<RawStr<'a>> {
        self.eat(b'"')?;
        let start = self.i;
        let (end, escaped) = mem_core::scan::string(self.b, start)?;
        self.i = end;
        let raw = &self.s[start..end - 1];
        Some(RawStr {
            raw,
            escaped,
            // possibly `\\u` (an escaped backslash, then `u`): then the
            // serde path decodes it, with the same result
            unicode: escaped && mem_core::jsonl::has_u_escape(raw.as_bytes()),
        })
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

    /// A key and its colon: `Ok(n)` when `known`, given the bytes after the
    /// key's opening quote, names it (its number `n` and how many bytes its
    /// name and closing quote take), else `Err(key)` as [`Scanner::key`]
    /// reads it. `known` must answer only for bytes that are a whole key
    /// without escapes followed by its closing quote.
    pub fn key_or_known(
        &mut self,
        known: impl Fn(&[u8]) -> Option<(u32, usize)>,
    ) -> Option<Result<u32, &'a str>> {
        self.eat(b'"')?;
        if let Some((n, len)) = known(&self.b[self.i..]) {
            self.i += len;
            self.eat(b':')?;
            return Some(Ok(n));
        }
        self.i -= 1;
        self.key().map(Err)
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

    /// Skip one value, checking it ([`mem_core::scan::value`]).
    pub fn skip(&mut self) -> Option<()> {
        self.ws();
        self.i = mem_core::scan::value(self.b, self.i, 0)?;
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

    /// A key is read up to its colon; one with an escape or a control
    /// character is left to serde.
    #[test]
    fn keys_without_escapes_only() {
        let mut s = Scanner::new(r#" "session_long_key_name_past_16" : 1"#);
        assert_eq!(s.key(), Some("session_long_key_name_past_16"));
        assert_eq!(s.u64(), Some(1));
        for bad in [
            r#""a\"b":1"#,
            r#""a\u0041":1"#,
            r#""a\x":1"#,
            "\"a\tb\":1",
            r#""open"#,
            r#""a" 1"#,
        ] {
            assert_eq!(Scanner::new(bad).key(), None, "{bad}");
        }
        assert_eq!(Scanner::new(r#""é":1"#).key(), Some("é"));
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
