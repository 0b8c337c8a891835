//! Atomic file writes: a temp file in the same directory, fsync, rename.
//!
//! A reader sees the old bytes or the new bytes, never half of either; on any
//! error the temp file is removed and the target is untouched.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Write `bytes` to `path` atomically (temp file in the same directory, fsync,
/// rename, then fsync of the directory). Creates missing parent directories.
///
/// Errors: [`Error::Io`] naming `path` (or its directory); the target keeps
/// its old content and no temp file is left behind.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
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
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    // Keep the mode of an existing file.
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
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
