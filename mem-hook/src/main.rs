//! The `mem-hook` binary.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-hook", mem_hook::run)
}
