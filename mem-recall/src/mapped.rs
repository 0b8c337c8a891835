//! The start of a file as bytes that live as long as the process, mapped
//! into memory rather than read (docs/recall.md "Speed").
//!
//! The recall cache's index (about 500 bytes per topic file) is read at
//! every call, and its documents borrow from it until the process ends.
//! Read into the heap, each 4 KiB of it costs a page fault on a fresh page
//! and a copy; mapped, the pages come from the page cache, 16 to a fault:
//! at 200 topic files 0.08 ms less to read, and 0.04 ms less to exit.
//!
//! A mapped file that another program shortens in place (`truncate`,
//! `cp` over it, `rsync --inplace`) makes a later read of a lost page
//! raise `SIGBUS`. mem itself never does that (it renames a new cache over
//! the old one), but a process must not die of it: a `SIGBUS` inside a
//! mapping made here ends the process cleanly instead, saying so on stderr,
//! with the status [`set_lost_status`] chose (the hook: 0, nothing
//! injected). A `SIGBUS` elsewhere goes to the action there was before.
//!
//! This module and mem-hook's `budget` are the only ones with `unsafe`
//! code: the calls below, each with its safety argument.
#![allow(unsafe_code)]

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// The mappings a `SIGBUS` is caught in: start and end addresses, 0 when
/// free (a process maps the caches of its two tiers at most).
static RANGES: [(AtomicUsize, AtomicUsize); 4] = [
    (AtomicUsize::new(0), AtomicUsize::new(0)),
    (AtomicUsize::new(0), AtomicUsize::new(0)),
    (AtomicUsize::new(0), AtomicUsize::new(0)),
    (AtomicUsize::new(0), AtomicUsize::new(0)),
];

/// The exit status when a mapped file was shortened under the process.
static LOST_STATUS: AtomicI32 = AtomicI32::new(1);

/// The `SIGBUS` action there was before [`install`].
static PREVIOUS: OnceLock<Previous> = OnceLock::new();

/// A `sigaction` kept to be restored from the signal handler.
struct Previous(libc::sigaction);

// SAFETY: plain data (a handler address, flags and a signal mask), written
// once before the handler is installed and only read afterwards.
unsafe impl Send for Previous {}
unsafe impl Sync for Previous {}

/// What the process says on stderr when a mapped file was shortened.
const LOST: &[u8] =
    b"mem-recall: the recall cache was shortened while in use (not by mem); nothing recalled, run again\n";

/// The exit status of a process whose mapped file is shortened under it
/// (default 1; the hook sets 0: it never fails).
pub fn set_lost_status(status: i32) {
    LOST_STATUS.store(status, Ordering::Relaxed);
}

/// The first `len` bytes of `f`, for the rest of the process: mapped
/// read-only (`mmap(2)`), or read into the heap where mapping fails (or no
/// `SIGBUS` action can be set). `None` when the file is shorter than `len`
/// or unreadable.
///
/// Only for files that are replaced, never rewritten in place (mem writes
/// its caches to a temporary file renamed over the old one,
/// `crate::state::write`); one shortened anyway ends the process cleanly
/// (see the module's documentation).
pub fn leak_start(f: &File, len: usize) -> Option<&'static [u8]> {
    let size = usize::try_from(f.metadata().ok()?.len()).ok()?;
    if size < len {
        return None;
    }
    if len > 0 && install() {
        // SAFETY: a read-only mapping of `len` bytes, all inside the file
        // (checked above). Its bytes are borrowed as `&[u8]` for the rest
        // of the process, which is sound while the file's first `len`
        // bytes stay as they are: mem never writes a cache file in place
        // (it renames a new file over it, so the inode mapped here keeps
        // its bytes for as long as the mapping lives), and the cache
        // folder is the user's own. If another program shortens the file
        // anyway, a read of a lost page raises SIGBUS, which `on_sigbus`
        // turns into the end of the process before the read returns: no
        // code ever sees bytes other than the file's.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().len(len).map(f) } {
            let map: &'static memmap2::Mmap = Box::leak(Box::new(map));
            if watch(map.as_ptr() as usize, map.len()) {
                return Some(&map[..]);
            }
        }
    }
    let mut bytes = vec![0u8; len];
    f.read_exact_at(&mut bytes, 0).ok()?;
    Some(Box::leak(bytes.into_boxed_slice()))
}

/// Add `[start, start + len)` to the ranges `on_sigbus` ends the process
/// for; false when all slots are taken (the caller then reads instead).
fn watch(start: usize, len: usize) -> bool {
    for (s, e) in &RANGES {
        if s.compare_exchange(0, start, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            e.store(start + len, Ordering::SeqCst);
            return true;
        }
    }
    false
}

/// Set `on_sigbus` as the `SIGBUS` action, once; false when it cannot be.
fn install() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        // SAFETY: sigaction(2) with a zeroed struct filled in before use:
        // the handler is an `extern "C"` function taking the three
        // arguments SA_SIGINFO passes, and the previous action is saved
        // before the new one can run.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                return false;
            }
            let _ = PREVIOUS.set(Previous(old));
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_sigbus as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut new.sa_mask);
            libc::sigaction(libc::SIGBUS, &new, std::ptr::null_mut()) == 0
        }
    })
}

/// The `SIGBUS` action: inside a watched mapping, say so and end the
/// process with [`LOST_STATUS`]; elsewhere put the previous action back
/// and return, so that the faulting access runs again under it.
extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: only async-signal-safe calls (write(2), _exit(2),
    // sigaction(2)) and atomic loads; `info` is the kernel's siginfo for
    // this signal (SA_SIGINFO).
    unsafe {
        let addr = (*info).si_addr() as usize;
        let ours = RANGES.iter().any(|(s, e)| {
            let s = s.load(Ordering::SeqCst);
            s != 0 && addr >= s && addr < e.load(Ordering::SeqCst)
        });
        if ours {
            let _ = libc::write(2, LOST.as_ptr().cast(), LOST.len());
            libc::_exit(LOST_STATUS.load(Ordering::Relaxed));
        }
        match PREVIOUS.get() {
            Some(p) => {
                libc::sigaction(libc::SIGBUS, &p.0, std::ptr::null_mut());
            }
            None => {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
            }
        }
    }
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
        assert_eq!(leak_start(&f, 0).unwrap(), b"");
        // longer than the file: nothing
        assert!(leak_start(&f, 22).is_none());
        // the bytes stay as they were when the file is replaced by rename
        let m = leak_start(&f, 21).unwrap();
        assert_eq!(m, b"mem-recall cache\nrest");
        let tmp = dir.path().join("c.tmp");
        std::fs::write(&tmp, b"something else entirely").unwrap();
        std::fs::rename(&tmp, &p).unwrap();
        assert_eq!(m, b"mem-recall cache\nrest");
    }

    /// Run in a process of its own by the test below: maps a file,
    /// shortens it in place, and reads the lost page.
    #[test]
    fn shortened_child() {
        let Some(path) = std::env::var_os("MEM_MAPPED_CHILD") else {
            return;
        };
        let p = std::path::PathBuf::from(path);
        std::fs::write(&p, vec![b'x'; 3 * 4096]).unwrap();
        let f = File::open(&p).unwrap();
        let m = leak_start(&f, 3 * 4096).unwrap();
        set_lost_status(7);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(0)
            .unwrap();
        // never returns: SIGBUS, caught
        let b = std::hint::black_box(m[2 * 4096 + 5]);
        panic!("read {b} from a shortened file");
    }

    /// A mapped file shortened under the process: it ends with the status
    /// set and a line on stderr, not killed by SIGBUS.
    #[test]
    fn a_mapped_file_shortened_in_place_ends_the_process_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "mapped::tests::shortened_child", "--nocapture"])
            .env("MEM_MAPPED_CHILD", dir.path().join("cache"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(7), "{stderr}");
        assert!(stderr.contains("shortened while in use"), "{stderr}");
    }
}
