//! mem-index: the keeper of the memory directory — topic files with YAML
//! frontmatter and the `MEMORY.md` index (docs/records.md "Memory",
//! docs/memory-dir.md "MEMORY.md", "Where memory lives").
//!
//! The binary is [`run`]; the operations other tools call in process are
//! in [`write`](mod@write) (write a batch), [`index_file`] (read, update and rebuild
//! `MEMORY.md`), [`retire`] (retire, restore), [`check`] (the lint),
//! [`daily_log`] (daily logs), [`snapshot`] (agent-memory snapshots),
//! [`team`] (the team tier), [`trust`] (which of its files the user trusts)
//! and [`merge`] (its git merge driver).

pub mod check;
pub mod commands;
pub mod daily_log;
pub mod error;
pub mod index_file;
pub mod merge;
pub mod retire;
pub mod snapshot;
pub mod team;
pub mod trust;
pub mod write;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

use mem_core::cli::GlobalArgs;
use mem_core::error::Exit;
use mem_core::memdir::{self, AgentScope, MemdirOptions};
use mem_core::records::{IndexOp, Kind, Memory, MemoryType};

pub use error::IndexError;

const NAME: &str = "mem-index";

/// Agent-memory scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    /// `~/.claude/agent-memory/<agent>/`.
    User,
    /// `.claude/agent-memory/<agent>/` (shared through git snapshots).
    Project,
    /// `.claude/agent-memory-local/<agent>/`.
    Local,
}

impl From<ScopeArg> for AgentScope {
    fn from(s: ScopeArg) -> Self {
        match s {
            ScopeArg::User => AgentScope::User,
            ScopeArg::Project => AgentScope::Project,
            ScopeArg::Local => AgentScope::Local,
        }
    }
}

/// Which tier of memory a command acts on (docs/team-memory.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    /// The personal memory directory (`mem-index path`).
    Personal,
    /// The team tier of the repository: `<root>/.claude/team-memory/`.
    Team,
}

/// Memory type filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TypeArg {
    /// Facts about the person.
    User,
    /// Instructions and corrections.
    Feedback,
    /// Facts about the project.
    Project,
    /// Pointers to outside resources.
    Reference,
}

/// Kind filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// A lesson that stays true.
    DurableLesson,
    /// How the user likes things done.
    Preference,
    /// State that holds until a date.
    OneTimeState,
    /// A pointer to an outside resource.
    Reference,
}

/// Snapshot sync strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Strategy {
    /// Do nothing.
    None,
    /// Copy the snapshot when the local scope is empty.
    Initialize,
    /// Print a merge proposal (records) when the snapshot is newer; never overwrite.
    PromptUpdate,
}

/// Options every subcommand takes.
#[derive(Debug, Clone, Args)]
pub struct Global {
    /// Where, when, how to print.
    #[command(flatten)]
    pub args: GlobalArgs,
    /// Agent memory: the agent's name (with --scope).
    #[arg(long, global = true, value_name = "NAME", help_heading = "Where")]
    pub agent: Option<String>,
    /// Agent memory scope.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "project",
        help_heading = "Where"
    )]
    pub scope: ScopeArg,
    /// Which tier: the personal memory directory, or the repository's
    /// team tier `.claude/team-memory/` (for `list`, `show`, `check`,
    /// `reindex`, `path`).
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "personal",
        help_heading = "Where"
    )]
    pub tier: TierArg,
}

/// Keep the memory directory: topic files and the MEMORY.md index.
#[derive(Debug, Parser)]
#[command(
    name = "mem-index",
    version,
    about,
    after_long_help = "Example:\n  mem-transcript replay S.jsonl | mem-extract | mem-index write\n  mem-index list --type feedback"
)]
pub struct Cli {
    /// Global options.
    #[command(flatten)]
    pub global: Global,
    /// What to do.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// Options of `write`.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// Input files of memory records (JSONL); default stdin.
    pub files: Vec<PathBuf>,
    /// Write the valid records, report the others, still exit 1.
    #[arg(long, help_heading = "Validation")]
    pub skip_invalid: bool,
    /// Accept records carrying secrets, session ids or absolute paths.
    #[arg(long, help_heading = "Validation")]
    pub allow_sensitive: bool,
    /// Fail the update when the file's hash (from `list`/`show`) is no longer HASH.
    #[arg(long, value_name = "HASH", help_heading = "Validation")]
    pub if_match: Option<String>,
    /// Most topic files (0 = unlimited).
    #[arg(long, value_name = "N", default_value_t = write::DEFAULT_MAX_FILES, help_heading = "Limits")]
    pub max_files: usize,
    /// Past --max-files, retire expired memories first, then the lowest ranked.
    #[arg(long, help_heading = "Limits")]
    pub evict: bool,
    /// Let --evict retire memories mem did not write (Claude Code's own, hand-written).
    #[arg(long, requires = "evict", help_heading = "Limits")]
    pub include_foreign: bool,
}

/// Options of `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this type.
    #[arg(long = "type", value_enum)]
    pub mem_type: Option<TypeArg>,
    /// Only this kind (explicit, or the default from the type).
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Only memories expired today (`expires < today`).
    #[arg(long)]
    pub expired: bool,
    /// Only memories verified on or after this day.
    #[arg(long, value_name = "DAY", value_parser = mem_core::time::day_arg)]
    pub since: Option<String>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Write memory records (JSONL) as topic files and rebuild MEMORY.md.
    ///
    /// A record carrying a memory's `hash` (as list and show print it) is an
    /// edit: it replaces the memory field by field as written, and is
    /// refused when the file changed since (a stale snapshot). So is a
    /// record naming an existing `id` with no evidence and no source but
    /// manual (written by hand, not checked). Every other record is a
    /// candidate, merged into the memory of its id (docs/records.md "Edits
    /// and candidates").
    ///
    /// In assistant (daily-log) mode — `"assistant": true` in Claude Code's
    /// settings, or MEM_ASSISTANT_MODE=1 (0 turns it off) — the candidates
    /// are appended to the daily log logs/YYYY/MM/YYYY-MM-DD.md instead (as
    /// `log` does; one already in that day's log is not appended again),
    /// and stderr says which log; `mem-dream` distils the logs into topic
    /// files. Edits still go to their topic files.
    #[command(
        visible_alias = "add",
        after_long_help = "Example:\n  echo '{\"name\":\"Use pnpm\",\"description\":\"pnpm, not npm\",\"type\":\"feedback\"}' | mem-index write\n  mem-index list | jq -c 'select(.id == \"use-pnpm\") | .description = \"pnpm only\"' | mem-index write\n  mem-index list | mem-index write --memory-dir /tmp/copy\n  echo '{\"name\":\"Use pnpm\",\"description\":\"pnpm, not npm\",\"type\":\"feedback\"}' | MEM_ASSISTANT_MODE=1 mem-index write   # to today's daily log"
    )]
    Write(WriteArgs),
    /// The memories on disk as records (JSONL, or a table on a terminal);
    /// each says its `source` and `trust` (absent in the file: manual, normal).
    #[command(after_long_help = "Example:\n  mem-index list --type feedback --since 2026-07-01")]
    List(ListArgs),
    /// One memory.
    #[command(after_long_help = "Example:\n  mem-index show fixture-before-verify")]
    Show {
        /// The memory's id.
        id: String,
    },
    /// Rebuild MEMORY.md from the topic files.
    #[command(
        after_long_help = "Example:\n  mem-index reindex --memory-dir ~/.claude/projects/-home-u-proj/memory"
    )]
    Reindex,
    /// Lint the memory directory (exit 1 on errors; with `--tier team`,
    /// exit 3 on a secret: docs/team-memory.md).
    #[command(
        after_long_help = "Example:\n  mem-index check --format jsonl\n  mem-index check --tier team   # in CI: 0 clean, 1 errors, 3 a secret"
    )]
    Check {
        /// The file limit to check against (0 = unlimited).
        #[arg(long, value_name = "N", default_value_t = write::DEFAULT_MAX_FILES)]
        max_files: usize,
        /// First recover what a killed run left: roll back an unfinished
        /// consolidation, roll forward an unfinished `write`, `retire` or `restore`.
        #[arg(long)]
        repair: bool,
    },
    /// The resolved memory directory.
    #[command(after_long_help = "Example:\n  mem-index path --explain --cwd ~/src/proj")]
    Path {
        /// Also say which rule chose it.
        #[arg(long)]
        explain: bool,
    },
    /// Move a memory to retired/ with a reason (or delete it with --purge).
    #[command(
        after_long_help = "Example:\n  mem-index retire mirror-slow-on-0711 --reason expired"
    )]
    Retire {
        /// The memory's id.
        id: String,
        /// Why it is retired.
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// Delete the file instead of moving it.
        #[arg(long)]
        purge: bool,
    },
    /// Bring a retired memory back.
    #[command(after_long_help = "Example:\n  mem-index restore mirror-slow-on-0711")]
    Restore {
        /// The memory's id.
        id: String,
    },
    /// Append records (JSONL) to the daily log logs/YYYY/MM/YYYY-MM-DD.md.
    #[command(after_long_help = "Example:\n  mem-extract < events.jsonl | mem-index log")]
    Log {
        /// Input files (JSONL); default stdin.
        files: Vec<PathBuf>,
    },
    /// Copy personal memories into the repository's team tier after a hard
    /// secret scan; any finding refuses the whole promotion (exit 1),
    /// naming the memory and the field, never the value.
    #[command(
        after_long_help = "Example:\n  mem-index promote fixture-before-verify\n  git add .claude/team-memory && git commit -m 'memory: fixture before verify'"
    )]
    Promote {
        /// The memories' ids (in the personal directory).
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Move team memories back to the personal directory (a personal
    /// memory with the same id is kept as it is) and remove them from the
    /// team tier.
    #[command(after_long_help = "Example:\n  mem-index demote fixture-before-verify")]
    Demote {
        /// The memories' ids (in the team tier).
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// The git merge driver of the team tier (`%O %A %B %P`), or
    /// `--install` it in this repository (.gitattributes + local git config).
    #[command(
        name = "merge-driver",
        after_long_help = "Example:\n  mem-index merge-driver --install\n  # git runs: mem-index merge-driver %O %A %B %P"
    )]
    MergeDriver {
        /// Write the .gitattributes line and the local git config
        /// `merge.mem.driver` / `merge.mem.name` (idempotent).
        #[arg(long, conflicts_with = "files")]
        install: bool,
        /// Ancestor (%O), ours (%A, the result is written here), theirs
        /// (%B), and the path in the repository (%P, optional).
        #[arg(num_args = 3..=4, required_unless_present = "install", value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Review and trust the repository's team tier: nothing of
    /// `.claude/team-memory/` is recalled or injected until you trust it,
    /// and a file a later pull adds or changes waits for review again.
    /// What you trust is kept by digest, per file, in your own state
    /// ($XDG_STATE_HOME/mem/team-trust/), never in the repository.
    #[command(
        subcommand,
        after_long_help = "Example:\n  mem-index team status          # what waits for review\n  mem-index team review          # each as a diff against what you trusted\n  mem-index team trust           # accept the team tier as it is now\n  mem-index team trust use-pnpm  # or only some files\n  mem-index team forget          # trust nothing here any more"
    )]
    Team(TeamCmd),
    /// Agent-memory snapshots shared through git.
    #[command(
        subcommand,
        after_long_help = "Example:\n  mem-index --agent reviewer snapshot save\n  mem-index --agent reviewer snapshot sync --strategy initialize"
    )]
    Snapshot(SnapshotCmd),
}

/// `team` subcommands.
#[derive(Debug, Subcommand)]
pub enum TeamCmd {
    /// Every file of the team tier and where it stands: trusted, new,
    /// changed (since you trusted it) or removed.
    #[command(after_long_help = "Example:\n  mem-index team status --format jsonl")]
    Status,
    /// Show what waits for review (or the files named): a diff from the
    /// content you trusted to the content now, secrets redacted, with a
    /// WARNING line for text that reads as an instruction to an agent.
    #[command(after_long_help = "Example:\n  mem-index team review | less")]
    Review {
        /// Files to show (ID, ID.md or a path); default every file that
        /// waits for review.
        files: Vec<String>,
    },
    /// Trust the team tier as it is now (or only the files named): their
    /// digests are recorded in your state; trusted files now gone are
    /// forgotten.
    #[command(after_long_help = "Example:\n  mem-index team review && mem-index team trust")]
    Trust {
        /// Files to trust (ID, ID.md or a path); default every file.
        files: Vec<String>,
    },
    /// Trust nothing of this checkout's team tier any more.
    Forget,
}

/// `snapshot` subcommands.
#[derive(Debug, Subcommand)]
pub enum SnapshotCmd {
    /// Copy the project scope to `.claude/agent-memory-snapshot/<agent>/` with `snapshot.json`.
    #[command(after_long_help = "Example:\n  mem-index --agent reviewer snapshot save")]
    Save,
    /// Bring the snapshot into the local scope.
    #[command(
        after_long_help = "Example:\n  mem-index --agent reviewer snapshot sync --strategy prompt-update"
    )]
    Sync {
        /// How.
        #[arg(long, value_enum, default_value = "initialize")]
        strategy: Strategy,
    },
}

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

fn memdir_opts(g: &Global, scope: Option<AgentScope>) -> MemdirOptions {
    MemdirOptions {
        memory_dir: g.args.place.memory_dir.clone(),
        cwd: g.args.place.cwd.clone(),
        per_worktree: g.args.place.per_worktree,
        agent: g
            .agent
            .clone()
            .map(|a| (a, scope.unwrap_or_else(|| g.scope.into()))),
    }
}

/// The memory directory for these options.
///
/// Errors: see [`memdir::resolve`].
pub fn resolve_dir(global: &Global) -> mem_core::Result<PathBuf> {
    let dir = memdir::resolve(&memdir_opts(global, None))?.dir;
    // the writers never write into Claude Code's own team memory
    mem_core::shape::refuse_claude_team_dir(&dir)?;
    Ok(dir)
}

/// The memory directory for a command that only reads it: one given with
/// `--memory-dir` / `MEM_MEMORY_DIR` must exist.
///
/// Errors: see [`memdir::resolve`] and [`memdir::require_given_dir`].
pub fn resolve_reader_dir(global: &Global) -> mem_core::Result<PathBuf> {
    let r = memdir::resolve(&memdir_opts(global, None))?;
    memdir::require_given_dir(&r)?;
    Ok(r.dir)
}

/// The summary line of `write` on stderr: `write: 3 created, 1 updated,
/// 40 unchanged, 2 duplicates (in DIR)`; counts of zero are left out.
pub fn write_summary(results: &[IndexOp], dir: &Path) -> String {
    let count = |op: &str| results.iter().filter(|r| r.op() == op).count();
    let parts: Vec<String> = [
        ("create", "created"),
        ("update", "updated"),
        ("unchanged", "unchanged"),
        ("duplicate", "duplicates of a memory already there"),
    ]
    .iter()
    .filter_map(|(op, word)| {
        let n = count(op);
        (n > 0).then(|| format!("{n} {word}"))
    })
    .collect();
    let what = if parts.is_empty() {
        "no memories in the input".to_string()
    } else {
        parts.join(", ")
    };
    format!("write: {what} (in {})", dir.display())
}

/// The field `links` of a record `list` and `show` print: the names the
/// memory's body links to with `[[name]]` (Claude Code's links between
/// memories), when it has any and the file has no key of that name.
/// `write` drops the field again when it is just that.
pub fn with_links(m: &mut Memory) {
    let links = mem_core::frontmatter::links(&mem_core::frontmatter::body_text(m));
    if !links.is_empty() && !m.extra.contains_key("links") {
        m.extra.insert("links".into(), serde_json::json!(links));
    }
}

/// `list` as a table for people: one row per memory under a header, each
/// column as wide as its widest cell in terminal columns (wide characters
/// count two), descriptions cut to 60 characters.
pub fn list_table(rows: &[&Memory]) -> Vec<String> {
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|m| {
            [
                m.id.clone().unwrap_or_default(),
                m.mem_type.as_str().to_string(),
                m.effective_kind().as_str().to_string(),
                m.effective_source().as_str().to_string(),
                m.effective_trust().as_str().to_string(),
                m.verified_at.map_or_else(|| "-".into(), |d| d.to_string()),
                m.expires.map_or_else(|| "-".into(), |d| d.to_string()),
                mem_core::truncate::floor_to_chars(&m.description, 60).to_string(),
            ]
        })
        .collect();
    let head = [
        "ID",
        "TYPE",
        "KIND",
        "SOURCE",
        "TRUST",
        "VERIFIED",
        "EXPIRES",
        "DESCRIPTION",
    ]
    .map(String::from);
    let all: Vec<&[String; 8]> = std::iter::once(&head).chain(cells.iter()).collect();
    let mut width = [0usize; 8];
    for row in &all {
        for (w, c) in width.iter_mut().zip(row.iter()) {
            *w = (*w).max(unicode_width::UnicodeWidthStr::width(c.as_str()));
        }
    }
    all.iter()
        .map(|row| {
            let mut line = String::new();
            for (i, c) in row.iter().enumerate() {
                line.push_str(c);
                if i + 1 < row.len() {
                    let w = unicode_width::UnicodeWidthStr::width(c.as_str());
                    line.push_str(&" ".repeat(width[i] - w + 1));
                }
            }
            line
        })
        .collect()
}

/// The ids closest to `id` (Levenshtein distance within a third of the
/// longer id, at least 2; or one contains the other), at most three,
/// closest first.
pub fn nearest_ids<'a>(id: &str, ids: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut scored: Vec<(usize, &str)> = ids
        .filter_map(|cand| {
            let d = strsim::levenshtein(id, cand);
            let limit = (id.len().max(cand.len()) / 3).max(2);
            let contains = id.len() >= 3 && (cand.contains(id) || id.contains(cand));
            (d <= limit || contains).then_some((d, cand))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_string())
        .collect()
}

fn type_of(t: TypeArg) -> MemoryType {
    match t {
        TypeArg::User => MemoryType::User,
        TypeArg::Feedback => MemoryType::Feedback,
        TypeArg::Project => MemoryType::Project,
        TypeArg::Reference => MemoryType::Reference,
    }
}

fn kind_of(k: KindArg) -> Kind {
    match k {
        KindArg::DurableLesson => Kind::DurableLesson,
        KindArg::Preference => Kind::Preference,
        KindArg::OneTimeState => Kind::OneTimeState,
        KindArg::Reference => Kind::Reference,
    }
}

/// True when stderr is a terminal (progress is shown only then).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// The memory dir as given or resolved, for tests and callers.
pub fn dir_for(memory_dir: Option<&Path>, cwd: Option<&Path>) -> mem_core::Result<PathBuf> {
    Ok(memdir::resolve(&MemdirOptions {
        memory_dir: memory_dir.map(Path::to_path_buf),
        cwd: cwd.map(Path::to_path_buf),
        per_worktree: false,
        agent: None,
    })?
    .dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
