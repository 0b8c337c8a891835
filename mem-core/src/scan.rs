//! A fast, validating JSON scanner for the hot paths of reading JSON lines
//! (`mem-transcript replay`, `mem-extract`).
//!
//! It accepts a strict subset of what `serde_json` accepts (same grammar:
//! whitespace ` \n\t\r`, escapes, number syntax, control characters refused
//! in strings) and answers `None` whenever it is unsure (escaped or non-ASCII
//! keys, deep nesting, anything malformed). Callers then fall back to the
//! `serde_json` parse, so results and error messages never change: the
//! scanner only skips the values nobody reads without building anything.

/// Nesting deeper than this is left to serde_json (its limit is 128).
const MAX_DEPTH: u32 = 100;

/// Index of the first non-whitespace byte at or after `i`.
#[inline]
pub fn ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\t' | b'\r') {
        i += 1;
    }
    i
}

/// Bit `k` set when byte `k` of `c` is `"`, `\\` or a control byte (SSE2).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn special_mask(c: &[u8; 16]) -> u32 {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, min_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let x = load_unaligned_m128i(c);
    // x <= 0x1f exactly when min(x, 0x1f) == x (unsigned)
    let m = bitor_m128i(
        bitor_m128i(
            cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(b'"' as i8)),
            cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(b'\\' as i8)),
        ),
        cmp_eq_mask_i8_m128i(min_u8_m128i(x, set_splat_i8_m128i(0x1f)), x),
    );
    move_mask_i8_m128i(m) as u32
}

/// [`special_mask`] of four blocks: bit `k` for byte `k` of `c`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn special_mask64(c: &[u8; 64]) -> u64 {
    let part = |k: usize| u64::from(special_mask(c[k..k + 16].try_into().expect("16 bytes")));
    part(0) | part(16) << 16 | part(32) << 32 | part(48) << 48
}

/// Index of the first `"`, `\\` or control byte at or after `i`: sixteen
/// bytes a step with SSE2 on x86-64, eight (as serde_json's own string
/// scan) elsewhere.
#[inline]
pub fn next_special(b: &[u8], mut i: usize) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while let Some(c) = b.get(i..i + 16) {
        let bits = special_mask(c.try_into().expect("16 bytes"));
        if bits != 0 {
            return Some(i + bits.trailing_zeros() as usize);
        }
        i += 16;
    }
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        let x = u64::from_le_bytes(w);
        let ctrl = x.wrapping_sub(ONES * 0x20) & !x;
        let q = x ^ (ONES * u64::from(b'"'));
        let quote = q.wrapping_sub(ONES) & !q;
        let s = x ^ (ONES * u64::from(b'\\'));
        let slash = s.wrapping_sub(ONES) & !s;
        let m = (ctrl | quote | slash) & HIGH;
        if m != 0 {
            return Some(i + m.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    b[i..]
        .iter()
        .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
        .map(|p| i + p)
}

/// Length of the valid escape whose backslash is at `p` (2, or 6 for
/// `\\uXXXX`); `None` when it is not one serde_json accepts.
#[inline(always)]
fn escape_len(b: &[u8], p: usize) -> Option<usize> {
    match *b.get(p + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => b
            .get(p + 2..p + 6)?
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then_some(6),
        _ => None,
    }
}

/// Scan a string whose opening quote is at `i - 1`: the index after the
/// closing quote and whether it has escapes. With SSE2 every special byte of
/// a block (16 bytes, then 64 once the string is longer) is handled from one
/// mask (escapes are dense in tool output: a `\\n` a line).
#[inline]
pub fn string(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut esc = false;
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // the first block is sixteen bytes (most strings are short keys and
        // values); a string still open after it goes on sixty-four at a time
        let mut wide = false;
        loop {
            let (mut m, width) = match (wide, b.get(i..i + 64)) {
                (true, Some(c)) => (special_mask64(c.try_into().expect("64 bytes")), 64),
                _ => match b.get(i..i + 16) {
                    Some(c) => (u64::from(special_mask(c.try_into().expect("16 bytes"))), 16),
                    None => break,
                },
            };
            wide = true;
            let base = i;
            i = base + width;
            while m != 0 {
                let p = base + m.trailing_zeros() as usize;
                match b[p] {
                    b'"' => return Some((p + 1, esc)),
                    b'\\' => {}
                    _ => return None,
                }
                esc = true;
                let next = p + escape_len(b, p)?;
                let off = next - base;
                if off >= width {
                    i = next;
                    break;
                }
                // the escape's own bytes (`\\"`, `\\\\`) are not specials
                m &= !((1u64 << off) - 1);
            }
        }
    }
    loop {
        i = next_special(b, i)?;
        match b[i] {
            b'"' => return Some((i + 1, esc)),
            b'\\' => {}
            _ => return None,
        }
        esc = true;
        i += escape_len(b, i)?;
    }
}

#[inline]
fn digits(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

fn number(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match *b.get(i)? {
        b'0' => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
        }
        b'1'..=b'9' => i = digits(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let s = i + 1;
        i = digits(b, s);
        if i == s {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let s = i;
        i = digits(b, s);
        if i == s {
            return None;
        }
    }
    Some(i)
}

/// Scan the value starting at `i` (no leading whitespace): the index after it.
pub fn value(b: &[u8], i: usize, depth: u32) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string(b, i + 1).map(|(e, _)| e),
        b'{' => {
            let mut o = Obj::open(b, i, depth)?;
            while o.next_key()?.is_some() {
                o.skip_value()?;
            }
            Some(o.pos())
        }
        b'[' => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let mut i = ws(b, i + 1);
            if b.get(i) == Some(&b']') {
                return Some(i + 1);
            }
            loop {
                i = value(b, i, depth + 1)?;
                i = ws(b, i);
                match *b.get(i)? {
                    b',' => i = ws(b, i + 1),
                    b']' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b't' => b[i..].starts_with(b"true").then_some(i + 4),
        b'f' => b[i..].starts_with(b"false").then_some(i + 5),
        b'n' => b[i..].starts_with(b"null").then_some(i + 4),
        b'-' | b'0'..=b'9' => number(b, i),
        _ => None,
    }
}

/// A string literal read by [`Obj::string`]: its inside, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawStr<'a> {
    /// The bytes between the quotes, escapes not decoded (checked: every
    /// escape valid, no control byte).
    pub raw: &'a [u8],
    /// Index of `raw`'s first byte in the scanned bytes.
    pub start: usize,
    /// True when it holds a backslash (an escape).
    pub escaped: bool,
}

impl<'a> RawStr<'a> {
    /// True when it may hold a `\u` escape: it holds the bytes `\u` (a
    /// unicode escape, or an escaped backslash before a `u`).
    #[inline]
    pub fn has_u_escape(&self) -> bool {
        self.escaped && crate::jsonl::has_u_escape(self.raw)
    }

    /// The same span of `text`, the text whose bytes the cursor scanned:
    /// `raw` as a `&str`, without a second UTF-8 check.
    ///
    /// # Panics
    /// When `text` is shorter, or the span does not fall on its character
    /// boundaries (never for the text scanned: quotes are ASCII).
    #[inline]
    pub fn of<'s>(&self, text: &'s str) -> &'s str {
        &text[self.start..self.start + self.raw.len()]
    }
}

/// A cursor over the members of one object.
///
/// Each key is read by [`Obj::next_key`], [`Obj::next_field`],
/// [`Obj::next_member`] or [`Obj::next_known_field`], which leave the
/// cursor on its value (after whitespace); the value is then read by one
/// of [`Obj::skip_value`], [`Obj::null`], [`Obj::bool`], [`Obj::u64`],
/// [`Obj::string`], [`Obj::object`], or elsewhere (then [`Obj::set_pos`] past it). Every
/// reader answers `None` when unsure, and the cursor is then of no use.
pub struct Obj<'a> {
    b: &'a [u8],
    i: usize,
    first: bool,
    depth: u32,
    /// The fields [`Obj::next_field`] has given, one bit each.
    seen: u32,
}

impl<'a> Obj<'a> {
    /// The object whose `{` is at `i` (after whitespace), at nesting `depth`.
    pub fn open(b: &'a [u8], i: usize, depth: u32) -> Option<Obj<'a>> {
        let i = ws(b, i);
        if b.get(i) != Some(&b'{') || depth >= MAX_DEPTH {
            return None;
        }
        Some(Obj {
            b,
            i: i + 1,
            first: true,
            depth: depth + 1,
            seen: 0,
        })
    }

    /// The same cursor with its members' values at nesting `depth` (they
    /// may nest `100 - depth` levels deep before the scanner gives up)
    /// instead of one below the object's.
    #[inline]
    pub fn with_depth(mut self, depth: u32) -> Obj<'a> {
        self.depth = depth;
        self
    }

    /// Past the separator before the next member: the index of its key's
    /// opening quote; `Some(None)` after the closing `}`; `None` when
    /// neither comes.
    #[inline(always)]
    fn key_quote(&mut self) -> Option<Option<usize>> {
        let b = self.b;
        let mut i = ws(b, self.i);
        if self.first {
            self.first = false;
            if b.get(i) == Some(&b'}') {
                self.i = i + 1;
                return Some(None);
            }
        } else {
            match *b.get(i)? {
                b',' => i = ws(b, i + 1),
                b'}' => {
                    self.i = i + 1;
                    return Some(None);
                }
                _ => return None,
            }
        }
        (b.get(i) == Some(&b'"')).then_some(Some(i))
    }

    /// The colon after a key that ends before `e`, then the cursor on the
    /// value (after whitespace).
    #[inline(always)]
    fn colon(&mut self, e: usize) -> Option<()> {
        let b = self.b;
        let i = ws(b, e);
        if b.get(i) != Some(&b':') {
            return None;
        }
        self.i = ws(b, i + 1);
        Some(())
    }

    /// The next key (ASCII, without escapes), the cursor then on its value;
    /// `Some(None)` after the closing `}`; `None` when unsure.
    pub fn next_key(&mut self) -> Option<Option<&'a [u8]>> {
        let Some(q) = self.key_quote()? else {
            return Some(None);
        };
        let (e, esc) = string(self.b, q + 1)?;
        let key = &self.b[q + 1..e - 1];
        if esc || !key.is_ascii() {
            return None;
        }
        self.colon(e)?;
        Some(Some(key))
    }

    /// The next key, the cursor then on its value: `Ok(n)` when `known`,
    /// given the bytes after the key's opening quote, names it — its number
    /// `n` and how many bytes its name and closing quote take — and
    /// `Err(key)` for any other key without escapes (its bytes between the
    /// quotes, not only ASCII: no check of UTF-8). `Some(None)` after the
    /// closing `}`; `None` when unsure (a key with an escape, anything
    /// malformed).
    ///
    /// `known` must answer only for bytes that start with a whole key
    /// without escapes followed by its closing quote: the known names are
    /// then matched where they stand, without a scan of the key first.
    #[inline]
    pub fn next_member(
        &mut self,
        known: impl Fn(&[u8]) -> Option<(u32, usize)>,
    ) -> Option<Option<Result<u32, &'a [u8]>>> {
        let Some(q) = self.key_quote()? else {
            return Some(None);
        };
        let b = self.b;
        if let Some((n, len)) = known(&b[q + 1..]) {
            self.colon(q + 1 + len)?;
            return Some(Some(Ok(n)));
        }
        let (e, esc) = string(b, q + 1)?;
        if esc {
            return None;
        }
        self.colon(e)?;
        Some(Some(Err(&b[q + 1..e - 1])))
    }

    /// Field `n` given (below 32): `None` when it was given before in this
    /// object (serde_json refuses duplicate fields) or `n` is too large.
    #[inline(always)]
    fn mark(&mut self, n: u32) -> Option<()> {
        let bit = 1u32.checked_shl(n)?;
        if self.seen & bit != 0 {
            return None;
        }
        self.seen |= bit;
        Some(())
    }

    /// The next member whose key `field` knows, as the number `field` gives
    /// it (below 32), the cursor then on its value; the values of the keys
    /// it does not know (`None`) are skipped. `Some(None)` after the
    /// closing `}`; `None` when unsure, and on a known key seen before in
    /// this object (serde_json refuses duplicate fields).
    #[inline]
    pub fn next_field(&mut self, field: impl Fn(&[u8]) -> Option<u32>) -> Option<Option<u32>> {
        while let Some(key) = self.next_key()? {
            let Some(n) = field(key) else {
                self.skip_value()?;
                continue;
            };
            self.mark(n)?;
            return Some(Some(n));
        }
        Some(None)
    }

    /// [`Obj::next_field`] with the keys read by [`Obj::next_member`]: the
    /// known ones (numbered below 32) matched at the cursor, the others
    /// (without escapes, not only ASCII) skipped with their values.
    #[inline]
    pub fn next_known_field(
        &mut self,
        known: impl Fn(&[u8]) -> Option<(u32, usize)>,
    ) -> Option<Option<u32>> {
        loop {
            match self.next_member(&known)? {
                Some(Ok(n)) => {
                    self.mark(n)?;
                    return Some(Some(n));
                }
                Some(Err(_)) => {
                    self.skip_value()?;
                }
                None => return Some(None),
            }
        }
    }

    /// Scan the current value and return its bytes.
    #[inline]
    pub fn skip_value(&mut self) -> Option<&'a [u8]> {
        let s = self.i;
        let e = value(self.b, s, self.depth)?;
        self.i = e;
        Some(&self.b[s..e])
    }

    /// The current value as an object: a cursor over its members, whose
    /// values nest one level deeper; `None` when the value is not an object
    /// (or nests too deep). Once its members are read, [`Obj::set_pos`]
    /// moves this cursor past it (to the inner cursor's [`Obj::pos`]).
    #[inline]
    pub fn object(&self) -> Option<Obj<'a>> {
        Obj::open(self.b, self.i, self.depth)
    }

    /// The first byte of the current value; `None` at the end of the bytes.
    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// The literal `w` at the cursor, consumed.
    #[inline(always)]
    fn word(&mut self, w: &[u8]) -> Option<()> {
        if self.b.get(self.i..self.i + w.len())? != w {
            return None;
        }
        self.i += w.len();
        Some(())
    }

    /// The current value when it is `null`: `Some(true)`, consumed;
    /// `Some(false)` for a value not starting with `n` (nothing consumed);
    /// `None` for another word starting with `n`, or at the end.
    #[inline]
    pub fn null(&mut self) -> Option<bool> {
        if self.peek()? != b'n' {
            return Some(false);
        }
        self.word(b"null").map(|()| true)
    }

    /// The current value as `true` or `false`, consumed; `None` for any
    /// other value.
    #[inline]
    pub fn bool(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.word(b"true").map(|()| true),
            b'f' => self.word(b"false").map(|()| false),
            _ => None,
        }
    }

    /// The current value as a plain non-negative integer (`0`, or digits
    /// without a leading zero, not followed by a fraction or an exponent)
    /// that fits in a u64, consumed; `None` for any other value (a negative
    /// or larger number, a float: serde_json decides those).
    #[inline]
    pub fn u64(&mut self) -> Option<u64> {
        let b = self.b;
        let start = self.i;
        let mut i = start;
        let mut v: u64 = 0;
        while let Some(&c) = b.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            i += 1;
        }
        let n = i - start;
        if n == 0 || (n > 1 && b[start] == b'0') || matches!(b.get(i), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.i = i;
        Some(v)
    }

    /// The current value as a string literal, consumed, checked by
    /// [`string`] and kept as written; `None` for any other value or a
    /// malformed string.
    #[inline]
    pub fn string(&mut self) -> Option<RawStr<'a>> {
        let b = self.b;
        if b.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i + 1;
        let (e, escaped) = string(b, start)?;
        self.i = e;
        Some(RawStr {
            raw: &b[start..e - 1],
            start,
            escaped,
        })
    }

    /// Where the cursor is (the current value's start after
    /// [`Obj::next_key`], the index after `}` at the end).
    #[inline]
    pub fn pos(&self) -> usize {
        self.i
    }

    /// Move the cursor past a value parsed elsewhere.
    #[inline]
    pub fn set_pos(&mut self, i: usize) {
        self.i = i;
    }

    /// Nesting of the members' values.
    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth
    }
}

/// True when only whitespace follows `i`.
pub fn at_end(b: &[u8], i: usize) -> bool {
    ws(b, i) == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> bool {
        let b = s.as_bytes();
        let i = ws(b, 0);
        value(b, i, 1).is_some_and(|e| at_end(b, e))
    }

    /// The vector scan finds what a byte-by-byte search finds, at every
    /// start, for every kind of byte (controls, quote, backslash, high bytes).
    #[test]
    fn next_special_matches_a_plain_search() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..200usize {
            let mut b = vec![0u8; len];
            for x in b.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // mostly plain text, sometimes a special or a high byte
                *x = match seed % 40 {
                    0 => b'"',
                    1 => b'\\',
                    2 => (seed >> 8) as u8 % 0x20,
                    3 => 0x80 | (seed >> 8) as u8,
                    4 => 0x1f,
                    5 => 0x20,
                    _ => b'a' + (seed >> 8) as u8 % 26,
                };
            }
            for i in 0..=len {
                let want = b[i..]
                    .iter()
                    .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
                    .map(|p| i + p);
                assert_eq!(next_special(&b, i), want, "{b:?} from {i}");
            }
        }
    }

    /// `string` one byte at a time: the reference for the block-wise scan.
    fn plain_string(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
        let mut esc = false;
        loop {
            let c = *b.get(i)?;
            match c {
                b'"' => return Some((i + 1, esc)),
                b'\\' => {
                    esc = true;
                    i += escape_len(b, i)?;
                }
                0..=0x1f => return None,
                _ => i += 1,
            }
        }
    }

    /// Strings of up to `tokens` pieces drawn from `alphabet` (the first two
    /// most often), closed by a quote: the block-wise scan agrees with a
    /// byte-at-a-time one from every start, and never accepts what
    /// serde_json refuses.
    fn check_string_scan(alphabet: &[&[u8]], tokens: u64, count: usize) {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..count {
            let mut b = Vec::new();
            for _ in 0..next() % tokens {
                let k = (next() % 40) as usize;
                b.extend_from_slice(alphabet[if k < alphabet.len() { k } else { k % 2 }]);
            }
            b.push(b'"');
            for i in 0..b.len() {
                assert_eq!(
                    string(&b, i),
                    plain_string(&b, i),
                    "{:?} from {i}",
                    String::from_utf8_lossy(&b)
                );
            }
            if let Ok(text) = std::str::from_utf8(&b) {
                let tok = format!("\"{text}");
                let serde = serde_json::from_str::<serde::de::IgnoredAny>(&tok).is_ok();
                let ours = string(tok.as_bytes(), 1).is_some_and(|(e, _)| e == tok.len());
                assert!(
                    !ours || serde,
                    "scanner accepts what serde_json refuses: {tok}"
                );
            }
        }
    }

    /// Strings dense in escapes: escapes across block edges, bad escapes,
    /// controls, short and long (sixteen- and sixty-four-byte blocks).
    #[test]
    fn string_scan_matches_a_plain_scan() {
        let alphabet: &[&[u8]] = &[
            b"a",
            b"b",
            b"\\n",
            b"\\\"",
            b"\\\\",
            b"\\u00e9",
            b"\\uD83D",
            b"\\x",
            b"\\u12",
            b"\x01",
            b"\"",
            b"\xc3\xa9",
            b" ",
            b"\\",
            b"\\t",
            b"\\r",
        ];
        check_string_scan(alphabet, 160, 3000);
    }

    /// Long strings with runs of backslashes of every length (which escape
    /// what follows them only when odd), crossing 64-byte blocks.
    #[test]
    fn backslash_runs_match_a_plain_scan() {
        let alphabet: &[&[u8]] = &[
            b"ab",
            b"cdefghij",
            b"\\",
            b"\\\\\\",
            b"\\\"",
            b"\\n",
            b"\"",
            b"n",
            b"\\\\\\\\\\\\\\\\\\",
        ];
        check_string_scan(alphabet, 120, 1500);
    }

    /// The members of `{…}` with `body` inside, as `next_member` reads
    /// them with the names `a` (0) and `bc` (1) known, each value skipped:
    /// `None` when the scanner is unsure.
    fn members(body: &str) -> Option<Vec<Result<u32, String>>> {
        let known = |rest: &[u8]| match rest {
            [b'a', b'"', ..] => Some((0, 2)),
            [b'b', b'c', b'"', ..] => Some((1, 3)),
            _ => None,
        };
        let line = format!("{{{body}}}");
        let mut o = Obj::open(line.as_bytes(), 0, 0)?;
        let mut got = Vec::new();
        while let Some(k) = o.next_member(known)? {
            got.push(k.map_err(|k| String::from_utf8(k.to_vec()).unwrap()));
            o.skip_value()?;
        }
        at_end(line.as_bytes(), o.pos()).then_some(got)
    }

    /// Known names are matched whole where they stand; any other key
    /// without escapes comes whole (not only ASCII); a key with an escape
    /// or a control byte, or without its colon, makes the scanner unsure.
    #[test]
    fn next_member_matches_known_names_at_the_cursor() {
        assert_eq!(
            members(r#" "a" : 1 , "bc":[2],"ab":3,"b":4,"é":5,"session_long_key_name_past_16":6 "#),
            Some(vec![
                Ok(0),
                Ok(1),
                Err("ab".into()),
                Err("b".into()),
                Err("é".into()),
                Err("session_long_key_name_past_16".into()),
            ])
        );
        assert_eq!(members(""), Some(vec![]));
        // a known name is a duplicate only for next_known_field
        assert_eq!(members(r#""a":1,"a":2"#), Some(vec![Ok(0), Ok(0)]));
        for bad in [
            r#""a\"b":1"#,
            r#""a\u0041":1"#,
            r#""\u0061":1"#,
            r#""a\x":1"#,
            "\"a\tb\":1",
            r#""a" 1"#,
            r#""bc"1"#,
            r#""a":1,"#,
            r#","a":1"#,
            r#""a":1 "b":2"#,
            r#"a:1"#,
            r#""open"#,
        ] {
            assert_eq!(members(bad), None, "{bad}");
        }
    }

    /// Known keys come as their numbers, in order, the others skipped; a
    /// known key given twice makes the scanner unsure: matched by name
    /// (`next_field`) and at the cursor (`next_known_field`) alike.
    #[test]
    fn known_fields_skip_other_keys_and_refuse_duplicates() {
        type Next = fn(&mut Obj<'_>) -> Option<Option<u32>>;
        let by_name: Next = |o| {
            o.next_field(|k| match k {
                b"a" => Some(0),
                b"b" => Some(31),
                _ => None,
            })
        };
        let at_cursor: Next = |o| {
            o.next_known_field(|rest| match rest {
                [b'a', b'"', ..] => Some((0, 2)),
                [b'b', b'"', ..] => Some((31, 2)),
                _ => None,
            })
        };
        for next in [by_name, at_cursor] {
            let line = br#"{"x":[1,{"a":2}],"b":true,"y":null,"ab":{},"a":"s"}"#;
            let mut o = Obj::open(line, 0, 0).unwrap();
            let mut got = Vec::new();
            while let Some(n) = next(&mut o).unwrap() {
                got.push((n, o.skip_value().unwrap().to_vec()));
            }
            assert_eq!(got, [(31, b"true".to_vec()), (0, b"\"s\"".to_vec())]);
            assert!(at_end(line, o.pos()));
            let mut o = Obj::open(br#"{"a":1,"x":0,"a":2}"#, 0, 0).unwrap();
            assert_eq!(next(&mut o), Some(Some(0)));
            assert_eq!(o.u64(), Some(1));
            assert_eq!(next(&mut o), None);
        }
        // a number past the bits kept is refused, not wrapped
        let mut o = Obj::open(br#"{"a":1}"#, 0, 0).unwrap();
        assert_eq!(o.next_field(|_| Some(32)), None);
        let mut o = Obj::open(br#"{"a":1}"#, 0, 0).unwrap();
        assert_eq!(o.next_known_field(|_| Some((32, 2))), None);
    }

    /// The cursor on the value of `line`'s first member, whose key is `k`.
    fn at_value(line: &str) -> Obj<'_> {
        let mut o = Obj::open(line.as_bytes(), 0, 0).unwrap();
        assert_eq!(o.next_key(), Some(Some(&b"k"[..])), "{line}");
        o
    }

    /// Integers are read only when plain and in range; the object goes on
    /// after them.
    #[test]
    fn u64_reads_plain_integers_only() {
        for (v, want) in [
            ("0", Some(0)),
            ("42", Some(42)),
            ("18446744073709551615", Some(u64::MAX)),
        ] {
            let line = format!(r#"{{"k": {v} }}"#);
            let mut o = at_value(&line);
            assert_eq!(o.u64(), want, "{v}");
            assert_eq!(o.next_key(), Some(None), "{v}");
        }
        for v in [
            "",
            "-1",
            "01",
            "1.0",
            "1e3",
            "1E3",
            "18446744073709551616",
            "x",
            "\"1\"",
        ] {
            let line = format!(r#"{{"k":{v}}}"#);
            assert_eq!(at_value(&line).u64(), None, "{v}");
        }
    }

    /// `null`, `true` and `false` are read whole; any other word is refused,
    /// and `null` leaves any other value unread.
    #[test]
    fn null_and_bool_read_whole_words() {
        let mut o = at_value(r#"{"k":null}"#);
        assert_eq!(o.null(), Some(true));
        assert_eq!(o.next_key(), Some(None));
        let mut o = at_value(r#"{"k":true}"#);
        assert_eq!(o.null(), Some(false));
        assert_eq!(o.bool(), Some(true));
        assert_eq!(o.next_key(), Some(None));
        let mut o = at_value(r#"{"k":false}"#);
        assert_eq!(o.bool(), Some(false));
        assert_eq!(o.next_key(), Some(None));
        assert_eq!(at_value(r#"{"k":nul}"#).null(), None);
        assert_eq!(at_value(r#"{"k":"null"}"#).null(), Some(false));
        assert_eq!(at_value(r#"{"k":tru}"#).bool(), None);
        assert_eq!(at_value(r#"{"k":null}"#).bool(), None);
        assert_eq!(at_value(r#"{"k":1}"#).bool(), None);
        // a word running on is refused by what reads next
        let mut o = at_value(r#"{"k":nullx}"#);
        assert_eq!(o.null(), Some(true));
        assert_eq!(o.next_key(), None);
    }

    /// A string is kept as written, with where it starts and whether it
    /// holds escapes (and a `\u`); anything else is refused.
    #[test]
    fn string_keeps_the_literal() {
        let line = r#"{"k": "tab\there é \\u0041"}"#;
        let mut o = at_value(line);
        let r = o.string().unwrap();
        assert_eq!(r.raw, r#"tab\there é \\u0041"#.as_bytes());
        assert_eq!(r.of(line), r#"tab\there é \\u0041"#);
        assert_eq!(r.start, 7);
        assert!(r.escaped && r.has_u_escape());
        assert_eq!(o.next_key(), Some(None));
        let line = r#"{"k":"plain"}"#;
        let r = at_value(line).string().unwrap();
        assert_eq!(
            (r.of(line), r.escaped, r.has_u_escape()),
            ("plain", false, false)
        );
        let r = at_value(r#"{"k":"a\nb"}"#).string().unwrap();
        assert!(r.escaped && !r.has_u_escape());
        for v in ["1", "null", r#""a\x""#, "\"a\u{1}\"", r#""open"#] {
            let line = format!(r#"{{"k":{v}}}"#);
            assert_eq!(at_value(&line).string(), None, "{v}");
        }
    }

    /// A member's object value is read by a cursor of its own; the outer
    /// one goes on after it.
    #[test]
    fn object_reads_a_nested_object() {
        let line = br#"{"k": { "a" : [1], "b":"x" } , "z":2}"#;
        let mut o = Obj::open(line, 0, 0).unwrap();
        o.next_key().unwrap();
        let mut m = o.object().unwrap();
        assert_eq!(m.depth(), 2);
        assert_eq!(m.next_key(), Some(Some(&b"a"[..])));
        assert_eq!(m.skip_value(), Some(&b"[1]"[..]));
        assert_eq!(m.next_key(), Some(Some(&b"b"[..])));
        assert_eq!(m.string().map(|s| s.raw), Some(&b"x"[..]));
        assert_eq!(m.next_key(), Some(None));
        o.set_pos(m.pos());
        assert_eq!(o.next_key(), Some(Some(&b"z"[..])));
        assert_eq!(o.u64(), Some(2));
        assert_eq!(o.next_key(), Some(None));
        assert!(at_end(line, o.pos()));
        assert!(at_value(r#"{"k":[]}"#).object().is_none());
        assert!(at_value(r#"{"k":"{}"}"#).object().is_none());
    }

    /// Values nest 100 levels below the members' depth, which
    /// `with_depth` sets; an array or object deeper is refused.
    #[test]
    fn with_depth_sets_how_deep_values_nest() {
        let nested = |n: usize| format!(r#"{{"k":{}{}}}"#, "[".repeat(n), "]".repeat(n));
        let skip = |line: &str, depth: Option<u32>| {
            let mut o = Obj::open(line.as_bytes(), 0, 0).unwrap();
            if let Some(d) = depth {
                o = o.with_depth(d);
            }
            o.next_key().unwrap();
            o.skip_value().is_some()
        };
        assert!(skip(&nested(99), None));
        assert!(!skip(&nested(100), None));
        assert!(skip(&nested(100), Some(0)));
        assert!(!skip(&nested(101), Some(0)));
        assert!(skip(&nested(90), Some(10)));
        assert!(!skip(&nested(91), Some(10)));
    }

    /// The scanner never accepts what serde_json refuses.
    #[test]
    fn accepts_a_subset_of_serde_json() {
        let cases = [
            r#"{"a":[1,-0.5e+3,true,false,null,"x\"\\\/\b\f\n\r\t\u00e9"],"b":{}}"#,
            r#" { "a" : [ ] , "b" : { "c" : 0 } } "#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":1e}"#,
            r#"{"a":-}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":1,}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12g4"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":tru}"#,
            r#"{"a" 1}"#,
            r#"{1:1}"#,
            r#"{"a":1}x"#,
            r#"{"a":"é"}"#,
            r#"{"a":[[[[]]]]}"#,
            r#"{"a":+1}"#,
            r#"{"a":.5}"#,
            r#"{"a":"unterminated}"#,
            "{\"a\":1\u{c}}",
            "  {\"a\" :\t\"x\" }  ",
            r#"{"a": "open}"#,
            r#"["a""#,
        ];
        for c in cases {
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(c).is_ok();
            assert!(
                !ok(c) || serde,
                "scanner accepts what serde_json refuses: {c}"
            );
            if !c.contains(r#"\x"#) && serde {
                assert!(ok(c), "scanner refuses valid JSON: {c}");
            }
        }
        let deep = format!("{}{}", "[".repeat(120), "]".repeat(120));
        assert!(!ok(&deep));
    }
}
