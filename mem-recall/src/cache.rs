//! The cache file of [`crate::load`]: per topic file of a memory directory,
//! its key (name, mtime, size, change id) and what the gate needs of it (a
//! [`Doc`]), or why it did not parse.
//!
//! Layout: the line [`MAGIC`], then fields, each a number (`DIGITS;`,
//! decimal, at most `u64`) or a string (`LEN:BYTES`, LEN in bytes), then
//! `end`: the index, read whole ([`read`]); then the Markdown section,
//! read only at the offsets of the memories injected ([`MdRef`]). The
//! whole file is UTF-8, so one validation covers every string of the
//! index; an entry's body is one string, so reading the index skips it
//! unread.
//!
//! ```text
//! file  = index mds
//! index = version; lens dir written_ns; count; entry*count postings
//!         listing "end"
//! lens  = index_len md_len   (16 lowercase hex digits each: the bytes
//!                             of the index and of mds; the file holds
//!                             exactly their sum)
//! entry = file key body md                  (sorted by file, unique)
//! key   = mtime_ns size change   (32, 16 and 16 lowercase hex digits)
//! body  = "0;" doc | "1;" error              (as one string)
//! doc   = terms type; kind; scope; project? triggers trigger_stems paths
//!         expires superseded_by? supersedes retired; source; trust;
//!         len; tokens;
//!         (the id is the file name without `.md`; type, kind, scope,
//!         source and trust are the index of the variant, in declaration
//!         order)
//! md    = "0;" | "1;" offset; len; hash     (where in mds the entry's
//!         Markdown is and its hash, `md_hash`, 16 lowercase hex digits;
//!         "0;": none, the topic file is read instead, as when the bytes
//!         read do not match the hash)
//! mds   = (name rest)* records*              (what the hook injects, see
//!         `inject::MdParts`, then each stem's posting records; each read
//!         with one `pread` when needed)
//! x?    = "0;" | "1;" string                 list = count; string*count
//! expires = "0;" (none) | "1;" (never) | "2;" zigzag(days since 0001-01-01);
//! postings = count; (stem offset; len;)*count  (sorted by stem, unique;
//!            where in mds the stem's records are)
//! records  = (delta "," tf ";")*
//! listing  = "0;" | "1;" ctime_ns change  (32 and 16 lowercase hex digits:
//!            the memory dir's key when the entries are every topic file
//!            it listed, see `load::load_dir`)
//! ```
//!
//! The postings are an inverted index of the entries' terms: per stem, the
//! entries whose terms hold it, in file order, each as the byte offset of
//! its terms string in the file (minus the previous record's offset) and
//! the stem's term frequency there. The gate reads the term frequencies
//! of the task's stems from them instead of scanning every memory's terms
//! ([`Postings`]); only the records of those stems are read.
//!
//! Reading leaks the file's bytes: the docs borrow their text from it for
//! the rest of the process (a recall runs once per process).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use chrono::{Datelike, NaiveDate};
use mem_core::records::{Expires, Kind, MemoryType, Scope, Source, Trust};

use crate::doc::{Doc, Text, Texts};
use crate::inject::MdParts;

/// Version of the layout; a cache of another version is ignored (and
/// rebuilt). 14: layout 13's (a memory's trust as a reader believes it,
/// [`mem_core::lesson::believed_trust`], its index read into memory whole)
/// with the names of several words among a memory's terms
/// ([`mem_core::text::is_name_term`]).
pub const CACHE_VERSION: u64 = 14;

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
    /// Inode and ctime fingerprint when cached (see `load::change_of`).
    pub change: u64,
    /// The encoded body (see [`decode_body`]).
    pub body: &'static str,
    /// Where its Markdown is in the Markdown section: (offset, length in
    /// bytes, hash ([`md_hash`]) of the bytes); `None`: not kept.
    pub md: Option<(u64, u64, u64)>,
}

/// A cache as read.
#[derive(Debug)]
pub struct Cache {
    /// The memory dir it is for.
    pub dir: &'static str,
    /// When it was written, ns since the epoch.
    pub written_ns: u128,
    /// The memory dir's mtime (ns) and change id when it was listed for
    /// this cache, if every topic file listed is an entry (none was
    /// unreadable): while the directory keeps this key, its listing is
    /// the same (`load::load_dir`).
    pub listing: Option<(u128, u64)>,
    /// The entries, sorted by file name (checked).
    pub entries: Vec<Cached>,
    /// The postings: (stem, where its records are in the Markdown
    /// section: offset and length in bytes), sorted by stem (checked);
    /// empty in the cache [`read`] returns, which hands them to the
    /// postings it registers ([`postings`]).
    pub postings: Vec<(&'static str, (u64, u64))>,
    /// The byte offset of each entry's terms in the index, ascending (the
    /// entries with a doc; found while parsing, where the bytes are at
    /// hand); handed to the registered postings like [`Cache::postings`].
    pub(crate) terms_at: Vec<usize>,
    /// The Markdown section of the file read (`None` when only the index
    /// was given, as to [`parse`]).
    pub mds: Option<Mds>,
}

/// The Markdown section of a cache file, read on demand through the file
/// opened by [`read`] (a cache replaced since stays the one read).
#[derive(Debug, Clone)]
pub struct Mds {
    file: Arc<File>,
    /// Where the section starts in the file (the index's length).
    at: u64,
    /// Its length in bytes.
    len: u64,
}

impl Mds {
    /// The entry's Markdown at `md` ([`Cached::md`]): `None` when it is out
    /// of the section, unreadable or malformed.
    pub fn get(&self, md: (u64, u64, u64)) -> Option<MdParts> {
        decode_md(&self.bytes(md)?)
    }

    /// The whole section (one read), to copy entries from it into a new
    /// cache ([`MdBytes::raw`]).
    pub fn all(&self) -> Option<MdBytes> {
        if self.len > CACHE_READ_BYTES {
            return None;
        }
        let mut buf = vec![0u8; usize::try_from(self.len).ok()?];
        self.file.read_exact_at(&mut buf, self.at).ok()?;
        Some(MdBytes(buf))
    }

    fn bytes(&self, (off, len, hash): (u64, u64, u64)) -> Option<String> {
        let buf = self.read(off, len)?;
        if md_hash(&buf) != hash {
            return None;
        }
        String::from_utf8(buf).ok()
    }

    /// The `len` bytes at `off` in the section; `None` when they are out
    /// of it or cannot be read.
    fn read(&self, off: u64, len: u64) -> Option<Vec<u8>> {
        if off.checked_add(len)? > self.len {
            return None;
        }
        let mut buf = vec![0u8; usize::try_from(len).ok()?];
        self.file
            .read_exact_at(&mut buf, self.at.checked_add(off)?)
            .ok()?;
        Some(buf)
    }
}

/// The hash of a cached Markdown `b`: the content hash of the memory
/// directory's files ([`mem_core::store::hash_bytes`], the first 64 bits
/// of BLAKE3) as a number.
pub fn md_hash(b: &[u8]) -> u64 {
    u64::from_str_radix(&mem_core::store::hash_bytes(b), 16).unwrap_or(0)
}

/// A whole Markdown section in memory ([`Mds::all`]).
#[derive(Debug)]
pub struct MdBytes(Vec<u8>);

impl MdBytes {
    /// The bytes at `md` ([`Cached::md`]), checked to be one encoded
    /// Markdown (as [`Writer::entry`] takes it); `None` when they are not.
    pub fn raw(&self, (off, len, hash): (u64, u64, u64)) -> Option<&str> {
        let start = usize::try_from(off).ok()?;
        let b = self
            .0
            .get(start..start.checked_add(usize::try_from(len).ok()?)?)?;
        if md_hash(b) != hash {
            return None;
        }
        let s = std::str::from_utf8(b).ok()?;
        decode_md(s)?;
        Some(s)
    }
}

/// What the hook injects of a memory, at its place in a cache file's
/// Markdown section (read when the memory is injected).
#[derive(Debug, Clone)]
pub struct MdRef {
    /// The section.
    pub mds: Mds,
    /// (offset, length, hash) in it ([`Cached::md`]).
    pub at: (u64, u64, u64),
}

impl MdRef {
    /// The Markdown parts; `None` when they cannot be read back.
    pub fn get(&self) -> Option<MdParts> {
        self.mds.get(self.at)
    }
}

/// Encode what the hook injects of a memory for the Markdown section
/// ([`Writer::entry`]).
pub fn encode_md(p: &MdParts) -> String {
    let mut s = String::with_capacity(p.name.len() + p.rest.len() + 12);
    string(&mut s, &p.name);
    string(&mut s, &p.rest);
    s
}

/// Decode [`encode_md`]'s output; `None` when malformed.
pub fn decode_md(s: &str) -> Option<MdParts> {
    let mut r = Reader { s };
    let name = r.str()?.to_string();
    let rest = r.str()?.to_string();
    r.s.is_empty().then_some(MdParts {
        name: Text::Owned(name),
        rest: Text::Owned(rest),
    })
}

/// Bytes of the header read first: [`MAGIC`], the version and the lengths.
const HEAD_BYTES: usize = MAGIC.len() + 21 + 32;

/// Largest cache file read (a larger one is ignored and rebuilt): 256 MiB.
pub const CACHE_READ_BYTES: u64 = 256 << 20;

/// Read the cache at `path`; `None` when it is missing, unreadable, of
/// another version or malformed.
pub fn read(path: &Path) -> Option<Cache> {
    read_sized(path, |_| ())
}

/// [`read`], calling `sized` with the index's length in bytes before the
/// index is read into memory.
pub fn read_sized(path: &Path, sized: impl FnOnce(u64)) -> Option<Cache> {
    let f = mem_core::confine::open_regular(path, false).ok()?;
    let size = f.metadata().ok()?.len();
    let mut head = [0u8; HEAD_BYTES];
    let n = usize::try_from(size).ok()?.min(HEAD_BYTES);
    f.read_exact_at(&mut head[..n], 0).ok()?;
    let (index_len, md_len) = lens(std::str::from_utf8(&head[..n]).ok()?)?;
    if index_len.checked_add(md_len)? != size || index_len > CACHE_READ_BYTES {
        return None;
    }
    sized(index_len);
    // Read whole into the heap (a file replaced meanwhile stays the one
    // read; one shortened in place reads short and is rebuilt). The docs
    // borrow from these bytes for the rest of the process.
    let mut buf = vec![0u8; usize::try_from(index_len).ok()?];
    f.read_exact_at(&mut buf, 0).ok()?;
    let bytes: &'static [u8] = Box::leak(buf.into_boxed_slice());
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let mut cache = parse(text)?;
    cache.mds = Some(Mds {
        file: Arc::new(f),
        at: index_len,
        len: md_len,
    });
    register(Postings {
        text,
        lists: std::mem::take(&mut cache.postings),
        terms_at: std::mem::take(&mut cache.terms_at),
        section: Section::File(cache.mds.clone()?),
    });
    Some(cache)
}

/// The lengths of the index and of the Markdown section, from the start
/// of a cache file (at least its header); `None` for another version.
fn lens(head: &str) -> Option<(u64, u64)> {
    let mut r = Reader {
        s: head.strip_prefix(MAGIC)?,
    };
    if r.num()? != CACHE_VERSION {
        return None;
    }
    let index_len = u64::try_from(r.hex::<16>()?).ok()?;
    let md_len = u64::try_from(r.hex::<16>()?).ok()?;
    Some((index_len, md_len))
}

/// The index part of a whole cache file (see [`Writer::finish`]).
pub fn index_of(file: &str) -> Option<&str> {
    file.get(..usize::try_from(lens(file)?.0).ok()?)
}

/// Parse a cache's index, exactly (the bodies stay encoded).
pub fn parse(text: &'static str) -> Option<Cache> {
    if lens(text)?.0 != text.len() as u64 {
        return None;
    }
    let mut r = Reader {
        s: text.strip_prefix(MAGIC)?,
    };
    r.num()?;
    r.hex::<32>()?;
    let dir = r.str()?;
    let written_ns = u128::from(r.num()?);
    let count = usize::try_from(r.num()?).ok()?;
    // Never trust a count beyond what the bytes can hold.
    let mut entries: Vec<Cached> = Vec::with_capacity(count.min(r.s.len() / 8));
    let mut terms_at: Vec<usize> = Vec::with_capacity(entries.capacity());
    for _ in 0..count {
        let file = r.str()?;
        if entries.last().is_some_and(|l| l.file >= file) {
            return None;
        }
        let (mtime_ns, size, change) = r.key()?;
        let body = r.str()?;
        if let Some((rel, _)) = terms_of_body(body) {
            terms_at.push(body.as_ptr() as usize - text.as_ptr() as usize + rel);
        }
        let md = match r.num()? {
            0 => None,
            1 => Some((r.num()?, r.num()?, u64::try_from(r.hex::<16>()?).ok()?)),
            _ => return None,
        };
        entries.push(Cached {
            file,
            mtime_ns,
            size,
            change,
            body,
            md,
        });
    }
    let stems = usize::try_from(r.num()?).ok()?;
    let mut postings: Vec<(&'static str, (u64, u64))> =
        Vec::with_capacity(stems.min(r.s.len() / 4));
    for _ in 0..stems {
        let stem = r.str()?;
        if postings.last().is_some_and(|l| l.0 >= stem) {
            return None;
        }
        postings.push((stem, (r.num()?, r.num()?)));
    }
    let listing = match r.num()? {
        0 => None,
        1 => Some((r.hex::<32>()?, u64::try_from(r.hex::<16>()?).ok()?)),
        _ => return None,
    };
    (r.s == "end").then_some(Cache {
        dir,
        written_ns,
        listing,
        entries,
        postings,
        terms_at,
        mds: None,
    })
}

/// Decode the body of the entry of `file` (`<id>.md`): the doc, or why the
/// file did not parse. `None` when it is malformed.
pub fn decode_body(file: &'static str, body: &'static str) -> Option<Result<Doc, Text>> {
    let mut r = Reader { s: body };
    let out = match r.num()? {
        0 => Ok(r.doc(file.strip_suffix(".md")?)?),
        1 => Err(Text::Borrowed(r.str()?)),
        _ => return None,
    };
    r.s.is_empty().then_some(out)
}

/// Encode the body of an entry: its doc (whose id is the file name without
/// `.md`), or why the file did not parse.
pub fn encode_body(doc: Result<&Doc, &str>) -> String {
    let mut body = String::with_capacity(512);
    match doc {
        Ok(d) => {
            num(&mut body, 0);
            encode_doc(&mut body, d);
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
    /// The Markdown section.
    mds: String,
    /// Per stem: its records so far and the offset of the last one.
    postings: HashMap<String, (String, usize)>,
    /// See [`Cache::listing`].
    listing: Option<(u128, u64)>,
}

impl Writer {
    /// Start a cache of `count` entries for `dir`, written at `written_ns`.
    pub fn new(dir: &str, written_ns: u128, count: usize) -> Writer {
        let mut w = Writer {
            out: String::with_capacity(64 + count * 512),
            mds: String::new(),
            postings: HashMap::new(),
            listing: None,
        };
        w.out.push_str(MAGIC);
        num(&mut w.out, CACHE_VERSION);
        // The lengths, filled in by `finish`.
        w.out.push_str(&"0".repeat(32));
        string(&mut w.out, dir);
        let _ = write!(w.out, "{written_ns};");
        num(&mut w.out, count as u64);
        w
    }

    /// An entry: its key (mtime in ns, size, change id), encoded body
    /// ([`encode_body`]) and what the hook injects of it ([`encode_md`];
    /// `None`: not kept, the topic file is read when it is injected).
    pub fn entry(&mut self, file: &str, key: (u128, u64, u64), body: &str, md: Option<&str>) {
        let (mtime_ns, size, change) = key;
        string(&mut self.out, file);
        let _ = write!(self.out, "{mtime_ns:032x}{size:016x}{change:016x}");
        let _ = write!(self.out, "{}:", body.len());
        let at = self.out.len();
        self.out.push_str(body);
        if let Some((start, terms)) = terms_of_body(body) {
            let at = at + start;
            for (stem, tf) in tokens(terms) {
                let (records, last) = match self.postings.get_mut(stem) {
                    Some(p) => p,
                    None => self.postings.entry(stem.to_string()).or_default(),
                };
                let _ = write!(records, "{},{tf};", at - *last);
                *last = at;
            }
        }
        match md {
            None => num(&mut self.out, 0),
            Some(md) => {
                let h = md_hash(md.as_bytes());
                let _ = write!(self.out, "1;{};{};{h:016x}", self.mds.len(), md.len());
                self.mds.push_str(md);
            }
        }
    }

    /// Record the memory dir's key as listed ([`Cache::listing`]; `None`
    /// by default).
    pub fn listing(&mut self, key: Option<(u128, u64)>) {
        self.listing = key;
    }

    /// The cache's bytes.
    pub fn finish(mut self) -> String {
        let mut stems: Vec<(String, (String, usize))> = self.postings.into_iter().collect();
        stems.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        num(&mut self.out, stems.len() as u64);
        for (stem, (records, _)) in &stems {
            string(&mut self.out, stem);
            num(&mut self.out, self.mds.len() as u64);
            num(&mut self.out, records.len() as u64);
            self.mds.push_str(records);
        }
        match self.listing {
            None => num(&mut self.out, 0),
            Some((mtime_ns, change)) => {
                let _ = write!(self.out, "1;{mtime_ns:032x}{change:016x}");
            }
        }
        self.out.push_str("end");
        let at = MAGIC.len() + format!("{CACHE_VERSION};").len();
        let lens = format!("{:016x}{:016x}", self.out.len(), self.mds.len());
        self.out.replace_range(at..at + 32, &lens);
        self.out.push_str(&self.mds);
        self.out
    }
}

/// The terms of an encoded body (of a doc) and where they start in it.
fn terms_of_body(body: &str) -> Option<(usize, &str)> {
    let mut r = Reader { s: body };
    if r.num()? != 0 {
        return None;
    }
    let terms = r.str()?;
    Some((terms.as_ptr() as usize - body.as_ptr() as usize, terms))
}

/// The tokens `stem:tf` of a doc's terms (see [`Doc::terms`]) as the gate
/// reads them: a token without `:` is none, the stem is what comes before
/// the first `:`, the tf the decimal digits right after it (saturating;
/// none: 0), the first token of a stem counts; a tf of 0 and an empty stem
/// are left out.
pub(crate) fn tokens(terms: &str) -> impl Iterator<Item = (&str, u32)> {
    let mut seen: Option<&str> = None;
    terms.split(' ').filter_map(move |t| {
        let (stem, rest) = t.split_once(':')?;
        let tf = tf_digits(rest.as_bytes());
        if stem.is_empty() || tf == 0 || seen == Some(stem) {
            return None;
        }
        seen = Some(stem);
        Some((stem, tf))
    })
}

/// The leading decimal digits of `b` as a term frequency (saturating at
/// `u32::MAX`; none: 0).
pub(crate) fn tf_digits(b: &[u8]) -> u32 {
    let mut n = 0u32;
    for &c in b {
        if !c.is_ascii_digit() {
            break;
        }
        n = n.saturating_mul(10).saturating_add(u32::from(c - b'0'));
    }
    n
}

/// The postings of a cache file [`read`] in this process: the term
/// frequencies of a stem in every entry, found without reading the
/// entries' terms. A [`Doc`] decoded from the file borrows its terms from
/// it; [`Postings::offset`] tells where.
#[derive(Debug)]
pub struct Postings {
    /// The file's index.
    text: &'static str,
    /// (stem, offset and length of its records in `section`), sorted by
    /// stem.
    lists: Vec<(&'static str, (u64, u64))>,
    /// The offset of each entry's terms in the file, ascending: the only
    /// offsets a record may name.
    terms_at: Vec<usize>,
    /// Where the records are read from.
    section: Section,
}

/// The Markdown section holding the posting records.
#[derive(Debug)]
enum Section {
    /// In the cache file, read per stem.
    File(Mds),
    /// In memory (tests).
    #[cfg(test)]
    Bytes(&'static str),
}

/// Every [`Postings`] registered by [`read`] (the files stay in memory).
static POSTINGS: Mutex<Vec<&'static Postings>> = Mutex::new(Vec::new());

fn register(p: Postings) {
    if let Ok(mut all) = POSTINGS.lock() {
        all.push(Box::leak(Box::new(p)));
    }
}

/// The postings of every cache file read so far.
pub fn postings() -> Vec<&'static Postings> {
    POSTINGS.lock().map(|v| v.clone()).unwrap_or_default()
}

impl Postings {
    /// The postings of `cache`, parsed from `text` (the file's index),
    /// with `section` the file's Markdown section.
    #[cfg(test)]
    fn new(text: &'static str, cache: &Cache, section: &'static str) -> Postings {
        Postings {
            text,
            lists: cache.postings.clone(),
            terms_at: cache.terms_at.clone(),
            section: Section::Bytes(section),
        }
    }

    /// The offset of `terms` in this file, when they are borrowed from it.
    pub fn offset(&self, terms: &str) -> Option<usize> {
        let start = self.text.as_ptr() as usize;
        let at = terms.as_ptr() as usize;
        (at >= start && at + terms.len() <= start + self.text.len()).then(|| at - start)
    }

    /// The entries whose terms hold `stem`: (offset of their terms in the
    /// file, term frequency), by offset. `None` when the records are
    /// malformed or one names no entry's terms.
    pub fn list(&self, stem: &str) -> Option<Vec<(usize, u32)>> {
        let Ok(k) = self.lists.binary_search_by(|(s, _)| (*s).cmp(stem)) else {
            return Some(Vec::new());
        };
        let (off, len) = self.lists[k].1;
        match &self.section {
            Section::File(mds) => self.records(&String::from_utf8(mds.read(off, len)?).ok()?),
            #[cfg(test)]
            Section::Bytes(b) => self.records(
                b.get(usize::try_from(off).ok()?..usize::try_from(off.checked_add(len)?).ok()?)?,
            ),
        }
    }

    /// Decode a stem's `records` (as [`Postings::list`] gives them).
    fn records(&self, records: &str) -> Option<Vec<(usize, u32)>> {
        let mut r = Reader { s: records };
        let mut out = Vec::with_capacity(r.s.len() / 8);
        let mut at = 0usize;
        // The entries not passed yet (both lists ascend).
        let mut entries = &self.terms_at[..];
        while !r.s.is_empty() {
            at = at.checked_add(usize::try_from(r.digits(b',')?).ok()?)?;
            let tf = u32::try_from(r.num()?).ok()?;
            if tf == 0 || out.last().is_some_and(|&(last, _)| last >= at) {
                return None;
            }
            // A record must land on an entry's terms (not past the file,
            // not inside an entry).
            let j = entries.binary_search(&at).ok()?;
            entries = &entries[j + 1..];
            out.push((at, tf));
        }
        Some(out)
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

fn list<'a>(out: &mut String, len: usize, v: impl Iterator<Item = &'a str>) {
    num(out, len as u64);
    for s in v {
        string(out, s);
    }
}

fn encode_doc(out: &mut String, d: &Doc) {
    string(out, &d.terms);
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
    list(out, d.triggers.len(), d.triggers.iter());
    list(out, d.trigger_stems.len(), d.trigger_stems.iter());
    list(out, d.paths.len(), d.paths.iter());
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
    list(out, d.supersedes.len(), d.supersedes.iter().map(|s| &**s));
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
    num(out, u64::from(d.len));
    num(out, d.tokens as u64);
}

/// A cursor over a cache's text.
struct Reader<'a> {
    s: &'a str,
}

/// The value of each byte as a lowercase hex digit; 0x80 when it is none.
const HEX: [u8; 256] = {
    let mut t = [0x80u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

impl<'a> Reader<'a> {
    /// `N` lowercase hex digits (at most 32).
    fn hex<const N: usize>(&mut self) -> Option<u128> {
        let (digits, rest) = self.s.as_bytes().split_first_chunk::<N>()?;
        let mut n: u128 = 0;
        let mut bad = 0u8;
        for &c in digits {
            let v = HEX[usize::from(c)];
            bad |= v;
            n = n << 4 | u128::from(v & 0xf);
        }
        if bad & 0x80 != 0 {
            return None;
        }
        // Hex digits are ASCII: `rest` starts on a char boundary.
        self.s = self.s.get(self.s.len() - rest.len()..)?;
        Some(n)
    }

    /// An entry's key: (mtime in ns, size, change id).
    fn key(&mut self) -> Option<(u128, u64, u64)> {
        let mtime_ns = self.hex::<32>()?;
        let size = u64::try_from(self.hex::<16>()?).ok()?;
        let change = u64::try_from(self.hex::<16>()?).ok()?;
        Some((mtime_ns, size, change))
    }

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

    fn str(&mut self) -> Option<&'a str> {
        let len = usize::try_from(self.digits(b':')?).ok()?;
        let s = self.s.get(..len)?;
        self.s = self.s.get(len..)?;
        Some(s)
    }
}

impl Reader<'static> {
    fn opt(&mut self) -> Option<Option<Text>> {
        match self.num()? {
            0 => Some(None),
            1 => Some(Some(Text::Borrowed(self.str()?))),
            _ => None,
        }
    }

    /// A list, checked and left encoded (see [`Texts`]).
    fn texts(&mut self) -> Option<Texts> {
        let n = self.small()?;
        let enc = self.s;
        for _ in 0..n {
            self.str()?;
        }
        Some(Texts::encoded(n, &enc[..enc.len() - self.s.len()]))
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
        let terms = Text::Borrowed(self.str()?);
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
        let triggers = self.texts()?;
        let trigger_stems = self.texts()?;
        if trigger_stems.len() != triggers.len() {
            return None;
        }
        let paths = self.texts()?;
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

    /// The index of a whole cache file.
    fn ix(file: String) -> &'static str {
        leak(index_of(&file).expect("an index").to_string())
    }

    fn doc(id: &str) -> Doc {
        let t = |s: &str| Text::Owned(s.to_string());
        Doc {
            id: t(id),
            mem_type: MemoryType::Project,
            kind: Kind::OneTimeState,
            scope: Scope::AllRepos,
            project: Some(t("0123456789ab")),
            triggers: vec![t("build-token"), t("re:^x;y:z$"), t("ünï 不要")].into(),
            trigger_stems: vec![t("build token"), t(""), t("ünï 不 要")].into(),
            paths: vec![t("src/**/*.rs")].into(),
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
        w.entry("a-b.md", (5, 10, 70), &encode_body(Ok(&d)), None);
        let mut never = doc("c");
        never.expires = Some(Expires::Never);
        never.project = None;
        w.entry("c.md", (6, 11, 77), &encode_body(Ok(&never)), None);
        w.entry(
            "d.md",
            (7, 12, 84),
            &encode_body(Err("d.md:3: bad YAML")),
            None,
        );
        let c = parse(ix(w.finish())).expect("parses");
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
        w.entry("e.md", (1, 1, 7), &encode_body(Ok(&old)), None);
        let c = parse(ix(w.finish())).unwrap();
        assert_eq!(
            decode_body(c.entries[0].file, c.entries[0].body),
            Some(Ok(old))
        );
    }

    #[test]
    fn keys_take_the_full_range() {
        let big = (u128::from(u64::MAX) << 8 | 0xab, u64::MAX, 0);
        let mut w = Writer::new("/m", 1, 1);
        w.entry("a.md", big, &encode_body(Err("x")), None);
        let text = ix(w.finish());
        let c = parse(text).expect("parses");
        let e = c.entries[0];
        assert_eq!((e.mtime_ns, e.size, e.change), big);
        assert!(text.contains(&format!("4:a.md{:032x}{:016x}{:016x}", big.0, big.1, big.2)));
        // Upper-case or other non-hex digits are refused.
        let upper = text.replacen("ffab", "FFAB", 1);
        assert_ne!(upper, text);
        assert!(parse(leak(upper)).is_none());
        let short = text.replacen("ffab", "ffa", 1);
        assert!(parse(leak(short)).is_none());
    }

    /// A cache of the previous layout (version 5: decimal keys, terms
    /// after the other fields of a doc) is never read, whatever version
    /// number it carries.
    #[test]
    fn the_previous_layout_is_refused() {
        let v5_body = "0;1;0;0;0;0;0;0;1;0;0;0;1;9: build:2 3;5;0;";
        let v5 = |version: u64| {
            leak(format!(
                "{MAGIC}{version};2:/m1;1;4:a.md5;10;70;{}:{v5_body}end",
                v5_body.len()
            ))
        };
        assert!(parse(v5(5)).is_none());
        assert!(parse(v5(CACHE_VERSION)).is_none());
    }

    #[test]
    fn postings_index_the_terms_of_every_doc() {
        let mut a = doc("a");
        a.terms = Text::Borrowed(" build:2 token:1 zeta:0 ");
        let mut b = doc("b");
        b.terms = Text::Borrowed(" build:7 cach:3 ");
        let mut w = Writer::new("/m", 1, 3);
        w.entry("a.md", (1, 1, 1), &encode_body(Ok(&a)), None);
        w.entry("b.md", (1, 1, 1), &encode_body(Err("broken")), None);
        w.entry("c.md", (1, 1, 1), &encode_body(Ok(&b)), None);
        let file = w.finish();
        let text = ix(file.clone());
        let section = leak(file[text.len()..].to_string());
        let c = parse(text).unwrap();
        assert_eq!(
            c.postings.iter().map(|p| p.0).collect::<Vec<_>>(),
            ["build", "cach", "token"]
        );
        let p = Postings::new(text, &c, section);
        let docs: Vec<Doc> = [0, 2]
            .iter()
            .map(|&i| {
                let e = c.entries[i];
                decode_body(e.file, e.body).unwrap().unwrap()
            })
            .collect();
        let at: Vec<usize> = docs.iter().map(|d| p.offset(&d.terms).unwrap()).collect();
        assert_eq!(&text[at[0]..at[0] + a.terms.len()], &*a.terms);
        // Found while parsing: the docs' terms, not the broken entry's.
        assert_eq!(c.terms_at, at);
        // The records are in the section after the index, by stem.
        assert_eq!(
            section,
            format!("{},2;{},7;{},3;{},1;", at[0], at[1] - at[0], at[1], at[0])
        );
        assert!(!text.contains(section));
        assert_eq!(p.list("build"), Some(vec![(at[0], 2), (at[1], 7)]));
        assert_eq!(p.list("cach"), Some(vec![(at[1], 3)]));
        assert_eq!(p.list("token"), Some(vec![(at[0], 1)]));
        // A tf of 0 is no posting; an absent stem has none.
        assert_eq!(p.list("zeta"), Some(Vec::new()));
        assert_eq!(p.list(""), Some(Vec::new()));
        // Text owned elsewhere is not in the file.
        assert_eq!(p.offset(" build:2 "), None);
        // Records out of order or malformed, a tf of 0, an offset past
        // the file or inside an entry are refused.
        let (first, second) = (at[0].to_string(), format!("{},1;", at[1] - at[0]));
        for bad in [
            "5,1;0,1;".to_string(),
            "5;".into(),
            "x,1;".into(),
            "5,1".into(),
            format!("{first},0;"),
            format!("{},1;", text.len() + 10),
            format!("{},1;", at[0] + 1),
            format!("{first},1;{second}{second}"),
        ] {
            assert_eq!(p.records(&bad), None, "{bad}");
        }
        assert_eq!(
            p.records(&format!("{first},1;{second}")),
            Some(vec![(at[0], 1), (at[1], 1)])
        );
        // Records named past the section: none.
        let past = Postings {
            lists: vec![("build", (section.len() as u64, 1))],
            ..Postings::new(text, &c, section)
        };
        assert_eq!(past.list("build"), None);
        // Postings not sorted by stem: the cache is refused.
        let swapped = text.replacen("5:build", "5:zzzzz", 1);
        assert_ne!(swapped, text);
        assert!(parse(leak(swapped)).is_none());
    }

    #[test]
    fn tokens_read_the_terms_as_the_gate_does() {
        let got: Vec<(&str, u32)> = tokens(" a:1 a:2 b c:x d:12x :4 e:99999999999 f:0 ").collect();
        assert_eq!(got, [("a", 1), ("d", 12), ("e", u32::MAX)]);
    }

    #[test]
    fn injection_goes_to_the_section_after_the_index() {
        let d = doc("a");
        let md = MdParts {
            name: Text::Borrowed("Run ~~~ setup: 1"),
            rest: Text::Borrowed("source: tool, trust: low\n~~~~text\nx:1;\n~~~~\n"),
        };
        let enc = encode_md(&md);
        assert_eq!(decode_md(&enc), Some(md.clone()));
        let mut w = Writer::new("/m", 1, 3);
        w.entry("a.md", (1, 1, 1), &encode_body(Ok(&d)), Some(&enc));
        w.entry("b.md", (1, 1, 1), &encode_body(Ok(&d)), None);
        w.entry("c.md", (1, 1, 1), &encode_body(Ok(&d)), Some("1:x1:y"));
        let file = w.finish();
        let index = index_of(&file).unwrap();
        // The Markdown is after the index, never in it.
        assert!(!index.contains("Run ~~~"));
        // then the posting records (of build and token, in all three)
        let section = &file[index.len()..];
        let md_end = enc.len() + 6;
        assert_eq!(&section[..md_end], format!("{enc}1:x1:y"));
        assert_eq!(section[md_end..].matches(";").count(), 6);
        assert_eq!(
            &file[MAGIC.len()..MAGIC.len() + 3],
            format!("{CACHE_VERSION};")
        );
        let lens = format!("{:016x}{:016x}", index.len(), section.len());
        assert_eq!(&file[MAGIC.len() + 3..MAGIC.len() + 35], lens);
        let c = parse(leak(index.to_string())).unwrap();
        let at: Vec<_> = c.entries.iter().map(|e| e.md).collect();
        let n = enc.len() as u64;
        let (h1, h2) = (md_hash(enc.as_bytes()), md_hash(b"1:x1:y"));
        assert_eq!(md_hash(b""), 0xaf13_49b9_f5f9_a1a6);
        assert_eq!(
            format!("{:016x}", md_hash(b"a")),
            mem_core::store::hash_bytes(b"a")
        );
        assert_eq!(at, [Some((0, n, h1)), None, Some((n, 6, h2))]);
        assert_eq!(decode_body("a.md", c.entries[0].body), Some(Ok(d)));
        // Read back through a file.
        let dir = std::env::temp_dir().join(format!("mem-cache-md-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(CACHE_FILE);
        std::fs::write(&path, &file).unwrap();
        let c = read(&path).expect("reads");
        let mds = c.mds.clone().unwrap();
        assert_eq!(mds.get((0, n, h1)), Some(md.clone()));
        let two = MdParts {
            name: Text::Borrowed("x"),
            rest: Text::Borrowed("y"),
        };
        assert_eq!(mds.get((n, 6, h2)), Some(two));
        let all = mds.all().unwrap();
        assert_eq!(all.raw((0, n, h1)), Some(enc.as_str()));
        // Out of the section, another hash, or not one encoded Markdown:
        // none.
        assert_eq!(mds.get((0, n, h2)), None);
        assert_eq!(all.raw((n, 6, h1)), None);
        assert_eq!(mds.get((n, 7, h2)), None);
        let cut = md_hash(&enc.as_bytes()[1..]);
        assert_eq!(mds.get((1, n - 1, cut)), None);
        assert_eq!(all.raw((1, n - 1, cut)), None);
        assert_eq!(all.raw((u64::MAX, 2, 0)), None);
        // A file cut or grown anywhere is refused whole.
        for bad in [&file[..file.len() - 1], &format!("{file}x")] {
            std::fs::write(&path, bad).unwrap();
            assert!(read(&path).is_none());
        }
        // The cache replaced after it was read: the Markdown still comes
        // from the file read.
        std::fs::write(&path, &file).unwrap();
        let c = read(&path).unwrap();
        let tmp = dir.join("new");
        std::fs::write(&tmp, "other").unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        assert_eq!(c.mds.unwrap().get((0, n, h1)), Some(md));
        std::fs::remove_dir_all(&dir).unwrap();
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
        w.entry("a.md", (1, 1, 7), &encode_body(Ok(&doc("a"))), None);
        w.entry("b.md", (1, 1, 7), &encode_body(Err("x")), None);
        let good = ix(w.finish()).to_string();
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
        w.entry("b.md", (1, 1, 7), &encode_body(Err("x")), None);
        w.entry("a.md", (1, 1, 7), &encode_body(Err("x")), None);
        assert!(parse(ix(w.finish())).is_none());
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
