//! The `mem-lock` binary.

fn main() -> std::process::ExitCode {
    // `run` returns the command's own status instead of mem-lock's.
    let mut status = None;
    let exit = mem_core::cli::main_with("mem-lock", || mem_lock::run(&mut status));
    status.map_or(exit, std::process::ExitCode::from)
}
