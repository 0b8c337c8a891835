//! mem-dream: gated, locked consolidation of the memory directory
//! (docs/consolidation.md "Gates", "The lock"; docs/records.md "Consolidation plan: `mem-dream`").
//!
//! A run checks four gates in order — master switch, time since the last
//! consolidation, sessions since then, the lock — and, when due, takes
//! `.consolidate-lock` itself and goes through the phases:
//! **orient** ([`mem_core::store::load`]; unparsable files are reported and
//! left byte-identical), **gather** (daily logs and sessions newer than the
//! last consolidation, see [`gather`]), **consolidate** and **prune & index**
//! ([`consolidate::plan`]). The plan's ops are printed (JSONL records as in
//! docs/records.md "Consolidation plan: `mem-dream`", or text); `--dry-run` stops there and changes
//! nothing anywhere; a real run applies the file changes under the index lock
//! with an undo journal ([`apply`]), then stamps the lock.

pub mod apply;
pub mod consolidate;
pub mod error;
pub mod gates;
pub mod gather;
pub mod meaning;
pub mod team;

use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use clap::{Args, Parser, Subcommand, ValueEnum};
use mem_core::cli::{Format, GlobalArgs, Output, warn};
use mem_core::lock::{Finish, Lock};
use mem_core::memdir;
use mem_core::records::PlanOp;
use mem_core::scrub::Scrubber;
use mem_core::session::SessionFile;
use mem_core::store;
use mem_core::time::Clock;
use mem_core::{Error, Exit};

pub use error::DreamError;
use error::Result;

use crate::consolidate::{Origin, PlannedMemory};

/// The tool's name in messages.
pub const NAME: &str = "mem-dream";

const EXAMPLES: &str = "\
Examples:
  mem-dream                         # consolidate when due (24 h and 5 sessions since the last run)
  mem-dream --explain --dry-run     # show the four gates and the plan; change nothing
  mem-dream --force --diff          # run now, printing a unified diff with a reason per hunk
  mem-dream undo                    # restore the state before the last run
  mem-dream --agent reviewer --scope user --force   # consolidate an agent's memory now
  # with autoDreamEnabled: false only the automatic run is off; --force (or /dream) still runs
  mem-dream --tier team --diff > team.diff   # plan the team tier; apply with `git apply`";

/// Gated, locked consolidation of the memory directory: merge duplicates,
/// supersede contradictions, absolutize relative dates, retire what expired
/// or never belonged, rebuild MEMORY.md.
#[derive(Debug, Parser)]
#[command(name = "mem-dream", version, after_long_help = EXAMPLES)]
pub struct Cli {
    /// What to do (default: consolidate).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options shared by every subcommand.
    #[command(flatten)]
    pub global: Global,
    /// Options of a consolidation run.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Restore the memory directory to the state before the last run.
    #[command(
        after_long_help = "Example:\n  mem-dream undo --memory-dir ~/.claude/projects/-home-u-proj/memory"
    )]
    Undo {
        /// Restore even files changed since the run (their changes are lost).
        #[arg(long)]
        force: bool,
    },
}

/// Options shared by every subcommand (docs/conventions.md "Options every tool shares").
#[derive(Debug, Args)]
pub struct Global {
    /// Where, when, how to print.
    #[command(flatten)]
    pub args: GlobalArgs,
    /// Print all four gates and why each op was planned.
    #[arg(long, global = true, help_heading = "Output")]
    pub explain: bool,
    /// `personal` (the memory directory) or `team`: plan the consolidation
    /// of the repository's team tier (`.claude/team-memory/` of the checkout
    /// the cwd is in)
    /// and print it (ops, or a diff with --diff that `git apply` takes from
    /// the repository root); nothing is written, no gate applies, no
    /// session is gathered. The person applies the plan and commits it.
    #[arg(long, global = true, value_enum, default_value_t = DreamTier::Personal, help_heading = "Where")]
    pub tier: DreamTier,
    /// `--agent NAME --scope user|project|local`: consolidate that agent's
    /// memory directory (its topic files and daily logs; the project's
    /// sessions are not the agent's and are read only when named with
    /// --transcripts).
    #[command(flatten)]
    pub agent: mem_core::cli::AgentArgs,
}

/// Which tier `mem-dream` consolidates (`--tier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum DreamTier {
    /// The personal memory directory: gated, locked, applied.
    #[default]
    Personal,
    /// The team tier: planned only, never written.
    Team,
}

/// Options of a consolidation run.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Folder(s) of session transcripts (default: every folder holding
    /// sessions of this project).
    #[arg(long, value_name = "DIR", help_heading = "Gates")]
    pub transcripts: Vec<PathBuf>,
    /// Hours since the last consolidation before a run is due.
    #[arg(long, default_value_t = mem_core::lock::DEFAULT_MIN_HOURS, value_name = "H", value_parser = mem_core::time::non_negative_arg, help_heading = "Gates")]
    pub min_hours: f64,
    /// Sessions since the last consolidation before a run is due.
    #[arg(long, default_value_t = mem_core::lock::DEFAULT_MIN_SESSIONS, value_name = "N", help_heading = "Gates")]
    pub min_sessions: usize,
    /// Sessions started by these entrypoints are not counted.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "mem-dream",
        help_heading = "Gates"
    )]
    pub exclude_entrypoint: Vec<String>,
    /// Minutes between two session scans (0: scan every time).
    #[arg(
        long,
        default_value_t = mem_core::lock::DEFAULT_SCAN_INTERVAL_MIN,
        value_name = "MIN",
        value_parser = mem_core::time::non_negative_arg,
        help_heading = "Gates"
    )]
    pub scan_interval: f64,
    /// Consolidate now, by hand: skip the time and session gates, and run
    /// even with `autoDreamEnabled: false` (which turns off the automatic
    /// run only); never past memory off, remote mode or a held lock.
    #[arg(long, help_heading = "Gates")]
    pub force: bool,
    /// Exit 75 instead of 0 when not due.
    #[arg(long, help_heading = "Gates")]
    pub strict: bool,
    /// Seconds after which a live holder's lock counts as stale.
    #[arg(
        long,
        default_value_t = 3600,
        value_name = "SECS",
        help_heading = "Gates"
    )]
    pub stale_after: u64,
    /// Print the plan and change nothing (not even the lock).
    #[arg(long, help_heading = "Run")]
    pub dry_run: bool,
    /// Print a unified diff of every file change, a reason per hunk.
    #[arg(long, help_heading = "Run")]
    pub diff: bool,
    /// Process at most N sessions; the lock then records the newest processed one.
    #[arg(long, value_name = "N", help_heading = "Run")]
    pub max_sessions: Option<usize>,
    /// Most topic files kept (0: unlimited).
    #[arg(long, default_value_t = 200, value_name = "N", help_heading = "Run")]
    pub max_files: usize,
    /// Let --max-files retire memories mem did not write (Claude Code's own, hand-written).
    #[arg(long, help_heading = "Run")]
    pub include_foreign: bool,
}

/// Run the tool with the process arguments.
///
/// Errors: [`DreamError`] (exit 1 bad input, 75 busy / not due under
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

/// The consolidation options of a run: `a`'s limits, `today`, and the
/// names of the files that are no memory (`bad_names`, never touched).
pub(crate) fn plan_options(
    a: &RunArgs,
    today: chrono::NaiveDate,
    bad_names: &[store::BadName],
) -> consolidate::Options {
    consolidate::Options {
        today,
        max_files: a.max_files,
        include_foreign: a.include_foreign,
        other_files: bad_names
            .iter()
            .filter_map(|b| b.path.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect(),
    }
}

/// The memories of a directory as a plan starts from them ([`orient`]).
pub(crate) struct Oriented {
    /// Every topic file, sorted by id, unchanged so far.
    pub items: Vec<PlannedMemory>,
    /// The files whose frontmatter does not parse (left byte-identical).
    pub broken: Vec<store::Broken>,
    /// The files whose names are not ids (never touched).
    pub bad_names: Vec<store::BadName>,
    /// `MEMORY.md` as it is, when there is one.
    pub old_index: Option<String>,
}

/// Orient: read the topic files of `dir` (with their bytes, for the diff and
/// the journal) and its index; warn about the files left unchanged. `basis`
/// gives each memory its basis for relative dates. The one reading of a
/// directory a plan starts from, for the personal tier and the team tier.
///
/// Errors: the directory, a topic file or the index cannot be read (an
/// index that cannot be read whole is never rewritten: its lines mem did
/// not write are kept verbatim).
pub(crate) fn orient(
    dir: &std::path::Path,
    basis: impl Fn(&mem_core::Memory) -> Option<consolidate::Basis>,
) -> Result<Oriented> {
    let (st, bytes) = store::load_with_bytes(dir)?;
    for b in &st.broken {
        warn(NAME, format!("{}: left unchanged", b.error));
    }
    for b in &st.bad_names {
        warn(
            NAME,
            format!("{}: {}: left unchanged", b.path.display(), b.error),
        );
    }
    let old_index = mem_index::index_file::read_index_for_update(&dir.join(store::INDEX_FILE))?;
    let items = st
        .topics
        .into_iter()
        .zip(bytes)
        .map(|(t, bytes)| PlannedMemory {
            id: t.id,
            basis: basis(&t.memory),
            mem: t.memory,
            origin: Origin::Existing {
                path: t.path,
                bytes,
                mtime: t.mtime,
            },
            dirty: false,
            reasons: Vec::new(),
            retired: None,
        })
        .collect();
    Ok(Oriented {
        items,
        broken: st.broken,
        bad_names: st.bad_names,
        old_index,
    })
}

/// The session evidence (`transcript:<digest>#<line>`) the memories of
/// the directory carry.
fn recorded_evidence(items: &[PlannedMemory]) -> std::collections::HashSet<&str> {
    items
        .iter()
        .flat_map(|i| &i.mem.evidence)
        .filter(|e| e.starts_with("transcript:"))
        .map(String::as_str)
        .collect()
}

/// True when `m`, gathered from a session, is already in the directory:
/// every one of its evidence pointers (at least one) is recorded there.
fn already_recorded(m: &mem_core::Memory, recorded: &std::collections::HashSet<&str>) -> bool {
    let mut session = m
        .evidence
        .iter()
        .filter(|e| e.starts_with("transcript:"))
        .peekable();
    session.peek().is_some() && session.all(|e| recorded.contains(e.as_str()))
}

/// Before anything else: roll back a consolidation (or roll forward a
/// `mem-index write` batch) that a killed process left unfinished, saying so
/// on stderr. A dry run changes nothing: it only says what the next run
/// will recover.
///
/// Returns how many unfinished consolidations were rolled back or, killed
/// before they changed anything, removed.
fn recover(dir: &std::path::Path, today: chrono::NaiveDate, dry_run: bool) -> Result<usize> {
    if !mem_core::journal::needs_recovery(dir) {
        return Ok(0);
    }
    if dry_run {
        warn(
            NAME,
            format!(
                "{}: an unfinished run is left; the next real run recovers it first (dry run: nothing recovered)",
                dir.display()
            ),
        );
        return Ok(0);
    }
    let guard = store::lock_index(dir)?;
    let r = mem_core::journal::recover(&guard, dir, today)?;
    for s in &r.said {
        eprintln!("{NAME}: recovered: {s}");
    }
    Ok(r.rolled_back + r.removed)
}

/// What `undo` says when there is nothing to undo (exit 0, "nothing to do").
const NOTHING_TO_UNDO: &str =
    "nothing to undo: no consolidation of this memory directory is left to undo";

fn undo(dir: &std::path::Path, force: bool, out: &mut Output) -> Result<Exit> {
    if !dir.is_dir() {
        eprintln!("{NAME}: {NOTHING_TO_UNDO}");
        return Ok(Exit::Success);
    }
    let _guard = store::lock_index(dir)?;
    let u = match apply::undo(dir, force) {
        Ok(u) => u,
        Err(Error::NothingToUndo(_)) => {
            eprintln!("{NAME}: {NOTHING_TO_UNDO}");
            return Ok(Exit::Success);
        }
        Err(e) => return Err(e.into()),
    };
    for f in &u.files {
        out.line(&format!("restored {f}"))
            .map_err(|e| Error::io("<stdout>", e))?;
    }
    // A retired/ folder the run created and left empty goes too.
    let _ = std::fs::remove_dir(dir.join(store::RETIRED_DIR));
    let lock = Lock::in_dir(dir);
    let st = lock.status(mem_core::lock::DEFAULT_STALE_AFTER)?;
    if !st.busy() {
        lock.rollback(u.lock_mtime)?;
    }
    eprintln!(
        "{NAME}: undone: {} file(s) restored from {}",
        u.files.len(),
        u.journal.display()
    );
    Ok(Exit::Success)
}

fn print_op(out: &mut Output, format: Format, o: &PlanOp) -> std::io::Result<()> {
    match format {
        Format::Jsonl => out.record(o),
        Format::Text => {
            let mut s = o.op().to_string();
            if let Some(id) = o.id() {
                s.push(' ');
                s.push_str(id);
            }
            for (k, v) in o.fields() {
                s.push_str(&format!(" {k}={v}"));
            }
            out.line(&s)
        }
    }
}

/// Print a plan on `out`: the unified diff of every change (`diff` renders
/// one) when given, else its ops; with `explain`, each change's reasons on
/// stderr.
///
/// Errors: stdout cannot be written.
pub(crate) fn print_plan(
    out: &mut Output,
    format: Format,
    plan: &consolidate::Plan,
    diff: Option<fn(&consolidate::Change) -> String>,
    explain: bool,
) -> Result<()> {
    let io = |e| Error::io("<stdout>", e);
    match diff {
        Some(diff) => {
            for c in &plan.changes {
                out.write_all(diff(c).as_bytes()).map_err(io)?;
            }
        }
        None => {
            for o in &plan.ops {
                print_op(out, format, o).map_err(io)?;
            }
        }
    }
    if explain {
        for c in &plan.changes {
            eprintln!("{NAME}: {}: {}", c.rel, c.reasons.join("; "));
        }
    }
    Ok(())
}

fn dream(
    cli: &Cli,
    clock: &Clock,
    resolved: &memdir::Resolved,
    format: Format,
    out: &mut Output,
) -> Result<Exit> {
    let a = &cli.run;
    let dir = &resolved.dir;
    let lock = Lock::in_dir(dir);
    let stale = Duration::from_secs(a.stale_after);

    // Which folders hold this project's sessions, and which sessions count.
    let explicit = !a.transcripts.is_empty();
    let roots = memdir::project_worktrees(&resolved.root);
    let tdirs = if explicit {
        a.transcripts.clone()
    } else if cli.global.agent.agent.is_some() {
        // an agent's memory learns from its own daily logs, not from the
        // project's sessions
        Vec::new()
    } else {
        memdir::transcript_dirs_for(&roots).unwrap_or_default()
    };
    let filter_cwd = !explicit || cli.global.args.place.cwd.is_some();
    let all_sessions: Vec<SessionFile> = mem_core::session::list(&tdirs)
        .into_iter()
        .filter(|s| {
            !filter_cwd
                || s.head
                    .cwd
                    .as_deref()
                    .is_none_or(|c| memdir::cwd_in_roots(c, &roots))
        })
        .collect();

    let ctx = gates::Context {
        dir,
        cwd: Some(&resolved.root),
        lock: &lock,
        clock,
        min_hours: a.min_hours,
        min_sessions: a.min_sessions,
        exclude: &a.exclude_entrypoint,
        scan_interval: a.scan_interval,
        force: a.force,
        dry_run: a.dry_run,
        stale,
        sessions: &all_sessions,
        tdirs: &tdirs,
    };
    let report = gates::check(&ctx)?;
    for gte in &report.gates {
        if cli.global.explain || gte.open == Some(false) {
            eprintln!("{NAME}: gate {}: {}", gte.name, gte.describe());
        }
    }
    if let Some(reason) = report.closed() {
        if a.strict {
            return Err(Error::NotDue(reason).into());
        }
        eprintln!("{NAME}: not due: {reason}");
        return Ok(Exit::Success);
    }

    if !dir.exists() && report.counted.is_empty() {
        // No memory directory and nothing to gather: nothing is created.
        eprintln!(
            "{NAME}: nothing to do: {} does not exist and no session is new",
            dir.display()
        );
        return Ok(Exit::Success);
    }
    let since = lock.last_consolidated()?;
    // Sessions to gather: the counted ones, oldest first, capped.
    let mut pending: Vec<&SessionFile> = report.counted.iter().collect();
    pending.sort_by(|x, y| x.mtime.cmp(&y.mtime).then_with(|| x.path.cmp(&y.path)));
    let cut = a.max_sessions.is_some_and(|n| pending.len() > n);
    if let Some(n) = a.max_sessions {
        pending.truncate(n);
    }
    let stamp_at = if cut {
        pending.last().map(|s| s.mtime)
    } else {
        None
    };

    // Gate 4: the lock.
    let held = if a.dry_run {
        None
    } else {
        let h = lock.acquire(std::process::id(), stale)?;
        for w in &h.warnings {
            warn(NAME, w);
        }
        Some(h)
    };
    let stop = Arc::new(AtomicBool::new(false));
    if held.is_some() {
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            let _ = signal_hook::flag::register(sig, Arc::clone(&stop));
        }
    }

    let result = phases(
        cli,
        clock,
        resolved,
        &all_sessions,
        &pending,
        since,
        &stop,
        format,
        out,
        held.as_ref().map(|h| h.previous_mtime),
    );
    if let Some(h) = &held {
        // A signal after the last write changes nothing: the run is complete.
        let outcome = match &result {
            Ok(_) => Finish::Success { at: stamp_at },
            Err(_) => Finish::Failure,
        };
        match lock.finish(h, outcome) {
            Ok(mem_core::lock::Finished::TakenOver(c)) => {
                warn(
                    NAME,
                    format!(
                        "{}: taken over meanwhile ({c:?}): left alone",
                        lock.path().display()
                    ),
                );
            }
            Ok(_) => {}
            Err(e) => warn(NAME, e),
        }
    }
    result
}

#[allow(clippy::too_many_arguments)]
fn phases(
    cli: &Cli,
    clock: &Clock,
    resolved: &memdir::Resolved,
    all_sessions: &[SessionFile],
    pending: &[&SessionFile],
    since: Option<SystemTime>,
    stop: &AtomicBool,
    format: Format,
    out: &mut Output,
    lock_before: Option<Option<SystemTime>>,
) -> Result<Exit> {
    let a = &cli.run;
    let dir = &resolved.dir;
    let interrupted = || -> Result<()> {
        if stop.load(Ordering::SeqCst) {
            Err(Error::Interrupted.into())
        } else {
            Ok(())
        }
    };

    // Gather (daily logs and sessions) before taking the index lock: it
    // reads only what writers do not touch.
    let digests = gather::digest_map(all_sessions);
    let mut warnings = Vec::new();
    let mut gathered = gather::logs(dir, since, &mut warnings);
    let bar = (pending.len() >= 20 && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::with_draw_target(
            Some(pending.len() as u64),
            indicatif::ProgressDrawTarget::stderr(),
        );
        b.set_message("sessions");
        b
    });
    for s in pending {
        interrupted()?;
        gathered.extend(gather::session(s, &resolved.root, &mut warnings));
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    // whichever path gathered it (a daily log, a session), a memory whose
    // lesson runs a risky command is low trust (docs/security.md "What a
    // command does")
    for (m, _, _) in &mut gathered {
        mem_core::lesson::gate(m);
    }
    for w in warnings {
        warn(NAME, w);
    }
    // Orient, consolidate and apply under the index lock, so no writer can
    // change a file between reading it and the plan being applied (a dry
    // run takes no lock: it writes nothing anywhere).
    let _guard = if a.dry_run {
        None
    } else {
        Some(store::lock_index(dir)?)
    };
    // Orient.
    let st = orient(dir, |m| gather::basis_of(m, &digests))?;
    let mut items = st.items;
    interrupted()?;

    let mut taken: std::collections::HashSet<String> = items.iter().map(|i| i.id.clone()).collect();
    for b in &st.broken {
        taken.insert(b.id.clone());
    }
    // What the directory already holds from a session (a memory written by
    // `mem-extract | mem-index write` keeps its evidence) is not gathered
    // again: the same session read twice gives nothing new.
    let recorded = recorded_evidence(&items);
    gathered.retain(|(m, _, _)| !already_recorded(m, &recorded));
    let (shape, _) = mem_core::shape::detect(&store::load(dir)?);
    let mut updates = Vec::new();
    for (m, source, basis) in gathered {
        let Ok(base) = m.resolve_id() else { continue };
        // The id `mem-index write` gives the record: a memory of the same
        // name is updated, never copied to `<id>-2`.
        let id = if m.id.is_some() {
            base.clone()
        } else {
            mem_index::write::record_id(&m, base.clone(), |c| {
                items
                    .iter()
                    .filter(|i| i.id == c && i.retired.is_none())
                    .map(|i| &i.mem)
                    .collect()
            })
        };
        if let Some(it) = items.iter_mut().find(|i| i.id == id) {
            let mut next = mem_index::write::with_provenance(mem_index::write::merge(&it.mem, &m));
            next.id = Some(id.clone());
            next.hash = None;
            let mut old = it.mem.clone();
            old.hash = None;
            if mem_core::frontmatter::render(&next) != mem_core::frontmatter::render(&old) {
                it.mem = next;
                it.dirty = true;
                it.reasons.push(format!(
                    "update {id} from {source}: the memory `mem-index write` updates with this record"
                ));
                updates.push(PlanOp::Update {
                    id: id.clone(),
                    source: source.clone(),
                    extra: Default::default(),
                });
            }
            continue;
        }
        let mut id = id;
        let mut k = 2;
        while taken.contains(&id) {
            id = format!("{base}-{k}");
            k += 1;
        }
        taken.insert(id.clone());
        let basis = gather::basis_of(&m, &digests).or(basis);
        let mut m = m;
        m.id = Some(id.clone());
        // a new file in the shape the directory is written in
        m.layout.shape = Some(shape);
        items.push(PlannedMemory {
            id,
            mem: m,
            origin: Origin::New { source },
            basis,
            dirty: true,
            reasons: Vec::new(),
            retired: None,
        });
    }

    // Consolidate, prune & index.
    let scrubber = Scrubber::new(Some(&resolved.root));
    let mut plan = consolidate::plan(
        dir,
        items,
        st.broken,
        st.old_index.as_deref(),
        &scrubber,
        &crate::plan_options(a, clock.today, &st.bad_names),
    );
    // the updates come first: they are made before anything else
    plan.ops.splice(0..0, updates);
    interrupted()?;
    print_plan(
        out,
        format,
        &plan,
        a.diff
            .then_some(apply::diff as fn(&consolidate::Change) -> String),
        cli.global.explain,
    )?;
    if a.dry_run {
        eprintln!(
            "{NAME}: dry run: {} op(s), {} file change(s) planned, nothing written",
            plan.ops.len(),
            plan.changes.len()
        );
        return Ok(Exit::Success);
    }
    if plan.changes.is_empty() {
        eprintln!("{NAME}: nothing to change");
        return Ok(Exit::Success);
    }
    let j = apply::apply(dir, &plan.changes, &plan.ops, lock_before.flatten(), stop)?;
    eprintln!(
        "{NAME}: {} file change(s) applied; undo with `mem-dream undo` (journal {})",
        plan.changes.len(),
        j.display()
    );
    Ok(Exit::Success)
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
