//! The `mem-index` binary: see the library for the logic.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-index", mem_index::run)
}
