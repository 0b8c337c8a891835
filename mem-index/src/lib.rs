//! mem-index: the keeper of the memory directory — topic files with YAML
//! frontmatter and the `MEMORY.md` index (DESIGN.md "Topic file",
//! "MEMORY.md", "Where memory lives").
//!
//! The binary is [`run`]; the operations mem-dream calls in process are in
//! [`ops`] (write a batch, reindex, retire, restore), [`check`] (the lint)
//! and [`extra`] (daily logs, snapshots).

pub mod check;
pub mod extra;
pub mod merge;
pub mod ops;
pub mod team;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

use mem_core::cli::{Format, GlobalArgs, Output, warn};
use mem_core::error::{Error, Exit};
use mem_core::memdir::{self, AgentScope, MemdirOptions};
use mem_core::records::{Kind, Memory, MemoryType};
use mem_core::store;
use mem_core::time::Clock;

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
    #[arg(long, value_name = "N", default_value_t = ops::DEFAULT_MAX_FILES, help_heading = "Limits")]
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
    #[command(
        visible_alias = "add",
        after_long_help = "Example:\n  echo '{\"name\":\"Use pnpm\",\"description\":\"pnpm, not npm\",\"type\":\"feedback\"}' | mem-index write\n  mem-index list | mem-index write --memory-dir /tmp/copy"
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
        #[arg(long, value_name = "N", default_value_t = ops::DEFAULT_MAX_FILES)]
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
    /// Agent-memory snapshots shared through git.
    #[command(
        subcommand,
        after_long_help = "Example:\n  mem-index --agent reviewer snapshot save\n  mem-index --agent reviewer snapshot sync --strategy initialize"
    )]
    Snapshot(SnapshotCmd),
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
/// Errors: anything that stops the command (printed once by `main_with`).
pub fn run() -> anyhow::Result<Exit> {
    let cli = Cli::parse();
    run_cli(cli)
}

fn format_of(g: &Global) -> Format {
    g.args.output.format()
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
pub fn resolve_dir(g: &Global) -> mem_core::Result<PathBuf> {
    Ok(memdir::resolve(&memdir_opts(g, None))?.dir)
}

/// The memory directory for a command that only reads it: one given with
/// `--memory-dir` / `MEM_MEMORY_DIR` must exist.
///
/// Errors: see [`memdir::resolve`] and [`memdir::require_given_dir`].
pub fn resolve_reader_dir(g: &Global) -> mem_core::Result<PathBuf> {
    let r = memdir::resolve(&memdir_opts(g, None))?;
    memdir::require_given_dir(&r)?;
    Ok(r.dir)
}

/// Why memory is off for the project of these options (see
/// [`memdir::memory_off`]), or `None`.
fn memory_off(g: &Global) -> mem_core::Result<Option<String>> {
    let cwd = match &g.args.place.cwd {
        Some(c) => Some(c.clone()),
        None => std::env::current_dir().ok(),
    };
    memdir::memory_off(cwd.as_deref())
}

fn disabled_note(why: &str) -> Exit {
    eprintln!("{NAME}: memory is off ({why}); nothing written");
    Exit::Success
}

fn read_input<T: serde::de::DeserializeOwned>(
    files: &[PathBuf],
) -> (Vec<(usize, T)>, Vec<Error>, String) {
    if files.is_empty() {
        mem_core::cli::stdin_hint(
            NAME,
            "memory records (JSONL)",
            "mem-transcript replay SESSION.jsonl | mem-extract | mem-index write",
        );
        let (ok, errs) = mem_core::jsonl::read_records(std::io::stdin().lock(), "<stdin>");
        return (ok, errs, "<stdin>".into());
    }
    let mut ok = Vec::new();
    let mut errs = Vec::new();
    for f in files {
        let name = f.display().to_string();
        match std::fs::File::open(f) {
            Ok(file) => {
                let (o, e) = mem_core::jsonl::read_records(file, &name);
                ok.extend(o);
                errs.extend(e);
            }
            Err(e) => errs.push(Error::io(f, e)),
        }
    }
    let label = if files.len() == 1 {
        files[0].display().to_string()
    } else {
        "<input>".into()
    };
    (ok, errs, label)
}

/// The summary line of `write` on stderr: `write: 3 created, 1 updated,
/// 40 unchanged, 2 duplicates (in DIR)`; counts of zero are left out.
pub fn write_summary(results: &[ops::WriteResult], dir: &Path) -> String {
    let count = |op: &str| results.iter().filter(|r| r.op == op).count();
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

/// "no such memory" for `show ID`, with the nearest ids on disk (edit
/// distance, at most three, closest first): `did you mean: a, b?`.
fn no_such_memory(dir: &Path, id: &str) -> Error {
    let near = store::load(dir)
        .map(|st| nearest_ids(id, st.topics.iter().map(|t| t.id.as_str())))
        .unwrap_or_default();
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!(" (did you mean: {}?)", near.join(", "))
    };
    Error::Msg(format!(
        "{}: no such memory{hint}",
        dir.join(format!("{id}.md")).display()
    ))
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

/// Before anything else: finish what a killed writer left (see
/// [`mem_core::journal::recover`]), saying so on stderr.
fn recover(lock: &store::IndexGuard, dir: &Path, today: chrono::NaiveDate) -> mem_core::Result<()> {
    for s in mem_core::journal::recover(lock, dir, today)?.said {
        eprintln!("{NAME}: recovered: {s}");
    }
    Ok(())
}

fn report_index(r: &mem_core::index_md::Rendered) {
    if let Some(w) = &r.warning {
        warn(
            NAME,
            format!(
                "MEMORY.md cut to stay within its limits: {} entries left out ({} lines, {} bytes written): {}",
                r.omitted.len(),
                r.lines,
                r.bytes,
                w
            ),
        );
    }
}

/// Run a parsed command line.
///
/// Errors: anything that stops the command.
pub fn run_cli(cli: Cli) -> anyhow::Result<Exit> {
    let g = &cli.global;
    let clock = Clock::from_args(g.args.time.now.as_deref(), g.args.time.today.as_deref())?;
    let today = clock.today;
    let fmt = format_of(g);
    let personal_only = match &cli.cmd {
        Cmd::Write(_) => Some("write"),
        Cmd::Retire { .. } => Some("retire"),
        Cmd::Restore { .. } => Some("restore"),
        Cmd::Log { .. } => Some("log"),
        Cmd::Snapshot(_) => Some("snapshot"),
        _ => None,
    };
    if let (TierArg::Team, Some(what)) = (g.tier, personal_only) {
        return Err(Error::Env(format!(
            "`{what}` acts on the personal memory directory only; share a memory with `mem-index promote ID`, take one back with `mem-index demote ID`"
        ))
        .into());
    }
    match &cli.cmd {
        Cmd::Promote { ids } => promote_cmd(g, ids, fmt),
        Cmd::Demote { ids } => demote_cmd(g, ids, today, fmt),
        Cmd::MergeDriver { install, files } => merge_driver_cmd(g, *install, files, fmt),
        Cmd::Write(a) => {
            if let Some(why) = memory_off(g)? {
                return Ok(disabled_note(&why));
            }
            let (batch, errs, label) = read_input::<Memory>(&a.files);
            let dir = resolve_dir(g)?;
            if batch.is_empty() && errs.is_empty() && !dir.exists() {
                // Nothing to write and no directory: nothing is created,
                // not even the lock. (In an existing directory the run
                // still recovers an interrupted batch.)
                eprintln!("{NAME}: no records; nothing written");
                return Ok(Exit::Success);
            }
            let opts = ops::WriteOptions {
                skip_invalid: a.skip_invalid,
                allow_sensitive: a.allow_sensitive,
                if_match: a.if_match.clone(),
                max_files: a.max_files,
                evict: a.evict,
                include_foreign: a.include_foreign,
                today,
            };
            if errs.iter().any(|e| matches!(e, Error::Io { .. }))
                || (!errs.is_empty() && !a.skip_invalid)
            {
                return Ok(refuse_batch(&errs));
            }
            // Records refused on their own are found before anything is
            // touched (not even the lock file is created).
            if !a.skip_invalid {
                let scrubber = (!a.allow_sensitive).then(|| mem_core::scrub::Scrubber::new(None));
                let bad: Vec<Error> = batch
                    .iter()
                    .filter_map(|(line, m)| {
                        ops::validate_record(m, scrubber.as_ref())
                            .err()
                            .map(|r| Error::input(&label, *line, r))
                    })
                    .collect();
                if !bad.is_empty() {
                    return Ok(refuse_batch(&bad));
                }
            }
            let lock = store::lock_index(&dir)?;
            recover(&lock, &dir, today)?;
            let rep = ops::write_batch(&lock, &dir, batch, &label, errs, &opts)?;
            drop(lock);
            for w in &rep.warnings {
                warn(NAME, w);
            }
            for e in &rep.errors {
                eprintln!("{NAME}: {e}");
            }
            let mut out = Output::stdout(g.args.output.line_buffered);
            for r in &rep.evicted {
                warn(
                    NAME,
                    format!("{} retired to {} ({})", r.id, r.path, r.reason),
                );
            }
            for r in &rep.results {
                match fmt {
                    Format::Jsonl => out.record(r)?,
                    Format::Text => out.line(&format!(
                        "{:<9} {} {}{}",
                        r.op,
                        r.id,
                        r.path,
                        r.duplicate_of
                            .as_deref()
                            .map(|d| format!(" (same fact as {d})"))
                            .unwrap_or_default()
                    ))?,
                }
            }
            out.flush()?;
            if let Some(idx) = &rep.index {
                report_index(idx);
                eprintln!("{NAME}: {}", write_summary(&rep.results, &dir));
            }
            if !rep.errors.is_empty() {
                if rep.index.is_none() {
                    eprintln!(
                        "{NAME}: batch refused: {} bad record(s); nothing written",
                        rep.errors.len()
                    );
                }
                return Ok(Exit::Failure);
            }
            Ok(Exit::Success)
        }
        Cmd::List(a) => {
            let dir = tier_reader_dir(g)?;
            let since = match &a.since {
                Some(s) => Some(mem_core::time::parse_day(s).ok_or_else(|| {
                    Error::Env(format!("--since: {s:?} is not a date (YYYY-MM-DD)"))
                })?),
                None => None,
            };
            let st = store::load(&dir)?;
            for w in ops::store_warnings(&st) {
                warn(NAME, w);
            }
            let mut out = Output::stdout(g.args.output.line_buffered);
            let rows: Vec<&Memory> = st
                .topics
                .iter()
                .map(|t| &t.memory)
                .filter(|m| a.mem_type.is_none_or(|t| m.mem_type == type_of(t)))
                .filter(|m| a.kind.is_none_or(|k| m.effective_kind() == kind_of(k)))
                .filter(|m| !a.expired || m.is_expired(today))
                .filter(|m| since.is_none_or(|s| m.verified_at.is_some_and(|v| v >= s)))
                .collect();
            match fmt {
                Format::Jsonl => {
                    for m in rows {
                        // provenance as read: absent means manual / normal
                        let mut m = m.clone();
                        m.source = Some(m.effective_source());
                        m.trust = Some(m.effective_trust());
                        out.record(&m)?;
                    }
                }
                Format::Text => {
                    for line in list_table(&rows) {
                        out.line(&line)?;
                    }
                }
            }
            out.flush()?;
            Ok(Exit::Success)
        }
        Cmd::Show { id } => {
            let dir = tier_reader_dir(g)?;
            let t = match store::read_one(&dir, id)? {
                Some(t) => t,
                None => return Err(no_such_memory(&dir, id).into()),
            };
            let mut out = Output::stdout(g.args.output.line_buffered);
            match fmt {
                Format::Jsonl => out.record(&t.memory)?,
                Format::Text => {
                    let text = mem_core::confine::read_text_capped(
                        &t.path,
                        mem_core::confine::MAX_TOPIC_BYTES,
                        false,
                    )?;
                    out.write_all_str(&text)?;
                }
            }
            out.flush()?;
            Ok(Exit::Success)
        }
        Cmd::Reindex => {
            if let Some(why) = memory_off(g)? {
                return Ok(disabled_note(&why));
            }
            let team = g.tier == TierArg::Team;
            let dir = if team {
                team::team_dir_for(g.args.place.cwd.as_deref())?
            } else {
                resolve_dir(g)?
            };
            let (r, st) = if dir.is_dir() {
                let lock = store::lock_index(&dir)?;
                let res = if team {
                    team::reindex(&lock, &dir)?
                } else {
                    ops::reindex(&lock, &dir, today)?
                };
                drop(lock);
                res
            } else {
                // No memory directory: nothing to index, nothing created.
                (
                    mem_core::index_md::render(&[], today),
                    store::Store::default(),
                )
            };
            for w in ops::store_warnings(&st) {
                warn(NAME, w);
            }
            report_index(&r);
            let mut out = Output::stdout(g.args.output.line_buffered);
            let rec = serde_json::json!({"op":"index","lines":r.lines,"bytes":r.bytes,"files":st.file_count(),"omitted":r.omitted.len()});
            match fmt {
                Format::Jsonl => out.record(&rec)?,
                Format::Text => out.line(&format!(
                    "MEMORY.md: {} lines, {} bytes, {} topic files, {} left out",
                    r.lines,
                    r.bytes,
                    st.file_count(),
                    r.omitted.len()
                ))?,
            }
            out.flush()?;
            Ok(Exit::Success)
        }
        Cmd::Check { max_files, repair } => {
            let team = g.tier == TierArg::Team;
            let dir = tier_reader_dir(g)?;
            if *repair && mem_core::journal::needs_recovery(&dir) {
                let lock = store::lock_index(&dir)?;
                recover(&lock, &dir, today)?;
            }
            let found = if team {
                team::check_team(&dir, today)?
            } else {
                let mut found = check::check(&dir, today, *max_files)?;
                let tdir = team::team_dir_for(g.args.place.cwd.as_deref())?;
                found.extend(check::tier_conflicts(&dir, &tdir, today));
                found
            };
            let mut out = Output::stdout(g.args.output.line_buffered);
            let errors = found.iter().filter(|f| f.level == "error").count();
            for f in &found {
                match fmt {
                    Format::Jsonl => out.record(f)?,
                    Format::Text => {
                        let loc = match f.line {
                            Some(l) => format!("{}:{l}", f.file),
                            None => f.file.clone(),
                        };
                        out.line(&format!("{:<7} {loc}: {} [{}]", f.level, f.message, f.code))?;
                    }
                }
            }
            out.flush()?;
            let secret = found
                .iter()
                .any(|f| f.level == "error" && f.code == "sensitive");
            Ok(if team && secret {
                Exit::Sensitive
            } else if errors > 0 {
                Exit::Failure
            } else {
                Exit::Success
            })
        }
        Cmd::Path { explain } => {
            let mut r = memdir::resolve(&memdir_opts(g, None))?;
            if g.tier == TierArg::Team {
                r.root = team::repo_root(g.args.place.cwd.as_deref())?;
                r.dir = memdir::team_dir(&r.root);
                r.notes.push(format!(
                    "--tier team: the team tier of the repository at {}",
                    r.root.display()
                ));
            }
            let mut out = Output::stdout(g.args.output.line_buffered);
            // A plain path even into a pipe (`cat "$(mem-index path)/MEMORY.md"`);
            // JSON only when asked for.
            let fmt = match g.args.output.format {
                Some(Format::Jsonl) => Format::Jsonl,
                _ => Format::Text,
            };
            match fmt {
                Format::Jsonl => {
                    let mut rec = serde_json::json!({"dir": r.dir.display().to_string()});
                    if *explain {
                        rec["rule"] = r.rule.to_string().into();
                        rec["root"] = r.root.display().to_string().into();
                        rec["notes"] = r.notes.clone().into();
                        rec["memory_off"] = memory_off(g)?.into();
                    }
                    out.record(&rec)?;
                }
                Format::Text => {
                    out.line(&r.dir.display().to_string())?;
                    if *explain {
                        out.line(&format!("rule: {}", r.rule))?;
                        for n in &r.notes {
                            out.line(&format!("note: {n}"))?;
                        }
                        if let Some(why) = memory_off(g)? {
                            out.line(&format!("memory is off: {why}"))?;
                        }
                    }
                }
            }
            out.flush()?;
            Ok(Exit::Success)
        }
        Cmd::Retire { id, reason, purge } => {
            if let Some(why) = memory_off(g)? {
                return Ok(disabled_note(&why));
            }
            let dir = resolve_dir(g)?;
            let lock = store::lock_index(&dir)?;
            recover(&lock, &dir, today)?;
            let (r, idx) = ops::retire(&lock, &dir, id, reason, today, *purge)?;
            drop(lock);
            report_index(&idx);
            let mut out = Output::stdout(g.args.output.line_buffered);
            match fmt {
                Format::Jsonl => out.record(&r)?,
                Format::Text => {
                    out.line(&format!("{} {} → {} ({})", r.op, r.id, r.path, r.reason))?
                }
            }
            out.flush()?;
            Ok(Exit::Success)
        }
        Cmd::Restore { id } => {
            if let Some(why) = memory_off(g)? {
                return Ok(disabled_note(&why));
            }
            let dir = resolve_dir(g)?;
            let lock = store::lock_index(&dir)?;
            recover(&lock, &dir, today)?;
            let (p, idx) = ops::restore(&lock, &dir, id, today)?;
            drop(lock);
            report_index(&idx);
            let mut out = Output::stdout(g.args.output.line_buffered);
            let rec = serde_json::json!({"op":"restore","id":id,"path":p.display().to_string()});
            match fmt {
                Format::Jsonl => out.record(&rec)?,
                Format::Text => out.line(&format!("restore {id} → {}", p.display()))?,
            }
            out.flush()?;
            Ok(Exit::Success)
        }
        Cmd::Log { files } => {
            if let Some(why) = memory_off(g)? {
                return Ok(disabled_note(&why));
            }
            let dir = resolve_dir(g)?;
            let (batch, errs, label) = read_input::<Memory>(files);
            let scrubber = mem_core::scrub::Scrubber::new(None);
            let mut errs = errs;
            for (line, m) in &batch {
                if let Err(reason) = ops::validate_record(m, Some(&scrubber)) {
                    errs.push(Error::input(&label, *line, reason));
                }
            }
            if !errs.is_empty() {
                return Ok(refuse_batch(&errs));
            }
            let recs: Vec<Memory> = batch.into_iter().map(|(_, m)| m).collect();
            let lock = store::lock_index(&dir)?;
            let done = extra::append_logs(&lock, &dir, &recs, today)?;
            drop(lock);
            let mut out = Output::stdout(g.args.output.line_buffered);
            for (id, p) in done {
                let rec = serde_json::json!({"op":"log","id":id,"path":p.display().to_string()});
                match fmt {
                    Format::Jsonl => out.record(&rec)?,
                    Format::Text => out.line(&format!("log {id} → {}", p.display()))?,
                }
            }
            out.flush()?;
            Ok(Exit::Success)
        }
        Cmd::Snapshot(sc) => snapshot(g, sc, &clock, fmt),
    }
}

fn snapshot(g: &Global, sc: &SnapshotCmd, clock: &Clock, fmt: Format) -> anyhow::Result<Exit> {
    if g.agent.is_none() {
        return Err(Error::Env("snapshot needs --agent NAME".into()).into());
    }
    if let Some(why) = memory_off(g)? {
        return Ok(disabled_note(&why));
    }
    let mut g2 = g.clone();
    g2.args.place.memory_dir = None;
    let project = memdir::resolve(&memdir_opts(&g2, Some(AgentScope::Project)))?.dir;
    let mut out = Output::stdout(g.args.output.line_buffered);
    let now = mem_core::time::fmt_ts(clock.now);
    match sc {
        SnapshotCmd::Save => {
            let (snap, n) = extra::snapshot_save(&project, &now)?;
            let rec = serde_json::json!({"op":"snapshot-save","path":snap.display().to_string(),"files":n,"updatedAt":now});
            emit(
                &mut out,
                fmt,
                &rec,
                &format!("snapshot saved to {} ({n} files written)", snap.display()),
            )?;
        }
        SnapshotCmd::Sync { strategy } => {
            let snap = extra::snapshot_dir(&project)
                .ok_or_else(|| Error::Msg(format!("{}: not an agent folder", project.display())))?;
            let local = match &g.args.place.memory_dir {
                Some(d) => d.clone(),
                None => memdir::resolve(&memdir_opts(&g2, Some(AgentScope::Local)))?.dir,
            };
            let Some(updated) = extra::snapshot_updated_at(&snap) else {
                eprintln!(
                    "{NAME}: no snapshot at {} (snapshot.json missing); nothing to do",
                    snap.display()
                );
                return Ok(Exit::Success);
            };
            match strategy {
                Strategy::None => {
                    eprintln!("{NAME}: --strategy none: snapshot of {updated} left alone");
                }
                Strategy::Initialize => {
                    let (files, _) = store::list_files(&local)?;
                    if files.is_empty() {
                        let lock = store::lock_index(&local)?;
                        let n = extra::copy_dir(&snap, &local, false)?;
                        let st = store::load(&local)?;
                        ops::write_index(&st, clock.today)?;
                        mem_core::confine::write_atomic(
                            &local,
                            &extra::synced_marker(&local),
                            serde_json::json!({"updatedAt": updated})
                                .to_string()
                                .as_bytes(),
                        )?;
                        drop(lock);
                        let rec = serde_json::json!({"op":"snapshot-initialize","path":local.display().to_string(),"files":n,"updatedAt":updated});
                        emit(
                            &mut out,
                            fmt,
                            &rec,
                            &format!("initialized {} from snapshot ({n} files)", local.display()),
                        )?;
                    } else {
                        eprintln!(
                            "{NAME}: {} is not empty; --strategy initialize copies only into an empty scope",
                            local.display()
                        );
                    }
                }
                Strategy::PromptUpdate => {
                    let seen = std::fs::read_to_string(extra::synced_marker(&local))
                        .ok()
                        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                        .and_then(|v| {
                            v.get("updatedAt")
                                .and_then(|u| u.as_str())
                                .map(String::from)
                        });
                    let newer = match (&seen, mem_core::time::parse_ts(&updated)) {
                        (Some(s), Some(u)) => mem_core::time::parse_ts(s).is_none_or(|s| u > s),
                        _ => true,
                    };
                    if !newer {
                        eprintln!(
                            "{NAME}: snapshot of {updated} already taken; nothing to propose"
                        );
                        return Ok(Exit::Success);
                    }
                    let snap_store = store::load(&snap)?;
                    let local_store = store::load(&local)?;
                    let mut n = 0;
                    for t in &snap_store.topics {
                        let mut proposal = match local_store.get(&t.id) {
                            Some(l) => {
                                let mut a = l.memory.clone();
                                a.hash = None;
                                let mut b = t.memory.clone();
                                b.hash = None;
                                if mem_core::frontmatter::render(&a)
                                    == mem_core::frontmatter::render(&b)
                                {
                                    continue;
                                }
                                ops::merge(&a, &b)
                            }
                            None => t.memory.clone(),
                        };
                        proposal.hash = None;
                        n += 1;
                        match fmt {
                            Format::Jsonl => out.record(&proposal)?,
                            Format::Text => out.line(&format!(
                                "propose {} — {}",
                                proposal.id.as_deref().unwrap_or(""),
                                proposal.description
                            ))?,
                        }
                    }
                    eprintln!(
                        "{NAME}: snapshot of {updated} is newer: {n} record(s) proposed; apply with `mem-index write` (nothing was overwritten)"
                    );
                }
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// The folder a reading command acts on: the team tier with `--tier team`
/// (it may not exist: an empty tier), else [`resolve_reader_dir`].
fn tier_reader_dir(g: &Global) -> mem_core::Result<PathBuf> {
    match g.tier {
        TierArg::Team => team::team_dir_for(g.args.place.cwd.as_deref()),
        TierArg::Personal => resolve_reader_dir(g),
    }
}

fn promote_cmd(g: &Global, ids: &[String], fmt: Format) -> anyhow::Result<Exit> {
    let personal = resolve_reader_dir(g)?;
    let root = team::repo_root(g.args.place.cwd.as_deref())?;
    let tdir = memdir::team_dir(&root);
    for id in ids {
        if store::read_one(&personal, id)?.is_none() {
            return Err(no_such_memory(&personal, id).into());
        }
    }
    match team::promote(&personal, &tdir, &root, ids)? {
        Ok(done) => {
            let mut out = Output::stdout(g.args.output.line_buffered);
            for d in &done {
                let notes = if d.notes.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", d.notes.join("; "))
                };
                emit(
                    &mut out,
                    fmt,
                    &serde_json::to_value(d)?,
                    &format!("promote {} {} → {}{notes}", d.result, d.id, d.path),
                )?;
            }
            out.flush()?;
            eprintln!(
                "{NAME}: {} memor{} in the team tier; review and commit {}",
                done.len(),
                if done.len() == 1 { "y" } else { "ies" },
                tdir.display()
            );
            Ok(Exit::Success)
        }
        Err(refused) => {
            for r in &refused {
                for f in &r.refusals {
                    eprintln!("{NAME}: promote refused: {}: {f}", r.id);
                }
            }
            eprintln!(
                "{NAME}: promotion refused: {} memor{} would carry something that must not be shared; nothing was written (edit the personal memory, then promote again)",
                refused.len(),
                if refused.len() == 1 { "y" } else { "ies" }
            );
            Ok(Exit::Failure)
        }
    }
}

fn demote_cmd(
    g: &Global,
    ids: &[String],
    today: chrono::NaiveDate,
    fmt: Format,
) -> anyhow::Result<Exit> {
    if let Some(why) = memory_off(g)? {
        return Ok(disabled_note(&why));
    }
    let tdir = team::team_dir_for(g.args.place.cwd.as_deref())?;
    let personal = resolve_dir(g)?;
    for id in ids {
        if store::read_one(&tdir, id)?.is_none() {
            return Err(no_such_memory(&tdir, id).into());
        }
    }
    let done = team::demote(&tdir, &personal, ids, today)?;
    let mut out = Output::stdout(g.args.output.line_buffered);
    for d in &done {
        emit(
            &mut out,
            fmt,
            &serde_json::to_value(d)?,
            &format!("demote {} {} → {}", d.result, d.id, d.path),
        )?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

fn merge_driver_cmd(
    g: &Global,
    install: bool,
    files: &[PathBuf],
    fmt: Format,
) -> anyhow::Result<Exit> {
    if install {
        let root = team::repo_root(g.args.place.cwd.as_deref())?;
        if memdir::git_info(&root).is_none() {
            return Err(Error::Env(format!("{}: not a git repository", root.display())).into());
        }
        let exe = std::env::current_exe()
            .map_err(|e| Error::Env(format!("cannot find this program's path: {e}")))?;
        let r = merge::install(&root, &exe)?;
        team::ensure_tier(&memdir::team_dir(&root))?;
        let mut out = Output::stdout(g.args.output.line_buffered);
        let text = format!(
            "{} {}\nmerge.mem.driver = {} ({})",
            r.gitattributes,
            if r.gitattributes_added {
                "line added"
            } else {
                "already has the line"
            },
            r.driver,
            if r.config_changed {
                "set"
            } else {
                "already set"
            }
        );
        emit(&mut out, fmt, &serde_json::to_value(&r)?, &text)?;
        out.flush()?;
        return Ok(Exit::Success);
    }
    let path = files.get(3).map(|p| p.to_string_lossy().into_owned());
    match merge::run_driver(&files[0], &files[1], &files[2], path.as_deref())? {
        merge::Outcome::Clean => {}
        merge::Outcome::BodyConflict => warn(
            NAME,
            format!(
                "{}: both sides changed the body: both versions kept in the body (`mem-index check --tier team` warns until one is chosen)",
                path.as_deref().unwrap_or("topic file")
            ),
        ),
        merge::Outcome::IndexByLines => warn(
            NAME,
            "MEMORY.md merged line by line (the merged commits were not found): run `mem-index reindex --tier team` and commit",
        ),
    }
    Ok(Exit::Success)
}

fn emit(out: &mut Output, fmt: Format, rec: &serde_json::Value, text: &str) -> std::io::Result<()> {
    match fmt {
        Format::Jsonl => out.record(rec),
        Format::Text => out.line(text),
    }
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

trait WriteStr {
    fn write_all_str(&mut self, s: &str) -> std::io::Result<()>;
}

impl WriteStr for Output {
    fn write_all_str(&mut self, s: &str) -> std::io::Result<()> {
        use std::io::Write;
        self.write_all(s.as_bytes())
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

/// Report every bad record of a refused batch on stderr, then the refusal;
/// returns the exit code (1). Nothing has been written.
fn refuse_batch(errs: &[Error]) -> Exit {
    for e in errs {
        eprintln!("{NAME}: {e}");
    }
    eprintln!(
        "{NAME}: batch refused: {} bad record(s); nothing written",
        errs.len()
    );
    Exit::Failure
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
