//! Man pages and shell completions for the mem tools, generated from the
//! same clap definitions the tools parse their arguments with (never written
//! by hand).
//!
//! `mem-docs man OUT_DIR` writes one roff page per tool (`mem-index.1`) and
//! one per subcommand (`mem-index-write.1`, nested ones joined the same way);
//! `mem-docs completions SHELL OUT_DIR` writes one completion script per tool
//! under the file name the shell expects (`mem-index.bash`, `_mem-index`,
//! `mem-index.fish`, …). `scripts/install.sh` runs both after installing.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand};
use clap_complete::{Generator, Shell};
use mem_core::error::Exit;

/// The names of the tools documented, in the order of the README table.
pub const TOOLS: [&str; 7] = [
    "mem-transcript",
    "mem-extract",
    "mem-index",
    "mem-recall",
    "mem-hook",
    "mem-dream",
    "mem-lock",
];

/// The clap command of each tool (name, command), built so that subcommands
/// carry their full display names (`mem-index-write`).
pub fn tools() -> Vec<clap::Command> {
    let mut cmds = vec![
        mem_transcript::Cli::command(),
        mem_extract::Cli::command(),
        mem_index::Cli::command(),
        mem_recall::Cli::command(),
        mem_hook::Cli::command(),
        mem_dream::Cli::command(),
        mem_lock::Cli::command(),
    ];
    for c in &mut cmds {
        c.build();
    }
    cmds
}

/// The page name of a command: its display name (`mem-index-write` for a
/// subcommand once built), else its name.
fn page_name(cmd: &clap::Command) -> String {
    cmd.get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_string()
}

/// Render the man page of `cmd` and of every subcommand below it (except
/// clap's own `help`) into `out`, one `NAME.1` file each.
///
/// Errors: a roff rendering or write error, naming the file.
fn man_tree(cmd: &clap::Command, out: &Path, written: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let name = page_name(cmd);
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut buf)
        .with_context(|| format!("rendering the man page of {name}"))?;
    let path = out.join(format!("{name}.1"));
    mem_core::atomic::write_if_changed(&path, &buf)?;
    written.push(path);
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        man_tree(sub, out, written)?;
    }
    Ok(())
}

/// Write the man pages of every tool and subcommand into `out` (created when
/// missing). Returns the files, tools first in [`TOOLS`] order, each followed
/// by its subcommands. A page whose content would not change is not rewritten.
///
/// Errors: `out` cannot be created, or a page cannot be written.
pub fn man_pages(out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut written = Vec::new();
    for cmd in tools() {
        man_tree(&cmd, out, &mut written)?;
    }
    Ok(written)
}

/// Write one completion script per tool for `shell` into `out` (created when
/// missing), under the file name the shell looks for (bash `NAME.bash`, zsh
/// `_NAME`, fish `NAME.fish`, elvish `NAME.elv`, PowerShell `_NAME.ps1`).
/// Returns the files in [`TOOLS`] order.
///
/// Errors: `out` cannot be created, or a script cannot be written.
pub fn completions(shell: Shell, out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut written = Vec::new();
    for mut cmd in tools() {
        let name = cmd.get_name().to_string();
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, name.clone(), &mut buf);
        let path = out.join(shell.file_name(&name));
        mem_core::atomic::write_if_changed(&path, &buf)?;
        written.push(path);
    }
    Ok(written)
}

/// Man pages and shell completions for the mem tools, generated from their
/// clap definitions.
#[derive(Debug, Parser)]
#[command(
    name = "mem-docs",
    version,
    after_long_help = "Examples:\n  \
mem-docs man ~/.local/share/man/man1\n  \
mem-docs completions bash ~/.local/share/bash-completion/completions\n  \
mem-docs completions zsh ~/.local/share/zsh/site-functions\n  \
mem-docs completions fish ~/.config/fish/completions"
)]
pub struct Cli {
    /// What to generate.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// The subcommands of `mem-docs`.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Write a man page per tool and per subcommand (`mem-index.1`,
    /// `mem-index-write.1`, …) into OUT_DIR; prints each file written.
    #[command(
        after_long_help = "Example:\n  mem-docs man ~/.local/share/man/man1 && man mem-recall"
    )]
    Man {
        /// Where to write the pages (created when missing).
        out_dir: PathBuf,
    },
    /// Write a completion script per tool for SHELL into OUT_DIR; prints each
    /// file written.
    #[command(
        after_long_help = "Example:\n  mem-docs completions bash ~/.local/share/bash-completion/completions"
    )]
    Completions {
        /// The shell.
        shell: Shell,
        /// Where to write the scripts (created when missing).
        out_dir: PathBuf,
    },
}

/// Parse the arguments and run. Prints the path of each file written, one a
/// line, on stdout.
///
/// Errors: a directory or file that cannot be written (exit 1).
pub fn run() -> anyhow::Result<Exit> {
    run_cli(Cli::parse())
}

/// Run parsed arguments (see [`run`]).
///
/// Errors: as [`run`].
pub fn run_cli(cli: Cli) -> anyhow::Result<Exit> {
    let files = match cli.cmd {
        Cmd::Man { out_dir } => man_pages(&out_dir)?,
        Cmd::Completions { shell, out_dir } => completions(shell, &out_dir)?,
    };
    let mut out = mem_core::cli::Output::stdout(false);
    for f in files {
        out.line(&f.display().to_string())?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_tool_and_subcommand_gets_a_page() {
        let dir = tempfile::tempdir().unwrap();
        let files = man_pages(dir.path()).unwrap();
        for tool in TOOLS {
            let page = std::fs::read_to_string(dir.path().join(format!("{tool}.1"))).unwrap();
            assert!(page.contains(".TH"), "{tool}: {page}");
            assert!(page.contains(tool), "{tool}");
        }
        assert!(
            files.iter().any(|f| f.ends_with("mem-index-write.1")),
            "{files:?}"
        );
        assert!(
            !files
                .iter()
                .any(|f| f.to_string_lossy().ends_with("-help.1"))
        );
        // A second run changes nothing.
        let before: Vec<_> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        man_pages(dir.path()).unwrap();
        let after: Vec<_> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        assert_eq!(before, after);
    }

    #[test]
    fn completions_use_the_shell_file_names() {
        let dir = tempfile::tempdir().unwrap();
        let bash = completions(Shell::Bash, dir.path()).unwrap();
        assert_eq!(bash.len(), TOOLS.len());
        assert!(dir.path().join("mem-recall.bash").is_file());
        completions(Shell::Zsh, dir.path()).unwrap();
        assert!(dir.path().join("_mem-recall").is_file());
        assert!(dir.path().join("_mem-hook").is_file());
        completions(Shell::Fish, dir.path()).unwrap();
        let fish = std::fs::read_to_string(dir.path().join("mem-index.fish")).unwrap();
        assert!(fish.contains("complete -c mem-index"), "{fish}");
    }
}
