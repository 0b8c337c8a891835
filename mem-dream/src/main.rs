//! The `mem-dream` binary: see the library for what it does.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-dream", mem_dream::run)
}
