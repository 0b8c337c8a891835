//! Reading a memory directory (docs/memory-dir.md "Where memory lives"; docs/records.md "Memory").
//!
//! A memory directory holds one topic file per memory (`<id>.md`, YAML
//! frontmatter + Markdown body) and the index `MEMORY.md`. Reserved names are
//! never topics: `MEMORY.md`, `retired/`, `logs/`, `.consolidate-lock`,
//! `.mem/` (with `.mem/index.lock` and `.mem/journal/`), and hidden files
//! (temp files of atomic writes start with `.`).
//!
//! [`load`] reads every topic file once: a file whose frontmatter does not
//! parse is kept in [`Store::broken`] (never rewritten, case B16); a file
//! whose stem is not a valid id is kept in [`Store::bad_names`] (reported,
//! never renamed). [`lock_index`] takes the blocking advisory lock
//! `.mem/index.lock` that every batch writing topic files or the index holds.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::{Error, IdError, Result};
use crate::records::Memory;

/// The index file's name.
pub const INDEX_FILE: &str = "MEMORY.md";
/// Folder of retired topic files.
pub const RETIRED_DIR: &str = "retired";
/// Folder of daily logs.
pub const LOGS_DIR: &str = "logs";
/// The consolidation lock file.
pub const CONSOLIDATE_LOCK: &str = ".consolidate-lock";
/// mem's own state folder inside a memory directory.
pub const STATE_DIR: &str = ".mem";
/// The index lock, relative to the memory directory.
pub const INDEX_LOCK: &str = ".mem/index.lock";

/// The name of the retired copy of topic `id`, relative to the memory
/// directory: `retired/<id>.md`, else (when `taken` says that is taken)
/// `retired/<id>-<today>.md`, else `retired/<id>-<today>-2.md`, `-3`, ….
/// The one naming rule of `mem-index retire`, eviction and `mem-dream`.
pub fn retired_rel(id: &str, today: chrono::NaiveDate, taken: impl Fn(&str) -> bool) -> String {
    (1usize..)
        .map(|k| {
            let stem = match k {
                1 => id.to_string(),
                2 => format!("{id}-{today}"),
                _ => format!("{id}-{today}-{}", k - 1),
            };
            format!("{RETIRED_DIR}/{stem}.md")
        })
        .find(|rel| !taken(rel))
        .expect("a free name")
}

/// True when `name` (one directory entry of a memory dir) is reserved and
/// never a topic: `MEMORY.md`, `retired`, `logs`, `.consolidate-lock`,
/// `.mem`, and every hidden name.
pub fn is_reserved(name: &str) -> bool {
    name == INDEX_FILE || name == RETIRED_DIR || name == LOGS_DIR || name.starts_with('.')
}

/// The line (1-based) of `bytes` on which their first invalid UTF-8
/// sequence starts, `err` being [`std::str::from_utf8`]'s error for them.
pub fn invalid_utf8_line(bytes: &[u8], err: &std::str::Utf8Error) -> usize {
    bytes[..err.valid_up_to()]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// First 16 hex digits of BLAKE3 of `bytes`: the `hash` of `list`/`show`,
/// compared by `write --if-match`.
pub fn hash_bytes(bytes: &[u8]) -> String {
    let h = blake3::hash(bytes);
    h.to_hex()[..16].to_string()
}

/// One topic file that parsed.
#[derive(Debug, Clone)]
pub struct Topic {
    /// The file stem (valid per [`crate::id::validate_id`]).
    pub id: String,
    /// The file's path (`dir/<id>.md`).
    pub path: PathBuf,
    /// The file's modification time.
    pub mtime: SystemTime,
    /// The file's size in bytes.
    pub size: u64,
    /// First 16 hex of BLAKE3 of the file's bytes ([`hash_bytes`]).
    pub hash: String,
    /// The parsed memory, with `id` and `hash` filled in.
    pub memory: Memory,
}

/// A topic file whose frontmatter does not parse: reported, left
/// byte-identical, kept in the index as a flagged entry (case B16).
#[derive(Debug)]
pub struct Broken {
    /// The file stem.
    pub id: String,
    /// The file's path.
    pub path: PathBuf,
    /// The file's modification time (`UNIX_EPOCH` when unknown).
    pub mtime: SystemTime,
    /// Why it did not parse ([`Error::Frontmatter`] naming the file and
    /// line, or [`Error::Io`]).
    pub error: Error,
}

impl Broken {
    /// The 1-based line of the error in the file, when known.
    pub fn line(&self) -> Option<usize> {
        match &self.error {
            Error::Frontmatter { line, .. } | Error::Input { line, .. } if *line > 0 => Some(*line),
            _ => None,
        }
    }
}

/// A `*.md` file whose stem is not a valid id: reported, never renamed,
/// never read.
#[derive(Debug, Clone)]
pub struct BadName {
    /// The file's path.
    pub path: PathBuf,
    /// Why its stem is refused.
    pub error: IdError,
}

/// The topic files of one memory directory, sorted by id.
#[derive(Debug, Default)]
pub struct Store {
    /// The memory directory (as given).
    pub dir: PathBuf,
    /// Topic files that parsed, sorted by id.
    pub topics: Vec<Topic>,
    /// Topic files whose frontmatter does not parse, sorted by id.
    pub broken: Vec<Broken>,
    /// `*.md` files whose stem is not a valid id.
    pub bad_names: Vec<BadName>,
}

impl Store {
    /// The topic with this id.
    pub fn get(&self, id: &str) -> Option<&Topic> {
        self.topics
            .binary_search_by(|t| t.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.topics[i])
    }

    /// The broken file with this id.
    pub fn get_broken(&self, id: &str) -> Option<&Broken> {
        self.broken.iter().find(|b| b.id == id)
    }

    /// Number of topic files, broken ones included (what `--max-files` counts).
    pub fn file_count(&self) -> usize {
        self.topics.len() + self.broken.len()
    }
}

/// What [`list_files`] returns: `(id, path)` of each topic file, and the bad names.
pub type FileList = (Vec<(String, PathBuf)>, Vec<BadName>);

/// The topic file names of `dir`: `(id, path)` for each `*.md` that is not
/// reserved, plus the bad names; sorted by id. A missing directory is empty.
///
/// Errors: [`Error::Io`] when the directory exists but cannot be read.
pub fn list_files(dir: &Path) -> Result<FileList> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for ent in rd {
        let ent = ent.map_err(|e| Error::io(dir, e))?;
        let name = ent.file_name();
        let Some(name) = name.to_str() else {
            // Not UTF-8: cannot be an id.
            let path = ent.path();
            if path.extension().is_some_and(|e| e == "md") {
                bad.push(BadName {
                    error: IdError::Invalid(name.to_string_lossy().into_owned()),
                    path,
                });
            }
            continue;
        };
        if is_reserved(name) {
            continue;
        }
        let Some(stem) = name.strip_suffix(".md") else {
            continue;
        };
        let path = ent.path();
        // Directories named `x.md` are not topic files.
        if ent.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        match crate::id::validate_id(stem) {
            Ok(()) => ok.push((stem.to_string(), path)),
            Err(error) => bad.push(BadName { path, error }),
        }
    }
    ok.sort();
    bad.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((ok, bad))
}

/// Read and parse one topic file. `Ok(Err(broken))` when its frontmatter
/// does not parse (or it cannot be read).
#[allow(clippy::result_large_err)]
pub fn read_topic(id: &str, path: &Path) -> std::result::Result<Topic, Broken> {
    read_topic_bytes(id, path).map(|(t, _)| t)
}

/// [`read_topic`], also returning the file's bytes as read (one read per
/// file for a caller that needs both).
#[allow(clippy::result_large_err)]
pub fn read_topic_bytes(id: &str, path: &Path) -> std::result::Result<(Topic, Vec<u8>), Broken> {
    let broken = |mtime, error| Broken {
        id: id.to_string(),
        path: path.to_path_buf(),
        mtime,
        error,
    };
    // Regular files only, never through a link, at most MAX_TOPIC_BYTES.
    let file = match crate::confine::open_regular(path, false) {
        Ok(f) => f,
        Err(e) => return Err(broken(SystemTime::UNIX_EPOCH, e)),
    };
    let mtime = file
        .metadata()
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let broken = |error| broken(mtime, error);
    let bytes = match crate::confine::read_all(file, path, crate::confine::MAX_TOPIC_BYTES) {
        Ok(b) => b,
        Err(e) => return Err(broken(e)),
    };
    // The whole path, as the other warnings about a file give it.
    let label = path.display().to_string();
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            return Err(broken(Error::Frontmatter {
                file: label,
                line: invalid_utf8_line(&bytes, &e),
                reason: "not valid UTF-8".into(),
            }));
        }
    };
    match crate::frontmatter::parse(&label, text) {
        Ok(mut memory) => {
            let hash = hash_bytes(&bytes);
            memory.id = Some(id.to_string());
            memory.hash = Some(hash.clone());
            let topic = Topic {
                id: id.to_string(),
                path: path.to_path_buf(),
                mtime,
                size: bytes.len() as u64,
                hash,
                memory,
            };
            Ok((topic, bytes))
        }
        Err(e) => Err(broken(e)),
    }
}

/// Read the topic `id` of `dir`: `Ok(None)` when there is no such file.
///
/// Errors: a bad id ([`Error::Id`]), or the file's parse error.
pub fn read_one(dir: &Path, id: &str) -> Result<Option<Topic>> {
    let path = crate::id::safe_join(dir, id, ".md")?;
    if !path.exists() {
        return Ok(None);
    }
    read_topic(id, &path).map(Some).map_err(|b| b.error)
}

/// Read every topic file of `dir` (see module docs). A missing directory is
/// an empty store.
///
/// Errors: [`Error::Io`] when the directory cannot be listed. Unreadable or
/// unparsable files are not errors: they land in [`Store::broken`].
pub fn load(dir: &Path) -> Result<Store> {
    load_inner(dir, false).map(|(st, _)| st)
}

/// [`load`], also returning the bytes of each topic file as read (in the
/// order of [`Store::topics`]): one read per file for a caller that keeps
/// the files' bytes (mem-dream's plan compares before and after).
///
/// Errors: as [`load`].
pub fn load_with_bytes(dir: &Path) -> Result<(Store, Vec<Vec<u8>>)> {
    load_inner(dir, true)
}

/// Files read by one thread of [`load`] at least (below that, one thread
/// reads them all: starting threads would cost more than it saves).
const FILES_PER_THREAD: usize = 256;
/// Threads [`load`] reads and parses with at most.
const MAX_LOAD_THREADS: usize = 8;

#[allow(clippy::result_large_err)]
fn load_inner(dir: &Path, keep_bytes: bool) -> Result<(Store, Vec<Vec<u8>>)> {
    let (files, bad_names) = list_files(dir)?;
    type Read = std::result::Result<(Topic, Vec<u8>), Broken>;
    let read = |part: &[(String, PathBuf)]| -> Vec<Read> {
        part.iter()
            .map(|(id, path)| {
                read_topic_bytes(id, path)
                    .map(|(t, b)| (t, if keep_bytes { b } else { Vec::new() }))
            })
            .collect()
    };
    // Parsing the frontmatter is most of the cost: large directories are
    // read and parsed by a few threads, each a contiguous run of files, so
    // the result keeps the order of `files`.
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_LOAD_THREADS)
        .min(files.len() / FILES_PER_THREAD)
        .max(1);
    let results: Vec<Read> = if threads == 1 {
        read(&files)
    } else {
        let chunk = files.len().div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = files
                .chunks(chunk)
                .map(|part| s.spawn(move || read(part)))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    let mut topics = Vec::with_capacity(files.len());
    let mut bytes = Vec::with_capacity(if keep_bytes { files.len() } else { 0 });
    let mut broken = Vec::new();
    for r in results {
        match r {
            Ok((t, b)) => {
                topics.push(t);
                if keep_bytes {
                    bytes.push(b);
                }
            }
            Err(b) => broken.push(b),
        }
    }
    Ok((
        Store {
            dir: dir.to_path_buf(),
            topics,
            broken,
            bad_names,
        },
        bytes,
    ))
}

/// The held index lock: released when dropped.
#[derive(Debug)]
pub struct IndexGuard {
    file: File,
    path: PathBuf,
}

impl IndexGuard {
    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for IndexGuard {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Take the index lock of `dir` (`.mem/index.lock`), blocking until it is
/// free. Creates `dir/.mem/` when missing. Every batch that writes topic
/// files or `MEMORY.md` holds it from its read to its last write.
///
/// Errors: [`Error::Io`] naming the lock file when it cannot be created or
/// locked (an unwritable directory).
pub fn lock_index(dir: &Path) -> Result<IndexGuard> {
    let path = dir.join(INDEX_LOCK);
    let state = dir.join(STATE_DIR);
    // Neither `.mem/` nor the lock file may be a link (docs/security.md).
    crate::confine::create_dirs(dir, &state)?;
    crate::confine::check_below(dir, &path)?;
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
            )
            .open(&path)
            .map_err(|e| Error::io(&path, e))?
    };
    file.lock().map_err(|e| Error::io(&path, e))?;
    sweep_temp_files(dir);
    crate::lock::Lock::in_dir(dir).sweep_temp_files();
    Ok(IndexGuard { file, path })
}

/// Remove the temp files (`.mem-*.tmp`, see [`crate::atomic::write_atomic`])
/// that a writer killed mid-write left in `dir` and its subfolders
/// (`retired/`, `logs/…`, `.mem/journal/…`; symlinks are not followed, at
/// most 5 levels deep). Called by [`lock_index`] once the lock is held:
/// every writer of a memory directory holds that lock while its temp files
/// exist, so any temp file found then is an orphan. Returns how many were
/// removed; errors are ignored (a file that cannot be removed stays).
pub fn sweep_temp_files(dir: &Path) -> usize {
    fn walk(d: &Path, depth: usize, n: &mut usize) {
        let Ok(rd) = std::fs::read_dir(d) else {
            return;
        };
        for ent in rd.flatten() {
            let Ok(ft) = ent.file_type() else {
                continue;
            };
            let name = ent.file_name();
            let name = name.to_string_lossy();
            if ft.is_dir() {
                if depth < 5 {
                    walk(&ent.path(), depth + 1, n);
                }
            } else if ft.is_file()
                && name.starts_with(".mem-")
                && name.ends_with(".tmp")
                && std::fs::remove_file(ent.path()).is_ok()
            {
                *n += 1;
            }
        }
    }
    let mut n = 0;
    walk(dir, 0, &mut n);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retired_copy_is_named_by_id_then_by_day() {
        let today = crate::time::parse_day("2026-07-13").unwrap();
        assert_eq!(retired_rel("a", today, |_| false), "retired/a.md");
        let taken = ["retired/a.md", "retired/a-2026-07-13.md"];
        assert_eq!(
            retired_rel("a", today, |r| taken[..1].contains(&r)),
            "retired/a-2026-07-13.md"
        );
        assert_eq!(
            retired_rel("a", today, |r| taken.contains(&r)),
            "retired/a-2026-07-13-2.md"
        );
    }

    #[test]
    fn lock_index_sweeps_temp_files_left_by_a_killed_writer() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("retired")).unwrap();
        std::fs::create_dir_all(d.join(".mem/journal/run1")).unwrap();
        for p in [
            ".mem-abc123.tmp",
            "retired/.mem-x.tmp",
            ".mem/journal/run1/.mem-y.tmp",
        ] {
            std::fs::write(d.join(p), "half a file").unwrap();
        }
        std::fs::write(d.join("keep.md"), "k").unwrap();
        std::fs::write(d.join(".other.tmp"), "not ours").unwrap();
        // the consolidation lock's temp file of a killed writer
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let lock_tmp = format!(".consolidate-lock.{dead}.aB3xY9.tmp");
        std::fs::write(d.join(&lock_tmp), "1").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join(".mem-z.tmp"), "outside").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.join("linked")).unwrap();
        let _g = lock_index(d).unwrap();
        assert!(!d.join(".mem-abc123.tmp").exists());
        assert!(!d.join("retired/.mem-x.tmp").exists());
        assert!(!d.join(".mem/journal/run1/.mem-y.tmp").exists());
        assert!(d.join("keep.md").exists());
        assert!(d.join(".other.tmp").exists());
        assert!(!d.join(&lock_tmp).exists());
        // symlinked folders are not followed
        assert!(outside.path().join(".mem-z.tmp").exists());
    }

    fn topic(name: &str) -> String {
        format!(
            "---\nname: \"{name}\"\ndescription: \"d {name}\"\ntype: project\n---\nBody {name}.\n"
        )
    }

    #[test]
    fn lists_topics_and_skips_reserved_names() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.md"), topic("a")).unwrap();
        std::fs::write(d.join("feedback_testing.md"), topic("f")).unwrap();
        std::fs::write(d.join("MEMORY.md"), "- [a](a.md) - d a\n").unwrap();
        std::fs::write(d.join(".mem-x.tmp"), "").unwrap();
        std::fs::write(d.join(".hidden.md"), topic("h")).unwrap();
        std::fs::write(d.join(".consolidate-lock"), "0").unwrap();
        std::fs::write(d.join("notes.txt"), "x").unwrap();
        std::fs::write(d.join("-bad.md"), topic("b")).unwrap();
        for sub in ["retired", "logs", ".mem"] {
            std::fs::create_dir(d.join(sub)).unwrap();
            std::fs::write(d.join(sub).join("r.md"), topic("r")).unwrap();
        }
        let s = load(d).unwrap();
        let ids: Vec<_> = s.topics.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["a", "feedback_testing"]);
        assert_eq!(s.bad_names.len(), 1);
        let a = s.get("a").unwrap();
        assert_eq!(a.memory.id.as_deref(), Some("a"));
        assert_eq!(a.hash.len(), 16);
        assert_eq!(a.hash, hash_bytes(topic("a").as_bytes()));
        assert_eq!(s.file_count(), 2);
    }

    #[test]
    fn missing_dir_is_empty_and_broken_files_are_kept_aside() {
        let dir = tempfile::tempdir().unwrap();
        let s = load(&dir.path().join("nope")).unwrap();
        assert!(s.topics.is_empty() && s.broken.is_empty());
        let d = dir.path();
        let bad = "---\nname: q\ndescription: \"a “b” \"c\" d\"\ntype: feedback\n---\nx\n";
        std::fs::write(d.join("q.md"), bad).unwrap();
        let s = load(d).unwrap();
        assert_eq!(s.broken.len(), 1);
        assert_eq!(s.broken[0].id, "q");
        assert!(s.broken[0].error.to_string().contains("q.md"));
    }

    #[test]
    fn index_lock_is_exclusive_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let g = lock_index(dir.path()).unwrap();
        let f = File::open(dir.path().join(INDEX_LOCK)).unwrap();
        assert!(f.try_lock().is_err());
        drop(g);
        assert!(f.try_lock().is_ok());
    }
}
