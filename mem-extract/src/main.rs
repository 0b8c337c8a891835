//! The `mem-extract` binary.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-extract", mem_extract::run)
}
