//! The `mem-recall` binary.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-recall", mem_recall::run)
}
