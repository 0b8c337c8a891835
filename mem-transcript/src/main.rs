//! The `mem-transcript` binary.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-transcript", || anyhow::bail!("not built yet"))
}
