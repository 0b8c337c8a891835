//! The consolidation journal and crash recovery (docs/consolidation.md
//! "Journal and recovery").
//!
//! A consolidation changes many files at once. [`apply`] makes that safe
//! against `kill -9` and power loss the way SQLite's rollback journal and
//! git's object-then-ref order do:
//!
//! 1. **Journal first.** `.mem/journal/<UTC stamp>-<pid>/` gets `meta.json`,
//!    `plan.jsonl` and, last, `manifest.jsonl` (one [`Entry`] per changed
//!    file, with the bytes before the run), each fsynced, then the journal's
//!    folders are fsynced. A journal folder without a manifest changed
//!    nothing.
//! 2. **Objects.** Every new or rewritten file except `MEMORY.md` (new topic
//!    files, rewritten ones, the `retired/` copies) is written through a temp
//!    file and a rename.
//! 3. **Deletes.** Only then are retired topic files removed: a memory is
//!    never gone from the live folder before its retired copy exists.
//! 4. **One flush.** Steps 2–3 are made durable together
//!    ([`crate::atomic::sync_batch`]: the written files fsynced from a few
//!    threads at once so the file system commits them as a group, then each
//!    folder once) instead of one fsync after each file.
//! 5. **The ref.** `MEMORY.md` is written last (fsynced).
//! 6. **Complete.** The `done` marker is written and fsynced.
//!
//! **Recovery rule: roll back.** [`recover`] (run by `mem-dream`,
//! `mem-dream undo`, `mem-index write` and `mem-index check --repair` under
//! the index lock before anything else) puts every file of a journal without
//! `done` back to its bytes before the run — files the run removed come back
//! first, then files it created are removed — fsyncs, marks the journal
//! `rolledback` and restores the consolidation lock's mtime. The next
//! consolidation then redoes the work from a consistent directory.
//!
//! **Secrets.** A `before` text that carries a secret (per the scrubber's
//! secret rules) is stored with the secret already `[REDACTED]`, plus the
//! digest of the original bytes ([`Entry::before_hash`]): the journal never
//! keeps what a redaction removed, and a rollback or undo restores the
//! redacted text.
//!
//! **`mem-index write` batches** mark themselves with `.mem/write-pending`
//! ([`begin_write`] / [`end_write`]); every topic file of a batch is atomic,
//! so recovery rolls such a batch **forward**: `MEMORY.md` is rebuilt from
//! the topic files (see [`recover`]).
//!
//! Tests only: `MEM_TEST_CRASH_AT=N` aborts the process (as `kill -9` would:
//! no destructor, no cleanup) at the N-th file-system step of [`apply`]; see
//! [`crash_point`].

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::SystemTime;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::atomic::{sync_batch, sync_dir, write_atomic, write_unsynced};
use crate::error::{Error, Result};
use crate::lock::Lock;
use crate::scrub::Scrubber;
use crate::store::{self, IndexGuard};

/// The journal folder, relative to the memory directory.
pub const JOURNAL_DIR: &str = ".mem/journal";
/// The marker of an unfinished `mem-index write` batch, relative to the
/// memory directory.
pub const WRITE_PENDING: &str = ".mem/write-pending";
/// Journals kept; older ones are removed after a successful run.
pub const KEEP_JOURNALS: usize = 10;
/// The environment variable of the test-only crash hook ([`crash_point`]).
pub const CRASH_ENV: &str = "MEM_TEST_CRASH_AT";

/// Marker: every change of the journal is written and flushed.
const DONE: &str = "done";
/// Marker: the run was undone by `mem-dream undo`.
const UNDONE: &str = "undone";
/// Marker: the unfinished run was rolled back by [`recover`] (or by the run
/// itself after an error or a signal).
const ROLLED_BACK: &str = "rolledback";
const MANIFEST: &str = "manifest.jsonl";

/// One file change of a journal (`manifest.jsonl`, one JSON object a line).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// Path relative to the memory directory (`id.md`, `retired/id.md`, `MEMORY.md`).
    pub rel: String,
    /// The file's bytes before the run (null: it did not exist); text, or
    /// `{"hex": …}` when not UTF-8; secrets already `[REDACTED]`.
    pub before: Option<Saved>,
    /// Digest ([`store::hash_bytes`]) of the original bytes before the run,
    /// set when `before` was redacted (it then differs from `before`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_hash: Option<String>,
    /// Digest of the bytes the run writes (null: the file is removed).
    pub after: Option<String>,
}

/// Saved bytes: text, or hex for bytes that are not UTF-8.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Saved {
    /// UTF-8 text.
    Text(String),
    /// Any other bytes, hex-encoded.
    Hex {
        /// Two lowercase hex digits per byte.
        hex: String,
    },
}

impl Saved {
    fn of(b: &[u8]) -> Saved {
        match std::str::from_utf8(b) {
            Ok(t) => Saved::Text(t.to_string()),
            Err(_) => Saved::Hex {
                hex: b.iter().map(|x| format!("{x:02x}")).collect(),
            },
        }
    }
    /// The saved bytes.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Saved::Text(t) => t.as_bytes().to_vec(),
            Saved::Hex { hex } => (0..hex.len() / 2)
                .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
                .collect(),
        }
    }
}

/// `meta.json` of a journal.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    /// When the run started (the folder's stamp).
    pub started: String,
    /// The consolidation lock's mtime before the run (RFC 3339), or null
    /// when there was no lock.
    pub lock_mtime: Option<String>,
}

/// One change to apply: `rel` goes from `before` to `after` (`None`: the
/// file does not exist / is removed).
#[derive(Debug, Clone, Copy)]
pub struct FileChange<'a> {
    /// Path relative to the memory directory.
    pub rel: &'a str,
    /// The bytes read before the run (checked again before anything is written).
    pub before: Option<&'a [u8]>,
    /// The bytes to write.
    pub after: Option<&'a [u8]>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

fn crash_limit() -> Option<usize> {
    static LIMIT: OnceLock<Option<usize>> = OnceLock::new();
    *LIMIT.get_or_init(|| std::env::var(CRASH_ENV).ok()?.trim().parse().ok())
}

static STEPS: AtomicUsize = AtomicUsize::new(0);

/// Test-only crash hook: called before every file-system step of [`apply`].
/// When `MEM_TEST_CRASH_AT=N` is set, the N-th call (1-based) aborts the
/// process at once (no destructor, no cleanup: what `kill -9` leaves). Without
/// the variable it only counts.
pub fn crash_point() {
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    if crash_limit() == Some(n) {
        std::process::abort();
    }
}

/// How many [`crash_point`]s this process has passed.
pub fn crash_points() -> usize {
    STEPS.load(Ordering::SeqCst)
}

/// `dir/rel` for a relative path of plain components, its parent folder
/// created, checked to stay inside `dir` with no link on the way
/// ([`crate::confine`]).
fn target(dir: &Path, rel: &str) -> Result<PathBuf> {
    let r = Path::new(rel);
    if rel.is_empty()
        || r.components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(crate::IdError::Escapes(dir.join(rel)).into());
    }
    let p = dir.join(r);
    // No link below the memory directory, the file itself included.
    if let Some(parent) = p.parent() {
        crate::confine::create_dirs(dir, parent)?;
    }
    crate::confine::check_below(dir, &p)?;
    crate::id::contained(dir, &p)?;
    Ok(p)
}

/// [`target`] for the many files of one batch: each folder is created and
/// checked once, each file then only for a link at its own components.
struct Targets<'a> {
    dir: &'a Path,
    folders: std::collections::HashSet<PathBuf>,
}

impl<'a> Targets<'a> {
    fn new(dir: &'a Path) -> Targets<'a> {
        Targets {
            dir,
            folders: Default::default(),
        }
    }

    fn get(&mut self, rel: &str) -> Result<PathBuf> {
        let r = Path::new(rel);
        let parent = r.parent().map(|p| self.dir.join(p));
        match parent {
            Some(parent)
                if !rel.is_empty()
                    && r.components()
                        .all(|c| matches!(c, std::path::Component::Normal(_))) =>
            {
                if !self.folders.contains(&parent) {
                    crate::confine::create_dirs(self.dir, &parent)?;
                    crate::confine::check_below(self.dir, &parent)?;
                    crate::id::contained(self.dir, &parent)?;
                    self.folders.insert(parent);
                }
                // The folder holds no link (checked above): the file itself
                // must not be one either.
                let p = self.dir.join(r);
                crate::confine::check_below(self.dir, &p)?;
                Ok(p)
            }
            _ => target(self.dir, rel),
        }
    }
}

fn read_opt(p: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(p) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(p, e)),
    }
}

fn remove_opt(p: &Path) -> Result<()> {
    match std::fs::remove_file(p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(p, e)),
        _ => Ok(()),
    }
}

/// The text kept in the journal for `before`: with every secret redacted
/// (then `Some(digest of the original)` comes along).
fn saved_before(scrubber: &Scrubber, b: &[u8]) -> (Saved, Option<String>) {
    let Ok(text) = std::str::from_utf8(b) else {
        let lossy = String::from_utf8_lossy(b);
        let red = scrubber.redact_secrets(&lossy);
        if red != lossy {
            return (Saved::Text(red), Some(store::hash_bytes(b)));
        }
        return (Saved::of(b), None);
    };
    let red = scrubber.redact_secrets(text);
    if red == text {
        return (Saved::Text(red), None);
    }
    (Saved::Text(red), Some(store::hash_bytes(b)))
}

fn journals(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join(JOURNAL_DIR))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn is_finished(j: &Path) -> bool {
    j.join(DONE).exists() || j.join(UNDONE).exists() || j.join(ROLLED_BACK).exists()
}

fn prune_journals(dir: &Path) {
    let v = journals(dir);
    if v.len() > KEEP_JOURNALS {
        for p in &v[..v.len() - KEEP_JOURNALS] {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// Write a marker file durably (file and folder fsynced).
fn mark(j: &Path, name: &str) -> Result<()> {
    write_atomic(&j.join(name), b"")
}

fn read_manifest(j: &Path) -> Result<Vec<Entry>> {
    let mpath = j.join(MANIFEST);
    let text = std::fs::read_to_string(&mpath).map_err(io(&mpath))?;
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let e: Entry = serde_json::from_str(line)
            .map_err(|e| Error::input(mpath.display().to_string(), n + 1, e.to_string()))?;
        entries.push(e);
    }
    Ok(entries)
}

fn read_meta(j: &Path) -> Option<Meta> {
    std::fs::read_to_string(j.join("meta.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
}

fn lock_mtime_of(meta: Option<&Meta>) -> Option<SystemTime> {
    meta.and_then(|m| m.lock_mtime.as_deref())
        .and_then(crate::time::parse_ts)
        .map(SystemTime::from)
}

/// The folders holding the files of `entries` (each once).
fn folders(dir: &Path, entries: &[Entry]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = entries
        .iter()
        .filter_map(|e| dir.join(&e.rel).parent().map(Path::to_path_buf))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Put every file of `entries` back to its `before` bytes: files that
/// existed come back first (so no memory is ever missing), then files the
/// run created are removed; then one flush. Returns the files changed.
fn roll_back(dir: &Path, entries: &[Entry]) -> Result<Vec<String>> {
    let mut changed = Vec::new();
    let mut written = Vec::new();
    let mut targets = Targets::new(dir);
    for e in entries.iter().filter(|e| e.before.is_some()) {
        let p = targets.get(&e.rel)?;
        let want = e.before.as_ref().map(Saved::bytes).unwrap_or_default();
        let now = read_opt(&p)?;
        let orig_ok = now.as_deref().map(store::hash_bytes).is_some_and(|h| {
            e.before_hash.as_deref() == Some(h.as_str()) && now.as_deref() != Some(&want)
        });
        if now.as_deref() == Some(want.as_slice()) || orig_ok {
            continue;
        }
        write_unsynced(&p, &want)?;
        written.push(p);
        changed.push(e.rel.clone());
    }
    for e in entries.iter().filter(|e| e.before.is_none()) {
        let p = targets.get(&e.rel)?;
        if p.exists() {
            remove_opt(&p)?;
            changed.push(e.rel.clone());
        }
    }
    if !changed.is_empty() {
        sync_batch(&written, &folders(dir, entries))?;
    }
    Ok(changed)
}

/// Apply `changes` in `dir` (the caller holds the index lock) in the
/// journal order of the module documentation. When `stop` is set between two
/// files, or a write fails, the changes made so far are rolled back, the
/// journal is marked `rolledback` and the error returned.
///
/// `plan` is the plan as applied (JSONL, kept as `plan.jsonl`); `lock_mtime`
/// the consolidation lock's mtime before the run (restored by undo and by
/// recovery).
///
/// Returns the journal folder. Errors: [`Error::Io`];
/// [`Error::ChangedWhileConsolidating`] when a file changed since it was
/// read (another writer: nothing is written); [`Error::Interrupted`].
pub fn apply(
    dir: &Path,
    changes: &[FileChange],
    plan: &str,
    lock_mtime: Option<SystemTime>,
    stop: &AtomicBool,
) -> Result<PathBuf> {
    // Nothing changed since it was read?
    let mut targets = Targets::new(dir);
    for c in changes {
        let p = targets.get(c.rel)?;
        if read_opt(&p)?.as_deref() != c.before {
            return Err(Error::ChangedWhileConsolidating(p.to_path_buf()));
        }
    }
    // 1. The journal, durable before any data changes.
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ").to_string();
    let jroot = dir.join(JOURNAL_DIR);
    let jdir = jroot.join(format!("{stamp}-{}", std::process::id()));
    crash_point();
    crate::confine::create_dirs(dir, &jdir)?;
    let meta = Meta {
        started: stamp,
        lock_mtime: lock_mtime.map(|t| crate::time::fmt_ts(t.into())),
    };
    crash_point();
    write_atomic(
        &jdir.join("meta.json"),
        serde_json::to_string(&meta).unwrap_or_default().as_bytes(),
    )?;
    crash_point();
    write_atomic(&jdir.join("plan.jsonl"), plan.as_bytes())?;
    let scrubber = Scrubber::new(None);
    let mut manifest = String::new();
    let mut entries = Vec::with_capacity(changes.len());
    for c in changes {
        let (before, before_hash) = match c.before {
            Some(b) => {
                let (s, h) = saved_before(&scrubber, b);
                (Some(s), h)
            }
            None => (None, None),
        };
        let e = Entry {
            rel: c.rel.to_string(),
            before,
            before_hash,
            after: c.after.map(store::hash_bytes),
        };
        manifest.push_str(&serde_json::to_string(&e).unwrap_or_default());
        manifest.push('\n');
        entries.push(e);
    }
    crash_point();
    write_atomic(&jdir.join(MANIFEST), manifest.as_bytes())?;
    crash_point();
    sync_dir(&jroot)?;
    sync_dir(&dir.join(store::STATE_DIR))?;

    // 2–5. Objects, deletes, one flush, the ref.
    let is_index = |c: &&FileChange| c.rel == store::INDEX_FILE;
    let writes = changes.iter().filter(|c| c.after.is_some() && !is_index(c));
    let deletes = changes.iter().filter(|c| c.after.is_none());
    let index = changes.iter().filter(|c| c.after.is_some() && is_index(c));
    let result = (|| -> Result<()> {
        let interrupted = || -> Result<()> {
            if stop.load(Ordering::SeqCst) {
                Err(Error::Interrupted)
            } else {
                Ok(())
            }
        };
        let mut written = Vec::new();
        for c in writes {
            interrupted()?;
            crash_point();
            let p = targets.get(c.rel)?;
            write_unsynced(&p, c.after.unwrap_or_default())?;
            written.push(p);
        }
        for c in deletes {
            interrupted()?;
            crash_point();
            remove_opt(&targets.get(c.rel)?)?;
        }
        interrupted()?;
        crash_point();
        sync_batch(&written, &folders(dir, &entries))?;
        for c in index {
            crash_point();
            write_atomic(&target(dir, c.rel)?, c.after.unwrap_or_default())?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        // Put back what was changed; the journal says it was rolled back.
        if roll_back(dir, &entries).is_ok() {
            let _ = mark(&jdir, ROLLED_BACK);
        }
        return Err(e);
    }
    // 6. Complete.
    crash_point();
    mark(&jdir, DONE)?;
    if crash_limit().is_some() {
        eprintln!("mem: test: {} crash points passed", crash_points());
    }
    prune_journals(dir);
    Ok(jdir)
}

/// What [`undo`] restored.
#[derive(Debug)]
pub struct Undone {
    /// The journal used.
    pub journal: PathBuf,
    /// Files restored (relative paths).
    pub files: Vec<String>,
    /// The lock's mtime before the undone run (restored when the lock is free).
    pub lock_mtime: Option<SystemTime>,
}

/// Restore the state before the last complete run (the newest journal that
/// is `done` and neither undone nor rolled back). The caller holds the index
/// lock and has run [`recover`] first. Every file must still have the bytes
/// the run wrote, unless `force`. A redacted secret is not brought back: the
/// redacted text is.
///
/// Errors: [`Error::NothingToUndo`]; [`Error::ChangedSinceConsolidation`]
/// when a file changed since the run (nothing is restored then);
/// [`Error::Io`].
pub fn undo(dir: &Path, force: bool) -> Result<Undone> {
    let Some(j) = journals(dir).into_iter().rev().find(|j| {
        j.join(DONE).exists() && !j.join(UNDONE).exists() && !j.join(ROLLED_BACK).exists()
    }) else {
        return Err(Error::NothingToUndo(dir.join(JOURNAL_DIR)));
    };
    let entries = read_manifest(&j)?;
    let mut changed = Vec::new();
    for e in &entries {
        let p = target(dir, &e.rel)?;
        let now = read_opt(&p)?.map(|b| store::hash_bytes(&b));
        if now != e.after {
            changed.push(e.rel.clone());
        }
    }
    if !changed.is_empty() && !force {
        return Err(Error::ChangedSinceConsolidation(changed));
    }
    // Same order as a rollback: what existed comes back before what the
    // run created goes; MEMORY.md is rewritten with the rest.
    roll_back(dir, &entries)?;
    let files = entries.iter().map(|e| e.rel.clone()).collect();
    let meta = read_meta(&j);
    mark(&j, UNDONE)?;
    Ok(Undone {
        journal: j,
        files,
        lock_mtime: lock_mtime_of(meta.as_ref()),
    })
}

/// What [`recover`] found and did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// Unfinished consolidations rolled back (journals without a manifest
    /// not counted: they changed nothing).
    pub rolled_back: usize,
    /// Unfinished consolidation journals without a manifest removed (a run
    /// killed before it changed anything).
    pub removed: usize,
    /// One sentence per thing done, for stderr (empty when nothing was left).
    pub said: Vec<String>,
}

/// True when `dir` holds an unfinished consolidation journal or an
/// unfinished `mem-index write` batch (cheap: no file is read).
pub fn needs_recovery(dir: &Path) -> bool {
    dir.join(WRITE_PENDING).exists() || journals(dir).iter().any(|j| !is_finished(j))
}

/// Finish what a killed writer left (the caller holds the index lock, `_lock`):
///
/// - a consolidation journal without `done` is **rolled back** (see the
///   module documentation), marked `rolledback`, and the consolidation
///   lock's mtime is restored when no live process holds it; a journal folder
///   without its manifest changed nothing and is removed;
/// - an unfinished `mem-index write` batch is **rolled forward**: `MEMORY.md`
///   is rebuilt from the topic files (dated `today`) and the marker removed.
///
/// Returns what was done.
///
/// Errors: [`Error::Io`]; [`Error::Input`] for a manifest line that does not
/// parse (the journal is then left as it is).
pub fn recover(_lock: &IndexGuard, dir: &Path, today: NaiveDate) -> Result<Recovered> {
    let mut said = Vec::new();
    let mut rolled_back = 0;
    let mut removed = 0;
    for j in journals(dir) {
        if is_finished(&j) {
            continue;
        }
        if !j.join(MANIFEST).exists() {
            std::fs::remove_dir_all(&j).map_err(io(&j))?;
            said.push(format!(
                "{}: unfinished consolidation journal without a manifest (nothing had changed): removed",
                j.display()
            ));
            removed += 1;
            continue;
        }
        let entries = read_manifest(&j)?;
        let files = roll_back(dir, &entries)?;
        let meta = read_meta(&j);
        let lock = Lock::in_dir(dir);
        if let Ok(st) = lock.status(crate::lock::DEFAULT_STALE_AFTER)
            && !st.busy()
        {
            lock.rollback(lock_mtime_of(meta.as_ref()))?;
        }
        mark(&j, ROLLED_BACK)?;
        rolled_back += 1;
        said.push(format!(
            "{}: unfinished consolidation rolled back ({} of {} file(s) restored)",
            j.display(),
            files.len(),
            entries.len()
        ));
    }
    if dir.join(WRITE_PENDING).exists() {
        if let Some(done) = finish_move(dir)? {
            said.push(format!("{}: {done}", dir.display()));
        }
        let st = store::load(dir)?;
        let path = dir.join(store::INDEX_FILE);
        let old = std::fs::read_to_string(&path).ok();
        let entries = crate::index_md::entries_for(&st, old.as_deref());
        let r = crate::index_md::render(&entries, today);
        let wrote = crate::atomic::write_if_changed(&path, r.text.as_bytes())?;
        end_write(dir)?;
        said.push(format!(
            "{}: unfinished `mem-index write` batch rolled forward ({} rebuilt from {} topic file(s){})",
            dir.display(),
            store::INDEX_FILE,
            st.topics.len(),
            if wrote { "" } else { ", unchanged" }
        ));
    }
    Ok(Recovered {
        rolled_back,
        removed,
        said,
    })
}

/// Mark the start of a `mem-index write` batch (`.mem/write-pending`,
/// durable). Errors: [`Error::Io`].
pub fn begin_write(dir: &Path) -> Result<()> {
    let p = dir.join(WRITE_PENDING);
    crate::confine::write_atomic(dir, &p, format!("{}\n", std::process::id()).as_bytes())
}

/// Mark the start of a move of one topic file (`mem-index retire` and
/// `restore`): `.mem/write-pending` (durable) names the move, `from` and
/// `to` relative to the memory directory. The move writes `to` whole
/// (atomic) before it removes `from`, so recovery rolls it **forward**: when
/// both files exist, `from` is removed; then `MEMORY.md` is rebuilt, as for
/// a write batch. End it with [`end_write`]. Errors: [`Error::Io`].
pub fn begin_move(dir: &Path, from: &str, to: &str) -> Result<()> {
    let p = dir.join(WRITE_PENDING);
    let text = format!("{}\n{MOVE}\t{from}\t{to}\n", std::process::id());
    crate::confine::write_atomic(dir, &p, text.as_bytes())
}

/// The word of a `.mem/write-pending` line naming a move ([`begin_move`]).
const MOVE: &str = "move";

/// Finish the move a killed `retire`/`restore` left in the marker: when
/// both its source and its complete copy exist, remove the source. Returns
/// what was done, if anything.
fn finish_move(dir: &Path) -> Result<Option<String>> {
    let marker = dir.join(WRITE_PENDING);
    let text = crate::confine::read_text_capped(&marker, 64 * 1024, false).unwrap_or_default();
    let Some((from, to)) = text.lines().find_map(|l| {
        let mut f = l.split('\t');
        (f.next() == Some(MOVE)).then_some(())?;
        Some((f.next()?.to_string(), f.next()?.to_string()))
    }) else {
        return Ok(None);
    };
    // Only topic files of this directory and its `retired/`, never through a link.
    let is_topic = |rel: &str| {
        let rest = rel
            .strip_prefix(&format!("{}/", store::RETIRED_DIR))
            .unwrap_or(rel);
        rest.strip_suffix(".md")
            .is_some_and(|stem| crate::id::validate_id(stem).is_ok())
    };
    if !is_topic(&from) || !is_topic(&to) {
        return Ok(None);
    }
    let (src, dest) = (target(dir, &from)?, target(dir, &to)?);
    if !(src.is_file() && dest.is_file()) {
        return Ok(None);
    }
    remove_opt(&src)?;
    if let Some(parent) = src.parent() {
        sync_dir(parent)?;
    }
    Ok(Some(format!(
        "the move of {from} to {to} was finished ({from} removed)"
    )))
}

/// Mark the end of a `mem-index write` batch (after `MEMORY.md` is written).
/// Errors: [`Error::Io`].
pub fn end_write(dir: &Path) -> Result<()> {
    let p = dir.join(WRITE_PENDING);
    remove_opt(&p)?;
    if let Some(parent) = p.parent() {
        let _ = sync_dir(parent);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch<'a>(rel: &'a str, before: Option<&'a str>, after: Option<&'a str>) -> FileChange<'a> {
        FileChange {
            rel,
            before: before.map(str::as_bytes),
            after: after.map(str::as_bytes),
        }
    }

    #[test]
    fn apply_writes_objects_deletes_then_index_and_undo_restores() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        std::fs::write(dir.join("a.md"), "a").unwrap();
        std::fs::write(dir.join("MEMORY.md"), "old").unwrap();
        let changes = [
            ch("MEMORY.md", Some("old"), Some("new")),
            ch("a.md", Some("a"), None),
            ch("retired/a.md", None, Some("a retired")),
        ];
        let j = apply(dir, &changes, "", None, &AtomicBool::new(false)).unwrap();
        assert!(j.join(DONE).exists());
        assert!(!dir.join("a.md").exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("MEMORY.md")).unwrap(),
            "new"
        );
        let u = undo(dir, false).unwrap();
        assert_eq!(u.files, ["MEMORY.md", "a.md", "retired/a.md"]);
        assert_eq!(std::fs::read_to_string(dir.join("a.md")).unwrap(), "a");
        assert_eq!(
            std::fs::read_to_string(dir.join("MEMORY.md")).unwrap(),
            "old"
        );
        assert!(!dir.join("retired/a.md").exists());
    }

    #[test]
    fn an_unfinished_journal_is_rolled_back_and_keeps_no_secret() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        let secret = "password=Hunter2Secret";
        std::fs::write(dir.join("a.md"), format!("key {secret}\n")).unwrap();
        std::fs::write(dir.join("b.md"), "b").unwrap();
        let a_before = format!("key {secret}\n");
        let changes = [
            ch("a.md", Some(&a_before), Some("key password=[REDACTED]\n")),
            ch("b.md", Some("b"), None),
            ch("retired/b.md", None, Some("b retired")),
        ];
        let j = apply(dir, &changes, "", None, &AtomicBool::new(false)).unwrap();
        let manifest = std::fs::read_to_string(j.join(MANIFEST)).unwrap();
        assert!(!manifest.contains("Hunter2Secret"), "{manifest}");
        assert!(manifest.contains("before_hash"), "{manifest}");
        // Make it look killed half-way: `done` gone, b.md removed, the
        // retired copy written.
        std::fs::remove_file(j.join(DONE)).unwrap();
        assert!(needs_recovery(dir));
        let g = store::lock_index(dir).unwrap();
        let r = recover(&g, dir, NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()).unwrap();
        assert_eq!(r.rolled_back, 1);
        let said = r.said;
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("rolled back"), "{said:?}");
        assert_eq!(std::fs::read_to_string(dir.join("b.md")).unwrap(), "b");
        assert!(!dir.join("retired/b.md").exists());
        // the secret is not brought back: the redacted text is
        assert_eq!(
            std::fs::read_to_string(dir.join("a.md")).unwrap(),
            "key password=[REDACTED]\n"
        );
        assert!(j.join(ROLLED_BACK).exists());
        assert!(!needs_recovery(dir));
        // rolled back runs are not undone again
        assert!(undo(dir, false).is_err());
    }

    #[test]
    fn a_journal_without_manifest_is_removed() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        let j = dir.join(JOURNAL_DIR).join("20260101T000000.000Z-1");
        std::fs::create_dir_all(&j).unwrap();
        std::fs::write(j.join("meta.json"), "{}").unwrap();
        let g = store::lock_index(dir).unwrap();
        let r = recover(&g, dir, NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()).unwrap();
        assert_eq!((r.rolled_back, r.said.len()), (0, 1));
        assert!(!j.exists());
    }

    #[test]
    fn a_pending_write_batch_rebuilds_the_index() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        std::fs::write(
            dir.join("x.md"),
            "---\nname: X\ndescription: the x fact\ntype: project\n---\nbody\n",
        )
        .unwrap();
        begin_write(dir).unwrap();
        let g = store::lock_index(dir).unwrap();
        let said = recover(&g, dir, NaiveDate::from_ymd_opt(2026, 1, 1).unwrap())
            .unwrap()
            .said;
        assert!(said[0].contains("rolled forward"), "{said:?}");
        let idx = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
        assert!(idx.contains("(x.md)"), "{idx}");
        assert!(!dir.join(WRITE_PENDING).exists());
    }
}
