//! The process's heap made ready for a large memory directory
//! (docs/recall.md "Speed").
//!
//! A recall over thousands of topic files allocates tens of megabytes
//! once: the cache's entries, the memories, the listing, the decisions.
//! With glibc's defaults each large block is a fresh `mmap`, faulted in
//! 4 KiB page by 4 KiB page and unmapped when freed, and the next block
//! faults again: at 10,000 files about 5,000 page faults, a fifth of the
//! process's CPU time. [`reserve`] makes these blocks come from one heap
//! that keeps what is freed (`mallopt`), with the heap's first part
//! advised for transparent huge pages (`madvise(MADV_HUGEPAGE)`, taken
//! where the system's THP mode is `always` or `madvise`): about 600 page
//! faults then, and 0.75× the wall time.
//!
//! Only the `mem-recall` binary turns this on ([`allow`]); a program that
//! calls the library keeps its allocator as it is. On other C libraries
//! than glibc [`reserve`] does nothing.
//!
//! This module and [`crate::budget`] are the only ones with `unsafe`
//! code: the calls into the C library below, each with its safety
//! argument.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, Ordering};

/// Topic files from which [`reserve`] acts (as the listing's second
/// thread, [`crate::load::PARALLEL_FROM`]): 0.93× the wall time at 1,000
/// files; at 200 the gain (about 2 %) is below the noise.
pub const RESERVE_FROM: usize = 512;

/// Bytes reserved per topic file: about what a recall holds per file at
/// 10,000 files (20 MB resident).
pub const BYTES_PER_FILE: usize = 2048;

/// The most [`reserve`] sets aside, in bytes.
pub const RESERVE_MAX: usize = 512 << 20;

static ALLOWED: AtomicBool = AtomicBool::new(false);
static DONE: AtomicBool = AtomicBool::new(false);

/// Let [`reserve`] tune this process's heap (the binary's `main` calls
/// it; the library alone never tunes).
pub fn allow() {
    ALLOWED.store(true, Ordering::Relaxed);
}

/// Ready the heap for a recall over `files` topic files: from
/// [`RESERVE_FROM`] files, once per process and only after [`allow`].
/// Does nothing otherwise, and on C libraries other than glibc; a call
/// that fails (no memory to reserve) leaves the defaults.
pub fn reserve(files: usize) {
    if files < RESERVE_FROM
        || !ALLOWED.load(Ordering::Relaxed)
        || DONE.swap(true, Ordering::Relaxed)
    {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    tune_glibc(files.saturating_mul(BYTES_PER_FILE).min(RESERVE_MAX));
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_glibc(bytes: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    // SAFETY: mallopt(3) only changes the allocator's parameters, which
    // it takes at any time, from any thread; the values are in the ranges
    // glibc documents (the mmap threshold at its 64-bit maximum, 32 MiB).
    // M_ARENA_MAX 1: a second thread allocates from the same heap.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, (RESERVE_MAX as libc::c_int) * 2);
        libc::mallopt(libc::M_TOP_PAD, 16 << 20);
    }
    // SAFETY: the block is ours from malloc to free and is never read or
    // written here; madvise(2) is given whole pages inside it (its
    // huge-page-aligned middle), and MADV_HUGEPAGE changes how those pages
    // are backed, never their contents; after free the heap keeps the
    // range (below the trim threshold set above) and hands it out again.
    unsafe {
        let p = libc::malloc(bytes);
        if p.is_null() {
            return;
        }
        let at = p as usize;
        let start = at.next_multiple_of(HUGE_PAGE);
        let end = (at + bytes) & !(HUGE_PAGE - 1);
        if end > start {
            let first = p
                .cast::<u8>()
                .wrapping_add(start - at)
                .cast::<libc::c_void>();
            libc::madvise(first, end - start, libc::MADV_HUGEPAGE);
        }
        libc::free(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tunes_once_from_the_threshold_after_allow() {
        reserve(100_000);
        assert!(!DONE.load(Ordering::Relaxed), "tuned before allow");
        allow();
        reserve(RESERVE_FROM - 1);
        assert!(!DONE.load(Ordering::Relaxed), "tuned below the threshold");
        reserve(100_000);
        assert!(DONE.load(Ordering::Relaxed));
        // The heap hands out what it reserved: a block inside the advised
        // range keeps what is written to it.
        let v: Vec<u64> = (0..4_000_000).collect();
        assert_eq!(v.iter().sum::<u64>(), 3_999_999 * 4_000_000 / 2);
    }
}
