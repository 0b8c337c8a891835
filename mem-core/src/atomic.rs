//! Atomic file writes: a temp file in the same directory, fsync, rename.
//!
//! A reader sees the old bytes or the new bytes, never half of either; on any
//! error the temp file is removed and the target is untouched.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Write `bytes` to `path` atomically (temp file in the same directory, fsync,
/// rename, then fsync of the directory). Creates missing parent directories.
///
/// Errors: [`Error::Io`] naming `path` (or its directory); the target keeps
/// its old content and no temp file is left behind.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = write_via_temp(path, bytes, true)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Write `bytes` to `path` through a temp file and a rename, **without**
/// fsync: a reader (and a process killed at any moment) sees the old or the
/// new bytes, never half; durability comes from one later [`sync_batch`] of the
/// whole batch (the consolidation journal's grouped flush). Creates missing
/// parent directories and keeps the mode of an existing file.
///
/// Errors: [`Error::Io`] naming `path`; no temp file is left behind.
pub fn write_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    write_via_temp(path, bytes, false).map(|_| ())
}

/// The temp file and rename behind [`write_atomic`] and [`write_unsynced`]:
/// fsync of the data before the rename when `sync`. Returns the directory.
fn write_via_temp<'a>(path: &'a Path, bytes: &[u8], sync: bool) -> Result<&'a Path> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let prefix = format!("{TEMP_PREFIX}{}.", std::process::id());
    let mut tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    if sync {
        tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    }
    // Keep the mode of an existing file.
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(dir)
}

/// fsync the directory `dir` itself (its entries: creations, renames,
/// removals). Errors: [`Error::Io`] naming `dir`.
pub fn sync_dir(dir: &Path) -> Result<()> {
    let d = std::fs::File::open(dir).map_err(|e| Error::io(dir, e))?;
    d.sync_all().map_err(|e| Error::io(dir, e))
}

/// Threads that flush the files of one batch ([`sync_batch`]).
const SYNC_THREADS: usize = 16;

/// The grouped flush of a batch written with [`write_unsynced`] and file
/// removals: fsync every file of `files` (those that still exist) from a few
/// threads at once, so that the file system commits them together, then
/// fsync each folder of `dirs` once (their renames and removals). Unlike
/// `syncfs(2)`, it waits only for this batch, not for every other writer of
/// the file system.
///
/// Errors: [`Error::Io`] naming the first file or folder that fails.
pub fn sync_batch(files: &[PathBuf], dirs: &[PathBuf]) -> Result<()> {
    let sync = |p: &PathBuf| -> Result<()> {
        match std::fs::File::open(p) {
            Ok(f) => f.sync_all().map_err(|e| Error::io(p, e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(p, e)),
        }
    };
    if files.len() < 8 {
        files.iter().try_for_each(sync)?;
    } else {
        let chunk = files.len().div_ceil(SYNC_THREADS);
        std::thread::scope(|s| {
            let handles: Vec<_> = files
                .chunks(chunk)
                .map(|part| s.spawn(move || part.iter().try_for_each(sync)))
                .collect();
            for h in handles {
                h.join().map_err(|_| Error::ThreadPanicked("sync"))??;
            }
            Ok::<(), Error>(())
        })?;
    }
    for d in dirs {
        if d.is_dir() {
            sync_dir(d)?;
        }
    }
    Ok(())
}

/// Like [`write_atomic`], but leaves the file alone (same bytes, same mtime)
/// when its content would not change. Returns `true` when it wrote.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool> {
    match std::fs::read(path) {
        Ok(old) if old == bytes => return Ok(false),
        _ => {}
    }
    write_atomic(path, bytes)?;
    Ok(true)
}

/// The name prefix and suffix of the temp files [`write_atomic`] and
/// [`write_unsynced`] create: `.mem-PID.XXXXXX.tmp` (`PID` the writer's
/// process id, so that [`sweep_temp_files`] knows a dead writer's at once).
pub const TEMP_PREFIX: &str = ".mem-";
/// See [`TEMP_PREFIX`].
pub const TEMP_SUFFIX: &str = ".tmp";

/// Remove the temp files of writers that were ended mid-write (a time
/// budget's `_exit`, a kill): the regular files directly in `dir` named
/// `.mem-PID.XXXXXX.tmp` whose process `PID` is gone (at once, whatever
/// their age), and any `.mem-*.tmp` last modified more than `older_than`
/// ago (a live process of the same PID, or a name without one). A writer
/// that is still running has modified its temp file within the last
/// moments, so an age of seconds keeps every live write safe. Returns how
/// many files were removed; errors (a missing `dir`, a file that cannot be
/// removed) are ignored.
pub fn sweep_temp_files(dir: &Path, older_than: std::time::Duration) -> usize {
    let now = std::time::SystemTime::now();
    let me = std::process::id();
    sweep_files(dir, TEMP_PREFIX, TEMP_SUFFIX, |middle, meta| {
        let writer = middle
            .split_once('.')
            .and_then(|(pid, rest)| pid.parse::<u32>().ok().filter(|_| !rest.is_empty()));
        let dead = writer.is_some_and(|p| p != me && !pid_alive(p));
        let old = meta
            .modified()
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > older_than));
        !middle.is_empty() && (dead || old)
    })
}

/// Whether `pid` names a live process: `kill(pid, 0)` succeeds, or fails with
/// `EPERM` (it exists but belongs to another user). PID 0 and PIDs beyond
/// `i32::MAX` are never alive.
pub fn pid_alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    let Some(p) = rustix::process::Pid::from_raw(raw) else {
        return false;
    };
    match rustix::process::test_kill_process(p) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// Remove the regular files directly in `dir` named `prefix` MIDDLE
/// `suffix` for which `stale(MIDDLE, metadata)` holds (the metadata of the
/// entry itself: a link is never a regular file here, so it stays).
/// Returns how many were removed; errors (a missing `dir`, a file that
/// cannot be removed) are ignored. The sweep behind
/// [`sweep_temp_files`] and the lock's (`Lock::sweep_temp_files`).
pub fn sweep_files(
    dir: &Path,
    prefix: &str,
    suffix: &str,
    stale: impl Fn(&str, &std::fs::Metadata) -> bool,
) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for ent in rd.flatten() {
        let name = ent.file_name();
        let Some(middle) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|n| n.strip_suffix(suffix))
        else {
            continue;
        };
        let gone = ent
            .metadata()
            .is_ok_and(|m| m.is_file() && stale(middle, &m));
        if gone && std::fs::remove_file(ent.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b.md");
        write_atomic(&p, b"one").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert!(!write_if_changed(&p, b"two").unwrap());
        assert!(write_if_changed(&p, b"three").unwrap());
        let names: Vec<_> = std::fs::read_dir(dir.path().join("a"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("b.md")]);
    }

    #[test]
    fn error_names_the_path_and_keeps_old_file() {
        let dir = tempfile::tempdir().unwrap();
        // a directory where the file should be: rename fails
        let p = dir.path().join("x");
        std::fs::create_dir(&p).unwrap();
        std::fs::write(p.join("keep"), b"k").unwrap();
        let err = write_atomic(&p, b"data").unwrap_err().to_string();
        assert!(err.contains(&p.display().to_string()), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "temp file left behind");
    }

    #[test]
    fn sweep_removes_only_old_temp_files() {
        use std::time::{Duration, SystemTime};
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let old = SystemTime::now() - Duration::from_secs(120);
        let age = |name: &str| {
            let f = std::fs::File::options()
                .write(true)
                .create(true)
                .truncate(false)
                .open(d.join(name))
                .unwrap();
            f.set_modified(old).unwrap();
        };
        age(".mem-old1.tmp");
        age(".mem-old2.tmp");
        age("state.json"); // not a temp file, however old
        age(".mem-.tmp"); // no random part: not ours
        std::fs::write(d.join(".mem-fresh.tmp"), b"a live write").unwrap();
        // a dead writer's, however fresh; a live one's stays
        let dead = mem_tests::dead_pid();
        std::fs::write(d.join(format!(".mem-{dead}.aB3xYz.tmp")), b"cut").unwrap();
        let live = format!(".mem-{}.aB3xYz.tmp", std::process::id());
        std::fs::write(d.join(&live), b"mine").unwrap();
        std::fs::create_dir(d.join(".mem-dir.tmp")).unwrap();
        std::os::unix::fs::symlink("state.json", d.join(".mem-link.tmp")).unwrap();
        assert_eq!(sweep_temp_files(d, Duration::from_secs(60)), 3);
        std::fs::remove_file(d.join(&live)).unwrap();
        let mut left: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".mem-.tmp",
                ".mem-dir.tmp",
                ".mem-fresh.tmp",
                ".mem-link.tmp",
                "state.json"
            ]
        );
        assert_eq!(sweep_temp_files(&d.join("missing"), Duration::ZERO), 0);
    }

    #[test]
    fn liveness_of_self_dead_and_zero() {
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(mem_tests::dead_pid()));
        assert!(!pid_alive(0));
        assert!(!pid_alive(u32::MAX));
        // PID 1 exists but may belong to root: EPERM counts as alive.
        assert!(pid_alive(1));
    }
}
