//! Reading the memories to decide on: the topic files of a memory directory
//! (through a cache of parsed frontmatter) or memory records from stdin.
//!
//! The cache lives in `$XDG_CACHE_HOME/mem/<digest of the memory dir>/recall.json`
//! (never inside the memory directory). An entry is used when the file's
//! name, mtime (nanoseconds) and size are unchanged and the file was last
//! modified at least [`RACY_SECS`] before the cache was written (a file
//! changed twice within one clock tick is re-read). The cache is written
//! atomically when anything changed; a cache that does not parse is ignored
//! and rebuilt.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use mem_core::Memory;
use serde::{Deserialize, Serialize};

use crate::gate::Doc;
use crate::text::Stems;

/// Seconds a file's mtime must lie before the cache's write time for the
/// cached entry to be trusted.
pub const RACY_SECS: u64 = 2;

/// Version of the cache layout; a different version is ignored.
const CACHE_VERSION: u32 = 1;

/// The cache file's name inside the memory dir's cache folder.
pub const CACHE_FILE: &str = "recall.json";

/// One memory to decide on, with where its full content comes from.
#[derive(Debug, Clone)]
pub struct Item {
    /// What the gate needs.
    pub doc: Doc,
    /// The topic file (re-read when the memory is injected), or the record.
    pub source: Source,
}

/// Where a memory's full content is.
#[derive(Debug, Clone)]
pub enum Source {
    /// A topic file.
    File(PathBuf),
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
            Source::File(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| mem_core::Error::io(p, e))?;
                mem_core::frontmatter::parse(&label(p), &text)
            }
        }
    }
}

fn label(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[derive(Serialize, Deserialize, Default)]
struct Cache {
    version: u32,
    /// The memory dir this cache is for.
    dir: String,
    /// When it was written (ns since the epoch).
    written_ns: u128,
    entries: Vec<Entry>,
}

/// [`Cache`] borrowing its entries, for writing.
#[derive(Serialize)]
struct CacheRef<'a> {
    version: u32,
    dir: String,
    written_ns: u128,
    entries: Vec<&'a Entry>,
}

#[derive(Serialize, Deserialize, Clone)]
struct Entry {
    file: String,
    mtime_ns: u128,
    size: u64,
    /// `None` when the file did not parse.
    doc: Option<Doc>,
    /// Why it did not parse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The topic files of a memory dir, parsed.
pub struct Loaded {
    /// Memories that parsed.
    pub items: Vec<Item>,
    /// Files that did not parse: `FILE:LINE: reason` (reported on stderr).
    pub broken: Vec<String>,
    /// Entries taken from the cache, and files parsed now.
    pub cached: usize,
    /// Files parsed in this run.
    pub parsed: usize,
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
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Loaded {
                items: Vec::new(),
                broken: Vec::new(),
                cached: 0,
                parsed: 0,
            });
        }
        Err(e) => return Err(mem_core::Error::io(dir, e)),
    };
    let old = cache
        .and_then(read_cache)
        .filter(|c| c.dir == dir.to_string_lossy());
    let trusted_before = old.as_ref().map_or(0, |c| {
        c.written_ns
            .saturating_sub(u128::from(RACY_SECS) * 1_000_000_000)
    });
    let old_len = old.as_ref().map(|c| c.entries.len());
    let mut old_map: HashMap<String, Entry> = old
        .map(|c| c.entries.into_iter().map(|e| (e.file.clone(), e)).collect())
        .unwrap_or_default();
    let now = ns(SystemTime::now());
    let mut entries = Vec::new();
    let mut cached = 0;
    let mut parsed = 0;
    for ent in rd {
        let ent = ent.map_err(|e| mem_core::Error::io(dir, e))?;
        let name = ent.file_name();
        let Some(name) = name.to_str() else { continue };
        if mem_core::store::is_reserved(name) {
            continue;
        }
        let Some(stem) = name.strip_suffix(".md") else {
            continue;
        };
        if mem_core::id::validate_id(stem).is_err() {
            continue;
        }
        let Ok(meta) = ent.metadata() else { continue };
        if meta.is_dir() {
            continue;
        }
        let mtime_ns = meta.modified().map_or(0, ns);
        let size = meta.len();
        if let Some(e) = old_map.remove(name)
            && e.mtime_ns == mtime_ns
            && e.size == size
            && mtime_ns < trusted_before
        {
            entries.push(e);
            cached += 1;
            continue;
        }
        parsed += 1;
        let path = ent.path();
        let entry = match std::fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => match mem_core::frontmatter::parse(name, &text) {
                    Ok(m) => Entry {
                        file: name.to_string(),
                        mtime_ns,
                        size,
                        doc: Some(Doc::from_memory(stem, &m, stems)),
                        error: None,
                    },
                    Err(e) => Entry {
                        file: name.to_string(),
                        mtime_ns,
                        size,
                        doc: None,
                        error: Some(e.to_string()),
                    },
                },
                Err(_) => Entry {
                    file: name.to_string(),
                    mtime_ns,
                    size,
                    doc: None,
                    error: Some(format!("{name}:1: not valid UTF-8")),
                },
            },
            Err(e) => {
                // Vanished or unreadable: report, never cache.
                entries.push(Entry {
                    file: name.to_string(),
                    mtime_ns: 0,
                    size,
                    doc: None,
                    error: Some(format!("{}: {e}", path.display())),
                });
                continue;
            }
        };
        entries.push(entry);
    }
    entries.sort_by(|a, b| a.file.cmp(&b.file));
    let changed = parsed > 0 || old_len != Some(entries.len());
    if let (Some(cache), true) = (cache, changed) {
        let c = CacheRef {
            version: CACHE_VERSION,
            dir: dir.to_string_lossy().into_owned(),
            written_ns: now,
            entries: entries.iter().filter(|e| e.mtime_ns > 0).collect(),
        };
        if let Ok(bytes) = serde_json::to_vec(&c) {
            // A cache that cannot be written only costs time next run.
            let _ = mem_core::atomic::write_atomic(cache, &bytes);
        }
    }
    let mut items = Vec::with_capacity(entries.len());
    let mut broken = Vec::new();
    for e in entries {
        match e.doc {
            Some(doc) => items.push(Item {
                source: Source::File(dir.join(&e.file)),
                doc,
            }),
            None => broken.push(e.error.unwrap_or_else(|| e.file.clone())),
        }
    }
    Ok(Loaded {
        items,
        broken,
        cached,
        parsed,
    })
}

fn read_cache(path: &Path) -> Option<Cache> {
    let bytes = std::fs::read(path).ok()?;
    let c: Cache = serde_json::from_slice(&bytes).ok()?;
    (c.version == CACHE_VERSION).then_some(c)
}

/// The cache file for a memory dir: `$XDG_CACHE_HOME/mem/<digest>/recall.json`
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
            }),
            Err(e) => bad.push(mem_core::Error::input(name, line, e.to_string())),
        }
    }
    if bad.is_empty() { Ok(items) } else { Err(bad) }
}
