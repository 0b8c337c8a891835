//! The `mem-lock` binary.

fn main() -> std::process::ExitCode {
    // `run` ends with mem-lock's own code, or the status of the command
    // `mem-lock run` ran.
    mem_core::cli::main_with("mem-lock", mem_lock::run)
}
