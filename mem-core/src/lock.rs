//! The consolidation lock (docs/consolidation.md "The lock"): `.consolidate-lock` in a
//! memory directory.
//!
//! One small file carries two facts:
//! - its **mtime** is the time of the last consolidation (a missing file
//!   means "never consolidated");
//! - its **content** is the decimal PID of the holder, `0` when nobody holds
//!   it.
//!
//! # Protocol
//!
//! [`Lock::acquire`] stats and reads the file. A live PID (`kill(pid, 0)`
//! succeeds or fails with `EPERM`) with an mtime inside the stale window is
//! busy ([`Error::Busy`], exit 75). A dead PID, an mtime older than the stale
//! window, `0`, an empty file and garbage are taken over ([`Reclaim`]; empty
//! and garbage are reported as a "corrupt lock" warning). The new content is
//! written to a temp file in the same directory and renamed over the lock
//! (or hard-linked into place when there was no lock), so the lock is never
//! empty; its mtime becomes "now" (a holder is fresh), and the previous
//! mtime is returned in [`Acquired::previous_mtime`] so that a failed run can
//! roll it back. The lock is re-read afterwards; a different PID means a
//! lost race, reported as busy.
//!
//! The temp file is named `.NAME.PID.XXXXXX.tmp` (NAME the lock's file name
//! without its leading dot, PID the writer's). A writer killed between
//! creating and renaming it leaves it behind; every later change of the lock
//! sweeps such files ([`Lock::sweep_temp_files`]).
//!
//! A run ends with [`Lock::finish`]: on success the mtime becomes the
//! completion time (or a given time) and the content `0`; on failure the
//! previous mtime comes back (or, when there was no lock before, the file is
//! removed: "never consolidated" again), content `0`. Both are one atomic
//! replacement, and both leave the lock alone when another process has taken
//! it over meanwhile.
//!
//! # Concurrency
//!
//! Every change of the lock file happens while holding an advisory `flock`
//! on the inode the path names at that moment, re-checked after the flock is
//! granted (a process that waited on a replaced inode starts over). Two
//! updaters therefore never decide on the same state, so two acquirers can't
//! both win. The flock is held only for the few system calls of one update,
//! never while the lock is "held": holding is the PID in the content.
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use mem_core::lock::{Finish, Lock};
//!
//! let lock = Lock::in_dir(std::path::Path::new("memory"));
//! let held = lock.acquire(std::process::id(), Duration::from_secs(3600))?;
//! let ok = true; // ... consolidate ...
//! let outcome = if ok { Finish::Success { at: None } } else { Finish::Failure };
//! lock.finish(&held, outcome)?;
//! # Ok::<(), mem_core::Error>(())
//! ```

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use filetime::FileTime;

pub use crate::atomic::pid_alive;
use crate::error::{Error, Result};

/// The lock's file name inside a memory directory.
pub const LOCK_FILE: &str = ".consolidate-lock";

/// The default stale window: 1 hour.
pub const DEFAULT_STALE_AFTER: Duration = Duration::from_secs(3600);

/// Hours since the last consolidation before the next is due (mem-dream's
/// `--min-hours` default, and the auto-dream check of the hooks).
pub const DEFAULT_MIN_HOURS: f64 = 24.0;

/// Sessions since the last consolidation before the next is due
/// (mem-dream's `--min-sessions` default, and the hooks' auto-dream check).
pub const DEFAULT_MIN_SESSIONS: usize = 5;

/// Minutes between two session scans of mem-dream's gate
/// (`--scan-interval` default), and between two starts from a hook.
pub const DEFAULT_SCAN_INTERVAL_MIN: f64 = 10.0;

/// How long ago a lock temp file must have been created before it is swept
/// when its writer is still alive or unknown: a writer keeps its temp file
/// only for the few system calls between creating and renaming it. A temp
/// file whose writer PID is gone is swept at once.
pub const TEMP_STALE_AFTER: Duration = Duration::from_secs(600);

/// At most this many bytes of a lock file are read (a PID is ≤ 10 digits).
const READ_LIMIT: u64 = 4096;

/// What the lock file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// No lock file: never consolidated.
    Missing,
    /// `0`: nobody holds the lock.
    Free,
    /// The decimal PID of the holder (1..=2^31-1).
    Pid(u32),
    /// A zero-byte (or whitespace-only) file: corrupt.
    Empty,
    /// Anything else (the first 64 characters, lossily decoded): corrupt.
    Garbage(String),
}

impl Content {
    /// Parse the bytes of a lock file (surrounding whitespace ignored).
    pub fn parse(bytes: &[u8]) -> Content {
        let text = String::from_utf8_lossy(bytes);
        let t = text.trim();
        if t.is_empty() {
            return Content::Empty;
        }
        if t.len() <= 20 && t.bytes().all(|b| b.is_ascii_digit()) {
            match t.parse::<u64>() {
                Ok(0) => return Content::Free,
                Ok(n) if n <= i32::MAX as u64 => return Content::Pid(n as u32),
                _ => {}
            }
        }
        Content::Garbage(t.chars().take(64).collect())
    }

    /// The holder's PID, if the content is one.
    pub fn pid(&self) -> Option<u32> {
        match self {
            Content::Pid(p) => Some(*p),
            _ => None,
        }
    }

    /// True for an empty file or garbage.
    pub fn is_corrupt(&self) -> bool {
        matches!(self, Content::Empty | Content::Garbage(_))
    }
}

/// A snapshot of the lock: see [`Lock::status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockState {
    /// The lock file.
    pub path: PathBuf,
    /// Whether the file exists (missing = never consolidated).
    pub exists: bool,
    /// What the file says.
    pub content: Content,
    /// The holder's PID (`None` for missing, `0`, empty or garbage).
    pub pid: Option<u32>,
    /// Whether `pid` names a live process (`kill(pid, 0)`; `EPERM` counts as
    /// alive). False when there is no PID.
    pub alive: bool,
    /// The file's mtime: the last consolidation time (or, while held, the
    /// time it was taken).
    pub mtime: Option<SystemTime>,
    /// How long ago `mtime` was (zero for an mtime in the future).
    pub age: Option<Duration>,
    /// The mtime is older than the stale window.
    pub stale: bool,
    /// The file is empty or holds garbage.
    pub corrupt: bool,
}

impl LockState {
    /// Busy: a live holder with an mtime inside the stale window. Acquiring
    /// a busy lock fails with [`Error::Busy`]; anything else is taken over.
    pub fn busy(&self) -> bool {
        self.pid.is_some() && self.alive && !self.stale
    }

    /// What acquiring would reclaim, if anything (`None` for a missing or
    /// free lock, and for a busy one).
    pub fn reclaim(&self) -> Option<Reclaim> {
        match &self.content {
            Content::Missing | Content::Free => None,
            Content::Empty => Some(Reclaim::Empty),
            Content::Garbage(g) => Some(Reclaim::Garbage(g.clone())),
            Content::Pid(pid) if !self.alive => Some(Reclaim::DeadHolder(*pid)),
            Content::Pid(pid) if self.stale => Some(Reclaim::StaleHolder {
                pid: *pid,
                age: self.age.unwrap_or_default(),
            }),
            Content::Pid(_) => None,
        }
    }
}

/// Why a lock was taken over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reclaim {
    /// The holder's PID is not a live process.
    DeadHolder(u32),
    /// The holder is alive, but the mtime is older than the stale window (a
    /// hung holder, or a reused PID).
    StaleHolder {
        /// The holder's PID.
        pid: u32,
        /// The mtime's age.
        age: Duration,
    },
    /// An empty file: corrupt.
    Empty,
    /// Garbage instead of a PID: corrupt (the first 64 characters).
    Garbage(String),
}

impl Reclaim {
    /// A short machine name: `dead_pid`, `stale`, `empty`, `garbage`.
    pub fn kind(&self) -> &'static str {
        match self {
            Reclaim::DeadHolder(_) => "dead_pid",
            Reclaim::StaleHolder { .. } => "stale",
            Reclaim::Empty => "empty",
            Reclaim::Garbage(_) => "garbage",
        }
    }

    /// True for an empty file or garbage ("corrupt lock").
    pub fn is_corrupt(&self) -> bool {
        matches!(self, Reclaim::Empty | Reclaim::Garbage(_))
    }
}

impl std::fmt::Display for Reclaim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reclaim::DeadHolder(pid) => write!(f, "holder pid {pid} is dead"),
            Reclaim::StaleHolder { pid, age } => write!(
                f,
                "holder pid {pid} is alive but the lock is stale ({}s old)",
                age.as_secs()
            ),
            Reclaim::Empty => write!(f, "corrupt lock: empty file"),
            Reclaim::Garbage(g) => write!(f, "corrupt lock: not a pid: {g:?}"),
        }
    }
}

/// A successful [`Lock::acquire`]: what to hand to [`Lock::finish`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acquired {
    /// The lock file.
    pub path: PathBuf,
    /// The PID now written in the lock.
    pub pid: u32,
    /// The mtime before acquiring (`None`: there was no lock, never
    /// consolidated). Restore it with [`Lock::rollback`] when the run fails.
    pub previous_mtime: Option<SystemTime>,
    /// The lock's content before acquiring.
    pub previous: Content,
    /// Why a holder (or a corrupt file) was taken over, if one was.
    pub reclaimed: Option<Reclaim>,
    /// The lock's mtime now (the time it was taken).
    pub mtime: SystemTime,
    /// Warnings for the user ("holder pid 12 is dead: reclaimed",
    /// "corrupt lock: empty file: reclaimed").
    pub warnings: Vec<String>,
}

/// How a run under the lock ended: see [`Lock::finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The run succeeded: the mtime becomes `at` (default now), the last
    /// consolidation time.
    Success {
        /// The consolidation time to record (e.g. the newest processed
        /// session when a run was cut short); `None` = now.
        at: Option<SystemTime>,
    },
    /// The run failed or was interrupted: the mtime goes back to
    /// [`Acquired::previous_mtime`] (a lock that did not exist is removed).
    Failure,
}

/// What [`Lock::finish`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finished {
    /// Released (content `0`) with this mtime; `None` when the lock was
    /// removed because it did not exist before a failed run.
    Released(Option<SystemTime>),
    /// Another process took the lock over meanwhile (its content is given):
    /// the lock was left alone.
    TakenOver(Content),
}

/// What [`Lock::release`] / [`Lock::release_as`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Released {
    /// The content is `0` now (mtime kept).
    Released,
    /// It already was `0`: nothing written.
    AlreadyFree,
    /// There is no lock file: nothing written (none is created).
    Missing,
    /// [`Lock::release_as`] only: held by someone else (content given);
    /// left alone.
    NotHolder(Content),
}

/// What one locked look at the file saw.
struct Seen {
    content: Content,
    mtime: Option<SystemTime>,
}

/// One change decided under the flock.
enum Step {
    /// Leave the file as it is.
    Keep,
    /// Replace it (or create it) with this content and mtime.
    Write(String, SystemTime),
    /// Set the mtime of the existing file (content kept).
    Touch(SystemTime),
    /// Remove the file.
    Remove,
}

/// The consolidation lock at a path. Cheap to build; every call looks at the
/// file afresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    path: PathBuf,
}

impl Lock {
    /// The lock at `path` (any file name).
    pub fn new(path: impl Into<PathBuf>) -> Lock {
        Lock { path: path.into() }
    }

    /// The lock of a memory directory: `DIR/.consolidate-lock`.
    pub fn in_dir(memory_dir: &Path) -> Lock {
        Lock::new(memory_dir.join(LOCK_FILE))
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The last consolidation time: the lock's mtime, `None` when there is no
    /// lock (never consolidated).
    ///
    /// Errors: [`Error::Io`] when the file can't be stat'ed for another reason.
    pub fn last_consolidated(&self) -> Result<Option<SystemTime>> {
        match std::fs::symlink_metadata(&self.path) {
            Ok(m) if m.file_type().is_symlink() => Err(link_refused(&self.path)),
            Ok(m) => Ok(Some(m.modified().map_err(|e| Error::io(&self.path, e))?)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(&self.path, e)),
        }
    }

    /// A snapshot of the lock (no flock, no change): content, holder
    /// liveness, mtime and whether it is older than `stale_after`.
    ///
    /// Errors: [`Error::Io`] when the file exists but can't be read.
    pub fn status(&self, stale_after: Duration) -> Result<LockState> {
        match open_lock(&self.path) {
            Ok(f) => {
                let seen = read_seen(&self.path, &f)?;
                Ok(self.state_of(&seen, stale_after))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(self.state_of(
                &Seen {
                    content: Content::Missing,
                    mtime: None,
                },
                stale_after,
            )),
            Err(e) => Err(Error::io(&self.path, e)),
        }
    }

    /// Take the lock for `pid`: see the module docs for the rules.
    ///
    /// Returns the previous mtime and content (for [`Lock::finish`] /
    /// [`Lock::rollback`]), and what was reclaimed with its warnings. The
    /// lock's mtime is now, its content `pid`.
    ///
    /// Errors: [`Error::Busy`] (exit 75) when a live holder's mtime is inside
    /// the stale window, or when another acquirer won the race; the file is
    /// then unchanged. [`Error::Io`] when the file or its directory can't be
    /// read or written.
    pub fn acquire(&self, pid: u32, stale_after: Duration) -> Result<Acquired> {
        let acquired = self.update(|seen| {
            let state = self.state_of(seen, stale_after);
            if state.busy() {
                return Err(Error::Busy {
                    path: self.path.clone(),
                    pid: state.pid.unwrap_or(0),
                });
            }
            let reclaimed = state.reclaim();
            let mut warnings = Vec::new();
            if let Some(r) = &reclaimed {
                warnings.push(format!("{}: {r}: reclaimed", self.path.display()));
            }
            let now = SystemTime::now();
            Ok((
                Step::Write(pid.to_string(), now),
                Acquired {
                    path: self.path.clone(),
                    pid,
                    previous_mtime: seen.mtime,
                    previous: seen.content.clone(),
                    reclaimed,
                    mtime: now,
                    warnings,
                },
            ))
        })?;
        // Verify: a different PID now means another acquirer won.
        let after = self.status(stale_after)?;
        if after.content != Content::Pid(pid) {
            return Err(Error::Busy {
                path: self.path.clone(),
                pid: after.pid.unwrap_or(0),
            });
        }
        Ok(acquired)
    }

    /// End a run under the lock taken by `held`, in one atomic replacement:
    /// content `0` and, on [`Finish::Success`], the mtime `at` (default now);
    /// on [`Finish::Failure`], the mtime from before the acquire (a lock
    /// that did not exist before is removed).
    ///
    /// When the lock no longer holds `held.pid` (another process took it
    /// over, or it was removed), nothing is changed and
    /// [`Finished::TakenOver`] says what is there.
    ///
    /// Errors: [`Error::Io`].
    pub fn finish(&self, held: &Acquired, outcome: Finish) -> Result<Finished> {
        self.update(|seen| {
            if seen.content != Content::Pid(held.pid) {
                return Ok((Step::Keep, Finished::TakenOver(seen.content.clone())));
            }
            Ok(match (outcome, held.previous_mtime) {
                (Finish::Success { at }, _) => {
                    let t = at.unwrap_or_else(SystemTime::now);
                    (Step::Write("0".into(), t), Finished::Released(Some(t)))
                }
                (Finish::Failure, Some(t)) => {
                    (Step::Write("0".into(), t), Finished::Released(Some(t)))
                }
                (Finish::Failure, None) => (Step::Remove, Finished::Released(None)),
            })
        })
    }

    /// Release: write `0` atomically, keeping the mtime, whoever holds the
    /// lock. A missing lock is not created.
    ///
    /// Errors: [`Error::Io`].
    pub fn release(&self) -> Result<Released> {
        self.release_inner(None)
    }

    /// Release only if the lock holds `pid`; otherwise leave it alone and
    /// return [`Released::NotHolder`].
    ///
    /// Errors: [`Error::Io`].
    pub fn release_as(&self, pid: u32) -> Result<Released> {
        self.release_inner(Some(pid))
    }

    fn release_inner(&self, holder: Option<u32>) -> Result<Released> {
        self.update(|seen| {
            Ok(match (&seen.content, seen.mtime) {
                (Content::Missing, _) | (_, None) => (Step::Keep, Released::Missing),
                (Content::Free, _) => (Step::Keep, Released::AlreadyFree),
                (c, _) if holder.is_some_and(|p| c.pid() != Some(p)) => {
                    (Step::Keep, Released::NotHolder(c.clone()))
                }
                (_, Some(t)) => (Step::Write("0".into(), t), Released::Released),
            })
        })
    }

    /// Set the mtime (the last consolidation time) to `at`, default now; the
    /// content is kept. A missing lock is created with content `0`.
    /// Returns the mtime set.
    ///
    /// Errors: [`Error::Io`].
    pub fn stamp(&self, at: Option<SystemTime>) -> Result<SystemTime> {
        let t = at.unwrap_or_else(SystemTime::now);
        self.update(|seen| {
            Ok(match seen.content {
                Content::Missing => (Step::Write("0".into(), t), t),
                _ => (Step::Touch(t), t),
            })
        })
    }

    /// Restore the mtime recorded before an acquire
    /// ([`Acquired::previous_mtime`]); the content is kept.
    ///
    /// `None` means there was no lock before (never consolidated): the lock
    /// file is **removed**, which also releases it (a later
    /// [`Lock::release`] finds it missing and does nothing). `Some(t)` on a
    /// missing lock creates it with content `0` and mtime `t`.
    ///
    /// Errors: [`Error::Io`].
    pub fn rollback(&self, to: Option<SystemTime>) -> Result<()> {
        match to {
            Some(t) => self.stamp(Some(t)).map(|_| ()),
            None => self.update(|seen| {
                Ok(match seen.content {
                    Content::Missing => (Step::Keep, ()),
                    _ => (Step::Remove, ()),
                })
            }),
        }
    }

    fn state_of(&self, seen: &Seen, stale_after: Duration) -> LockState {
        let pid = seen.content.pid();
        let alive = pid.is_some_and(pid_alive);
        let age = seen
            .mtime
            .map(|m| SystemTime::now().duration_since(m).unwrap_or_default());
        LockState {
            path: self.path.clone(),
            exists: seen.content != Content::Missing,
            content: seen.content.clone(),
            pid,
            alive,
            mtime: seen.mtime,
            age,
            stale: age.is_some_and(|a| a > stale_after),
            corrupt: seen.content.is_corrupt(),
        }
    }

    /// Look at the file under a flock on its current inode, let `decide`
    /// choose one [`Step`], and apply it before the flock is dropped. Starts
    /// over when the path changed inode meanwhile, or when a lock appeared
    /// where there was none.
    fn update<T>(&self, mut decide: impl FnMut(&Seen) -> Result<(Step, T)>) -> Result<T> {
        const TRIES: usize = 10_000;
        self.sweep_temp_files();
        for _ in 0..TRIES {
            let file = match open_lock(&self.path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    let seen = Seen {
                        content: Content::Missing,
                        mtime: None,
                    };
                    let (step, out) = decide(&seen)?;
                    let (content, mtime) = match step {
                        Step::Keep | Step::Remove => return Ok(out),
                        Step::Write(content, mtime) => (content, mtime),
                        Step::Touch(mtime) => ("0".to_string(), mtime),
                    };
                    if self.create(&content, mtime)? {
                        return Ok(out);
                    }
                    continue; // someone created it first: decide again
                }
                Err(e) => return Err(Error::io(&self.path, e)),
            };
            // Best effort: a filesystem without flock still gets the
            // re-read check of acquire.
            let _ = file.lock();
            if !same_inode(&self.path, &file)? {
                continue;
            }
            let seen = read_seen(&self.path, &file)?;
            let (step, out) = decide(&seen)?;
            match step {
                Step::Keep => {}
                Step::Write(content, mtime) => self.replace(&content, mtime)?,
                Step::Touch(mtime) => {
                    filetime::set_file_handle_times(
                        &file,
                        None,
                        Some(FileTime::from_system_time(mtime)),
                    )
                    .map_err(|e| Error::io(&self.path, e))?;
                }
                Step::Remove => match std::fs::remove_file(&self.path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(Error::io(&self.path, e)),
                },
            }
            return Ok(out);
        }
        Err(Error::LockRace(self.path.clone()))
    }

    /// Remove the temp files a writer of this lock killed mid-update left in
    /// the lock's directory: `.NAME.PID.XXXXXX.tmp` whose PID is gone, and
    /// any `.NAME.[PID.]XXXXXX.tmp` created more than [`TEMP_STALE_AFTER`]
    /// ago. Called by every change of the lock (taking, finishing, releasing,
    /// stamping it); [`crate::store::lock_index`] calls it too. Returns how
    /// many were removed; errors are ignored (a file that cannot be removed
    /// stays).
    pub fn sweep_temp_files(&self) -> usize {
        self.sweep_temps(TEMP_STALE_AFTER)
    }

    fn sweep_temps(&self, max_age: Duration) -> usize {
        use std::os::unix::fs::MetadataExt;
        let (dir, prefix) = self.temp_dir_and_prefix();
        let now = SystemTime::now();
        crate::atomic::sweep_files(dir, &prefix, ".tmp", |middle, meta| {
            // `PID.XXXXXX` (the random part has no dot), or `XXXXXX` alone
            let writer = middle
                .split_once('.')
                .and_then(|(pid, _)| pid.parse::<u32>().ok());
            let created = SystemTime::UNIX_EPOCH
                + Duration::new(
                    u64::try_from(meta.ctime()).unwrap_or(0),
                    u32::try_from(meta.ctime_nsec()).unwrap_or(0),
                );
            let old = now.duration_since(created).unwrap_or_default() > max_age;
            writer.is_some_and(|p| !pid_alive(p)) || old
        })
    }

    /// The lock's directory and its temp files' name prefix `.NAME.`.
    fn temp_dir_and_prefix(&self) -> (&Path, String) {
        let dir = match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| LOCK_FILE.into());
        (dir, format!(".{}.", name.trim_start_matches('.')))
    }

    /// A temp file in the lock's directory with `content` and `mtime`, named
    /// `.NAME.PID.XXXXXX.tmp`.
    fn temp(&self, content: &str, mtime: SystemTime) -> Result<tempfile::NamedTempFile> {
        let (dir, prefix) = self.temp_dir_and_prefix();
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let mut tmp = tempfile::Builder::new()
            .prefix(&format!("{prefix}{}.", std::process::id()))
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| Error::io(dir, e))?;
        tmp.write_all(content.as_bytes())
            .map_err(|e| Error::io(tmp.path(), e))?;
        tmp.as_file()
            .sync_all()
            .map_err(|e| Error::io(tmp.path(), e))?;
        filetime::set_file_handle_times(
            tmp.as_file(),
            None,
            Some(FileTime::from_system_time(mtime)),
        )
        .map_err(|e| Error::io(tmp.path(), e))?;
        Ok(tmp)
    }

    /// Replace the existing lock atomically (rename).
    fn replace(&self, content: &str, mtime: SystemTime) -> Result<()> {
        let tmp = self.temp(content, mtime)?;
        if let Ok(meta) = std::fs::metadata(&self.path) {
            let _ = tmp.as_file().set_permissions(meta.permissions());
        }
        tmp.persist(&self.path)
            .map_err(|e| Error::io(&self.path, e.error))?;
        self.sync_dir();
        Ok(())
    }

    /// Create the lock where there is none (hard link / no-clobber rename).
    /// Returns false when another process created it first.
    fn create(&self, content: &str, mtime: SystemTime) -> Result<bool> {
        let tmp = self.temp(content, mtime)?;
        match tmp.persist_noclobber(&self.path) {
            Ok(_) => {
                self.sync_dir();
                Ok(true)
            }
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(Error::io(&self.path, e.error)),
        }
    }

    fn sync_dir(&self) {
        if let Some(d) = self.path.parent() {
            let d = if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            };
            if let Ok(f) = File::open(d) {
                let _ = f.sync_all();
            }
        }
    }
}

/// Open the lock file for reading, never through a link (`O_NOFOLLOW`: a
/// link is refused, so neither its target's content nor its mtime is ever
/// changed) and without waiting on a FIFO (`O_NONBLOCK`; anything but a
/// regular file is refused by [`read_seen`]).
fn open_lock(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
                std::io::Error::other(crate::confine::LINK_REFUSED)
            } else {
                e
            }
        })
}

fn link_refused(path: &Path) -> Error {
    Error::io(path, std::io::Error::other(crate::confine::LINK_REFUSED))
}

/// Does `path` still name the inode `file` has open?
fn same_inode(path: &Path, file: &File) -> Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let open = file.metadata().map_err(|e| Error::io(path, e))?;
    match std::fs::metadata(path) {
        Ok(now) => Ok(now.dev() == open.dev() && now.ino() == open.ino()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn read_seen(path: &Path, file: &File) -> Result<Seen> {
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::NotALockFile {
            path: path.to_path_buf(),
            what: "is a directory",
        });
    }
    if !meta.is_file() {
        return Err(Error::NotALockFile {
            path: path.to_path_buf(),
            what: "is not a regular file (a FIFO, device or socket)",
        });
    }
    let mut bytes = Vec::new();
    file.take(READ_LIMIT)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    Ok(Seen {
        content: Content::parse(&bytes),
        mtime: Some(meta.modified().map_err(|e| Error::io(path, e))?),
    })
}

#[cfg(test)]
mod tests {
    use mem_tests::{LiveProcess as Live, dead_pid};

    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    fn ago(secs: u64) -> SystemTime {
        SystemTime::now() - Duration::from_secs(secs)
    }

    fn put(path: &Path, content: &str, mtime: SystemTime) {
        std::fs::write(path, content).unwrap();
        filetime::set_file_mtime(path, FileTime::from_system_time(mtime)).unwrap();
    }

    fn mtime(path: &Path) -> SystemTime {
        std::fs::metadata(path).unwrap().modified().unwrap()
    }

    fn only_lock_left(dir: &Path) {
        let names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.len() <= 1, "temp files left: {names:?}");
    }

    /// Regression: a writer killed between creating its temp file and
    /// renaming it over the lock left `.consolidate-lock.*.tmp` behind for
    /// good.
    #[test]
    fn taking_the_lock_sweeps_the_temp_files_of_dead_writers() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        let live = Live::new();
        let dead = format!(".consolidate-lock.{}.aB3xY9.tmp", dead_pid());
        let running = format!(".consolidate-lock.{}.Qw8rT2.tmp", live.pid());
        let unnamed = ".consolidate-lock.k2J9sd.tmp";
        let other = ".mem-zz9Aq1.tmp";
        for n in [dead.as_str(), running.as_str(), unnamed, other] {
            std::fs::write(d.path().join(n), "123").unwrap();
        }
        lock.acquire(std::process::id(), HOUR).unwrap();
        let mut left: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        // the dead writer's file is gone; a live writer's and one of unknown
        // writer stay while fresh; other files are not the lock's
        let mut want = vec![
            LOCK_FILE.to_string(),
            running.clone(),
            unnamed.to_string(),
            other.to_string(),
        ];
        want.sort();
        assert_eq!(left, want);
        // past the age limit, the writer's liveness no longer matters
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(lock.sweep_temps(Duration::from_millis(10)), 2);
        assert!(!d.path().join(&running).exists());
        assert!(!d.path().join(unnamed).exists());
        assert!(d.path().join(other).exists());
        assert_eq!(lock.sweep_temp_files(), 0);
    }

    #[test]
    fn temp_files_carry_the_writers_pid() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        let tmp = lock.temp("7", SystemTime::now()).unwrap();
        let name = tmp
            .path()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let pid = std::process::id().to_string();
        let middle = name
            .strip_prefix(".consolidate-lock.")
            .and_then(|s| s.strip_suffix(".tmp"))
            .unwrap();
        let (p, rand) = middle.split_once('.').unwrap();
        assert_eq!(p, pid);
        assert_eq!(rand.len(), 6);
        // our own temp file, fresh and with a live writer, is never swept
        assert_eq!(lock.sweep_temp_files(), 0);
        assert!(tmp.path().exists());
    }

    #[test]
    fn content_parses_pid_zero_empty_garbage() {
        assert_eq!(Content::parse(b"123\n"), Content::Pid(123));
        assert_eq!(Content::parse(b"0"), Content::Free);
        assert_eq!(Content::parse(b""), Content::Empty);
        assert_eq!(Content::parse(b"  \n"), Content::Empty);
        assert_eq!(
            Content::parse(b"not-a-pid\n"),
            Content::Garbage("not-a-pid".into())
        );
        assert!(matches!(Content::parse(b"-5"), Content::Garbage(_)));
        assert!(matches!(
            Content::parse(b"99999999999"),
            Content::Garbage(_)
        ));
        assert!(matches!(Content::parse(b"12 34"), Content::Garbage(_)));
    }

    #[test]
    fn missing_lock_is_created_with_our_pid() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        let st = lock.status(HOUR).unwrap();
        assert!(!st.exists && !st.busy() && st.mtime.is_none());
        let a = lock.acquire(4242, HOUR).unwrap();
        assert_eq!(a.previous_mtime, None);
        assert_eq!(a.previous, Content::Missing);
        assert_eq!(a.reclaimed, None);
        assert!(a.warnings.is_empty());
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "4242");
        only_lock_left(d.path());
    }

    #[test]
    fn b26a_dead_pid_fresh_is_reclaimed() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::new(d.path().join("a.lock"));
        let dead = dead_pid();
        let before = ago(10);
        put(lock.path(), &dead.to_string(), before);
        let st = lock.status(HOUR).unwrap();
        assert!(st.exists && !st.alive && !st.stale && !st.busy());
        let me = std::process::id();
        let a = lock.acquire(me, HOUR).unwrap();
        assert_eq!(a.reclaimed, Some(Reclaim::DeadHolder(dead)));
        assert_eq!(a.previous_mtime, Some(before));
        assert_eq!(a.warnings.len(), 1);
        assert_eq!(
            std::fs::read_to_string(lock.path()).unwrap(),
            me.to_string()
        );
        assert!(mtime(lock.path()) > before);
        only_lock_left(d.path());
    }

    #[test]
    fn b26b_live_pid_fresh_is_busy_and_untouched() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::new(d.path().join("b.lock"));
        let live = Live::new();
        let before = ago(300);
        put(lock.path(), &live.pid().to_string(), before);
        let st = lock.status(HOUR).unwrap();
        assert!(st.busy() && st.alive && !st.stale);
        let err = lock.acquire(std::process::id(), HOUR).unwrap_err();
        assert!(
            matches!(err, Error::Busy { pid, .. } if pid == live.pid()),
            "{err}"
        );
        assert_eq!(err.exit().code(), 75);
        assert_eq!(mtime(lock.path()), before);
        assert_eq!(
            std::fs::read_to_string(lock.path()).unwrap(),
            live.pid().to_string()
        );
        only_lock_left(d.path());
    }

    #[test]
    fn b26c_live_pid_old_is_reclaimed_as_stale() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::new(d.path().join("c.lock"));
        let live = Live::new();
        put(lock.path(), &live.pid().to_string(), ago(7200));
        let st = lock.status(HOUR).unwrap();
        assert!(st.alive && st.stale && !st.busy());
        let a = lock.acquire(std::process::id(), HOUR).unwrap();
        assert!(
            matches!(a.reclaimed, Some(Reclaim::StaleHolder { pid, age }) if pid == live.pid() && age >= Duration::from_secs(7200))
        );
        // A wider window makes the same holder busy.
        put(lock.path(), &live.pid().to_string(), ago(7200));
        assert!(matches!(
            lock.acquire(std::process::id(), 3 * HOUR),
            Err(Error::Busy { .. })
        ));
    }

    #[test]
    fn b26d_empty_file_is_reclaimed_as_corrupt() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::new(d.path().join("d.lock"));
        put(lock.path(), "", ago(120));
        let st = lock.status(HOUR).unwrap();
        assert!(st.corrupt && !st.busy() && st.pid.is_none());
        let a = lock.acquire(77, HOUR).unwrap();
        assert_eq!(a.reclaimed, Some(Reclaim::Empty));
        assert!(a.warnings[0].contains("corrupt lock"), "{:?}", a.warnings);
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "77");
    }

    #[test]
    fn b26e_garbage_is_reclaimed_as_corrupt() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::new(d.path().join("e.lock"));
        std::fs::write(lock.path(), "not-a-pid\n").unwrap();
        let a = lock.acquire(78, HOUR).unwrap();
        assert_eq!(a.reclaimed, Some(Reclaim::Garbage("not-a-pid".into())));
        assert!(a.warnings[0].contains("corrupt lock"), "{:?}", a.warnings);
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "78");
    }

    #[test]
    fn free_lock_is_taken_without_warning() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        let before = ago(30 * 3600);
        put(lock.path(), "0", before);
        let a = lock.acquire(79, HOUR).unwrap();
        assert_eq!(a.reclaimed, None);
        assert!(a.warnings.is_empty());
        assert_eq!(a.previous_mtime, Some(before));
        assert_eq!(a.previous, Content::Free);
    }

    #[test]
    fn our_own_live_pid_is_busy_too() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        let me = std::process::id();
        lock.acquire(me, HOUR).unwrap();
        assert!(matches!(lock.acquire(me, HOUR), Err(Error::Busy { .. })));
    }

    #[test]
    fn release_writes_zero_and_keeps_mtime() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        assert_eq!(lock.release().unwrap(), Released::Missing);
        assert!(!lock.path().exists(), "release must not create a lock");
        let t = ago(5000);
        put(lock.path(), "123", t);
        assert_eq!(
            lock.release_as(124).unwrap(),
            Released::NotHolder(Content::Pid(123))
        );
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "123");
        assert_eq!(lock.release_as(123).unwrap(), Released::Released);
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "0");
        assert_eq!(mtime(lock.path()), t);
        assert_eq!(lock.release().unwrap(), Released::AlreadyFree);
        put(lock.path(), "garbage", t);
        assert_eq!(lock.release().unwrap(), Released::Released);
        assert_eq!(mtime(lock.path()), t);
        only_lock_left(d.path());
    }

    #[test]
    fn stamp_and_rollback_set_the_mtime_and_keep_content() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        let t = ago(1000);
        assert_eq!(lock.stamp(Some(t)).unwrap(), t);
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "0");
        assert_eq!(mtime(lock.path()), t);
        std::fs::write(lock.path(), "55").unwrap();
        let t2 = ago(99_999);
        lock.rollback(Some(t2)).unwrap();
        assert_eq!(mtime(lock.path()), t2);
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "55");
        let now = lock.stamp(None).unwrap();
        assert_eq!(mtime(lock.path()), now);
        assert_eq!(lock.last_consolidated().unwrap(), Some(now));
        lock.rollback(None).unwrap();
        assert!(!lock.path().exists());
        assert_eq!(lock.last_consolidated().unwrap(), None);
        lock.rollback(None).unwrap();
        lock.rollback(Some(t)).unwrap();
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "0");
        assert_eq!(mtime(lock.path()), t);
    }

    #[test]
    fn finish_success_stamps_and_releases() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        put(lock.path(), "0", ago(30 * 3600));
        let held = lock.acquire(501, HOUR).unwrap();
        let at = ago(60);
        assert_eq!(
            lock.finish(&held, Finish::Success { at: Some(at) })
                .unwrap(),
            Finished::Released(Some(at))
        );
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "0");
        assert_eq!(mtime(lock.path()), at);
        let held = lock.acquire(502, HOUR).unwrap();
        let Finished::Released(Some(t)) = lock.finish(&held, Finish::Success { at: None }).unwrap()
        else {
            panic!("not released")
        };
        assert_eq!(mtime(lock.path()), t);
        assert!(t >= held.mtime);
    }

    #[test]
    fn finish_failure_rolls_back_the_mtime() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        let before = ago(30 * 3600);
        put(lock.path(), "0", before);
        let held = lock.acquire(601, HOUR).unwrap();
        assert!(
            mtime(lock.path()) > before,
            "acquire makes the holder fresh"
        );
        lock.finish(&held, Finish::Failure).unwrap();
        assert_eq!(mtime(lock.path()), before);
        assert_eq!(std::fs::read_to_string(lock.path()).unwrap(), "0");
        // No lock before: a failed run leaves none (never consolidated).
        std::fs::remove_file(lock.path()).unwrap();
        let held = lock.acquire(602, HOUR).unwrap();
        assert_eq!(
            lock.finish(&held, Finish::Failure).unwrap(),
            Finished::Released(None)
        );
        assert!(!lock.path().exists());
        only_lock_left(d.path());
    }

    #[test]
    fn finish_leaves_a_taken_over_lock_alone() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::in_dir(d.path());
        let held = lock.acquire(dead_pid(), HOUR).unwrap();
        // The holder died: someone else reclaims it.
        let other = lock.acquire(std::process::id(), HOUR).unwrap();
        let t = mtime(lock.path());
        assert_eq!(
            lock.finish(&held, Finish::Failure).unwrap(),
            Finished::TakenOver(Content::Pid(other.pid))
        );
        assert_eq!(mtime(lock.path()), t);
        assert_eq!(
            std::fs::read_to_string(lock.path()).unwrap(),
            other.pid.to_string()
        );
    }

    #[test]
    fn concurrent_acquirers_never_both_win() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(LOCK_FILE);
        let me = std::process::id();
        for round in 0..50 {
            if round % 2 == 0 {
                let _ = std::fs::remove_file(&path);
            } else {
                std::fs::write(&path, "0").unwrap();
            }
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
            let wins: usize = (0..8)
                .map(|_| {
                    let (p, b) = (path.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        b.wait();
                        // Same live PID for all: any second winner is a bug.
                        Lock::new(p).acquire(me, HOUR).is_ok() as usize
                    })
                })
                .collect::<Vec<_>>()
                .into_iter()
                .map(|h| h.join().unwrap())
                .sum();
            assert_eq!(wins, 1, "round {round}");
        }
        only_lock_left(d.path());
    }

    #[test]
    fn a_directory_is_an_error_not_a_panic() {
        let d = tempfile::tempdir().unwrap();
        let lock = Lock::new(d.path());
        assert!(lock.acquire(1, HOUR).is_err());
        assert!(lock.status(HOUR).is_err());
    }
}
