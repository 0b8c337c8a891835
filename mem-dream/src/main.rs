//! The `mem-dream` binary.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-dream", || anyhow::bail!("not built yet"))
}
