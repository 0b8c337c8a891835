//! The `mem-recall` binary.

fn main() -> std::process::ExitCode {
    mem_recall::heap::allow();
    mem_core::cli::main_with("mem-recall", mem_recall::run)
}
