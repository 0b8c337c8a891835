//! Reading the memories to decide on: the topic files of a memory directory
//! (through a cache of what the gate needs of each file) or memory records
//! from stdin.
//!
//! The cache ([`crate::cache`]) lives in `$XDG_CACHE_HOME/mem/<digest of
//! the memory dir>/`[`CACHE_FILE`] (never inside the memory directory). An
//! entry is used when the file's name, mtime (nanoseconds), size, inode and
//! change time (its ctime) are unchanged and the file was last modified and
//! changed (mtime and ctime) at least [`RACY_SECS`] before the cache was
//! written: a file changed twice within one clock tick is re-read, even
//! with its mtime put back (`touch -d`), since no program can set a ctime
//! back. An entry's key is the one of the file as opened for reading. The
//! cache is written atomically when anything changed; a cache that does
//! not parse, or of another version, is ignored and rebuilt.
//!
//! The memory dir is opened once: its key, its listing and its files'
//! stats come from that descriptor, whatever the path names meanwhile. The
//! cache also keeps the directory's ctime and change id from the listing it
//! was written from, when every topic file listed has an entry. While the
//! directory still has them, its ctime outside the racy window, it is not
//! listed again: its listing is the same, since creating, removing or
//! renaming an entry sets a directory's ctime (POSIX). The cached files are
//! then stat'ed by name; one that is gone, became a directory or is no topic
//! file's name makes the directory listed. A file named `*.md` that is no
//! topic file (its stem not a valid id) is reported at every call: its
//! directory's key is then not kept, and it is listed every time.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mem_core::Memory;

use crate::cache::{self, Cache};
pub use crate::cache::{CACHE_FILE, CACHE_VERSION};
use crate::doc::{Doc, Text};
use crate::inject::{MdParts, md_parts};
use mem_core::text::Stems;

/// Seconds a file's mtime must lie before the cache's write time for the
/// cached entry to be trusted.
pub const RACY_SECS: u64 = 2;

/// One memory to decide on, with where its full content comes from.
#[derive(Debug, Clone)]
pub struct Item {
    /// What the gate needs.
    pub doc: Doc,
    /// The topic file (read again when the memory is injected without
    /// [`Item::md`]), or the record.
    pub source: Source,
    /// The tier it comes from (records given on stdin count as personal).
    pub tier: mem_core::tier::Tier,
    /// What the hook injects of a topic file's memory, as the recall cache
    /// keeps it (`None`: the file is read when the memory is injected).
    pub md: Option<Md>,
}

/// What the hook injects of a memory, kept so that its topic file is not
/// read again.
#[derive(Debug, Clone)]
pub enum Md {
    /// Parsed in this run.
    Parts(MdParts),
    /// In the cache file's Markdown section, read when injected (the
    /// topic file is read instead when it cannot be).
    Cached(cache::MdRef),
}

/// Where a memory's full content is.
#[derive(Debug, Clone)]
pub enum Source {
    /// A topic file: the memory dir and the file's name in it.
    File(Arc<Path>, Text),
    /// A record given on stdin.
    Record(Box<Memory>),
}

impl Item {
    /// The full memory (topic files are read again).
    ///
    /// Errors: the file's read or parse error, as a message.
    pub fn memory(&self) -> Result<Memory, mem_core::Error> {
        match &self.source {
            Source::Record(m) => Ok((**m).clone()),
            Source::File(dir, file) => {
                let p = dir.join(&**file);
                let text = mem_core::confine::read_text_capped(
                    &p,
                    mem_core::confine::MAX_TOPIC_BYTES,
                    false,
                )?;
                mem_core::frontmatter::parse(file, &text)
            }
        }
    }

    /// The memory as injected ([`crate::inject::memory_md_in`] for its id
    /// and tier): from [`Item::md`] when the cache holds it, else the
    /// topic file is read and parsed.
    ///
    /// Errors: as [`Item::memory`].
    pub fn injected_md(&self) -> Result<String, mem_core::Error> {
        let cached = match &self.md {
            Some(Md::Parts(p)) => return Ok(p.assemble(&self.doc.id, self.tier)),
            Some(Md::Cached(r)) => r.get(),
            None => None,
        };
        match cached {
            Some(p) => Ok(p.assemble(&self.doc.id, self.tier)),
            None => Ok(crate::inject::memory_md_in(
                &self.doc.id,
                &self.memory()?,
                self.tier,
            )),
        }
    }

    /// The topic file, when the memory comes from one.
    pub fn path(&self) -> Option<PathBuf> {
        match &self.source {
            Source::File(dir, file) => Some(dir.join(&**file)),
            Source::Record(_) => None,
        }
    }
}

/// A topic file read in this run.
struct Fresh {
    file: String,
    /// 0 when it must not be cached (unreadable, or no usable mtime).
    mtime_ns: u128,
    size: u64,
    change: u64,
    doc: Result<(Doc, MdParts), String>,
}

/// The topic files of a memory dir, parsed.
pub struct Loaded {
    /// Memories that parsed, by file name.
    pub items: Vec<Item>,
    /// Files left out, one message each (reported on stderr): a file that
    /// did not parse (`FILE:LINE: reason`), could not be read (`PATH:
    /// reason`), or is named `*.md` without being a topic file's name
    /// (`PATH: not a valid topic id …`).
    pub broken: Vec<String>,
    /// Entries taken from the cache.
    pub cached: usize,
    /// Files parsed in this run.
    pub parsed: usize,
    /// The directory was listed; `false` when the cache's listing was
    /// still the directory's (see [`load_dir`]).
    pub relisted: bool,
}

fn ns(t: SystemTime) -> u128 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// Load every topic file of `dir` (a missing dir is empty), using and
/// refreshing the cache at `cache` (`None`: no cache).
///
/// Errors: [`mem_core::Error::Io`] when the directory exists but cannot be
/// listed. Files that do not parse are reported in [`Loaded::broken`].
pub fn load_dir(dir: &Path, cache: Option<&Path>, stems: &Stems) -> mem_core::Result<Loaded> {
    load_dir_within(dir, cache, stems, Duration::from_secs(RACY_SECS))
}

/// [`load_dir`] with a racy window of `racy` instead of [`RACY_SECS`]: a
/// file or directory changed (its ctime) less than `racy` before the cache
/// was written is not trusted from it. For tests, which cannot set a ctime
/// back.
pub fn load_dir_within(
    dir: &Path,
    cache: Option<&Path>,
    stems: &Stems,
    racy: Duration,
) -> mem_core::Result<Loaded> {
    use rustix::fs::{Mode, OFlags};
    // The directory, opened once: its key, its listing and its files'
    // stats all come from this one descriptor, whatever happens to the
    // path meanwhile (a symbolic link pointed elsewhere).
    let fd = match rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => {
            return Ok(Loaded {
                items: Vec::new(),
                broken: Vec::new(),
                cached: 0,
                parsed: 0,
                relisted: true,
            });
        }
        Err(e) => return Err(mem_core::Error::io(dir, e.into())),
    };
    // The directory's key, taken before it is listed.
    let dir_stat = rustix::fs::fstat(&fd)
        .map(|st| Stat::of(&st))
        .map_err(|e| mem_core::Error::io(dir, e.into()))?;
    let dir_key = (dir_stat.ctime_ns, dir_stat.change);
    let dir_str = dir.to_string_lossy();
    let old = cache.and_then(cache::read).filter(|c| c.dir == dir_str);
    let had_cache = old.is_some();
    let old = old.unwrap_or(Cache {
        dir: "",
        written_ns: 0,
        listing: None,
        entries: Vec::new(),
        postings: Vec::new(),
        terms_at: Vec::new(),
        mds: None,
    });
    let trusted_before = old.written_ns.saturating_sub(racy.as_nanos());
    let now = ns(SystemTime::now());
    // The topic files with their mtime and size (one stat each). When the
    // directory has the key it had when the cache was written from its
    // listing, and its ctime is outside the racy window, the listing is
    // the same: creating, removing or renaming an entry sets the
    // directory's ctime (POSIX), which no program can set back (its mtime
    // can be: `touch -d`). The cache's files are then stat'ed by name, and
    // the directory is not listed.
    let same_listing = old.listing == Some(dir_key) && dir_key.0 < trusted_before;
    let by_name = same_listing
        .then(|| list_cached(&fd, &old.entries))
        .flatten();
    let relisted = by_name.is_none();
    let Listing {
        files: listed,
        not_topics,
    } = match by_name {
        Some(files) => Listing {
            files,
            not_topics: Vec::new(),
        },
        None => list_dir(&fd, &old.entries).map_err(|e| mem_core::Error::io(dir, e.into()))?,
    };
    let listed_count = listed.len();
    // Cache entries still valid (decoded below, in order), files read now.
    let mut used: Vec<usize> = Vec::with_capacity(old.entries.len());
    let mut fresh: Vec<Fresh> = Vec::new();
    for l in listed {
        if let Some(i) = l.entry {
            let e = &old.entries[i];
            // The ctime too: an mtime can be set back (`touch -d`), and an
            // edit in the cache write's clock tick then keeps the key.
            if e.mtime_ns == l.mtime_ns
                && e.size == l.size
                && e.change == l.change
                && l.mtime_ns < trusted_before
                && l.ctime_ns < trusted_before
            {
                used.push(i);
                continue;
            }
        }
        fresh.push(parse_file(dir, &l.name, stems));
    }
    used.sort_unstable();
    let decoded = par_map(&used, |&i| {
        let e = &old.entries[i];
        cache::decode_body(e.file, e.body)
    });
    fresh.sort_unstable_by(|a, b| a.file.cmp(&b.file));
    let mut b = Build {
        dir: Arc::from(dir),
        items: Vec::with_capacity(used.len() + fresh.len()),
        broken: Vec::new(),
        order: Vec::new(),
        writing: cache.is_some(),
        cached: 0,
        parsed: fresh.len(),
    };
    // In file name order: the cache entries in use and the files read now.
    let mut fresh = fresh.into_iter().peekable();
    for (i, doc) in used.into_iter().zip(decoded) {
        let e = &old.entries[i];
        while let Some(f) = fresh.next_if(|f| f.file.as_str() < e.file) {
            b.fresh(f);
        }
        match doc {
            Some(doc) => {
                b.cached += 1;
                if b.writing {
                    b.order.push(Pick::Cached(i));
                }
                let md = match (&old.mds, e.md) {
                    (Some(mds), Some(at)) => Some(Md::Cached(cache::MdRef {
                        mds: mds.clone(),
                        at,
                    })),
                    _ => None,
                };
                b.add(Text::Borrowed(e.file), doc.map(|d| (d, md)));
            }
            // A malformed body: the file is read again.
            None => {
                b.parsed += 1;
                b.fresh(parse_file(dir, e.file, stems));
            }
        }
    }
    fresh.for_each(|f| b.fresh(f));
    // A `.md` file that is no topic file is reported at every call: its
    // directory is then listed at every call (its key is not kept).
    for name in &not_topics {
        b.broken.push(format!(
            "{}: not a valid topic id (a topic file is `<id>.md`, the id of \
             `A-Z a-z 0-9 . _ -`, at most 128 characters); not read",
            dir.join(name).display()
        ));
    }
    // The directory's key when every topic file listed has an entry.
    let listing = (b.order.len() == listed_count && not_topics.is_empty()).then_some(dir_key);
    // A listing of a directory changed within the racy window is
    // rewritten (with a later time) until it can be trusted.
    let changed = !had_cache
        || b.parsed > 0
        || old.entries.len() != b.order.len()
        || old.listing != listing
        || (listing.is_some() && relisted);
    if let (Some(cache), true) = (cache, changed) {
        let mut w = cache::Writer::new(&dir_str, now, b.order.len());
        w.listing(listing);
        // The Markdown of the entries kept, copied from the old cache.
        let old_mds = old.mds.as_ref().and_then(cache::Mds::all);
        for p in &b.order {
            match p {
                Pick::Cached(i) => {
                    let e = &old.entries[*i];
                    let md = e.md.and_then(|at| old_mds.as_ref()?.raw(at));
                    w.entry(e.file, (e.mtime_ns, e.size, e.change), e.body, md);
                }
                Pick::Fresh(e) => w.entry(
                    &e.file,
                    (e.mtime_ns, e.size, e.change),
                    &e.body,
                    e.md.as_deref(),
                ),
            }
        }
        // A cache that cannot be written only costs time next run.
        if crate::state::write(cache, w.finish().as_bytes(), true).is_ok() {
            for name in cache::OLD_CACHE_FILES {
                let _ = std::fs::remove_file(cache.with_file_name(name));
            }
        }
    }
    Ok(Loaded {
        items: b.items,
        broken: b.broken,
        cached: b.cached,
        parsed: b.parsed,
        relisted,
    })
}

/// A directory's listing: its topic files, and the `.md` names that are
/// no topic file's and not reserved (left out, and reported).
struct Listing {
    files: Vec<Listed>,
    /// Names ending in `.md` whose stem is not a valid id (not UTF-8, a
    /// space, a character outside `[A-Za-z0-9._-]`), lossily decoded.
    not_topics: Vec<String>,
}

/// The topic files of the directory open at `fd`, listed (see
/// [`list_entry`]); `entries` are the cache's.
fn list_dir(fd: &rustix::fd::OwnedFd, entries: &[cache::Cached]) -> rustix::io::Result<Listing> {
    let mut names: Vec<String> = Vec::new();
    let mut not_topics: Vec<String> = Vec::new();
    for ent in rustix::fs::Dir::read_from(fd)? {
        let ent = ent?;
        let raw = ent.file_name().to_bytes();
        if !raw.ends_with(b".md") {
            continue;
        }
        match std::str::from_utf8(raw) {
            Ok(name) if topic_file(name) => names.push(name.to_string()),
            _ => {
                let name = String::from_utf8_lossy(raw);
                if !mem_core::store::is_reserved(&name) {
                    not_topics.push(name.into_owned());
                }
            }
        }
    }
    not_topics.sort_unstable();
    // A name's entry in the cache is looked up once, by hash (a binary
    // search over thousands of names spread through the cache's bytes
    // misses the CPU cache at every step).
    let by_name = entry_index(entries);
    let cached = |name: &str| by_name.get(name).copied();
    let files = par_map(&names, |name| list_entry(fd, name, &cached))
        .into_iter()
        .flatten()
        .collect();
    Ok(Listing { files, not_topics })
}

/// The cache's files as they are now, by name in the directory open at
/// `fd` (one stat each), without listing it; `None` when one of them is
/// gone, became a directory, or is not a topic file's name (a cache that
/// names `../x.md` is never followed out of the directory: it is listed
/// instead).
fn list_cached(fd: &rustix::fd::OwnedFd, entries: &[cache::Cached]) -> Option<Vec<Listed>> {
    if !entries.iter().all(|e| topic_file(e.file)) {
        return None;
    }
    let stats = par_map(entries, |e| stat_at(fd, e.file));
    entries
        .iter()
        .zip(stats)
        .enumerate()
        .map(|(i, (e, st))| {
            let st = st?;
            Some(Listed {
                name: Cow::Borrowed(e.file),
                entry: Some(i),
                mtime_ns: st.mtime_ns,
                ctime_ns: st.ctime_ns,
                size: st.size,
                change: st.change,
            })
        })
        .collect()
}

/// True for a topic file's name: `<id>.md`, the id valid, not reserved.
/// An id of the form mem creates (`[a-z0-9][a-z0-9-]*`, most of them) is
/// valid unless it is a device or index name; others get the full check.
fn topic_file(name: &str) -> bool {
    use mem_core::id::{is_device_name, is_index_name, is_new_id, validate_id};
    let Some(id) = name.strip_suffix(".md") else {
        return false;
    };
    if is_new_id(id) {
        return !is_device_name(id) && !is_index_name(id);
    }
    !mem_core::store::is_reserved(name) && validate_id(id).is_ok()
}

/// The stat of `name` in the directory open at `fd`, not through a link;
/// `None` when it is missing or a directory.
fn stat_at(fd: &rustix::fd::OwnedFd, name: &str) -> Option<Stat> {
    let st = rustix::fs::statat(fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
    (!rustix::fs::FileType::from_raw_mode(st.st_mode).is_dir()).then(|| Stat::of(&st))
}

/// A file's key from `stat(2)`: mtime and ctime in ns since the epoch (0
/// before it), size, and [`change_of`].
struct Stat {
    mtime_ns: u128,
    ctime_ns: u128,
    size: u64,
    change: u64,
}

impl Stat {
    #[allow(clippy::unnecessary_cast)] // the field types differ by target
    fn of(st: &rustix::fs::Stat) -> Stat {
        Stat {
            mtime_ns: epoch_ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime_ns: epoch_ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
            size: st.st_size as u64,
            change: change_of(
                st.st_ctime as i64,
                st.st_ctime_nsec as i64,
                st.st_ino as u64,
            ),
        }
    }

    /// The same from the standard library's metadata.
    fn of_meta(meta: &std::fs::Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        Stat {
            mtime_ns: epoch_ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: epoch_ns(meta.ctime(), meta.ctime_nsec()),
            size: meta.len(),
            change: change_of(meta.ctime(), meta.ctime_nsec(), meta.ino()),
        }
    }
}

/// A time given as seconds and nanoseconds since the epoch, in
/// nanoseconds; 0 before the epoch (as [`ns`]).
fn epoch_ns(secs: i64, nsec: i64) -> u128 {
    u128::try_from(i128::from(secs) * 1_000_000_000 + i128::from(nsec)).unwrap_or(0)
}

/// The index of each cache entry by its file name.
fn entry_index(entries: &[cache::Cached]) -> foldhash::HashMap<&'static str, usize> {
    let mut m = foldhash::HashMap::with_capacity_and_hasher(entries.len(), Default::default());
    for (i, e) in entries.iter().enumerate() {
        m.insert(e.file, i);
    }
    m
}

/// A topic file as listed: its name, mtime and ctime (ns), size and
/// [`change_of`], and the index of its cache entry when the cache has one.
struct Listed {
    name: Cow<'static, str>,
    entry: Option<usize>,
    mtime_ns: u128,
    ctime_ns: u128,
    size: u64,
    change: u64,
}

/// The entry `name` of the directory open at `fd`, a topic file's name
/// ([`topic_file`]), when it is no directory (stat'ed without following a
/// link), with its key and the index of its cache entry (`known`).
fn list_entry(
    fd: &rustix::fd::OwnedFd,
    name: &str,
    known: &(impl Fn(&str) -> Option<usize> + Sync),
) -> Option<Listed> {
    let st = stat_at(fd, name)?;
    Some(Listed {
        name: Cow::Owned(name.to_string()),
        entry: known(name),
        mtime_ns: st.mtime_ns,
        ctime_ns: st.ctime_ns,
        size: st.size,
        change: st.change,
    })
}

/// A fingerprint of a file's inode and change time (ctime: seconds,
/// nanoseconds). The kernel sets the ctime on every write, rename or
/// metadata change, and no program can set it back, so an edit whose mtime
/// was put back (`cp -p`, `touch -r`, `rsync -a`, `tar x`) still shows.
fn change_of(ctime: i64, ctime_nsec: i64, ino: u64) -> u64 {
    (ctime as u64)
        .wrapping_mul(1_000_000_007)
        .wrapping_add(ctime_nsec as u64)
        ^ ino.rotate_left(29)
}

/// From this many topic files on, [`load_dir`] stats them, and decodes
/// their cache entries, on two threads (one stat costs microseconds, a
/// thread tens of them).
pub const PARALLEL_FROM: usize = 512;

/// `items.iter().map(f).collect()`, the second half on another thread when
/// there are at least [`PARALLEL_FROM`] items and a second CPU.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if !two_threads(items.len()) {
        return items.iter().map(&f).collect();
    }
    let (a, b) = items.split_at(items.len() / 2);
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("mem-recall-load".into())
            .spawn_scoped(s, || b.iter().map(&f).collect::<Vec<R>>());
        let mut out: Vec<R> = Vec::with_capacity(items.len());
        out.extend(a.iter().map(&f));
        match worker {
            Ok(h) => match h.join() {
                Ok(rest) => out.extend(rest),
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No thread to be had: do it here.
            Err(_) => out.extend(b.iter().map(&f)),
        }
        out
    })
}

/// True when work on `n` items is worth a second thread: at least
/// [`PARALLEL_FROM`] items and a second CPU.
fn two_threads(n: usize) -> bool {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    n >= PARALLEL_FROM
        && *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get())) > 1
}

/// `f` on the whole of `items`, or on each of its two halves, the second
/// on another thread (as [`par_map`] decides): the results in order (one,
/// or two).
pub(crate) fn par_halves<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    if !two_threads(items.len()) {
        return vec![f(items)];
    }
    let (a, b) = items.split_at(items.len() / 2);
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("mem-recall-gate".into())
            .spawn_scoped(s, || f(b));
        let first = f(a);
        let second = match worker {
            Ok(h) => match h.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No thread to be had: do it here.
            Err(_) => f(b),
        };
        vec![first, second]
    })
}

/// What goes into the cache being written, in file name order.
enum Pick {
    /// The cache entry at this index, unchanged.
    Cached(usize),
    /// A file read now.
    Fresh(Box<NewEntry>),
}

/// An entry for the cache from a file read now.
struct NewEntry {
    file: String,
    mtime_ns: u128,
    size: u64,
    change: u64,
    body: String,
    /// [`cache::encode_md`] of what the hook injects of it.
    md: Option<String>,
}

/// The result of [`load_dir`] being built, in file name order.
struct Build {
    dir: Arc<Path>,
    items: Vec<Item>,
    broken: Vec<String>,
    /// Entries of the cache to write (when `writing`).
    order: Vec<Pick>,
    writing: bool,
    cached: usize,
    parsed: usize,
}

impl Build {
    fn add(&mut self, file: Text, doc: Result<(Doc, Option<Md>), Text>) {
        match doc {
            Ok((doc, md)) => self.items.push(Item {
                source: Source::File(self.dir.clone(), file),
                doc,
                tier: mem_core::tier::Tier::Personal,
                md,
            }),
            Err(msg) => self.broken.push(msg.into_owned()),
        }
    }

    fn fresh(&mut self, f: Fresh) {
        if self.writing && f.mtime_ns > 0 {
            self.order.push(Pick::Fresh(Box::new(NewEntry {
                file: f.file.clone(),
                mtime_ns: f.mtime_ns,
                size: f.size,
                change: f.change,
                body: cache::encode_body(f.doc.as_ref().map(|(d, _)| d).map_err(String::as_str)),
                md: f.doc.as_ref().ok().map(|(_, md)| cache::encode_md(md)),
            })));
        }
        self.add(
            Text::Owned(f.file),
            f.doc
                .map(|(d, md)| (d, Some(Md::Parts(md))))
                .map_err(Text::Owned),
        );
    }
}

/// Read and parse one topic file.
fn parse_file(dir: &Path, name: &str, stems: &Stems) -> Fresh {
    let path = dir.join(name);
    let stem = name.strip_suffix(".md").unwrap_or(name);
    // Regular files only, never through a link, at most MAX_TOPIC_BYTES.
    // The key is the opened file's, taken before it is read: what is
    // cached is what was read, whatever file the name was listed as.
    let read = mem_core::confine::open_regular(&path, false).and_then(|f| {
        let meta = f.metadata().map_err(|e| mem_core::Error::io(&path, e))?;
        let bytes = mem_core::confine::read_all(f, &path, mem_core::confine::MAX_TOPIC_BYTES)?;
        Ok((Stat::of_meta(&meta), bytes))
    });
    let (st, doc) = match read {
        Ok((st, bytes)) => (
            Some(st),
            match String::from_utf8(bytes) {
                Ok(text) => mem_core::frontmatter::parse(&path.to_string_lossy(), &text)
                    .map(|m| (Doc::from_memory(stem, &m, stems), md_parts(&m)))
                    .map_err(|e| e.to_string()),
                Err(e) => {
                    let line = mem_core::store::invalid_utf8_line(e.as_bytes(), &e.utf8_error());
                    Err(format!("{}:{line}: not valid UTF-8", path.display()))
                }
            },
        ),
        // Vanished or unreadable: reported, never cached.
        Err(e) => (None, Err(e.to_string())),
    };
    Fresh {
        file: name.to_string(),
        mtime_ns: st.as_ref().map_or(0, |st| st.mtime_ns),
        size: st.as_ref().map_or(0, |st| st.size),
        change: st.as_ref().map_or(0, |st| st.change),
        doc,
    }
}

/// The cache file for a memory dir: `$XDG_CACHE_HOME/mem/<digest>/`[`CACHE_FILE`]
/// (`None` when there is no cache dir, e.g. no home).
pub fn cache_path(memory_dir: &Path) -> Option<PathBuf> {
    mem_core::memdir::cache_dir_for(memory_dir)
        .ok()
        .map(|d| d.join(CACHE_FILE))
}

/// Memory records from a JSONL stream (`--records -`).
///
/// Errors: every bad line is reported (the first error is returned, the
/// others are printed on stderr by the caller), as `<stdin>:LINE: reason`.
pub fn load_records(
    input: impl std::io::Read,
    name: &str,
    stems: &Stems,
) -> Result<Vec<Item>, Vec<mem_core::Error>> {
    let (ok, errs) = mem_core::jsonl::read_records::<Memory>(input, name);
    if !errs.is_empty() {
        return Err(errs);
    }
    let mut items = Vec::new();
    let mut bad = Vec::new();
    for (line, m) in ok {
        match m.resolve_id() {
            Ok(id) => items.push(Item {
                doc: Doc::from_memory(&id, &m, stems),
                source: Source::Record(Box::new(m)),
                tier: mem_core::tier::Tier::Personal,
                md: None,
            }),
            Err(e) => bad.push(mem_core::Error::input(name, line, e.to_string())),
        }
    }
    if bad.is_empty() { Ok(items) } else { Err(bad) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick form of [`topic_file`] agrees with the full check.
    #[test]
    fn topic_file_names() {
        let full = |name: &str| {
            !mem_core::store::is_reserved(name)
                && name
                    .strip_suffix(".md")
                    .is_some_and(|id| mem_core::id::validate_id(id).is_ok())
        };
        for name in [
            "deploy-notes.md",
            "a.md",
            "0-x.md",
            "con.md",
            "CON.md",
            "memory.md",
            "MEMORY.md",
            ".hidden.md",
            "../x.md",
            "a/b.md",
            "x.txt",
            ".md",
            "-a.md",
            "Foo_Bar.md",
            "a..b.md",
            "nul.md",
            "com1.md",
            "lpt10.md",
            "logs",
            "retired",
            "a%2e.md",
        ] {
            assert_eq!(topic_file(name), full(name), "{name}");
        }
    }

    /// The key of a file stat'ed by name is the one of its listing, and
    /// the one of the file opened (what parse_file caches).
    #[test]
    fn stat_by_name_equals_the_listing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mem");
        std::fs::create_dir(&dir).unwrap();
        let text = "---\nname: a\ndescription: b\ntype: user\n---\nbody\n";
        for name in ["one.md", "two.md", "three.md"] {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let cache = tmp.path().join("cache");
        let stems = Stems::default();
        load_dir(&dir, Some(&cache), &stems).unwrap();
        let c = cache::read(&cache).unwrap();
        assert_eq!(c.entries.len(), 3);
        let fd = rustix::fs::open(
            &dir,
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY,
            rustix::fs::Mode::empty(),
        )
        .unwrap();
        let key = |l: &Listed| (l.name.to_string(), l.entry, l.mtime_ns, l.size, l.change);
        let mut listed: Vec<_> = list_dir(&fd, &c.entries)
            .unwrap()
            .files
            .iter()
            .map(key)
            .collect();
        listed.sort();
        let by_name: Vec<_> = list_cached(&fd, &c.entries)
            .unwrap()
            .iter()
            .map(key)
            .collect();
        assert_eq!(listed, by_name);
        assert!(
            by_name
                .iter()
                .all(|k| k.2 > 0 && k.3 == text.len() as u64 && k.4 != 0)
        );
        for (e, k) in c.entries.iter().zip(&by_name) {
            assert_eq!((e.mtime_ns, e.size, e.change), (k.2, k.3, k.4));
        }
    }
}
