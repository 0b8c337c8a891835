//! The `mem-extract` binary.

mod alloc;

/// The allocator of the binary (the library leaves the choice to its
/// user): mimalloc for small blocks, the C library's for large ones
/// ([`alloc::Split`]). With the C library's alone extraction took 1.06-1.09
/// times the CPU time of the previous release; with this, 0.97-0.98 times,
/// for about 16 MB more peak memory (docs/extraction.md, "Speed").
#[global_allocator]
static ALLOCATOR: alloc::Split = alloc::Split;

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-extract", mem_extract::run)
}
