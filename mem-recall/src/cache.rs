//! The cache file of [`crate::load`]: per topic file of a memory directory,
//! its key (name, mtime, size, change id) and what the gate needs of it (a
//! [`Doc`]), or why it did not parse.
//!
//! Layout: the line [`MAGIC`], then fields, each a number (`DIGITS;`,
//! decimal, at most `u64`) or a string (`LEN:BYTES`, LEN in bytes), then
//! `end`. The whole file is UTF-8, so one validation covers every string;
//! an entry's body is one string, so reading the index skips it unread.
//!
//! ```text
//! file  = version; dir written_ns; count; entry*count "end"
//! entry = file mtime_ns; size; change; body  (sorted by file, unique)
//! body  = "0;" doc md | "1;" error           (as one string)
//! doc   = type; kind; scope; project? triggers trigger_stems paths
//!         expires superseded_by? supersedes retired; source; trust;
//!         terms len; tokens;
//!         (the id is the file name without `.md`; type, kind, scope,
//!         source and trust are the index of the variant, in declaration
//!         order)
//! md    = "0;" | "1;" name rest               (what the hook injects,
//!         see `inject::MdParts`; "0;": the topic file is read instead)
//! x?    = "0;" | "1;" string                 list = count; string*count
//! expires = "0;" (none) | "1;" (never) | "2;" zigzag(days since 0001-01-01);
//! ```
//!
//! Reading leaks the file's bytes: the docs borrow their text from it for
//! the rest of the process (a recall runs once per process).

use std::fmt::Write as _;
use std::path::Path;

use chrono::{Datelike, NaiveDate};
use mem_core::records::{Expires, Kind, MemoryType, Scope, Source, Trust};

use crate::gate::{Doc, Text};
use crate::inject::MdParts;

/// Version of the layout; a cache of another version is ignored.
pub const CACHE_VERSION: u64 = 5;

/// The cache file's name inside the memory dir's cache folder.
pub const CACHE_FILE: &str = "recall-v2.cache";

/// Cache files of earlier layouts, removed when a new cache is written.
pub const OLD_CACHE_FILES: &[&str] = &["recall.json"];

/// First line of a cache file.
pub const MAGIC: &str = "mem-recall cache\n";

/// One entry as read: the key, and the body still encoded.
#[derive(Debug, Clone, Copy)]
pub struct Cached {
    /// File name in the memory dir (`<id>.md`).
    pub file: &'static str,
    /// Modification time when cached, ns since the epoch.
    pub mtime_ns: u128,
    /// Size in bytes when cached.
    pub size: u64,
    /// Inode and ctime fingerprint when cached (see `load::change_id`).
    pub change: u64,
    /// The encoded body (see [`decode_body`]).
    pub body: &'static str,
}

/// A cache as read.
#[derive(Debug)]
pub struct Cache {
    /// The memory dir it is for.
    pub dir: &'static str,
    /// When it was written, ns since the epoch.
    pub written_ns: u128,
    /// The entries, sorted by file name (checked).
    pub entries: Vec<Cached>,
}

/// Largest cache file read (a larger one is ignored and rebuilt): 256 MiB.
pub const CACHE_READ_BYTES: u64 = 256 << 20;

/// Read the cache at `path`; `None` when it is missing, unreadable, of
/// another version or malformed.
pub fn read(path: &Path) -> Option<Cache> {
    let f = mem_core::confine::open_regular(path, false).ok()?;
    let bytes = mem_core::confine::read_all(f, path, CACHE_READ_BYTES).ok()?;
    // The docs borrow from these bytes for the rest of the process.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    parse(simdutf8::basic::from_utf8(bytes).ok()?)
}

/// Parse a cache's index (the bodies stay encoded).
pub fn parse(text: &'static str) -> Option<Cache> {
    let mut r = Reader {
        s: text.strip_prefix(MAGIC)?,
    };
    if r.num()? != CACHE_VERSION {
        return None;
    }
    let dir = r.str()?;
    let written_ns = u128::from(r.num()?);
    let count = usize::try_from(r.num()?).ok()?;
    // Never trust a count beyond what the bytes can hold.
    let mut entries: Vec<Cached> = Vec::with_capacity(count.min(r.s.len() / 8));
    for _ in 0..count {
        let file = r.str()?;
        if entries.last().is_some_and(|l| l.file >= file) {
            return None;
        }
        entries.push(Cached {
            file,
            mtime_ns: u128::from(r.num()?),
            size: r.num()?,
            change: r.num()?,
            body: r.str()?,
        });
    }
    (r.s == "end").then_some(Cache {
        dir,
        written_ns,
        entries,
    })
}

/// Decode the body of the entry of `file` (`<id>.md`): the doc, or why the
/// file did not parse. `None` when it is malformed.
pub fn decode_body(file: &'static str, body: &'static str) -> Option<Result<Doc, Text>> {
    Some(decode_entry(file, body)?.map(|(doc, _)| doc))
}

/// [`decode_body`], with what the hook injects of the memory when the
/// entry holds it.
pub fn decode_entry(
    file: &'static str,
    body: &'static str,
) -> Option<Result<(Doc, Option<MdParts>), Text>> {
    let mut r = Reader { s: body };
    let out = match r.num()? {
        0 => {
            let doc = r.doc(file.strip_suffix(".md")?)?;
            let md = match r.num()? {
                0 => None,
                1 => Some(MdParts {
                    name: Text::Borrowed(r.str()?),
                    rest: Text::Borrowed(r.str()?),
                }),
                _ => return None,
            };
            Ok((doc, md))
        }
        1 => Err(Text::Borrowed(r.str()?)),
        _ => return None,
    };
    r.s.is_empty().then_some(out)
}

/// Encode the body of an entry: its doc (whose id is the file name without
/// `.md`), or why the file did not parse.
pub fn encode_body(doc: Result<&Doc, &str>) -> String {
    encode_entry(doc.map(|d| (d, None)))
}

/// [`encode_body`], with what the hook injects of the memory (`None`: not
/// kept; the topic file is read when the memory is injected).
pub fn encode_entry(doc: Result<(&Doc, Option<&MdParts>), &str>) -> String {
    let mut body = String::with_capacity(512);
    match doc {
        Ok((d, md)) => {
            num(&mut body, 0);
            encode_doc(&mut body, d);
            match md {
                None => num(&mut body, 0),
                Some(p) => {
                    num(&mut body, 1);
                    string(&mut body, &p.name);
                    string(&mut body, &p.rest);
                }
            }
        }
        Err(msg) => {
            num(&mut body, 1);
            string(&mut body, msg);
        }
    }
    body
}

/// Writes a cache: [`Writer::new`], then exactly `count` entries in file
/// name order, then [`Writer::finish`].
pub struct Writer {
    out: String,
}

impl Writer {
    /// Start a cache of `count` entries for `dir`, written at `written_ns`.
    pub fn new(dir: &str, written_ns: u128, count: usize) -> Writer {
        let mut w = Writer {
            out: String::with_capacity(64 + count * 512),
        };
        w.out.push_str(MAGIC);
        num(&mut w.out, CACHE_VERSION);
        string(&mut w.out, dir);
        let _ = write!(w.out, "{written_ns};");
        num(&mut w.out, count as u64);
        w
    }

    /// An entry: its key (mtime in ns, size, change id) and encoded body
    /// ([`encode_body`]).
    pub fn entry(&mut self, file: &str, key: (u128, u64, u64), body: &str) {
        let (mtime_ns, size, change) = key;
        string(&mut self.out, file);
        let _ = write!(self.out, "{mtime_ns};");
        num(&mut self.out, size);
        num(&mut self.out, change);
        string(&mut self.out, body);
    }

    /// The cache's bytes.
    pub fn finish(mut self) -> String {
        self.out.push_str("end");
        self.out
    }
}

fn num(out: &mut String, n: u64) {
    let _ = write!(out, "{n};");
}

fn string(out: &mut String, s: &str) {
    let _ = write!(out, "{}:", s.len());
    out.push_str(s);
}

fn opt(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => {
            num(out, 1);
            string(out, s);
        }
        None => num(out, 0),
    }
}

fn list(out: &mut String, v: &[Text]) {
    num(out, v.len() as u64);
    for s in v {
        string(out, s);
    }
}

fn encode_doc(out: &mut String, d: &Doc) {
    num(
        out,
        match d.mem_type {
            MemoryType::User => 0,
            MemoryType::Feedback => 1,
            MemoryType::Project => 2,
            MemoryType::Reference => 3,
        },
    );
    num(
        out,
        match d.kind {
            Kind::DurableLesson => 0,
            Kind::Preference => 1,
            Kind::OneTimeState => 2,
            Kind::Reference => 3,
        },
    );
    num(
        out,
        match d.scope {
            Scope::ThisRepo => 0,
            Scope::AllRepos => 1,
        },
    );
    opt(out, d.project.as_deref());
    list(out, &d.triggers);
    list(out, &d.trigger_stems);
    list(out, &d.paths);
    match d.expires {
        None => num(out, 0),
        Some(Expires::Never) => num(out, 1),
        Some(Expires::On(day)) => {
            num(out, 2);
            let n = i64::from(day.num_days_from_ce());
            num(out, ((n << 1) ^ (n >> 63)) as u64);
        }
    }
    opt(out, d.superseded_by.as_deref());
    list(out, &d.supersedes);
    num(out, u64::from(d.retired));
    num(
        out,
        Source::ALL
            .iter()
            .position(|s| *s == d.source)
            .unwrap_or(Source::ALL.len()) as u64,
    );
    num(
        out,
        match d.trust {
            Trust::Low => 0,
            Trust::Normal => 1,
        },
    );
    string(out, &d.terms);
    num(out, u64::from(d.len));
    num(out, d.tokens as u64);
}

/// A cursor over a cache's text.
struct Reader {
    s: &'static str,
}

impl Reader {
    /// Decimal digits up to `sep` (at most `u64`).
    fn digits(&mut self, sep: u8) -> Option<u64> {
        let b = self.s.as_bytes();
        let mut n: u64 = 0;
        let mut i = 0;
        loop {
            let c = *b.get(i)?;
            if c == sep {
                break;
            }
            if !c.is_ascii_digit() || i >= 20 {
                return None;
            }
            n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            i += 1;
        }
        if i == 0 {
            return None;
        }
        self.s = self.s.get(i + 1..)?;
        Some(n)
    }

    fn num(&mut self) -> Option<u64> {
        self.digits(b';')
    }

    fn small(&mut self) -> Option<usize> {
        usize::try_from(self.num()?).ok()
    }

    fn str(&mut self) -> Option<&'static str> {
        let len = usize::try_from(self.digits(b':')?).ok()?;
        let s = self.s.get(..len)?;
        self.s = self.s.get(len..)?;
        Some(s)
    }

    fn opt(&mut self) -> Option<Option<Text>> {
        match self.num()? {
            0 => Some(None),
            1 => Some(Some(Text::Borrowed(self.str()?))),
            _ => None,
        }
    }

    fn list(&mut self) -> Option<Vec<Text>> {
        let n = self.small()?;
        let mut v = Vec::with_capacity(n.min(self.s.len() / 2));
        for _ in 0..n {
            v.push(Text::Borrowed(self.str()?));
        }
        Some(v)
    }

    fn doc(&mut self, id: &'static str) -> Option<Doc> {
        let id = Text::Borrowed(id);
        let mem_type = match self.num()? {
            0 => MemoryType::User,
            1 => MemoryType::Feedback,
            2 => MemoryType::Project,
            3 => MemoryType::Reference,
            _ => return None,
        };
        let kind = match self.num()? {
            0 => Kind::DurableLesson,
            1 => Kind::Preference,
            2 => Kind::OneTimeState,
            3 => Kind::Reference,
            _ => return None,
        };
        let scope = match self.num()? {
            0 => Scope::ThisRepo,
            1 => Scope::AllRepos,
            _ => return None,
        };
        let project = self.opt()?;
        let triggers = self.list()?;
        let trigger_stems = self.list()?;
        if trigger_stems.len() != triggers.len() {
            return None;
        }
        let paths = self.list()?;
        let expires = match self.num()? {
            0 => None,
            1 => Some(Expires::Never),
            2 => {
                let z = self.num()?;
                let n = ((z >> 1) as i64) ^ -((z & 1) as i64);
                let day = NaiveDate::from_num_days_from_ce_opt(i32::try_from(n).ok()?)?;
                Some(Expires::On(day))
            }
            _ => return None,
        };
        let superseded_by = self.opt()?;
        let supersedes = self.list()?;
        let retired = match self.num()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        let source = *Source::ALL.get(self.small()?)?;
        let trust = match self.num()? {
            0 => Trust::Low,
            1 => Trust::Normal,
            _ => return None,
        };
        let terms = Text::Borrowed(self.str()?);
        let len = u32::try_from(self.num()?).ok()?;
        let tokens = self.small()?;
        Some(Doc {
            id,
            mem_type,
            kind,
            scope,
            project,
            triggers,
            trigger_stems,
            paths,
            expires,
            superseded_by,
            supersedes,
            retired,
            source,
            trust,
            terms,
            len,
            tokens,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leak(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }

    fn doc(id: &str) -> Doc {
        let t = |s: &str| Text::Owned(s.to_string());
        Doc {
            id: t(id),
            mem_type: MemoryType::Project,
            kind: Kind::OneTimeState,
            scope: Scope::AllRepos,
            project: Some(t("0123456789ab")),
            triggers: vec![t("build-token"), t("re:^x;y:z$"), t("ünï 不要")],
            trigger_stems: vec![t("build token"), t(""), t("ünï 不 要")],
            paths: vec![t("src/**/*.rs")],
            expires: Some(Expires::On(NaiveDate::from_ymd_opt(2026, 7, 12).unwrap())),
            superseded_by: None,
            supersedes: vec![t("old-one"), t("12:3;")],
            retired: true,
            source: Source::Tool,
            trust: Trust::Low,
            terms: t(" build:2 token:1 "),
            len: 3,
            tokens: 42,
        }
    }

    #[test]
    fn round_trip() {
        let mut w = Writer::new("/m/dir", 1_700_000_000_123_456_789, 3);
        let d = doc("a-b");
        w.entry("a-b.md", (5, 10, 70), &encode_body(Ok(&d)));
        let mut never = doc("c");
        never.expires = Some(Expires::Never);
        never.project = None;
        w.entry("c.md", (6, 11, 77), &encode_body(Ok(&never)));
        w.entry("d.md", (7, 12, 84), &encode_body(Err("d.md:3: bad YAML")));
        let c = parse(leak(w.finish())).expect("parses");
        assert_eq!(c.dir, "/m/dir");
        assert_eq!(c.written_ns, 1_700_000_000_123_456_789);
        assert_eq!(c.entries.len(), 3);
        assert_eq!(
            (
                c.entries[0].file,
                c.entries[0].mtime_ns,
                c.entries[0].size,
                c.entries[0].change
            ),
            ("a-b.md", 5, 10, 70)
        );
        assert_eq!(
            decode_body(c.entries[0].file, c.entries[0].body),
            Some(Ok(d))
        );
        assert_eq!(
            decode_body(c.entries[1].file, c.entries[1].body),
            Some(Ok(never))
        );
        assert_eq!(
            decode_body(c.entries[2].file, c.entries[2].body),
            Some(Err(Text::Borrowed("d.md:3: bad YAML")))
        );
        // An old date before the common era survives too.
        let mut old = doc("e");
        old.expires = Some(Expires::On(NaiveDate::from_ymd_opt(-5, 1, 1).unwrap()));
        let mut w = Writer::new("/m", 1, 1);
        w.entry("e.md", (1, 1, 7), &encode_body(Ok(&old)));
        let c = parse(leak(w.finish())).unwrap();
        assert_eq!(
            decode_body(c.entries[0].file, c.entries[0].body),
            Some(Ok(old))
        );
    }

    #[test]
    fn injection_round_trips_and_is_optional() {
        let d = doc("a");
        let md = MdParts {
            name: Text::Borrowed("Run ~~~ setup: 1"),
            rest: Text::Borrowed("source: tool, trust: low\n~~~~text\nx:1;\n~~~~\n"),
        };
        let body = leak(encode_entry(Ok((&d, Some(&md)))));
        assert_eq!(decode_entry("a.md", body), Some(Ok((d.clone(), Some(md)))));
        assert_eq!(decode_body("a.md", body), Some(Ok(d.clone())));
        let bare = leak(encode_body(Ok(&d)));
        assert_eq!(decode_entry("a.md", bare), Some(Ok((d, None))));
        // A marker other than 0 or 1, or a cut injection, is malformed.
        let cut = &body[..body.len() - 3];
        assert_eq!(decode_entry("a.md", leak(cut.to_string())), None);
        let two = format!("{}2;", &bare[..bare.len() - 2]);
        assert_eq!(decode_entry("a.md", leak(two)), None);
    }

    #[test]
    fn body_needs_a_topic_file_name() {
        let body = leak(encode_body(Ok(&doc("a"))));
        assert!(decode_body("a.md", body).is_some());
        assert_eq!(decode_body("a.txt", body), None);
    }

    #[test]
    fn malformed_is_refused() {
        let mut w = Writer::new("/m", 1, 2);
        w.entry("a.md", (1, 1, 7), &encode_body(Ok(&doc("a"))));
        w.entry("b.md", (1, 1, 7), &encode_body(Err("x")));
        let good = w.finish();
        assert!(parse(leak(good.clone())).is_some());
        // Every truncation is refused (never a partial cache).
        for cut in 0..good.len() {
            if good.is_char_boundary(cut) {
                assert!(parse(leak(good[..cut].to_string())).is_none(), "cut {cut}");
            }
        }
        // Another version.
        let v2 = good.replacen(&format!("\n{CACHE_VERSION};"), "\n2;", 1);
        assert_ne!(v2, good);
        assert!(parse(leak(v2)).is_none());
        // Not sorted.
        let mut w = Writer::new("/m", 1, 2);
        w.entry("b.md", (1, 1, 7), &encode_body(Err("x")));
        w.entry("a.md", (1, 1, 7), &encode_body(Err("x")));
        assert!(parse(leak(w.finish())).is_none());
        // JSON of the first layout.
        assert!(parse(leak("{\"version\":1,\"entries\":[]}".into())).is_none());
        // Bodies that do not decode.
        for bad in [
            "",
            "2;",
            "0;",
            "1;",
            "1;3:ab",
            "1;1:ab",
            "0;1;0;",
            "0;9;0;0;0;",
        ] {
            assert_eq!(decode_body("a.md", leak(bad.into())), None, "{bad:?}");
        }
    }
}
