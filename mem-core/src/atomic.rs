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
    let mut tmp = tempfile::Builder::new()
        .prefix(".mem-")
        .suffix(".tmp")
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
}
