//! The binary's allocator: mimalloc for blocks under [`LARGE`], the C
//! library's `malloc` for larger ones.
//!
//! Extraction makes and drops many short strings per event, which mimalloc
//! serves faster than glibc (docs/extraction.md, "Speed"). A very long line
//! (a tool output of hundreds of MB) grows its buffers by `realloc`: glibc
//! moves a large block with `mremap`, without a copy, where mimalloc copies
//! it. With mimalloc alone a 200 MB event line took 1.5 times the time and
//! 1.35 times the peak memory of glibc's; with this split, 1.0 and 1.16
//! times. So each block goes to one allocator by its size; ordinary events
//! never reach the threshold.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;

/// Blocks of this many bytes or more come from the C library (32 MiB).
pub const LARGE: usize = 32 << 20;

/// mimalloc below [`LARGE`] bytes, the system allocator from there on.
pub struct Split;

/// The allocator that owns blocks of `size` bytes.
fn large(size: usize) -> bool {
    size >= LARGE
}

// SAFETY: every block is allocated and freed by the allocator its size
// names. `GlobalAlloc` passes the layout a block was allocated with to
// `dealloc` and `realloc`, so both calls reach the allocator that made the
// block. A `realloc` that crosses `LARGE` allocates in the other allocator,
// copies the smaller of the two sizes and frees the old block in its own.
unsafe impl GlobalAlloc for Split {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout is passed on unchanged.
        unsafe {
            if large(layout.size()) {
                System.alloc(layout)
            } else {
                MiMalloc.alloc(layout)
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if large(layout.size()) {
                System.alloc_zeroed(layout)
            } else {
                MiMalloc.alloc_zeroed(layout)
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated with `layout`, so by the allocator
        // its size names.
        unsafe {
            if large(layout.size()) {
                System.dealloc(ptr, layout)
            } else {
                MiMalloc.dealloc(ptr, layout)
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated with `layout` (by the allocator its
        // size names); the caller guarantees that `new_size` with
        // `layout.align()` is a valid layout. Across `LARGE` the new block
        // comes from the other allocator and holds `min(old, new)` bytes
        // copied from the old one, which is then freed; on failure the old
        // block stays, as `realloc` requires.
        unsafe {
            match (large(layout.size()), large(new_size)) {
                (true, true) => System.realloc(ptr, layout, new_size),
                (false, false) => MiMalloc.realloc(ptr, layout, new_size),
                _ => {
                    let new = Layout::from_size_align_unchecked(new_size, layout.align());
                    let out = self.alloc(new);
                    if !out.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, out, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    out
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks grown and shrunk across `LARGE` keep their bytes, and each
    /// is freed by the allocator that made it (a wrong one would abort).
    #[test]
    fn realloc_across_the_threshold_keeps_the_bytes() {
        let a = Split;
        let small = Layout::from_size_align(1000, 8).unwrap();
        unsafe {
            let p = a.alloc(small);
            assert!(!p.is_null());
            for i in 0..1000 {
                *p.add(i) = (i % 251) as u8;
            }
            let q = a.realloc(p, small, 3 * LARGE);
            assert!(!q.is_null());
            let big = Layout::from_size_align(3 * LARGE, 8).unwrap();
            for i in 0..1000 {
                assert_eq!(*q.add(i), (i % 251) as u8);
            }
            *q.add(3 * LARGE - 1) = 7;
            let r = a.realloc(q, big, 4 * LARGE);
            let bigger = Layout::from_size_align(4 * LARGE, 8).unwrap();
            assert_eq!(*r.add(3 * LARGE - 1), 7);
            let s = a.realloc(r, bigger, 500);
            for i in 0..500 {
                assert_eq!(*s.add(i), (i % 251) as u8);
            }
            a.dealloc(s, Layout::from_size_align(500, 8).unwrap());
            let z = a.alloc_zeroed(big);
            assert_eq!(*z.add(LARGE + 5), 0);
            a.dealloc(z, big);
        }
    }
}
