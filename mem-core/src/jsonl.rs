//! JSONL input: the byte-line reader of docs/transcripts.md "Reading rules" and the
//! strict reader for the record streams between mem's own tools.
//!
//! Transcripts are written by agents, possibly mid-crash, so [`LineReader`]
//! reads bytes (never a whole-file `read_to_string`), splits on `\n` only
//! (never on U+2028/U+2029), drops one trailing `\r`, strips NUL runs, has no
//! line-length limit and holds at most the longest line plus one read buffer.
//! [`sanitize`] replaces unpaired UTF-16 surrogate escapes with `\ufffd`
//! before serde_json sees the line (case B05), and [`parse_recovering`]
//! recovers a torn stub glued before a complete record.

use std::borrow::Cow;
use std::io::Read;

use serde::de::DeserializeOwned;

use crate::error::Error;

/// Read size of the line reader, in bytes.
pub const READ_CHUNK: usize = 1 << 20;

/// One line of input, borrowed from the reader's buffer.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// 1-based line number in the file.
    pub no: usize,
    /// Byte offset of the line's start in the file.
    pub offset: u64,
    /// The line without its `\n`, one trailing `\r` and NUL bytes.
    pub bytes: &'a [u8],
    /// False for a last line that ends without `\n` (possibly torn).
    pub terminated: bool,
}

/// A streaming byte-line reader over any `Read` (see module docs).
///
/// Memory: one buffer that grows to the longest line (plus [`READ_CHUNK`]).
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    no: usize,
    offset: u64,
    scratch: Vec<u8>,
}

impl<R: Read> LineReader<R> {
    /// A reader over `inner` ([`READ_CHUNK`] bytes a read).
    pub fn new(inner: R) -> Self {
        Self::with_capacity(inner, READ_CHUNK)
    }

    /// A reader whose buffer starts at `cap` bytes (at least 1; it grows to
    /// the longest line): for input known to be small, whose reader need
    /// not allocate and clear a whole [`READ_CHUNK`].
    pub fn with_capacity(inner: R, cap: usize) -> Self {
        LineReader {
            inner,
            buf: vec![0; cap.max(1)],
            start: 0,
            end: 0,
            eof: false,
            no: 0,
            offset: 0,
            scratch: Vec::new(),
        }
    }

    /// The next line, or `None` at the end of input. An empty input yields no
    /// line; a final `\n` does not make an extra empty line.
    ///
    /// Errors: the underlying read error.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line<'_>>> {
        let mut search_from = self.start;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[search_from..self.end]) {
                let nl = search_from + i;
                let (s, e) = (self.start, nl);
                self.start = nl + 1;
                return Ok(Some(self.emit(s, e, true)));
            }
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let (s, e) = (self.start, self.end);
                self.start = self.end;
                return Ok(Some(self.emit(s, e, false)));
            }
            // Need more bytes: compact, grow when the line fills the buffer.
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            search_from = self.end;
            if self.end == self.buf.len() {
                let new_len = self.buf.len() * 2;
                self.buf.resize(new_len, 0);
            }
            let n = loop {
                match self.inner.read(&mut self.buf[self.end..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if n == 0 {
                self.eof = true;
            }
            self.end += n;
        }
    }

    fn emit(&mut self, s: usize, e: usize, terminated: bool) -> Line<'_> {
        self.no += 1;
        let offset = self.offset;
        self.offset += (e - s) as u64 + u64::from(terminated);
        let mut line = &self.buf[s..e];
        if let Some(stripped) = line.strip_suffix(b"\r") {
            line = stripped;
        }
        let bytes: &[u8] = if memchr::memchr(0, line).is_some() {
            self.scratch.clear();
            self.scratch
                .extend(line.iter().copied().filter(|&b| b != 0));
            &self.scratch
        } else {
            line
        };
        Line {
            no: self.no,
            offset,
            bytes,
            terminated,
        }
    }
}

/// True when `line` holds the bytes `\\u` (a JSON unicode escape, or an
/// escaped backslash before a `u`): one vector search, its searcher built
/// once per process.
pub fn has_u_escape(line: &[u8]) -> bool {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
    FINDER.find(line).is_some()
}

/// Replace each unpaired UTF-16 surrogate escape (`\ud83d` not followed by a
/// low escape, or a lone low escape) with `\ufffd`. Escaped backslashes are
/// respected (`\\ud83d` is text, not an escape). Borrowed when nothing changes.
pub fn sanitize(line: &[u8]) -> Cow<'_, [u8]> {
    // Fast path: no `\u` at all (the `\U` searcher, like `\u`'s, built
    // once per process).
    static UPPER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\U"));
    if !has_u_escape(line) && UPPER.find(line).is_none() {
        return Cow::Borrowed(line);
    }
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    let mut copied = 0;
    while let Some(rel) = memchr::memchr(b'\\', &line[i..]) {
        let p = i + rel;
        if p + 1 >= line.len() {
            break;
        }
        if line[p + 1] != b'u' {
            i = p + 2;
            continue;
        }
        let Some(unit) = hex4(line, p + 2) else {
            i = p + 2;
            continue;
        };
        let is_high = (0xD800..0xDC00).contains(&unit);
        let is_low = (0xDC00..0xE000).contains(&unit);
        if is_high {
            let paired = line.get(p + 6..p + 8) == Some(b"\\u")
                && hex4(line, p + 8).is_some_and(|u| (0xDC00..0xE000).contains(&u));
            if paired {
                i = p + 12;
                continue;
            }
        }
        if is_high || is_low {
            let o = out.get_or_insert_with(|| Vec::with_capacity(line.len()));
            o.extend_from_slice(&line[copied..p]);
            o.extend_from_slice(b"\\ufffd");
            copied = p + 6;
        }
        i = p + 6;
    }
    match out {
        None => Cow::Borrowed(line),
        Some(mut o) => {
            o.extend_from_slice(&line[copied..]);
            Cow::Owned(o)
        }
    }
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let h = b.get(at..at + 4)?;
    let s = std::str::from_utf8(h).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// Most recovery attempts per bad line (each a parse of a suffix).
const MAX_RECOVERY_TRIES: usize = 64;

/// Parse one line with `parse`; when it fails, look for a later `{"` that
/// starts a suffix which parses (a torn stub glued to the next record).
///
/// Returns the value and the byte offset where the recovered record starts
/// (0 when the whole line parsed). Errors: the first parse error when nothing
/// could be recovered.
pub fn parse_recovering<'a, T, E>(
    line: &'a [u8],
    mut parse: impl FnMut(&'a [u8]) -> Result<T, E>,
) -> Result<(T, usize), E> {
    let first = match parse(line) {
        Ok(v) => return Ok((v, 0)),
        Err(e) => e,
    };
    let finder = memchr::memmem::Finder::new(b"{\"");
    let mut from = 1;
    for _ in 0..MAX_RECOVERY_TRIES {
        let Some(rel) = line.get(from..).and_then(|rest| finder.find(rest)) else {
            break;
        };
        let at = from + rel;
        if let Ok(v) = parse(&line[at..]) {
            return Ok((v, at));
        }
        from = at + 1;
    }
    Err(first)
}

/// `line` with each invalid UTF-8 sequence replaced by U+FFFD, the way a
/// JavaScript reader (Claude Code's resume) decodes a transcript; `None`
/// when the line is UTF-8 already.
pub fn lossy_utf8(line: &[u8]) -> Option<Vec<u8>> {
    match String::from_utf8_lossy(line) {
        Cow::Borrowed(_) => None,
        Cow::Owned(s) => Some(s.into_bytes()),
    }
}

/// [`parse_recovering`]; when the line fails and is not UTF-8, the same on
/// its [`lossy_utf8`] copy (kept in `copy`, which the value may borrow), so
/// one bad byte loses one character, not the entry.
///
/// Returns the value, the offset of the recovered record and whether the
/// copy was read. Errors: the line's own parse error (its columns are the
/// file's), also when the copy fails too.
pub fn parse_lossy<'a, T, E>(
    line: &'a [u8],
    copy: &'a mut Option<Vec<u8>>,
    mut parse: impl FnMut(&'a [u8]) -> Result<T, E>,
) -> Result<(T, usize, bool), E> {
    let err = match parse_recovering(line, &mut parse) {
        Ok((v, at)) => return Ok((v, at, false)),
        Err(e) => e,
    };
    let Some(fixed) = lossy_utf8(line) else {
        return Err(err);
    };
    let fixed: &'a [u8] = copy.insert(fixed);
    parse_recovering(fixed, parse)
        .map(|(v, at)| (v, at, true))
        .map_err(|_| err)
}

/// A warning about a transcript line: printed as `FILE:LINE: reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file (as given), or `<stdin>`.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What was wrong and what was done.
    pub reason: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.reason)
    }
}

/// Short description of a serde_json error for a warning: the message
/// without serde's "at line 1 column N" suffix, plus the column.
pub fn describe(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    match msg.rfind(" at line ") {
        Some(i) => format!("{} (column {})", &msg[..i], e.column()),
        None => msg,
    }
}

/// Visit the records of a stream between mem's own tools: one JSON object
/// per line, blank lines ignored, each line cleaned by [`sanitize`] and
/// handed to `f` with its 1-based number. `f` parses it and returns the
/// reason when the record is bad. Unlike transcripts, a bad record is an
/// error: every one is returned (as [`Error::Input`] naming `name` and the
/// line), and a last line without `\n` (a truncated upstream) is an error
/// that ends the read. An I/O error is returned as the last error.
pub fn for_each_record(
    input: impl Read,
    name: &str,
    mut f: impl FnMut(usize, &[u8]) -> Result<(), String>,
) -> Vec<Error> {
    let mut rd = LineReader::new(input);
    let mut errs = Vec::new();
    loop {
        let line = match rd.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                errs.push(Error::io(name, e));
                break;
            }
        };
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if !line.terminated {
            errs.push(Error::input(
                name,
                line.no,
                "last line has no newline (truncated input?); batch refused",
            ));
            break;
        }
        if let Err(reason) = f(line.no, &sanitize(line.bytes)) {
            errs.push(Error::input(name, line.no, reason));
        }
    }
    errs
}

/// Read a stream of records between mem's own tools into values (see
/// [`for_each_record`] for the rules), so a writer can refuse the batch or,
/// with `--skip-invalid`, write the valid ones.
///
/// Returns `(records with their line numbers, errors)`.
pub fn read_records<T: DeserializeOwned>(
    input: impl Read,
    name: &str,
) -> (Vec<(usize, T)>, Vec<Error>) {
    let mut ok = Vec::new();
    let errs = for_each_record(input, name, |no, bytes| {
        let v = serde_json::from_slice::<T>(bytes).map_err(|e| describe(&e))?;
        ok.push((no, v));
        Ok(())
    });
    (ok, errs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lossy_copy_only_when_not_utf8() {
        assert_eq!(lossy_utf8("caf\u{e9} \u{1f525}".as_bytes()), None);
        assert_eq!(
            lossy_utf8(b"a\xffb\xe2\x82"),
            Some("a\u{FFFD}b\u{FFFD}".as_bytes().to_vec())
        );
    }

    #[test]
    fn parse_lossy_reads_the_copy_and_says_so() {
        #[derive(serde::Deserialize)]
        struct T<'a> {
            #[serde(borrow)]
            t: std::borrow::Cow<'a, str>,
        }
        let mut copy = None;
        let (v, at, lossy) =
            parse_lossy(br#"{"t":"ok"}"#, &mut copy, serde_json::from_slice::<T>).unwrap();
        assert_eq!((&*v.t, at, lossy), ("ok", 0, false));
        assert!(copy.is_none());
        // a torn stub glued before a record with a bad byte: both at once
        let line = b"{\"t\":\"cut{\"t\":\"x\xffy\"}";
        let (v, at, lossy) = parse_lossy(line, &mut copy, serde_json::from_slice::<T>).unwrap();
        assert_eq!((&*v.t, at, lossy), ("x\u{FFFD}y", 9, true));
        // still broken after the copy (torn inside a character): the
        // line's own error, its column counted in the line's bytes
        let mut copy = None;
        let line = b"{\"t\":\"ab\xe2\x80";
        let e = parse_lossy(line, &mut copy, serde_json::from_slice::<T>)
            .err()
            .unwrap();
        let own = serde_json::from_slice::<T>(line).err().unwrap();
        assert_eq!((e.column(), e.to_string()), (own.column(), own.to_string()));
        assert_eq!(e.column(), line.len());
    }

    #[test]
    fn u_escape_search() {
        assert!(has_u_escape(br#"{"t":"caf\u00e9"}"#));
        assert!(has_u_escape(br#"\u"#));
        // an escaped backslash before `u` counts too (sanitize tells them apart)
        assert!(has_u_escape(br#"{"p":"C:\\users"}"#));
        assert!(!has_u_escape(br#"{"t":"a\nu \\ u\"u"}"#));
        assert!(!has_u_escape(b""));
        assert!(!has_u_escape(b"\\"));
    }

    fn lines(input: &[u8]) -> Vec<(usize, Vec<u8>, bool)> {
        let mut r = LineReader::new(input);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.no, l.bytes.to_vec(), l.terminated));
        }
        out
    }

    #[test]
    fn splits_on_newline_only() {
        let got = lines("a\u{2028}b\r\nc\0\0d\n\ne".as_bytes());
        assert_eq!(
            got,
            vec![
                (1, "a\u{2028}b".as_bytes().to_vec(), true),
                (2, b"cd".to_vec(), true),
                (3, b"".to_vec(), true),
                (4, b"e".to_vec(), false),
            ]
        );
        assert!(lines(b"").is_empty());
        assert_eq!(lines(b"x\n").len(), 1);
    }

    #[test]
    fn lines_longer_than_the_buffer() {
        let big = "x".repeat(READ_CHUNK * 3 + 17);
        let input = format!("a\n{big}\nb");
        let got = lines(input.as_bytes());
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].1.len(), big.len());
        assert_eq!(got[2], (3, b"b".to_vec(), false));
    }

    #[test]
    fn offsets_count_bytes() {
        let mut r = LineReader::new(&b"ab\r\ncd\n"[..]);
        assert_eq!(r.next_line().unwrap().unwrap().offset, 0);
        assert_eq!(r.next_line().unwrap().unwrap().offset, 4);
    }

    /// B05: a lone high surrogate escape becomes U+FFFD; pairs stay.
    #[test]
    fn b05_surrogates() {
        let line = br#"{"t":"x \ud83d\u2026 \ud83d\udfe2 \udfe2 \\ud83d"}"#;
        let fixed = sanitize(line);
        let v: serde_json::Value = serde_json::from_slice(&fixed).unwrap();
        assert_eq!(v["t"], "x \u{FFFD}\u{2026} \u{1F7E2} \u{FFFD} \\ud83d");
        assert!(matches!(sanitize(br#"{"a":"\u00e9"}"#), Cow::Borrowed(_)));
        // a high escape at the very end
        let v: serde_json::Value = serde_json::from_slice(&sanitize(br#"["\ud83d"]"#)).unwrap();
        assert_eq!(v[0], "\u{FFFD}");
    }

    #[test]
    fn recovers_a_torn_stub_glued_to_a_record() {
        let line = br#"{"type":"user","mess{"type":"assistant","n":2}"#;
        let (v, at) = parse_recovering(line, serde_json::from_slice::<serde_json::Value>).unwrap();
        assert_eq!(v["n"], 2);
        assert_eq!(at, 20);
        assert!(parse_recovering(b"{\"a\":", serde_json::from_slice::<serde_json::Value>).is_err());
    }

    #[test]
    fn strict_records_name_each_bad_line() {
        let input = b"{\"a\":1}\nnot json\n\n{\"a\":2}\n{\"a\":";
        let (ok, errs) = read_records::<serde_json::Value>(&input[..], "<stdin>");
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[1].0, 4);
        let msgs: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].starts_with("<stdin>:2: "), "{msgs:?}");
        assert!(
            msgs[1].starts_with("<stdin>:5: last line has no newline"),
            "{msgs:?}"
        );
    }

    proptest! {
        /// JSONL codec: any list of JSON strings written one per line reads back.
        #[test]
        fn jsonl_round_trip(items in proptest::collection::vec("\\PC{0,30}", 0..20)) {
            let mut buf = Vec::new();
            for s in &items {
                serde_json::to_writer(&mut buf, &serde_json::json!({"s": s})).unwrap();
                buf.push(b'\n');
            }
            let (ok, errs) = read_records::<serde_json::Value>(&buf[..], "t");
            prop_assert!(errs.is_empty());
            let back: Vec<String> = ok.into_iter().map(|(_, v)| v["s"].as_str().unwrap().to_string()).collect();
            prop_assert_eq!(back, items);
        }

        /// The reader never panics and never loses bytes other than `\r`/NUL/`\n`.
        #[test]
        fn reader_keeps_every_byte(data in proptest::collection::vec(any::<u8>(), 0..3000)) {
            let got = lines(&data);
            let kept: usize = got.iter().map(|l| l.1.len()).sum();
            let dropped = data.iter().filter(|&&b| b == 0 || b == b'\n' || b == b'\r').count();
            prop_assert!(kept + dropped >= data.len());
        }

        /// A buffer that starts small grows to the lines: the same lines,
        /// numbers and offsets as the default one.
        #[test]
        fn any_starting_capacity_reads_the_same(data in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(0u8), any::<u8>()], 0..3000), cap in 1usize..64) {
            let mut r = LineReader::with_capacity(&data[..], cap);
            let mut got = Vec::new();
            while let Some(l) = r.next_line().unwrap() {
                got.push((l.no, l.offset, l.bytes.to_vec(), l.terminated));
            }
            let mut r = LineReader::new(&data[..]);
            let mut want = Vec::new();
            while let Some(l) = r.next_line().unwrap() {
                want.push((l.no, l.offset, l.bytes.to_vec(), l.terminated));
            }
            prop_assert_eq!(got, want);
        }

        #[test]
        fn sanitize_output_always_parses_as_a_string(units in proptest::collection::vec(0xD000u32..0xE100, 0..6)) {
            let mut s = String::from("\"");
            for u in units { s.push_str(&format!("\\u{u:04x}")); }
            s.push('"');
            let fixed = sanitize(s.as_bytes());
            prop_assert!(serde_json::from_slice::<String>(&fixed).is_ok());
        }
    }
}
