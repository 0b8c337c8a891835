//! The start of a file as bytes that live as long as the process, mapped
//! into memory rather than read (docs/recall.md "Speed").
//!
//! The recall cache's index (about 500 bytes per topic file) is read at
//! every call, and its documents borrow from it until the process ends.
//! Read into the heap, each 4 KiB of it costs a page fault on a fresh page
//! and a copy; mapped, the pages come from the page cache, 16 to a fault:
//! at 200 topic files 0.08 ms less, and 0.04 ms less to exit.
//!
//! This module, [`crate::heap`] and [`crate::budget`] are the only ones
//! with `unsafe` code: the call below, with its safety argument.
#![allow(unsafe_code)]

use std::fs::File;
use std::os::unix::fs::FileExt;

/// The first `len` bytes of `f`, for the rest of the process: mapped
/// read-only (`mmap(2)`), or read into the heap where mapping fails. `None` when the file is shorter than `len` or unreadable.
///
/// Only for files that are replaced, never rewritten in place (mem writes
/// its caches to a temporary file renamed over the old one,
/// `crate::state::write`): the mapped bytes must not change while they
/// are borrowed.
pub fn leak_start(f: &File, len: usize) -> Option<&'static [u8]> {
    let size = usize::try_from(f.metadata().ok()?.len()).ok()?;
    if size < len {
        return None;
    }
    if len > 0 {
        // SAFETY: a read-only mapping of `len` bytes, all inside the file
        // (checked above). It is sound while the file's first
        // `len` bytes stay as they are: mem never writes a cache file in
        // place (it renames a new file over it, so the inode mapped here
        // keeps its bytes for as long as the mapping lives), and the cache
        // folder is the user's own. A process of the same user that
        // truncated the file anyway would make a later read of a lost page
        // raise SIGBUS and end this process, as with any program that maps
        // its input (grep, ripgrep); it could not make this one read
        // memory other than the file's.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().len(len).map(f) } {
            let map: &'static memmap2::Mmap = Box::leak(Box::new(map));
            return Some(&map[..]);
        }
    }
    let mut bytes = vec![0u8; len];
    f.read_exact_at(&mut bytes, 0).ok()?;
    Some(Box::leak(bytes.into_boxed_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_of_a_file_as_mapped_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c");
        std::fs::write(&p, b"mem-recall cache\nrest").unwrap();
        let f = File::open(&p).unwrap();
        assert_eq!(leak_start(&f, 16).unwrap(), b"mem-recall cache");
        assert_eq!(leak_start(&f, 21).unwrap(), b"mem-recall cache\nrest");
        assert_eq!(leak_start(&f, 0).unwrap(), b"");
        // longer than the file: nothing
        assert!(leak_start(&f, 22).is_none());
        // the bytes stay as they were when the file is replaced by rename
        let m = leak_start(&f, 21).unwrap();
        let tmp = dir.path().join("c.tmp");
        std::fs::write(&tmp, b"something else entirely").unwrap();
        std::fs::rename(&tmp, &p).unwrap();
        assert_eq!(m, b"mem-recall cache\nrest");
    }
}
