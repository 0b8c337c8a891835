//! The `mem-lock` binary.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-lock", || anyhow::bail!("not built yet"))
}
