//! Running a parsed `mem-dream` command line: the team tier's review
//! ([`team`]), or the personal directory's consolidation or undo.

use clap::Parser;
use mem_core::memdir;
use mem_core::{Error, Exit};

use crate::error::Result;
use crate::{Cli, Command, DreamTier, NAME, dream, recover, team, undo};

/// Run the tool with the process arguments.
///
/// Errors: [`DreamError`](crate::DreamError) (exit 1 bad input, 75 busy / not due under
/// `--strict`).
pub fn run() -> Result<Exit> {
    let cli = Cli::parse();
    run_cli(cli)
}

/// Run a parsed command line.
///
/// Errors: see [`run`].
pub fn run_cli(cli: Cli) -> Result<Exit> {
    let g = &cli.global.args;
    let clock = g.time.clock()?;
    if cli.global.tier == DreamTier::Team {
        let mut out = g.output.stdout();
        let code = team::run(&cli, &clock, g.output.format(), &mut out)?;
        out.flush().map_err(|e| Error::io("<stdout>", e))?;
        return Ok(code);
    }
    let resolved = memdir::resolve(&memdir::MemdirOptions {
        agent: cli.global.agent.agent(),
        ..g.memdir_options()
    })?;
    // A directory named by --memory-dir or MEM_MEMORY_DIR must exist (a
    // mistyped path would read as "nothing to do"); the project's own may
    // not exist yet.
    memdir::require_given_dir(&resolved)?;
    // never Claude Code's own team memory directory
    mem_core::shape::refuse_claude_team_dir(&resolved.dir)?;
    let format = g.output.format();
    let mut out = g.output.stdout();
    let recovered = recover(
        &resolved.dir,
        clock.today,
        cli.run.dry_run && cli.command.is_none(),
    )?;
    let code = match &cli.command {
        Some(Command::Undo { .. }) if recovered > 0 => {
            // The unfinished run was the last one: rolling it back (or
            // removing its empty journal) undid it.
            eprintln!(
                "{NAME}: undone: the unfinished last run was rolled back; nothing older undone"
            );
            Exit::Success
        }
        Some(Command::Undo { force }) => undo(&resolved.dir, *force, &mut out)?,
        None => dream(&cli, &clock, &resolved, format, &mut out)?,
    };
    out.flush().map_err(|e| Error::io("<stdout>", e))?;
    Ok(code)
}
