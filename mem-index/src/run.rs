//! Running a parsed `mem-index` command line: one function of [`commands`]
//! (or of [`trust`] for `team`) per subcommand.

use clap::Parser;
use mem_core::error::Exit;

use crate::error::IndexError;
use crate::{Cli, Cmd, TeamCmd, TierArg, commands, trust};

/// Parse the command line and run.
///
/// Errors: anything that stops the command (printed once by `main_with`,
/// exit [`IndexError::code`]).
pub fn run() -> Result<Exit, IndexError> {
    let cli = Cli::parse();
    run_cli(cli)
}

/// Run a parsed command line: one function of [`commands`] per subcommand.
///
/// Errors: anything that stops the command; [`IndexError::PersonalOnly`]
/// for a command that writes, with `--tier team`.
pub fn run_cli(cli: Cli) -> Result<Exit, IndexError> {
    let g = &cli.global;
    let clock = g.args.time.clock()?;
    let today = clock.today;
    let fmt = g.args.output.format();
    let personal_only = match &cli.cmd {
        Cmd::Write(_) => Some("write"),
        Cmd::Retire { .. } => Some("retire"),
        Cmd::Restore { .. } => Some("restore"),
        Cmd::Log { .. } => Some("log"),
        Cmd::Snapshot(_) => Some("snapshot"),
        _ => None,
    };
    if let (TierArg::Team, Some(what)) = (g.tier, personal_only) {
        return Err(IndexError::PersonalOnly(what));
    }
    match &cli.cmd {
        Cmd::Write(a) => commands::write_cmd(g, a, today, fmt),
        Cmd::List(a) => commands::list_cmd(g, a, today, fmt),
        Cmd::Show { id } => commands::show_cmd(g, id, fmt),
        Cmd::Reindex => commands::reindex_cmd(g, today, fmt),
        Cmd::Check { max_files, repair } => commands::check_cmd(g, *max_files, *repair, today, fmt),
        Cmd::Path { explain } => commands::path_cmd(g, *explain),
        Cmd::Retire { id, reason, purge } => {
            commands::retire_cmd(g, id, reason, *purge, today, fmt)
        }
        Cmd::Restore { id } => commands::restore_cmd(g, id, today, fmt),
        Cmd::Log { files } => commands::log_cmd(g, files, today, fmt),
        Cmd::Promote { ids } => commands::promote_cmd(g, ids, fmt),
        Cmd::Demote { ids } => commands::demote_cmd(g, ids, today, fmt),
        Cmd::MergeDriver { install, files } => commands::merge_driver_cmd(g, *install, files, fmt),
        Cmd::Snapshot(sc) => commands::snapshot_cmd(g, sc, &clock, fmt),
        Cmd::Team(tc) => match tc {
            TeamCmd::Status => trust::status_cmd(g, fmt),
            TeamCmd::Review { files } => trust::review_cmd(g, files, fmt),
            TeamCmd::Trust { files } => trust::trust_cmd(g, files, fmt),
            TeamCmd::Forget => trust::forget_cmd(g),
        },
    }
}
