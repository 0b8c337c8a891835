//! The `mem-index` binary.

fn main() -> std::process::ExitCode {
    mem_core::cli::main_with("mem-index", || anyhow::bail!("not built yet"))
}
