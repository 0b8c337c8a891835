//! The memory directory is not a place to follow links or wait on
//! (docs/security.md, docs/memory-dir.md).
//!
//! **Writes** ([`write_atomic`], [`write_if_changed`], [`open_append`],
//! [`create_dirs`], [`rename`], [`remove_file`]) take the memory directory
//! (`root`) and a path below it, and refuse when any component of the path
//! below `root` is a symbolic link (`logs/`, `logs/2026/…/x.md`, `.mem/`,
//! `retired/`, a topic file, `.consolidate-lock`): a cloned repository's
//! `.claude/agent-memory/<agent>/logs -> ~` cannot make mem append to
//! `~/.bashrc`. The root itself may be a link (a user's `~/.claude` kept in
//! a dotfiles folder); what is below it may not. Each component is checked
//! with `lstat` and the final open uses `O_NOFOLLOW`, so a link planted
//! before mem runs is refused (a link swapped in during the few microseconds
//! between the check and the open is outside this model: whoever can do
//! that can write the files directly).
//!
//! **Reads** ([`open_regular`], [`read_capped`], [`read_prefix`]) open with
//! `O_NONBLOCK` (a FIFO does not block the open) and `fstat` before reading:
//! anything but a regular file (FIFO, device such as `/dev/zero`, socket,
//! directory) is refused without reading a byte, and a file larger than the
//! cap is refused (topic files: [`MAX_TOPIC_BYTES`]).
//!
//! Every refusal is an [`Error::Io`] naming the path, with the reason as
//! its message (exit 1).

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// Largest topic file mem reads: 1 MiB. A larger file is skipped with a
/// warning (it is reported as unreadable, never parsed, never rewritten).
pub const MAX_TOPIC_BYTES: u64 = 1 << 20;

/// Largest daily log mem reads back (`logs/…/YYYY-MM-DD.md`): 16 MiB.
pub const MAX_LOG_BYTES: u64 = 16 << 20;

/// The reason given when a path below the memory directory is a link.
pub const LINK_REFUSED: &str =
    "is a symbolic link; mem does not write through links inside the memory directory";

fn refused(path: &Path, why: impl Into<String>) -> Error {
    Error::io(path, std::io::Error::other(why.into()))
}

fn flags(f: rustix::fs::OFlags) -> i32 {
    f.bits() as i32
}

/// What a non-regular file is, in words (`"a FIFO"`, `"a device"`, …).
fn kind_of(ft: &std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// The components of `path` below `root` (lexically), refusing `..` and a
/// path that is not below `root`.
fn below(root: &Path, path: &Path) -> Result<Vec<PathBuf>> {
    let rel = path.strip_prefix(root).map_err(|_| {
        refused(
            path,
            format!("is not inside the memory directory {}", root.display()),
        )
    })?;
    let mut out = Vec::new();
    let mut cur = root.to_path_buf();
    for c in rel.components() {
        match c {
            Component::Normal(n) => {
                cur.push(n);
                out.push(cur.clone());
            }
            Component::CurDir => {}
            _ => {
                return Err(refused(
                    path,
                    format!("leaves the memory directory {}", root.display()),
                ));
            }
        }
    }
    Ok(out)
}

/// Check that no component of `path` below `root` is a symbolic link (and
/// that `path` is below `root`). Components that do not exist yet are fine.
///
/// Errors: [`Error::Io`] naming the first link found ([`LINK_REFUSED`]), or
/// the path when it is not below `root`.
pub fn check_below(root: &Path, path: &Path) -> Result<()> {
    for p in below(root, path)? {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => return Err(refused(&p, LINK_REFUSED)),
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(&p, e)),
        }
    }
    Ok(())
}

/// Like [`check_below`] for a place other than the memory directory (a
/// repository's `.gitattributes`, `.git/config`, `.claude/team-memory/`):
/// refuse a link at any component of `path` below `root`, naming the link,
/// where it points and `place` (`the repository`).
///
/// Errors: [`Error::Io`] naming the first link found.
pub fn refuse_links(root: &Path, path: &Path, place: &str) -> Result<()> {
    for p in below(root, path)? {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)
                    .map(|t| format!(" (to {})", t.display()))
                    .unwrap_or_default();
                return Err(refused(
                    &p,
                    format!(
                        "is a symbolic link{to}; mem does not write through links inside {place}; nothing written"
                    ),
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(&p, e)),
        }
    }
    Ok(())
}

/// Create `dir` (below `root`) and its missing parents, refusing a link
/// among them. `root` itself is created with its parents when missing.
///
/// Errors: [`Error::Io`] naming a link, a component that is not a
/// directory, or the directory that cannot be created.
pub fn create_dirs(root: &Path, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
    for p in below(root, dir)? {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => return Err(refused(&p, LINK_REFUSED)),
            Ok(m) if m.is_dir() => {}
            Ok(m) => return Err(refused(&p, format!("is {}", kind_of(&m.file_type())))),
            Err(e) if e.kind() == ErrorKind::NotFound => match std::fs::create_dir(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    // Raced with another writer: look again.
                    let m = std::fs::symlink_metadata(&p).map_err(|e| Error::io(&p, e))?;
                    if !m.is_dir() {
                        return Err(refused(&p, LINK_REFUSED));
                    }
                }
                Err(e) => return Err(Error::io(&p, e)),
            },
            Err(e) => return Err(Error::io(&p, e)),
        }
    }
    Ok(())
}

/// [`check_below`], and `path` itself, when it exists, is a regular file
/// (a FIFO would block the read of [`write_if_changed`]).
fn check_target(root: &Path, path: &Path) -> Result<()> {
    check_below(root, path)?;
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() => Err(refused(
            path,
            format!("is {}, not a regular file", kind_of(&m.file_type())),
        )),
        _ => Ok(()),
    }
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// [`crate::atomic::write_atomic`] of `path` below `root`: its directories
/// are created by [`create_dirs`], and neither they nor `path` may be links.
///
/// Errors: a link ([`LINK_REFUSED`]), or the write's own error; nothing is
/// written then.
pub fn write_atomic(root: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    create_dirs(root, parent_of(path))?;
    check_target(root, path)?;
    crate::atomic::write_atomic(path, bytes)
}

/// [`crate::atomic::write_if_changed`] with the checks of [`write_atomic`].
/// Returns true when it wrote.
///
/// Errors: as [`write_atomic`].
pub fn write_if_changed(root: &Path, path: &Path, bytes: &[u8]) -> Result<bool> {
    create_dirs(root, parent_of(path))?;
    check_target(root, path)?;
    crate::atomic::write_if_changed(path, bytes)
}

/// Open `path` below `root` for appending (created when missing, with its
/// directories), never through a link, and only when it is a regular file.
///
/// Errors: a link ([`LINK_REFUSED`]), a FIFO/device/socket, or the open's
/// error, each naming the path.
pub fn open_append(root: &Path, path: &Path) -> Result<File> {
    create_dirs(root, parent_of(path))?;
    check_below(root, path)?;
    let f = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .custom_flags(flags(
            rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK,
        ))
        .open(path)
        .map_err(|e| link_error(path, e))?;
    let ft = f.metadata().map_err(|e| Error::io(path, e))?.file_type();
    if !ft.is_file() {
        return Err(refused(
            path,
            format!("is {}, not a regular file", kind_of(&ft)),
        ));
    }
    Ok(f)
}

/// `ELOOP` from an `O_NOFOLLOW` open means the last component is a link.
fn link_error(path: &Path, e: std::io::Error) -> Error {
    if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
        refused(path, LINK_REFUSED)
    } else {
        Error::io(path, e)
    }
}

/// Rename `from` to `to`, both below `root`, refusing links among their
/// directories (`to`'s are created) and a link at `to`.
///
/// Errors: a link, or the rename's error naming `to`.
pub fn rename(root: &Path, from: &Path, to: &Path) -> Result<()> {
    check_below(root, parent_of(from))?;
    create_dirs(root, parent_of(to))?;
    check_below(root, to)?;
    std::fs::rename(from, to).map_err(|e| Error::io(to, e))
}

/// Remove the file `path` below `root`, refusing links among its
/// directories (a link at `path` itself is removed, not followed).
///
/// Errors: a link, or the removal's error naming `path`.
pub fn remove_file(root: &Path, path: &Path) -> Result<()> {
    check_below(root, parent_of(path))?;
    std::fs::remove_file(path).map_err(|e| Error::io(path, e))
}

/// Open `path` for reading only when it is a regular file. The open uses
/// `O_NONBLOCK` (a FIFO opens at once instead of waiting for a writer) and,
/// unless `follow`, `O_NOFOLLOW`; then `fstat` decides before any read.
///
/// Errors: [`Error::Io`] naming the path: not found (kind `NotFound`), a
/// link when not following, a FIFO, device, socket or directory.
pub fn open_regular(path: &Path, follow: bool) -> Result<File> {
    let mut fl = rustix::fs::OFlags::NONBLOCK;
    if !follow {
        fl |= rustix::fs::OFlags::NOFOLLOW;
    }
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(flags(fl))
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
                refused(path, "is a symbolic link; not read")
            } else {
                Error::io(path, e)
            }
        })?;
    let ft = f.metadata().map_err(|e| Error::io(path, e))?.file_type();
    if !ft.is_file() {
        return Err(refused(
            path,
            format!("is {}, not a regular file; not read", kind_of(&ft)),
        ));
    }
    Ok(f)
}

/// Read a whole regular file of at most `cap` bytes (see [`open_regular`]).
///
/// Errors: as [`open_regular`]; a larger file is refused naming its size
/// and the cap.
pub fn read_capped(path: &Path, cap: u64, follow: bool) -> Result<Vec<u8>> {
    read_all(open_regular(path, follow)?, path, cap)
}

/// Read the whole of `f` (opened by [`open_regular`] from `path`) when it
/// holds at most `cap` bytes.
///
/// Errors: a read error, or a larger file (naming its size and the cap).
pub fn read_all(f: File, path: &Path, cap: u64) -> Result<Vec<u8>> {
    let (bytes, more) = read_from(f, path, cap)?;
    if more {
        let size = std::fs::symlink_metadata(path).map_or(0, |m| m.len());
        return Err(refused(
            path,
            format!("is larger than {cap} bytes ({size} bytes); skipped"),
        ));
    }
    Ok(bytes)
}

/// The first `limit` bytes of a regular file (see [`open_regular`]) and
/// whether the file goes on after them.
///
/// Errors: as [`open_regular`].
pub fn read_prefix(path: &Path, limit: u64, follow: bool) -> Result<(Vec<u8>, bool)> {
    read_from(open_regular(path, follow)?, path, limit)
}

fn read_from(f: File, path: &Path, limit: u64) -> Result<(Vec<u8>, bool)> {
    let hint = f.metadata().map_or(0, |m| m.len()).min(limit) as usize;
    let mut bytes = Vec::with_capacity(hint + 1);
    f.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    let more = bytes.len() as u64 > limit;
    bytes.truncate(limit as usize);
    Ok((bytes, more))
}

/// Most bytes of `MEMORY.md` a reader takes: four times the index's byte
/// limit ([`crate::index_md::MAX_BYTES`], which holds it to that at compile
/// time), enough to cut it and name what was cut; the rest of a larger file
/// is not read (the index is cut anyway).
pub const INDEX_READ_BYTES: u64 = 100_000;

/// Most bytes of `MEMORY.md` an update reads: lines mem did not write are
/// kept verbatim, so the whole file is read or it is not rewritten.
pub const INDEX_UPDATE_BYTES: u64 = 4 << 20;

/// The first `limit` bytes of a regular file as text (invalid UTF-8
/// replaced; a line cut by the limit is dropped), whether the file went on,
/// or `None` when there is no such file. See [`open_regular`].
///
/// Errors: as [`open_regular`], except that a missing file is `Ok(None)`.
pub fn read_text_prefix(path: &Path, limit: u64, follow: bool) -> Result<Option<(String, bool)>> {
    let (mut bytes, more) = match read_prefix(path, limit, follow) {
        Ok(r) => r,
        Err(Error::Io { err, .. }) if err.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if more {
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(keep);
    }
    let text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(Some((text, more)))
}

/// [`read_capped`] as UTF-8 text (invalid sequences replaced by U+FFFD).
///
/// Errors: as [`read_capped`].
pub fn read_text_capped(path: &Path, cap: u64, follow: bool) -> Result<String> {
    let b = read_capped(path, cap, follow)?;
    Ok(match String::from_utf8(b) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::symlink;

    #[test]
    fn writes_refuse_links_below_the_root() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("mem");
        let outside = t.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("x.md"), "keep").unwrap();
        symlink(&outside, root.join("logs")).unwrap();
        let err = write_atomic(&root, &root.join("logs/x.md"), b"new")
            .unwrap_err()
            .to_string();
        assert!(err.contains("logs: is a symbolic link"), "{err}");
        assert!(open_append(&root, &root.join("logs/y.md")).is_err());
        assert!(create_dirs(&root, &root.join("logs/2026")).is_err());
        assert_eq!(std::fs::read(outside.join("x.md")).unwrap(), b"keep");
        assert!(!outside.join("y.md").exists() && !outside.join("2026").exists());
        // a link as the file itself
        symlink(outside.join("x.md"), root.join("a.md")).unwrap();
        assert!(write_if_changed(&root, &root.join("a.md"), b"n").is_err());
        let err = open_append(&root, &root.join("a.md"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read(outside.join("x.md")).unwrap(), b"keep");
        // a FIFO where a file goes: refused, not waited on
        let fifo = root.join("f.md");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from(0o600)).unwrap();
        let err = write_if_changed(&root, &fifo, b"x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a FIFO, not a regular file"), "{err}");
        assert!(open_append(&root, &fifo).is_err());
        // outside the root, or through `..`
        assert!(write_atomic(&root, &outside.join("z"), b"z").is_err());
        assert!(write_atomic(&root, &root.join("../z"), b"z").is_err());
        // a link root is fine; plain writes work
        let via = t.path().join("via");
        symlink(&root, &via).unwrap();
        write_atomic(&via, &via.join("retired/b.md"), b"b").unwrap();
        assert_eq!(std::fs::read(root.join("retired/b.md")).unwrap(), b"b");
        let mut f = open_append(&via, &via.join("logs2/2026/d.md")).unwrap();
        f.write_all(b"line\n").unwrap();
        assert_eq!(
            std::fs::read(root.join("logs2/2026/d.md")).unwrap(),
            b"line\n"
        );
    }

    #[test]
    fn reads_take_regular_files_only() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("f.md");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from(0o600)).unwrap();
        let err = read_capped(&fifo, 10, true).unwrap_err().to_string();
        assert!(err.contains("is a FIFO, not a regular file"), "{err}");
        let z = t.path().join("z.md");
        symlink("/dev/zero", &z).unwrap();
        let err = read_capped(&z, 10, true).unwrap_err().to_string();
        assert!(err.contains("is a device"), "{err}");
        let err = read_capped(&z, 10, false).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        let big = t.path().join("big.md");
        std::fs::write(&big, vec![b'a'; 11]).unwrap();
        let err = read_capped(&big, 10, false).unwrap_err().to_string();
        assert!(err.contains("larger than 10 bytes (11 bytes)"), "{err}");
        assert_eq!(read_capped(&big, 11, false).unwrap().len(), 11);
        assert_eq!(
            read_prefix(&big, 4, false).unwrap(),
            (b"aaaa".to_vec(), true)
        );
        assert!(!read_prefix(&big, 11, false).unwrap().1);
        let missing = read_capped(&t.path().join("no"), 1, false).unwrap_err();
        assert!(matches!(missing, Error::Io { ref err, .. } if err.kind() == ErrorKind::NotFound));
    }
}
