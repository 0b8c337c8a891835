//! The `mem-hook` binary.

fn main() -> std::process::ExitCode {
    mem_recall::heap::allow();
    mem_core::cli::main_with("mem-hook", mem_hook::run)
}
