//! The `mem-transcript` binary: see the library for the subcommands.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-transcript", mem_transcript::run)
}
