//! The `mem-extract` binary.

/// The allocator of the binary (the library leaves the choice to its
/// user). Extraction makes and drops many short strings per event (words,
/// triggers, sentences, held turns); with mimalloc it takes 6-7 % less CPU
/// time than with the C library's malloc on the same events, for about
/// 18 MB more peak memory (docs/extraction.md, "Speed").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-extract", mem_extract::run)
}
