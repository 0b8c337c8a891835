//! mem-hook: mem in Claude Code and Codex, through their hooks.
//!
//! - [`hook`]: `mem-hook` (no subcommand) answers the agent's hook events
//!   on stdin, with [`once`] (each memory once per session), [`lessons`]
//!   (PreToolUse), [`autodream`] (mem-dream started from SessionStart),
//!   [`session_memory`] (the summary injected after a compaction) and
//!   [`budget`] (the time budget);
//! - [`install`]: `mem-hook install|uninstall|show` writes mem's hooks into
//!   Claude Code's settings.json or Codex's hooks.json ([`json_edit`]:
//!   only the changed part rewritten; [`codex_trust`]: whether Codex trusts
//!   them);
//! - [`backtest`]: `mem-hook backtest`, whether recall would have put each
//!   repeated lesson of a project's sessions in front of the agent.
//!
//! Recall itself is `mem-recall`'s library ([`mem_recall`]).
//!
//! Contract: docs/hooks.md, docs/records.md "Hook output", docs/recall.md
//! "Backtest".

pub mod autodream;
pub mod backtest;
pub mod budget;
pub mod codex_trust;
pub mod dream_command;
pub mod error;
pub mod hook;
pub mod install;
pub mod json_edit;
pub mod lessons;
pub mod once;
pub mod quote;
pub mod session_memory;
pub mod session_turns;

use clap::{Parser, Subcommand};
use mem_core::Exit;
use mem_recall::Common;

pub use crate::error::{HookError, NAME, Result};

const EXAMPLES: &str = "\
Examples:
  echo '{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"s1\",\"cwd\":\".\",\"prompt\":\"run the tests\"}' | mem-hook
  mem-hook install --dry-run          # ~/.claude/settings.json, printed
  mem-hook install                    # written (backup kept)
  mem-hook install --project          # this project's .claude/settings.json
  mem-hook install --codex            # ~/.codex/hooks.json; then trust them in /hooks
  mem-hook install --model-cmd 'claude -p --model haiku'
  mem-hook show                       # (or status)
  mem-hook uninstall
  mem-hook backtest                   # would recall have caught this project's repeats?

As a Claude Code hook (settings.json), for SessionStart, UserPromptSubmit and
PreToolUse (matcher Bash), as `mem-hook install` writes it:
  {\"type\":\"command\",\"command\":\"/usr/local/bin/mem-hook\",\"timeout\":10}";

const BACKTEST_EXAMPLES: &str = "\
Examples:
  mem-hook backtest                                  # this project's sessions
  mem-hook backtest ~/.claude/projects/-home-u-proj/
      | session | date | lesson | kind | op | learned in | recalled |
      …
      12 sessions, 40 memories written; 3 lessons repeated, 2 would have been recalled
  mem-hook backtest ~/.claude/projects/-home-u-proj/ --format jsonl   # a record per repeat
  mem-hook backtest old-sessions/ --keep /tmp/bt-memory               # keep the memory built";

/// mem's hooks for Claude Code and Codex: without a subcommand, answer one
/// hook event; with one, install, remove or show the hooks.
///
/// Without a subcommand it reads the hook JSON on stdin (SessionStart,
/// UserPromptSubmit, PreToolUse for Bash, or Stop) and prints
/// {"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}} within
/// 10,000 characters; each memory once per session; on PreToolUse the
/// lessons that bear on the command (see docs/hooks.md); SessionStart
/// starts mem-dream detached when a consolidation is due; Stop prints
/// nothing and folds the turn into the session memory (thresholds: env
/// MEM_SESSION_INIT_TOKENS, MEM_SESSION_UPDATE_TOKENS,
/// MEM_SESSION_TOOL_CALLS). Nothing recalled → nothing printed. Never
/// fails: on any error it prints nothing, exits 0 and says why on stderr;
/// past its time budget (2 s; env MEM_HOOK_BUDGET_MS, in milliseconds;
/// on Stop the agent's hook timeout) likewise.
///
/// `install` also writes Claude Code's `/dream` command
/// (`commands/dream.md` beside the settings: `mem-dream --force`), never
/// over a file of the user's own.
///
/// `install` writes the hooks of every event mem serves, each with its
/// timeout and the tools' absolute paths (the directory of this mem-hook,
/// or --bin-dir). The file is merged, never replaced: other keys and hooks
/// stay in their order, installing twice changes nothing, a changed bin dir
/// updates mem's entries in place, and uninstall removes exactly mem's
/// entries (`mem-hook` and the `mem-recall --hook` of earlier versions).
/// Only the changed part is written anew: the rest keeps its formatting.
/// The old file is kept as `FILE.bak` (one backup); --dry-run prints the
/// change as a diff. A file that is not a JSON object is refused (exit 1)
/// and left untouched.
#[derive(Debug, Parser)]
#[command(
    name = "mem-hook",
    version,
    after_long_help = EXAMPLES,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Subcommands.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Where and when (the hook without a subcommand).
    #[command(flatten)]
    pub common: Common,
}

/// The command line of the hook: the options every command shares ([`Cli`]
/// with its subcommands, `--help` and `--version` left out, so that parsing
/// builds only these). Whatever it does not take, the full parse does.
#[derive(Debug, Parser)]
#[command(
    name = "mem-hook",
    disable_help_flag = true,
    disable_version_flag = true
)]
struct HookCli {
    /// Where and when.
    #[command(flatten)]
    common: Common,
}

/// Subcommands of mem-hook.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// `install`, `uninstall`, `show` (alias `status`).
    #[command(flatten)]
    Hooks(install::HooksAction),
    /// Replay a project's sessions in time order and report each repeated
    /// lesson and whether recall would have put it in front of the agent.
    ///
    /// Before each session, recall runs for its first prompts with only the
    /// memories earlier sessions wrote (read, extracted and written through
    /// mem-transcript's, mem-extract's and mem-index's libraries, into a
    /// scratch memory directory, or --keep DIR; the user's own memory
    /// directory, --memory-dir and MEM_MEMORY_DIR are not read). No model
    /// is needed.
    #[command(after_long_help = BACKTEST_EXAMPLES)]
    Backtest(backtest::BacktestArgs),
}

/// Parse the arguments and run.
///
/// Errors: a failed install, uninstall, show or backtest (exit 1). The hook
/// itself never fails (see [`hook::run_guarded`]).
pub fn run() -> Result<Exit> {
    // The hook as installed (`mem-hook`, maybe with the options every
    // command shares): parsed with a command of those options only, not the
    // whole tree of subcommands. Anything else, and any error, goes through
    // the full parse below.
    if let Ok(h) = HookCli::try_parse() {
        return Ok(hook_or_nothing(&h.common));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // The hook never blocks the agent: a bad option or environment value
        // (`MEM_TODAY=13/07`) prints nothing and exits 0, saying why.
        Err(e) if e.use_stderr() && !names_a_subcommand() => {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default();
            eprintln!("{}: hook: {first}; nothing injected", mem_recall::NAME);
            return Ok(Exit::Success);
        }
        Err(e) => e.exit(),
    };
    match &cli.command {
        None => Ok(hook_or_nothing(&cli.common)),
        Some(Command::Hooks(action)) => install::run(action),
        Some(Command::Backtest(a)) => backtest::run(a),
    }
}

/// The hook, unless this process runs under mem's own model command
/// ([`mem_core::memdir::hook_guarded`]: no hook work inside it).
fn hook_or_nothing(common: &Common) -> Exit {
    if mem_core::memdir::hook_guarded() {
        return Exit::Success;
    }
    hook::run_guarded(common)
}

/// True when the first argument names a subcommand (a command line that is
/// not the hook's).
fn names_a_subcommand() -> bool {
    use clap::CommandFactory;
    let Some(first) = std::env::args_os().nth(1) else {
        return false;
    };
    let first = first.to_string_lossy();
    Cli::command()
        .get_subcommands()
        .any(|c| c.get_name() == first || c.get_all_aliases().any(|a| a == first))
        || first == "help"
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
        HookCli::command().debug_assert();
    }

    #[test]
    fn the_hook_command_reads_the_shared_options_as_the_full_one_does() {
        let argv = [
            "mem-hook",
            "--memory-dir",
            "/m",
            "--cwd",
            "/p",
            "--today",
            "2026-07-11",
            "--no-cache",
            "--explain",
        ];
        let h = HookCli::try_parse_from(argv).unwrap();
        let c = Cli::try_parse_from(argv).unwrap();
        assert!(c.command.is_none());
        assert_eq!(format!("{:?}", h.common), format!("{:?}", c.common));
        // subcommands, --help and --version are the full command's
        for argv in [
            &["mem-hook", "install", "--dry-run"][..],
            &["mem-hook", "status", "--codex"],
            &["mem-hook", "backtest", "dir"],
            &["mem-hook", "--help"],
            &["mem-hook", "--version"],
        ] {
            assert!(HookCli::try_parse_from(argv).is_err(), "{argv:?}");
        }
        let c = Cli::try_parse_from(["mem-hook", "status", "--codex"]).unwrap();
        assert!(matches!(
            c.command,
            Some(Command::Hooks(install::HooksAction::Show(a))) if a.target.codex
        ));
    }
}
