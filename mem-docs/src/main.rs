//! The `mem-docs` binary.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-docs", mem_docs::run)
}
