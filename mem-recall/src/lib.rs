//! mem-recall: relevance-gated recall of memories for a task.
//!
//! - [`gate`]: the decision per memory (recall / evict / drop / skip);
//! - words, stems, stop words: [`mem_core::text`];
//! - [`load`]: topic files through the cache, or records on stdin;
//! - [`cache`]: the cache file of what the gate needs of each topic file;
//! - [`guard`]: the cross-project guard for shared project folders;
//! - [`render`]: text lines and JSONL decisions;
//! - [`inject`]: the Markdown injected into an agent's context;
//! - [`context`]: `mem-recall context` (instruction files, imports, index);
//! - [`tier`]: the team tier next to the personal one;
//! - [`alias`]: `mem-recall --hook`, `hooks` and `backtest`, the spellings
//!   of the commands that moved to `mem-hook`, run it.
//!
//! The hook runtime, its installer and `backtest` are the `mem-hook` crate,
//! built on this library.
//!
//! Contract: docs/recall.md, docs/records.md "Recall decision", docs/hooks.md.

pub mod alias;
pub mod cache;
pub mod context;
pub mod doc;
pub mod error;
pub mod gate;
pub mod guard;
pub mod inject;
pub mod load;
pub mod render;
pub mod state;
pub mod tier;
pub use mem_vocab as vocab;

use std::path::{Component, Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};
use mem_core::Exit;
use mem_core::cli::{Output, PlaceArgs, TimeArgs, warn};
use mem_core::time::Clock;

pub use crate::error::{NAME, RecallError, Result};
use crate::gate::{Action, DEFAULT_MIN_SCORE, Decision, Query};
use crate::load::Item;
use mem_core::text::Stems;

const EXAMPLES: &str = "\
Examples:
  mem-recall --task \"run node src/build-token.mjs\" --today 2026-07-13
      RECALL fixture-before-verify [durable-lesson]
      EVICT  mirror-slow-on-0711 — expired (expires 2026-07-12 < 2026-07-13), not injected
      summary: 1 recalled, 1 evicted
  mem-recall --task \"replace the println calls\" --path server/src/main.rs --explain
  mem-recall --task \"deploy the hotfix\" --format markdown     # ready to inject
  mem-index list | mem-recall --records - --task \"add a package\" --format jsonl
  mem-recall --agent reviewer --scope user --task \"review the diff\"   # an agent's memory

The Claude Code and Codex hooks are mem-hook's (`mem-hook --help`).";

const CONTEXT_EXAMPLES: &str = "\
Examples:
  mem-recall context                               # what a session starts with
  mem-recall context --task \"deploy the hotfix\"    # plus the memories for a task
  mem-recall context --update                      # Codex: AGENTS.override.md, not committed
  mem-recall context --update --target user        # Codex: ~/.codex/AGENTS.md
  mem-recall context --format agents-md --update AGENTS.md   # a file of your choice";

/// Relevance-gated recall: which memories enter an agent's context for a task.
///
/// Per memory: `recall` (injected), `evict` (expired: `expires < today`;
/// never injected, always reported), `drop` (relevant but over
/// --max-items / --max-tokens; reported, never silent) or `skip` (shown with
/// --explain: no-match, expired, other-project, retired, superseded,
/// low-trust, overridden).
///
/// Relevant when a trigger matches the task (case-insensitive, on word
/// boundaries, English stems so "tests" meets "test", CJK as substrings,
/// `re:` regexes), a `paths` glob matches a path the task touches (--path,
/// or path-looking words of the task; a glob without `/` matches the file
/// name at any depth), the BM25 score over name, description and body passes
/// (at least 2 distinct task terms matched and --min-score), or the memory is
/// `type: user` without triggers or paths. Ranked by trigger and path
/// matches, then score.
#[derive(Debug, Parser)]
#[command(
    name = "mem-recall",
    version,
    after_long_help = EXAMPLES,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Subcommands.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The options of a recall (without a subcommand).
    #[command(flatten)]
    pub top: RecallCommand,
}

/// The options of `mem-recall` without a subcommand: a recall.
#[derive(Debug, Args)]
pub struct RecallCommand {
    /// What to recall for.
    #[command(flatten)]
    pub recall: RecallArgs,

    /// Output: text (one line per decision), jsonl (RecallDecision records)
    /// or markdown (the recalled memories, ready to inject; evictions and
    /// drops go to stderr). Default: text on a terminal, jsonl otherwise.
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<RecallFormat>,

    /// Which tiers to recall from: the personal memory directory, the
    /// repository's team tier (`.claude/team-memory/` of the checkout the
    /// cwd is in), or
    /// both (a personal memory wins over a team memory of the same id or
    /// one it supersedes). The hook always reads both.
    #[arg(long, value_enum, default_value_t = TierArg::Both, help_heading = "Input")]
    pub tier: TierArg,

    /// Where and when.
    #[command(flatten)]
    pub common: Common,
}

/// The command line of a recall without a subcommand: [`Cli`] with its
/// subcommands (and `--help`, `--version`) left out, so that parsing
/// builds only these options: 0.24 ms where the full parse takes 0.39 ms
/// (a 200-file recall, static release build). Whatever it does not take,
/// the full parse does.
#[derive(Debug, Parser)]
#[command(name = "mem-recall", disable_help_flag = true)]
struct RecallCli {
    /// The options.
    #[command(flatten)]
    top: RecallCommand,
}

/// Subcommands of mem-recall.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// What a session starts with: instruction files, MEMORY.md, recalled memories.
    ///
    /// The instruction files (~/.claude/CLAUDE.md; then from the root-most
    /// directory down to the cwd, in each CLAUDE.md, .claude/CLAUDE.md,
    /// CLAUDE.local.md) with their @path imports (up to 5 hops, not inside
    /// code spans or fences; cycles reported on stderr; a project file's
    /// imports from outside the project root are refused and named on
    /// stderr, and nothing from outside the project root or the user's
    /// Claude folder is written into a file; every text is scrubbed), then MEMORY.md
    /// within 200 lines / 25,000 bytes (a WARNING line names what was cut),
    /// then the memories recalled for --task. For agents that do not load
    /// memory themselves; `--format agents-md` renders it as a marked section
    /// of Codex's AGENTS.md.
    #[command(after_long_help = CONTEXT_EXAMPLES)]
    Context(ContextArgs),
}

/// Options of `mem-recall context`.
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// What to recall for.
    #[command(flatten)]
    pub recall: RecallArgs,

    /// markdown (default) or agents-md (the same between
    /// `<!-- mem:begin … -->` and `<!-- mem:end -->` markers).
    #[arg(long, value_enum, default_value = "markdown", help_heading = "Output")]
    pub format: ContextFormat,

    /// Write the agents-md section into a file in place (atomic; the rest
    /// of the file is left byte-identical; created when missing) instead of
    /// printing it: FILE, or without one the file --target names. Implies
    /// --format agents-md. A symbolic link is refused (name its target).
    #[arg(long, value_name = "FILE", num_args = 0..=1, help_heading = "Output")]
    pub update: Option<Option<PathBuf>>,

    /// The file `--update` without FILE writes: `override` (default) the
    /// project's AGENTS.override.md, which Codex reads instead of AGENTS.md
    /// (mem copies AGENTS.md's text into it, so nothing is lost), kept out
    /// of git through .git/info/exclude; `user` the user's
    /// $CODEX_HOME/AGENTS.md (~/.codex/AGENTS.md), read in every project;
    /// `agents-md` the project's AGENTS.md (a committed file).
    #[arg(long, value_enum, default_value_t = context::Target::Override, help_heading = "Output")]
    pub target: context::Target,

    /// Copy the instruction files (CLAUDE.md and its imports) into the
    /// agents-md section too. Without it the section holds only MEMORY.md
    /// and the recalled memories: Codex reads its own instruction files.
    #[arg(long, help_heading = "Output")]
    pub include_claude_md: bool,

    /// Codex's `project_doc_max_bytes`: AGENTS.md is read only this far.
    /// A new section goes first when appended it would end past it, and a
    /// warning says when the section still ends past it.
    #[arg(long, value_name = "BYTES", default_value_t = context::CODEX_DOC_MAX_BYTES, help_heading = "Output")]
    pub codex_max_bytes: usize,

    /// Which tiers to read: personal, team or both (see `mem-recall --help`).
    #[arg(long, value_enum, default_value_t = TierArg::Both, help_heading = "Input")]
    pub tier: TierArg,

    /// Where and when.
    #[command(flatten)]
    pub common: Common,
}

/// The task and the budgets.
#[derive(Debug, Args, Clone)]
pub struct RecallArgs {
    /// The task (a prompt, a command). Without one only `type: user`
    /// memories without triggers or paths are recalled.
    #[arg(long, value_name = "TEXT", help_heading = "Task")]
    pub task: Option<String>,

    /// A path the task touches (repeatable), relative to the cwd or absolute.
    #[arg(long = "path", value_name = "P", help_heading = "Task")]
    pub paths: Vec<PathBuf>,

    /// At most this many memories recalled; the rest are `drop` lines.
    #[arg(long, default_value_t = gate::DEFAULT_MAX_ITEMS, help_heading = "Budget")]
    pub max_items: usize,

    /// At most this many tokens (ceil(bytes / 4)) of recalled Markdown; the
    /// rest are `drop` lines.
    #[arg(long, default_value_t = gate::DEFAULT_MAX_TOKENS, help_heading = "Budget")]
    pub max_tokens: usize,

    /// Lowest BM25 score that makes a memory relevant by its text alone (it
    /// also needs 2 distinct task terms matched). The default 5.0 is set
    /// from the labelled recall sets: memories that only their text ties to
    /// a task score 5.6–13.9 there, chance overlaps of two terms 2.4–4.2
    /// (docs/recall.md "The gate"). See the scores with --explain.
    #[arg(long, default_value_t = DEFAULT_MIN_SCORE, value_name = "SCORE", help_heading = "Budget")]
    pub min_score: f64,

    /// Read memory records (JSONL, as `mem-index list` prints) from stdin
    /// instead of the memory directory. Only `-` is accepted.
    #[arg(long, value_name = "-", help_heading = "Input")]
    pub records: Option<String>,

    /// Do not expand the task with the vocabulary of synonyms and the
    /// Chinese-English glossary (built in, plus $MEM_VOCABULARY or
    /// ~/.config/mem/vocabulary.txt; see docs/recall.md).
    #[arg(long, help_heading = "Task")]
    pub no_expand: bool,

    /// Report every expired memory as EVICT. Without it an expired memory
    /// is reported only when the task bears on it (it would have been
    /// recalled); the others are `skip` lines (reason expired, --explain).
    #[arg(long, help_heading = "Output")]
    pub all: bool,

    /// The lowest trust recalled: `normal` leaves `trust: low` memories out
    /// (a `skip` line, reason `low-trust`); `low` recalls them too. The hook
    /// always uses `normal`.
    #[arg(long, value_enum, default_value_t = TrustArg::Normal, help_heading = "Budget")]
    pub trust: TrustArg,
}

/// The lowest trust recalled (`--trust`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum TrustArg {
    /// Only `trust: normal` memories.
    #[default]
    Normal,
    /// `trust: low` memories too.
    Low,
}

/// Which tiers recall reads (`--tier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum TierArg {
    /// The personal memory directory only.
    Personal,
    /// The repository's team tier only.
    Team,
    /// Both; a personal memory wins on a conflict.
    #[default]
    Both,
}

impl TierArg {
    /// True when the personal memory directory is read.
    pub fn personal(self) -> bool {
        self != TierArg::Team
    }

    /// True when the team tier is read.
    pub fn team(self) -> bool {
        self != TierArg::Personal
    }
}

/// Options every command shares.
#[derive(Debug, Args, Clone)]
pub struct Common {
    /// `--memory-dir`, `--cwd`, `--per-worktree`.
    #[command(flatten)]
    pub place: PlaceArgs,

    /// `--agent NAME`, `--scope`: recall from that agent's memory.
    #[command(flatten)]
    pub agent: mem_core::cli::AgentArgs,

    /// `--today`, `--now`.
    #[command(flatten)]
    pub time: TimeArgs,

    /// Say why: the trigger, path and score behind each decision, and the
    /// memories left out (`skip` lines).
    #[arg(long, help_heading = "Output")]
    pub explain: bool,

    /// Flush after every line (for `tail -f` pipelines).
    #[arg(long, help_heading = "Output")]
    pub line_buffered: bool,

    /// Neither read nor write the cache of parsed frontmatter.
    #[arg(long, help_heading = "Input")]
    pub no_cache: bool,
}

/// One thing `mem-recall` prints ([`Session::rows`]), as a text line or a
/// JSONL record.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    /// A decision on one memory.
    Decision(&'a Decision),
    /// A team memory a personal memory overrides.
    Shadowed(&'a mem_core::tier::Conflict),
    /// A team memory waiting for review (its id).
    Waiting(&'a str),
    /// The counts, last.
    Summary,
}

impl Row<'_> {
    /// A memory recalled, or the summary: what `--format markdown` does not
    /// report on stderr.
    pub fn is_recall_or_summary(&self) -> bool {
        match self {
            Row::Decision(d) => d.action == Action::Recall,
            Row::Shadowed(_) | Row::Waiting(_) => false,
            Row::Summary => true,
        }
    }
}

/// Output formats of recall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecallFormat {
    /// One line per decision.
    Text,
    /// One RecallDecision record per line.
    Jsonl,
    /// The recalled memories, ready to inject.
    Markdown,
}

/// Output formats of `context`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContextFormat {
    /// A Markdown document.
    Markdown,
    /// A marked section of AGENTS.md.
    AgentsMd,
}

/// Parse the arguments and run.
///
/// Errors: bad input or environment ([`RecallError`], exit 1).
pub fn run() -> Result<Exit> {
    // `--hook`, `hooks …` and `backtest …` are mem-hook's now: run it.
    if let Some(alias) = alias::Alias::of(std::env::args_os().skip(1)) {
        return alias.exec();
    }
    // A recall without a subcommand, the usual call: parsed with a command
    // of the recall options only. Anything else (a subcommand, --help,
    // --version) and any error go through the full parse below.
    if let Ok(r) = RecallCli::try_parse() {
        return run_recall(&r.top);
    }
    let cli = Cli::try_parse().unwrap_or_else(|e| e.exit());
    match cli.command {
        Some(Command::Context(args)) => run_context(&args),
        None => run_recall(&cli.top),
    }
}

/// Everything a recall needs, gathered from the options.
pub struct Session {
    /// The pinned or real clock.
    pub clock: Clock,
    /// The working directory acted for.
    pub cwd: PathBuf,
    /// The project root (main worktree root, or the worktree with
    /// --per-worktree, or the cwd outside git).
    pub root: PathBuf,
    /// The memory directory (None when records come from stdin, or with
    /// `--tier team`).
    pub memory_dir: Option<PathBuf>,
    /// The team tier's folder, when it was read.
    pub team_dir: Option<PathBuf>,
    /// The memories of both tiers (shadowed team memories left out).
    pub items: Vec<Item>,
    /// Team memories a personal memory overrides, with the conflict: never
    /// recalled, shown with --explain.
    pub shadowed: Vec<(Item, mem_core::tier::Conflict)>,
    /// The ids of the team memories waiting for review (not trusted as
    /// they are now): never recalled, counted on stderr
    /// ([`Session::say_waiting`]), shown with --explain.
    pub team_waiting: Vec<String>,
    /// True when the team tier's `MEMORY.md` is trusted as it is now.
    pub team_index_trusted: bool,
    /// The checkout whose team tier was read.
    pub checkout: Option<PathBuf>,
    /// The current project id when the project folder is shared.
    pub guard: Option<guard::Shared>,
    /// The user's vocabulary file, checked (`(text, origin)`).
    pub vocabulary: Option<(String, String)>,
}

impl Session {
    /// Resolve the memory dir, load the memories (from `records` when given)
    /// and run the cross-project guard. Broken topic files and the guard's
    /// finding are reported on stderr.
    ///
    /// Errors: a bad `--today`/`--now`, an unreadable memory dir, bad records,
    /// a bad or unreadable vocabulary file of the user's.
    pub fn open(
        common: &Common,
        cwd_override: Option<&Path>,
        records: Option<&str>,
        stems: &Stems,
    ) -> Result<Session> {
        Session::open_tiers(common, cwd_override, records, stems, TierArg::Both)
    }

    /// [`Session::open`] reading the tiers `tiers`: the personal memory
    /// directory as resolved, and the team tier of the checkout the cwd is
    /// in (`<worktree root>/.claude/team-memory/`, as `mem-index promote`
    /// writes it) when it exists (nothing is
    /// read from it with `--records -`). A team memory that a personal
    /// memory overrides ([`mem_core::tier::conflicts`]) goes to
    /// [`Session::shadowed`]; a team memory's `supersedes` never hides a
    /// personal memory; team memories belong to the repository they are
    /// committed in (the cross-project guard never skips them).
    ///
    /// Errors: as [`Session::open`]. A team folder that cannot be read, or
    /// that lies behind a link, is reported on stderr and left out.
    pub fn open_tiers(
        common: &Common,
        cwd_override: Option<&Path>,
        records: Option<&str>,
        stems: &Stems,
        tiers: TierArg,
    ) -> Result<Session> {
        let clock = common.time.clock()?;
        let vocabulary = vocab::Vocabulary::user_source()?;
        let cwd = match cwd_override.or(common.place.cwd.as_deref()) {
            Some(c) => c.to_path_buf(),
            None => std::env::current_dir().map_err(RecallError::WorkingDir)?,
        };
        let per_worktree = common.place.per_worktree;
        let root = mem_core::memdir::project_root(&cwd, per_worktree);
        // The memory dir's cache folder (recall cache, guard cache).
        let mut cache_dir: Option<PathBuf> = None;
        let (items, memory_dir) = match records {
            Some("-") => {
                let stdin = std::io::stdin().lock();
                match load::load_records(stdin, "<stdin>", stems) {
                    Ok(items) => (items, None),
                    Err(errs) => {
                        let n = errs.len();
                        for e in errs.iter().skip(1) {
                            eprintln!("{NAME}: {e}");
                        }
                        let first = errs.into_iter().next().expect("one error");
                        return Err(RecallError::BadRecords { count: n, first });
                    }
                }
            }
            Some(other) => {
                return Err(RecallError::RecordsNotStdin(other.to_string()));
            }
            None if !tiers.personal() => (Vec::new(), None),
            None => {
                let resolved = mem_core::memdir::resolve(&mem_core::memdir::MemdirOptions {
                    memory_dir: common.place.memory_dir.clone(),
                    cwd: Some(cwd.clone()),
                    per_worktree,
                    agent: common.agent.agent(),
                })?;
                mem_core::memdir::require_given_dir(&resolved)?;
                if !common.no_cache {
                    cache_dir = mem_core::memdir::cache_dir_for(&resolved.dir).ok();
                }
                let cache = cache_dir.as_ref().map(|d| d.join(load::CACHE_FILE));
                let loaded = load::load_dir(&resolved.dir, cache.as_deref(), stems)?;
                for b in &loaded.broken {
                    warn(NAME, format!("{b} (left out)"));
                }
                (loaded.items, Some(resolved.dir))
            }
        };
        let mut items = items;
        let mut team_dir = None;
        let mut shadowed = Vec::new();
        let mut team_waiting = Vec::new();
        let mut team_index_trusted = false;
        let mut team_checkout = None;
        if records.is_none() && tiers.team() {
            let explicit = tiers == TierArg::Team;
            let checkout = mem_core::memdir::checkout_root(&cwd);
            // The team folder given as the memory directory is read once,
            // as the memory directory (its broken files reported once).
            let team_is_memory_dir = memory_dir.as_deref().is_some_and(|m| {
                let t = mem_core::memdir::team_dir(&checkout);
                t.is_dir() && mem_core::memdir::real_path(m) == mem_core::memdir::real_path(&t)
            });
            if !team_is_memory_dir
                && let Some(team) = tier::load(&checkout, common.no_cache, stems, explicit)
            {
                let (kept, hidden) = tier::merge(&items, team.items, clock.today);
                shadowed = hidden;
                items.extend(kept);
                team_dir = Some(team.dir);
                team_waiting = team.waiting;
                team_index_trusted = team.index_trusted;
                team_checkout = Some(checkout);
            }
        }
        let guard_cache = cache_dir.map(|c| c.join(guard::CACHE_FILE));
        let guard = guard::check(&cwd, &root, per_worktree, guard_cache.as_deref());
        if let Some(g) = &guard {
            tier::claim(&mut items, &g.project);
        }
        if let Some(g) = &guard {
            warn(
                NAME,
                format!(
                    "{} also holds sessions recorded in {} (a project folder shared by several projects); recalling only memories of this project ({})",
                    g.folders
                        .iter()
                        .map(|f| f.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    g.foreign.join(", "),
                    g.project
                ),
            );
        }
        Ok(Session {
            clock,
            cwd,
            root,
            memory_dir,
            team_dir,
            items,
            shadowed,
            team_waiting,
            team_index_trusted,
            checkout: team_checkout,
            guard,
            vocabulary,
        })
    }

    /// Say on stderr, once, how many team memories wait for review and the
    /// command that shows them (nothing when none waits). Never part of
    /// what is injected.
    pub fn say_waiting(&self) {
        if let Some(root) = &self.checkout
            && !self.team_waiting.is_empty()
        {
            warn(
                NAME,
                mem_core::team_trust::waiting_line(self.team_waiting.len(), root),
            );
        }
    }

    /// The text line of `decision` ([`render::text_line`]) with its
    /// tier ([`tier::text_suffix`]) when the team tier was read.
    pub fn text_line(
        &self,
        decision: &Decision,
        today: chrono::NaiveDate,
        explain: bool,
    ) -> String {
        let it = &self.items[decision.doc];
        let mut line = render::text_line(decision, &it.doc, today, explain);
        if self.team_dir.is_some() {
            line.push_str(&tier::text_suffix(it.tier, explain));
        }
        line
    }

    /// The JSONL record of `decision` ([`render::record`]) with its
    /// `tier` field (`personal` or `team`).
    pub fn record(
        &self,
        decision: &Decision,
        today: chrono::NaiveDate,
    ) -> mem_core::RecallDecision {
        let it = &self.items[decision.doc];
        render::record(decision, &it.doc, today, Some(it.tier))
    }

    /// What `mem-recall` prints for the decisions `ds`, in order: each
    /// decision (a `skip` only with `explain`), then with `explain` each team
    /// memory a personal one overrides, then the summary.
    pub fn rows<'a>(&'a self, ds: &'a [Decision], explain: bool) -> impl Iterator<Item = Row<'a>> {
        let shadowed = if explain { &self.shadowed[..] } else { &[] };
        let waiting = if explain { &self.team_waiting[..] } else { &[] };
        ds.iter()
            .filter(move |d| explain || d.action != Action::Skip)
            .map(Row::Decision)
            .chain(shadowed.iter().map(|(_, c)| Row::Shadowed(c)))
            .chain(waiting.iter().map(|id| Row::Waiting(id)))
            .chain(std::iter::once(Row::Summary))
    }

    /// The text line of `row` (`ds`: every decision, for the summary).
    pub fn row_line(
        &self,
        row: Row<'_>,
        ds: &[Decision],
        today: chrono::NaiveDate,
        explain: bool,
    ) -> String {
        match row {
            Row::Decision(d) => self.text_line(d, today, explain),
            Row::Shadowed(c) => tier::shadowed_line(c),
            Row::Waiting(id) => tier::waiting_text(id),
            Row::Summary => render::summary_line(ds),
        }
    }

    /// The JSONL record of `row` (`ds`: every decision, for the summary).
    pub fn row_record(
        &self,
        row: Row<'_>,
        ds: &[Decision],
        today: chrono::NaiveDate,
    ) -> mem_core::RecallDecision {
        match row {
            Row::Decision(d) => self.record(d, today),
            Row::Shadowed(c) => tier::shadowed_record(c),
            Row::Waiting(id) => tier::waiting_record(id),
            Row::Summary => render::summary_record(ds),
        }
    }

    /// The query for `args` (paths made relative to the project root).
    pub fn query(&self, args: &RecallArgs) -> Query {
        let task = args.task.clone().unwrap_or_default();
        let mut paths: Vec<String> = args.paths.iter().map(|p| self.rel(p)).collect();
        for w in path_words(&task) {
            let r = self.rel(Path::new(&w));
            if !paths.contains(&r) {
                paths.push(r);
            }
        }
        Query {
            task,
            paths,
            today: self.clock.today,
            max_items: args.max_items,
            max_tokens: args.max_tokens,
            min_score: args.min_score,
            guard: self.guard.as_ref().map(|g| g.project.clone()),
            vocabulary: (!args.no_expand).then(|| {
                std::sync::Arc::new(vocab::Vocabulary::for_task(
                    args.task.as_deref().unwrap_or_default(),
                    self.vocabulary.as_ref(),
                ))
            }),
            all_expired: args.all,
            low_trust: args.trust == TrustArg::Low,
        }
    }

    /// A path as the globs see it: relative to the project root when it lies
    /// inside, `/`-separated, `.` and `..` resolved lexically.
    fn rel(&self, p: &Path) -> String {
        let abs = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.cwd.join(p)
        };
        let abs = lexical(&abs);
        let real_cwd = mem_core::memdir::real_path(&self.cwd);
        for base in [&self.root, &lexical(&self.cwd), &real_cwd] {
            if let Ok(r) = abs.strip_prefix(base) {
                return slashes(r);
            }
        }
        if p.is_absolute() {
            abs.to_string_lossy().into_owned()
        } else {
            slashes(&lexical(p))
        }
    }
}

fn slashes(p: &Path) -> String {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Words of a task that look like paths: containing `/` (not a URL), or a
/// file name with an extension that has a letter (`package.json`,
/// `gen.sh`); quotes, brackets and trailing punctuation are trimmed, and a
/// `:LINE` suffix is dropped.
pub fn path_words(task: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in task.split_whitespace() {
        let w = w.trim_matches(|c: char| "\"'`()[]{}<>,;".contains(c));
        let w = w.trim_end_matches(['.', '?', '!', ':']);
        let w = match w.rsplit_once(':') {
            Some((a, b)) if !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()) => a,
            _ => w,
        };
        if w.is_empty() || w.contains("://") || w.starts_with('@') {
            continue;
        }
        let looks = if w.contains('/') {
            w.chars().any(char::is_alphanumeric)
        } else {
            match w.rsplit_once('.') {
                Some((stem, ext)) => {
                    !stem.is_empty()
                        && stem.len() + ext.len() > 2 // not "e.g"
                        && (1..=10).contains(&ext.len())
                        && ext.chars().all(|c| c.is_alphanumeric() || c == '_')
                        && ext.chars().any(char::is_alphabetic)
                }
                None => false,
            }
        };
        if looks {
            out.push(w.to_string());
        }
    }
    out
}

/// Recall for one query: the decisions.
pub fn decide(items: &[Item], query: &Query, stems: &Stems) -> Vec<Decision> {
    let docs: Vec<&gate::Doc> = items.iter().map(|i| &i.doc).collect();
    gate::decide(&docs, query, stems)
}

/// The recalled memories, in rank order, read in full, with their tier. A
/// file that can no longer be read is reported and left out.
pub fn recalled_memories(items: &[Item], ds: &[Decision]) -> Vec<render::Recalled> {
    ds.iter()
        .filter(|d| d.action == Action::Recall)
        .filter_map(|d| {
            let it = &items[d.doc];
            match it.memory() {
                Ok(memory) => Some(render::Recalled {
                    id: it.doc.id.to_string(),
                    memory,
                    tier: it.tier,
                }),
                Err(e) => {
                    warn(NAME, format!("{e} (not injected)"));
                    None
                }
            }
        })
        .collect()
}

/// The recalled memories, in rank order, as injected ([`Item::injected_md`]:
/// from the recall cache, or the topic file read again). A file that can
/// no longer be read is reported and left out.
pub fn recalled_md(items: &[Item], ds: &[Decision]) -> Vec<render::Rendered> {
    ds.iter()
        .filter(|d| d.action == Action::Recall)
        .filter_map(|d| {
            let it = &items[d.doc];
            match it.injected_md() {
                Ok(md) => Some(render::Rendered { tier: it.tier, md }),
                Err(e) => {
                    warn(NAME, format!("{e} (not injected)"));
                    None
                }
            }
        })
        .collect()
}

fn run_recall(cli: &RecallCommand) -> Result<Exit> {
    let stems = Stems::default();
    let s = Session::open_tiers(
        &cli.common,
        None,
        cli.recall.records.as_deref(),
        &stems,
        cli.tier,
    )?;
    s.say_waiting();
    let q = s.query(&cli.recall);
    let ds = decide(&s.items, &q, &stems);
    let explain = cli.common.explain;
    let today = s.clock.today;
    let mut out = Output::stdout(cli.common.line_buffered);
    let format = cli.format.unwrap_or(match mem_core::cli::Format::auto() {
        mem_core::cli::Format::Text => RecallFormat::Text,
        mem_core::cli::Format::Jsonl => RecallFormat::Jsonl,
    });
    let rows = s.rows(&ds, explain);
    match format {
        RecallFormat::Text => {
            for row in rows {
                out.line(&s.row_line(row, &ds, today, explain))?;
            }
        }
        RecallFormat::Jsonl => {
            for row in rows {
                out.record(&s.row_record(row, &ds, today))?;
            }
        }
        RecallFormat::Markdown => {
            // the memories go to stdout; what was left out is said on stderr
            for row in rows.filter(|r| !r.is_recall_or_summary()) {
                eprintln!("{NAME}: {}", s.row_line(row, &ds, today, explain));
            }
            let mems = recalled_memories(&s.items, &ds);
            if !mems.is_empty() {
                out.write_all(render::memories_md(&mems).as_bytes())?;
            }
        }
    }
    out.flush()?;
    // Thousands of small allocations: let the OS reclaim them at exit.
    std::mem::forget(ds);
    std::mem::forget(s);
    Ok(Exit::Success)
}

use std::io::Write as _;

/// How an instruction file is named in the document: relative to the
/// project root when inside it, `~/…` when under the home, else absolute.
fn label(p: &Path, root: &Path) -> String {
    if let Ok(r) = p.strip_prefix(mem_core::memdir::real_path(root)) {
        return slashes(r);
    }
    if let Ok(h) = mem_core::memdir::home()
        && let Ok(r) = p.strip_prefix(mem_core::memdir::real_path(&h))
    {
        return format!("~/{}", slashes(r));
    }
    p.display().to_string()
}

/// Build the `context` document for a session (Markdown, without markers).
///
/// `for_file`: the document goes into a file (`--update`, agents-md, or a
/// stdout redirected to a file): instruction files outside the project root
/// and the user's Claude folder are left out (named on stderr). Every
/// instruction text passes the scrubber (secrets redacted, absolute paths
/// made relative or removed) before it is written anywhere; refused imports
/// are named on stderr with the reason (see [`context`]).
///
/// `inline` (AGENTS.md, read away from the memory directory): the index's
/// links become plain titles and every memory the index names follows the
/// recalled ones in full, within `--codex-max-bytes` (the rest named on
/// stderr), so the text needs no file it links to.
///
/// `tiers`: the tiers read (`--tier`, or the personal one alone for a
/// file outside the checkout: nothing of a team tier is written there).
/// Only the team memories and team `MEMORY.md` the user trusts as they are
/// now are read ([`mem_core::team_trust`]).
pub fn context_text(
    args: &ContextArgs,
    exclude: Option<&Path>,
    for_file: bool,
    instructions: bool,
    inline: bool,
    tiers: TierArg,
) -> Result<String> {
    let stems = Stems::default();
    let s = Session::open_tiers(
        &args.common,
        None,
        args.recall.records.as_deref(),
        &stems,
        tiers,
    )?;
    s.say_waiting();
    let claude = mem_core::memdir::claude_dir().ok();
    let chain = context::instruction_chain(&s.cwd, &s.root, claude.as_deref(), exclude);
    for p in &chain.problems {
        warn(NAME, p);
    }
    let files: Vec<&context::Instruction> = if !instructions {
        Vec::new()
    } else if for_file {
        let (keep, left) = chain.for_file();
        for l in left {
            warn(NAME, l);
        }
        keep
    } else {
        chain.files.iter().collect()
    };
    let scrubber = mem_core::scrub::Scrubber::new(Some(&s.root));
    let mut doc = String::new();
    if !files.is_empty() {
        doc.push_str("# Instructions\n");
        let managed = mem_core::memdir::real_path(&context::managed_claude_md());
        for f in files {
            doc.push_str(&format!("\n## {}", label(&f.path, &s.root)));
            if f.path == managed {
                doc.push_str(" (managed policy)");
            }
            if let Some(from) = &f.imported_from {
                doc.push_str(&format!(" (imported from {})", label(from, &s.root)));
            }
            doc.push_str("\n\n");
            let clean = scrubber.scrub(f.text.trim_end());
            let secrets = clean
                .findings
                .iter()
                .filter(|x| matches!(x.kind, mem_core::scrub::FindingKind::Secret { .. }))
                .count();
            if secrets > 0 {
                warn(
                    NAME,
                    format!("{}: {secrets} secret(s) redacted", f.path.display()),
                );
            }
            doc.push_str(&clean.text);
            doc.push('\n');
        }
    }
    let mut index_ids = Vec::new();
    if let Some(dir) = &s.memory_dir
        && let Some(mut ix) = index_warned(dir)
    {
        if inline {
            index_ids = context::index_ids(&ix.text);
            ix.text = context::plain_links(&ix.text);
        }
        if !ix.text.trim().is_empty() {
            let mut body = ix.text.trim_end().to_string();
            if let Some(w) = context::index_limit_warning(&ix) {
                body.push_str("\n\n");
                body.push_str(&w);
            }
            push_section(&mut doc, "# Memory index (MEMORY.md)", &body);
        }
    }
    if let Some(dir) = &s.team_dir
        && s.team_index_trusted
        && let Some(ix) = index_warned(dir)
        && !ix.text.trim().is_empty()
    {
        let heading = format!(
            "# Team memory index ({}/MEMORY.md)",
            mem_core::memdir::TEAM_DIR
        );
        push_section(&mut doc, &heading, &scrubbed_index(&ix.text, &s.root));
    }
    let q = s.query(&args.recall);
    let ds = decide(&s.items, &q, &stems);
    for d in &ds {
        if matches!(d.action, Action::Evict | Action::Drop) {
            eprintln!("{NAME}: {}", s.text_line(d, s.clock.today, false));
        }
    }
    let mut mems = recalled_memories(&s.items, &ds);
    if inline {
        let budget = args.codex_max_bytes.saturating_sub(doc.len() + 1024);
        let mut used: usize = mems
            .iter()
            .map(|r| render::memory_md_in(&r.id, &r.memory, r.tier).len())
            .sum();
        let mut left = Vec::new();
        for id in index_ids {
            if mems.iter().any(|r| r.id == id) {
                continue;
            }
            let Some(it) = s.items.iter().find(|it| *it.doc.id == *id) else {
                continue;
            };
            let d = &it.doc;
            let expired = d.expires.is_some_and(|e| e.is_expired(s.clock.today));
            if d.retired || d.superseded_by.is_some() || expired || d.trust == mem_core::Trust::Low
            {
                continue;
            }
            let Ok(m) = it.memory() else { continue };
            let n = render::memory_md_in(&id, &m, it.tier).len();
            if used + n > budget {
                left.push(id);
                continue;
            }
            used += n;
            mems.push(render::Recalled {
                id,
                memory: m,
                tier: it.tier,
            });
        }
        if !left.is_empty() {
            warn(
                NAME,
                format!(
                    "{} memor{} of the index left out of the section (past --codex-max-bytes): {}",
                    left.len(),
                    if left.len() == 1 { "y" } else { "ies" },
                    left.join(", ")
                ),
            );
        }
    }
    if !mems.is_empty() {
        if !doc.is_empty() {
            doc.push('\n');
        }
        doc.push_str(&render::memories_md(&mems));
    }
    Ok(doc)
}

/// `MEMORY.md` of `dir` ([`context::load_index`]); when it was cut, its
/// WARNING line is said on stderr.
fn index_warned(dir: &Path) -> Option<context::IndexText> {
    let ix = context::load_index(dir)?;
    if ix.cut
        && let Some(w) = &ix.warning
    {
        warn(NAME, format!("{}: {w}", dir.join("MEMORY.md").display()));
    }
    Some(ix)
}

/// Add a section to the `context` document: a blank line after what is
/// there, `heading`, a blank line, `body` and a newline.
fn push_section(doc: &mut String, heading: &str, body: &str) {
    if !doc.is_empty() {
        doc.push('\n');
    }
    doc.push_str(heading);
    doc.push_str("\n\n");
    doc.push_str(body);
    doc.push('\n');
}

/// The team tier's index as printed: written by the team, so it passes the
/// scrubber like the instruction files.
fn scrubbed_index(text: &str, root: &Path) -> String {
    let scrubber = mem_core::scrub::Scrubber::new(Some(root));
    scrubber.scrub(text.trim_end()).text
}

/// True when stdout is a regular file (`> AGENTS.md`).
fn stdout_is_file() -> bool {
    use std::os::fd::AsFd;
    std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|f| f.metadata())
        .is_ok_and(|m| m.is_file())
}

/// The file `--update` writes: FILE, or the --target file of the project
/// (the worktree holding the cwd), and whether it is the override file.
fn update_path(args: &ContextArgs) -> Result<Option<(PathBuf, PathBuf, bool)>> {
    let Some(p) = &args.update else {
        return Ok(None);
    };
    let cwd = match &args.common.place.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().map_err(RecallError::WorkingDir)?,
    };
    let root = mem_core::memdir::project_root(&cwd, true);
    if let Some(p) = p {
        let is_override = p.file_name().is_some_and(|n| n == context::OVERRIDE);
        return Ok(Some((p.clone(), root, is_override)));
    }
    let path = args.target.path(&root)?;
    Ok(Some((path, root, args.target == context::Target::Override)))
}

fn run_context(args: &ContextArgs) -> Result<Exit> {
    let agents = args.update.is_some() || args.format == ContextFormat::AgentsMd;
    // AGENTS.md gets CLAUDE.md's text only when asked.
    let instructions = !agents || args.include_claude_md;
    let target = update_path(args)?;
    if let Some((path, _, _)) = &target {
        // before any work: a link is refused
        context::refuse_link(path)?;
    }
    // A file outside the checkout (the user-wide AGENTS.md, any file of
    // the user's elsewhere, a stdout redirected there) never receives a
    // team tier's content.
    let to_file = stdout_is_file();
    // (the file, or None for a stdout the system cannot place; the
    // checkout; the user-wide AGENTS.md)
    let written: Option<(Option<PathBuf>, PathBuf, bool)> = match &target {
        Some((path, root, _)) => Some((
            Some(path.clone()),
            root.clone(),
            args.target == context::Target::User && matches!(args.update, Some(None)),
        )),
        None if to_file => {
            let cwd = match &args.common.place.cwd {
                Some(c) => c.clone(),
                None => std::env::current_dir().map_err(RecallError::WorkingDir)?,
            };
            // where stdout goes, when the system says (Linux); otherwise
            // it counts as outside
            let path = std::fs::read_link("/proc/self/fd/1")
                .ok()
                .filter(|p| p.is_absolute());
            Some((path, mem_core::memdir::checkout_root(&cwd), false))
        }
        None => None,
    };
    let mut tiers = args.tier;
    if let Some((path, root, user_wide)) = &written
        && tiers.team()
        && (*user_wide
            || path
                .as_deref()
                .is_none_or(|p| !context::inside_checkout(p, root)))
    {
        let shown = path
            .as_deref()
            .map_or_else(|| "<stdout>".to_string(), |p| p.display().to_string());
        if !tiers.personal() {
            return Err(RecallError::TeamOutsideCheckout(PathBuf::from(&shown)));
        }
        tiers = TierArg::Personal;
        if mem_core::memdir::team_dir(root).is_dir() {
            warn(
                NAME,
                format!(
                    "{shown}: outside the checkout: the team tier ({}) is left out; nothing of a repository's team memory is written outside it",
                    mem_core::memdir::TEAM_DIR
                ),
            );
        }
    }
    let doc = context_text(
        args,
        target.as_ref().map(|t| t.0.as_path()),
        agents || to_file,
        instructions,
        agents,
        tiers,
    )?;
    let text = if agents {
        format!("{}\n{}{}\n", context::BEGIN, doc, context::END)
    } else {
        doc
    };
    let budget = args.codex_max_bytes;
    let over = |end: usize, what: &str| {
        warn(
            NAME,
            format!(
                "{what}: the mem section ends at byte {end}, past Codex's project_doc_max_bytes ({budget}): Codex will not read all of it; shorten the file or the section (--max-tokens), or raise project_doc_max_bytes and --codex-max-bytes"
            ),
        );
    };
    if let Some((path, root, is_override)) = &target {
        // AGENTS.override.md stands in for AGENTS.md beside it: it carries
        // a copy of it (without a mem section of its own).
        let copy = if *is_override {
            let dir = path.parent().unwrap_or(root);
            let agents = std::fs::read_to_string(dir.join("AGENTS.md"))
                .ok()
                .map(|t| context::without_section(&t));
            Some(agents)
        } else {
            None
        };
        let u =
            context::update_agents_md(path, &text, budget, copy.as_ref().map(|c| c.as_deref()))?;
        if *is_override
            && matches!(args.update, Some(None))
            && let Some(x) = context::exclude_override(root)
        {
            eprintln!(
                "{NAME}: {}: added /{} (not committed)",
                x.display(),
                context::OVERRIDE
            );
        }
        if args.target == context::Target::User && matches!(args.update, Some(None)) {
            warn(
                NAME,
                format!(
                    "{}: Codex reads it in every project; this project's memories are in it until another project's update replaces them",
                    path.display()
                ),
            );
            if let Some(d) = path.parent()
                && d.join(context::OVERRIDE).exists()
            {
                warn(
                    NAME,
                    format!(
                        "{}: exists, and Codex reads it instead of {}",
                        d.join(context::OVERRIDE).display(),
                        path.display()
                    ),
                );
            }
        }
        if u.placed_first {
            warn(
                NAME,
                format!(
                    "{}: the mem section was put first: appended it would have ended past Codex's project_doc_max_bytes ({budget})",
                    path.display()
                ),
            );
        }
        if u.section_end > budget {
            over(u.section_end, &path.display().to_string());
        }
        eprintln!(
            "{NAME}: {} {}",
            path.display(),
            if u.changed { "updated" } else { "unchanged" }
        );
        return Ok(Exit::Success);
    }
    if agents && text.len() > budget {
        over(text.len(), "<stdout>");
    }
    let mut out = Output::stdout(args.common.line_buffered);
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
        RecallCli::command().debug_assert();
    }

    #[test]
    fn the_recall_command_has_the_full_ones_options_but_subcommands_help_and_version() {
        let ids = |c: clap::Command| {
            let mut v: Vec<String> = c
                .get_arguments()
                .map(|a| a.get_id().to_string())
                .filter(|id| id != "help" && id != "version")
                .collect();
            v.sort();
            v
        };
        let mut full = Cli::command();
        full.build();
        let mut flat = RecallCli::command();
        flat.build();
        assert_eq!(ids(flat.clone()), ids(full.clone()));
        assert_eq!(flat.get_subcommands().count(), 0);
        assert!(full.get_subcommands().count() >= 1);
        for argv in [
            &[
                "mem-recall",
                "--task",
                "deploy",
                "--path",
                "a.rs",
                "--format",
                "jsonl",
            ][..],
            &[
                "mem-recall",
                "--task",
                "x",
                "--tier",
                "team",
                "--max-items",
                "3",
                "--all",
            ],
            &[
                "mem-recall",
                "--records",
                "-",
                "--no-expand",
                "--min-score",
                "2.5",
            ],
            &["mem-recall", "--memory-dir", "/m", "--today", "2026-07-11"],
            &[
                "mem-recall",
                "--trust",
                "low",
                "--explain",
                "--no-cache",
                "--cwd",
                "/p",
            ],
        ] {
            let a = RecallCli::try_parse_from(argv).unwrap();
            let b = Cli::try_parse_from(argv).unwrap();
            assert!(b.command.is_none());
            assert_eq!(format!("{:?}", a.top), format!("{:?}", b.top), "{argv:?}");
        }
        // what it does not take goes to the full parse, which takes it
        for argv in [
            &["mem-recall", "context", "--task", "x"][..],
            &["mem-recall", "context", "--help"],
            &["mem-recall", "--help"],
            &["mem-recall", "-h"],
            &["mem-recall", "--version"],
            &["mem-recall", "help"],
        ] {
            assert!(RecallCli::try_parse_from(argv).is_err(), "{argv:?}");
        }
        assert!(Cli::try_parse_from(["mem-recall", "context", "--task", "x"]).is_ok());
    }

    #[test]
    fn path_words_find_paths() {
        assert_eq!(
            path_words(
                "run node src/build-token.mjs, then edit package.json: and v1.2.3 e.g. https://x.io/a"
            ),
            ["src/build-token.mjs", "package.json"]
        );
        assert_eq!(
            path_words("see \"server/src/main.rs:12\""),
            ["server/src/main.rs"]
        );
    }
}
