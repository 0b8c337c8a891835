//! Opening transcripts: files, stdin and zstd-compressed files (`.zst`, as
//! Codex archives its rollouts), both spooled to a temporary file so they
//! can be re-read by offset; the positioned line reader of the second pass,
//! and the format sniffing of `--from auto`.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use mem_core::Error;
use mem_core::jsonl::{LineReader, Warning, parse_lossy, sanitize};
use serde::Deserialize;

/// An opened transcript: a seekable file and the label used in messages.
#[derive(Debug)]
pub struct Input {
    /// The file (stdin is spooled to an anonymous temporary file).
    pub file: File,
    /// The name given on the command line, or `<stdin>`.
    pub label: String,
    /// File size in bytes.
    pub size: u64,
}

/// A directory given as a transcript file: [`Error::Io`] of kind
/// `IsADirectory`, `PATH: is a directory, not a transcript file`.
pub fn is_a_directory(path: &Path) -> Error {
    Error::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory, not a transcript file",
        ),
    )
}

impl Input {
    /// Open `path` (`-` = stdin; a name ending in `.zst` is decompressed,
    /// [`Input::zstd`]). Errors: [`Error::Io`] naming the file when it is
    /// missing or unreadable or a directory ([`is_a_directory`]), those of
    /// [`Input::zstd`].
    pub fn open(path: &Path) -> Result<Input, Error> {
        if path.as_os_str() == "-" {
            return Input::stdin();
        }
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(is_a_directory(path));
        }
        if path.extension().is_some_and(|e| e == "zst") {
            return Input::zstd(path);
        }
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(Input {
            file,
            label: path.display().to_string(),
            size: meta.len(),
        })
    }

    /// Decompress the zstd file at `path` into an anonymous temporary file
    /// (so it is read by offset like any transcript; offsets and sizes are
    /// those of the decompressed text). Every frame is read in turn and
    /// skippable frames are passed over; the frames' content checksums are
    /// not verified.
    ///
    /// Errors: [`Error::Io`] naming the file when it cannot be read or the
    /// temporary file cannot be written; [`Error::Input`] naming the file
    /// when its bytes are not zstd data (a wrong magic number, a cut or
    /// corrupt frame), with what the decoder said.
    pub fn zstd(path: &Path) -> Result<Input, Error> {
        use ruzstd::decoding::StreamingDecoder;
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        use std::io::BufRead;
        let label = path.display().to_string();
        let bad = |what: String| Error::input(&label, 0, format!("not zstd data: {what}"));
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let mut src = std::io::BufReader::new(file);
        let mut tmp = tempfile::tempfile().map_err(|e| Error::io("<temporary file>", e))?;
        let mut size = 0u64;
        while !src.fill_buf().map_err(|e| Error::io(path, e))?.is_empty() {
            match StreamingDecoder::new(&mut src) {
                Ok(mut frame) => {
                    // the decoder's errors come as io errors of its read
                    let mut out = std::io::BufWriter::new(&mut tmp);
                    size += std::io::copy(&mut frame, &mut out).map_err(|e| {
                        if e.kind() == std::io::ErrorKind::Other {
                            bad(e.to_string())
                        } else {
                            Error::io("<temporary file>", e)
                        }
                    })?;
                    out.flush().map_err(|e| Error::io("<temporary file>", e))?;
                }
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped = std::io::copy(
                        &mut (&mut src).take(u64::from(length)),
                        &mut std::io::sink(),
                    )
                    .map_err(|e| Error::io(path, e))?;
                    if skipped < u64::from(length) {
                        return Err(bad("a skippable frame is cut short".into()));
                    }
                }
                Err(e) => return Err(bad(e.to_string())),
            }
        }
        Ok(Input {
            file: tmp,
            label,
            size,
        })
    }

    /// Spool stdin to a temporary file. Errors: [`Error::Io`].
    pub fn stdin() -> Result<Input, Error> {
        let mut tmp = tempfile::tempfile().map_err(|e| Error::io("<stdin>", e))?;
        let mut stdin = std::io::stdin().lock();
        let size = std::io::copy(&mut stdin, &mut tmp).map_err(|e| Error::io("<stdin>", e))?;
        Ok(Input {
            file: tmp,
            label: "<stdin>".into(),
            size,
        })
    }

    /// A fresh line reader from the start of the file.
    pub fn lines(&self) -> Result<LineReader<&File>, Error> {
        let mut f = &self.file;
        f.seek(SeekFrom::Start(0))
            .map_err(|e| Error::io(&self.label, e))?;
        Ok(LineReader::with_capacity(&self.file, read_size(self.size)))
    }

    /// A line reader over the bytes `[start, end)` only (positioned reads, so
    /// several can work on one file at once). Line numbers and offsets it
    /// gives are relative to `start`.
    pub fn lines_in(&self, start: u64, end: u64) -> LineReader<Range<'_>> {
        LineReader::with_capacity(
            Range {
                file: &self.file,
                pos: start,
                end,
            },
            read_size(end.saturating_sub(start)),
        )
    }

    /// Cut the file into at most `parts` ranges of whole lines: the returned
    /// offsets start with 0 and end with the size; each inner cut is just
    /// after a `\n`. Fewer ranges when lines are longer than a range.
    ///
    /// Errors: [`Error::Io`] naming the file.
    pub fn cuts(&self, parts: usize) -> Result<Vec<u64>, Error> {
        let mut cuts = vec![0u64];
        let mut buf = vec![0u8; 64 * 1024];
        for k in 1..parts.max(1) as u64 {
            let mut at = (self.size * k / parts as u64).max(*cuts.last().unwrap_or(&0));
            // The cut goes after the first `\n` at or after `at - 1`, so a
            // line that ends exactly before `at` is not split again.
            at = at.saturating_sub(1);
            let cut = loop {
                if at >= self.size {
                    break None;
                }
                let n = read_at_full(&self.file, &mut buf, at)
                    .map_err(|e| Error::io(&self.label, e))?;
                if n == 0 {
                    break None;
                }
                if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                    break Some(at + i as u64 + 1);
                }
                at += n as u64;
            };
            match cut {
                Some(c) if c < self.size && c > *cuts.last().unwrap_or(&0) => cuts.push(c),
                Some(_) => {}
                None => break,
            }
        }
        cuts.push(self.size);
        Ok(cuts)
    }
}

/// The read buffer for `len` bytes of input: all of it (and one more, to
/// see the end) up to [`mem_core::jsonl::READ_CHUNK`].
fn read_size(len: u64) -> usize {
    usize::try_from(len.saturating_add(1)).map_or(mem_core::jsonl::READ_CHUNK, |n| {
        n.min(mem_core::jsonl::READ_CHUNK)
    })
}

/// Fill `buf` from `off` with positioned reads; the bytes read (fewer only
/// at the end of the file).
pub(crate) fn read_at_full(file: &File, buf: &mut [u8], off: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], off + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A [`Read`] over a byte range of a file by positioned reads (the file's
/// own cursor is never moved).
#[derive(Debug)]
pub struct Range<'f> {
    file: &'f File,
    pos: u64,
    end: u64,
}

impl Read for Range<'_> {
    /// Errors: the read error; `UnexpectedEof` ([`shrank`]) when the file
    /// ends before the range does.
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.end.saturating_sub(self.pos);
        let want = (buf.len() as u64).min(left) as usize;
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        if n == 0 {
            return Err(shrank());
        }
        self.pos += n as u64;
        Ok(n)
    }
}

/// The error of a file that became shorter than it was when opened (only
/// appends are expected while a session is read).
pub fn shrank() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "the file became shorter while it was read (was it truncated or rewritten?)",
    )
}

/// Reads byte ranges of a file by offset through one window buffer, so a
/// branch read in file order costs a few large reads. Memory: the longest
/// line requested or 1 MiB, whichever is larger.
pub struct Window<'f> {
    file: &'f File,
    buf: Vec<u8>,
    start: u64,
    filled: usize,
    /// The file's size, read at the first miss.
    size: Option<u64>,
}

const WINDOW: usize = 1 << 20;

impl<'f> Window<'f> {
    /// A window over `file`.
    pub fn new(file: &'f File) -> Self {
        Window {
            file,
            buf: Vec::new(),
            start: 0,
            filled: 0,
            size: None,
        }
    }

    /// The bytes `[off, off + len)` (fewer at end of file).
    pub fn get(&mut self, off: u64, len: usize) -> std::io::Result<&[u8]> {
        let inside = off >= self.start && off + len as u64 <= self.start + self.filled as u64;
        if !inside {
            // a window past the end of the file would only be cleared memory
            let size = *self
                .size
                .get_or_insert_with(|| self.file.metadata().map_or(u64::MAX, |m| m.len()));
            let left = usize::try_from(size.saturating_sub(off)).unwrap_or(usize::MAX);
            let want = len.max(WINDOW.min(left));
            if self.buf.len() < want {
                self.buf.resize(want, 0);
            }
            let got = read_at_full(self.file, &mut self.buf[..want], off)?;
            self.start = off;
            self.filled = got;
        }
        let s = (off - self.start) as usize;
        let e = (s + len).min(self.filled);
        Ok(&self.buf[s..e])
    }
}

/// The clean form of a raw line (as the line reader gives it): without its
/// `\n`, one `\r` and NUL bytes.
pub fn clean_line(raw: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut l = raw.strip_suffix(b"\n").unwrap_or(raw);
    l = l.strip_suffix(b"\r").unwrap_or(l);
    if memchr::memchr(0, l).is_some() {
        std::borrow::Cow::Owned(l.iter().copied().filter(|&b| b != 0).collect())
    } else {
        std::borrow::Cow::Borrowed(l)
    }
}

/// The warning's reason for an entry read from its U+FFFD copy
/// ([`mem_core::jsonl::parse_lossy`]).
pub const LOSSY: &str = "invalid UTF-8 read as U+FFFD";

/// The warning for line `line` of `file` that is not an entry and is
/// skipped: `torn last line skipped (…)` when it has no newline (the
/// writer was cut short), else `malformed line skipped (…)`.
pub fn skipped_line(file: &str, line: usize, terminated: bool, err: &str) -> Warning {
    let what = if terminated {
        "malformed line skipped"
    } else {
        "torn last line skipped"
    };
    Warning {
        file: file.to_string(),
        line,
        reason: format!("{what} ({err})"),
    }
}

/// The warning for line `line` of `file`, read from its U+FFFD copy
/// ([`LOSSY`]).
pub fn lossy_line(file: &str, line: usize) -> Warning {
    Warning {
        file: file.to_string(),
        line,
        reason: LOSSY.to_string(),
    }
}

/// The warning for line `line` of `file`, whose record was recovered after
/// a torn stub of `stub` bytes.
pub fn recovered_line(file: &str, line: usize, stub: usize) -> Warning {
    Warning {
        file: file.to_string(),
        line,
        reason: format!("torn stub of {stub} bytes before a record; record recovered"),
    }
}

/// Which agent wrote a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Claude Code session JSONL.
    Claude,
    /// Codex CLI rollout.
    Codex,
}

impl Source {
    /// `claude` or `codex`, as in the event's `source`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Claude => "claude",
            Source::Codex => "codex",
        }
    }
}

#[derive(Deserialize)]
struct Sniff<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    payload: Option<serde::de::IgnoredAny>,
}

/// Guess the format from the file name (`rollout-*.jsonl` is Codex) and the
/// first parseable lines (`{timestamp, type, payload}` is Codex).
pub fn sniff(input: &Input) -> Result<Source, Error> {
    if Path::new(&input.label)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("rollout-"))
    {
        return Ok(Source::Codex);
    }
    let mut rd = input.lines()?;
    let mut seen = 0;
    while let Some(line) = rd.next_line().map_err(|e| Error::io(&input.label, e))? {
        let clean = sanitize(line.bytes);
        let mut copy = None;
        if let Ok((s, _, _)) = parse_lossy(&clean, &mut copy, serde_json::from_slice::<Sniff>) {
            seen += 1;
            let codexy = matches!(
                s.ty.as_deref(),
                Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
            );
            if codexy && s.payload.is_some() {
                return Ok(Source::Codex);
            }
            if s.ty.is_some() {
                return Ok(Source::Claude);
            }
        }
        if seen >= 16 || line.no >= 64 {
            break;
        }
    }
    Ok(Source::Claude)
}

/// A 128-bit key for an id string: the value of a canonical UUID, else a
/// BLAKE3 digest prefix (ids that are not UUIDs are rare; a collision of a
/// digest with a UUID is as unlikely as a UUID collision).
pub fn key(uuid: &str) -> u128 {
    parse_uuid(uuid).unwrap_or_else(|| {
        let h = blake3::hash(uuid.as_bytes());
        let mut b = [0u8; 16];
        b.copy_from_slice(&h.as_bytes()[..16]);
        u128::from_le_bytes(b)
    })
}

fn parse_uuid(s: &str) -> Option<u128> {
    let b = s.as_bytes();
    if b.len() != 36 {
        return None;
    }
    let mut v: u128 = 0;
    for (i, &c) in b.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return None;
            }
            continue;
        }
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = v << 4 | u128::from(d);
    }
    Some(v)
}

/// The error for a file none of whose `lines` lines is a JSON object:
/// names the file and the first bad line with its reason.
pub fn not_a_transcript(label: &str, lines: usize, first: (usize, String)) -> Error {
    let (line, reason) = first;
    Error::input(
        label,
        line,
        format!("not a transcript: none of its {lines} lines is a JSON object ({reason})"),
    )
}

/// Read a whole (small) file as bytes, for sidecar and hook input.
/// Errors: [`Error::Io`] naming the file.
pub fn read_small(mut r: impl Read, label: &str) -> Result<Vec<u8>, Error> {
    let mut v = Vec::new();
    r.read_to_end(&mut v).map_err(|e| Error::io(label, e))?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_keys_are_exact() {
        let a = key("11111111-1111-4111-8111-000000000001");
        let b = key("11111111-1111-4111-8111-000000000002");
        assert_ne!(a, b);
        assert_eq!(a, key("11111111-1111-4111-8111-000000000001"));
        assert_ne!(key("msg_1"), key("msg_2"));
    }

    /// A small input gets a buffer of its own size (plus one byte to see
    /// the end), a large one a read chunk.
    #[test]
    fn read_buffers_fit_small_inputs() {
        assert_eq!(read_size(0), 1);
        assert_eq!(read_size(10), 11);
        assert_eq!(read_size(u64::MAX), mem_core::jsonl::READ_CHUNK);
        assert_eq!(read_size(1 << 40), mem_core::jsonl::READ_CHUNK);
    }

    #[test]
    fn clean_line_strips_terminators() {
        assert_eq!(&*clean_line(b"ab\r\n"), b"ab");
        assert_eq!(&*clean_line(b"a\0b\n"), b"ab");
        assert_eq!(&*clean_line(b"ab"), b"ab");
    }
}
