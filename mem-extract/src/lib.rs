//! mem-extract: turn transcript events into candidate memories, with
//! redaction (docs/extraction.md).
//!
//! In process (mem-dream): [`extract::extract`] over parsed
//! [`mem_core::Event`]s with [`extract::ExtractOptions`]; [`dates`] resolves
//! relative dates against a message's own local day.
//!
//! The binary: `mem-extract [FILES…]` (events JSONL in, memory records out),
//! `mem-extract scrub` (filter text or JSONL), `mem-extract session` (rolling
//! session summary).

mod command;
pub mod dates;
pub mod error;
pub mod events;
pub mod extract;
mod held;
/// The instruction detector, shared with `mem-index check --tier team`.
pub use mem_core::instruction;
pub mod model;
mod note;
mod risky;
pub mod rules;
pub mod session;
use mem_core::set;
pub mod stream;
pub mod text;
mod triggers;

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use mem_core::cli::{Format, Output, OutputArgs, PlaceArgs, warn};
use mem_core::scrub::Scrubber;
use mem_core::{Error, Exit, memdir};

pub use error::ExtractError;
pub use events::{
    events_cwd, last_turn_wrote_memory, project_root_for, read_events, user_turns,
    without_memory_turns,
};
use events::{is_turn_start, memory_dir_prefix};
pub use extract::{Bucket, EventView, ExtractOptions, Extraction, Extractor, Note, extract};
pub use rules::Rules;

use events::NAME;

/// Turn transcript events (from `mem-transcript replay`) into candidate
/// memory records, one JSON object a line on stdout.
#[derive(Debug, Parser)]
#[command(name = "mem-extract", version, args_conflicts_with_subcommands = true)]
#[command(
    after_long_help = "Examples:\n  mem-transcript replay SESSION.jsonl | mem-extract | mem-index write\n  mem-extract --explain events.jsonl\n  mem-extract scrub < notes.txt\n  mem-extract session --out summary.md events.jsonl\n  mem-transcript replay S.jsonl | mem-extract --model-cmd 'claude -p --model haiku'\n  mem-transcript replay S.jsonl | mem-extract --model-cmd 'codex exec --skip-git-repo-check -'\n  mem-extract --print-prompt"
)]
pub struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    extract: ExtractArgs,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Scrub any text or JSONL on stdin: secrets → [REDACTED], session ids
    /// removed, absolute paths made project-relative or removed.
    #[command(
        after_long_help = "Examples:\n  mem-extract scrub --cwd . < notes.txt\n  mem-index list | mem-extract scrub --check"
    )]
    Scrub(ScrubArgs),
    /// Keep the rolling summary of one session (summary.md).
    #[command(
        after_long_help = "Examples:\n  mem-transcript replay S.jsonl | mem-extract session\n  mem-extract session --state st.json --out summary.md events.jsonl\n  mem-extract session --init-tokens 4000 --update-tokens 2000 --tool-calls 5 events.jsonl\n  MEM_SESSION_INIT_TOKENS=4000 mem-extract session events.jsonl"
    )]
    Session(session::SessionArgs),
}

/// Options shared by the commands that read events.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    /// `--memory-dir` (a turn that wrote into it is left out), `--cwd`
    /// (default: the events' recorded cwd, else the working directory),
    /// `--per-worktree`.
    #[command(flatten)]
    pub place: PlaceArgs,
    /// Print each candidate kept or dropped, with its bucket and rule (stderr).
    #[arg(long, help_heading = "Output")]
    pub explain: bool,
    /// `--format`, `--line-buffered`.
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Clone, Args)]
struct ExtractArgs {
    /// Event files (JSONL from `mem-transcript replay`); default stdin.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Rules file (YAML) replacing the built-in rules.
    #[arg(long, value_name = "FILE", help_heading = "Rules")]
    rules: Option<PathBuf>,
    /// Print the built-in rules and exit.
    #[arg(long, help_heading = "Rules")]
    print_rules: bool,
    /// Model-backed extraction beside the rules: send the documented prompt
    /// (`--print-prompt`) and a digest of the session to CMD's stdin (`sh -c
    /// CMD`, with MEM_HOOK_GUARD=1 so mem's hooks do nothing inside it) and
    /// read memory records (JSON lines, fenced or in prose) from its stdout.
    /// Recipes: --model-cmd 'claude -p --model haiku'
    ///          --model-cmd 'codex exec --skip-git-repo-check -'
    #[arg(long, value_name = "CMD", help_heading = "Rules")]
    model_cmd: Option<String>,
    /// Seconds one run of --model-cmd may take; then it is killed.
    #[arg(long, value_name = "SECS", default_value_t = model::DEFAULT_TIMEOUT_SECS, help_heading = "Rules")]
    model_timeout: u64,
    /// Digest budget per run of --model-cmd, in tokens (4 bytes each); a
    /// longer session is sent in chunks.
    #[arg(long, value_name = "TOKENS", default_value_t = model::DEFAULT_BUDGET_TOKENS, help_heading = "Rules")]
    model_budget: usize,
    /// Print the prompt sent to --model-cmd and exit.
    #[arg(long, help_heading = "Rules")]
    print_prompt: bool,
    /// Only run every N user turns (a hook may call it on each turn).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Throttles")]
    every: Option<u64>,
    /// Keep at most N candidates (highest confidence first).
    #[arg(long, value_name = "N", help_heading = "Throttles")]
    max_candidates: Option<usize>,
    /// Byte budget of tool output quoted into a candidate.
    #[arg(long, value_name = "BYTES", default_value_t = extract::DEFAULT_MAX_QUOTE, help_heading = "Throttles")]
    max_quote_bytes: usize,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Clone, Args)]
struct ScrubArgs {
    /// Project root: absolute paths inside it become relative (default: the
    /// main worktree root of --cwd or of the working directory).
    #[arg(long, value_name = "DIR")]
    project_root: Option<PathBuf>,
    /// The project to act for (default: the working directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Treat stdin as JSONL (scrub every string value) even if a line is not JSON.
    #[arg(long)]
    jsonl: bool,
    /// Do not change anything: print the findings (`LINE:COL kind`) and exit 1 when any.
    #[arg(long)]
    check: bool,
    /// Flush every output line.
    #[arg(long)]
    line_buffered: bool,
}

/// Run the tool with the process arguments.
///
/// Errors: bad input (exit 1, naming the line), a bad rules file, I/O errors.
pub fn run() -> Result<Exit, ExtractError> {
    run_with(Cli::parse())
}

/// Run the tool with parsed arguments.
///
/// Errors: as [`run`].
pub fn run_with(cli: Cli) -> Result<Exit, ExtractError> {
    match cli.cmd {
        Some(Cmd::Scrub(a)) => run_scrub(a),
        Some(Cmd::Session(a)) => session::run(a),
        None => run_extract(cli.extract),
    }
}

/// Options of one extraction over an event stream: the binary's flags as
/// plain values (mem-dream builds them too).
pub struct StreamOptions {
    /// Extraction rules.
    pub rules: Rules,
    /// Keep at most this many candidates.
    pub max_candidates: Option<usize>,
    /// Byte budget of tool output quoted into a candidate.
    pub max_quote_bytes: usize,
    /// The project to act for; default the events' first recorded cwd.
    pub cwd: Option<PathBuf>,
    /// The project when neither `cwd` nor the events name one (the binary:
    /// the working directory).
    pub fallback_cwd: Option<PathBuf>,
    /// Do not share memory across linked worktrees.
    pub per_worktree: bool,
    /// The memory directory of the "turn wrote memory" rule: a turn in
    /// which the agent wrote into it is left out (default: any
    /// `…/.claude/projects/<slug>/memory/` or `MEMORY.md`).
    pub memory_dir: Option<PathBuf>,
    /// Keep the notes of each candidate kept or dropped.
    pub explain: bool,
    /// Only extract when the user turns are a multiple of this.
    pub every: Option<u64>,
    /// Memory writing is turned off (read nothing into candidates).
    pub disabled: bool,
}

/// How an extraction over a stream ended.
#[derive(Debug)]
pub enum Outcome {
    /// The candidates.
    Extracted(Extraction),
    /// Memory writing is turned off.
    Disabled,
    /// `every` throttle: the user turn count is not a multiple of `every`.
    NotThisTurn {
        /// User turns seen.
        turn: u64,
        /// The throttle.
        every: u64,
    },
    /// Only side-chain events (sub-agents are not the user's voice).
    SidechainOnly,
    /// Every turn wrote into the memory directory (each was left out).
    MemoryWritten {
        /// Turns left out.
        turns: u64,
    },
}

/// Extraction over a stream of events, pushed one at a time
/// ([`EventStream::push`]), with the binary's throttles; events before the
/// project is known are kept until then. Each turn (a main-agent user
/// message and what follows up to the next) is held until it ends: a turn
/// in which the agent wrote into the memory directory is left out, that
/// turn only (the agent saved what it wanted from it). Used by `mem-extract` and mem-dream
/// alike, so both give the same candidates for the same events.
pub struct EventStream {
    per_worktree: bool,
    explain: bool,
    fallback_cwd: Option<PathBuf>,
    every: Option<u64>,
    memory_dir: Option<String>,
    make_opts: Option<Box<dyn FnOnce(Option<PathBuf>) -> ExtractOptions>>,
    x: Option<Extractor>,
    pending: Vec<EventView<'static>>,
    disabled: bool,
    events: u64,
    main: u64,
    user_turns: u64,
    wrote_memory: bool,
    turn: held::HeldTurn,
    fed: u64,
    skipped_turns: u64,
}

impl EventStream {
    /// A stream extracting with `opts`.
    pub fn new(opts: StreamOptions) -> EventStream {
        let StreamOptions {
            rules,
            max_candidates,
            max_quote_bytes,
            cwd,
            fallback_cwd,
            per_worktree,
            memory_dir,
            explain,
            every,
            disabled,
        } = opts;
        let make = move |root: Option<PathBuf>| ExtractOptions {
            rules,
            project_id: root.as_deref().map(memdir::project_id),
            project_root: root,
            max_candidates,
            max_quote_bytes,
        };
        let mut st = EventStream {
            per_worktree,
            explain,
            fallback_cwd,
            every,
            memory_dir: memory_dir_prefix(memory_dir.as_deref()),
            make_opts: Some(Box::new(make)),
            x: None,
            pending: Vec::new(),
            disabled,
            events: 0,
            main: 0,
            user_turns: 0,
            wrote_memory: false,
            turn: held::HeldTurn::default(),
            fed: 0,
            skipped_turns: 0,
        };
        if let Some(c) = cwd.as_deref() {
            st.start(Some(c));
        }
        st
    }

    fn start(&mut self, cwd: Option<&Path>) {
        let Some(make) = self.make_opts.take() else {
            return;
        };
        let cwd = cwd
            .map(Path::to_path_buf)
            .or_else(|| self.fallback_cwd.clone());
        let root = cwd.map(|c| memdir::project_root(&c, self.per_worktree));
        let mut x = Extractor::new(make(root));
        if !self.explain {
            x = x.without_notes();
        }
        for ev in self.pending.drain(..) {
            x.push(&ev);
        }
        self.x = Some(x);
    }

    /// Take one event.
    pub fn push(&mut self, ev: EventView<'_>) {
        self.events += 1;
        if !ev.sidechain {
            self.main += 1;
            if is_turn_start(&ev.role, &ev.kind) {
                self.user_turns += 1;
                self.end_turn();
            } else if ev.kind == "tool_use"
                && mem_core::session::writes_memory(
                    ev.tool.as_deref(),
                    ev.path.as_deref(),
                    self.memory_dir.as_deref(),
                )
            {
                self.wrote_memory = true;
            }
        }
        if self.disabled {
            return;
        }
        self.turn.push(ev);
    }

    /// Turns left out so far because they wrote into the memory directory.
    pub fn skipped_turns(&self) -> u64 {
        self.skipped_turns
    }

    /// The turn held so far ends: feed it, or leave it out when it wrote
    /// into the memory directory.
    fn end_turn(&mut self) {
        if std::mem::take(&mut self.wrote_memory) {
            self.turn.clear();
            self.skipped_turns += 1;
            return;
        }
        let mut turn = std::mem::take(&mut self.turn);
        turn.drain(|ev| self.feed(ev));
        self.turn = turn;
    }

    fn feed(&mut self, ev: EventView<'_>) {
        self.fed += 1;
        if self.x.is_none()
            && !ev.sidechain
            && let Some(c) = ev.cwd.as_deref().filter(|c| !c.is_empty())
        {
            let c = PathBuf::from(c);
            self.start(Some(&c));
        }
        match self.x.as_mut() {
            Some(x) => x.push(&ev),
            None => self.pending.push(ev.into_owned()),
        }
    }

    /// [`EventStream::finish`] and the turns left out because they wrote
    /// into the memory directory.
    pub fn finish_counted(mut self) -> (Outcome, u64) {
        if !self.disabled {
            self.end_turn();
        }
        let n = self.skipped_turns;
        (self.finish(), n)
    }

    /// The candidates, or why there are none.
    pub fn finish(mut self) -> Outcome {
        if self.disabled {
            return Outcome::Disabled;
        }
        if let Some(every) = self.every.filter(|&n| n > 1)
            && !self.user_turns.is_multiple_of(every)
        {
            return Outcome::NotThisTurn {
                turn: self.user_turns,
                every,
            };
        }
        if self.events > 0 && self.main == 0 {
            return Outcome::SidechainOnly;
        }
        self.end_turn();
        if self.fed == 0 && self.skipped_turns > 0 {
            return Outcome::MemoryWritten {
                turns: self.skipped_turns,
            };
        }
        self.start(None);
        Outcome::Extracted(self.x.take().expect("started").finish())
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Extracted(x) => write!(f, "{} candidate(s)", x.memories.len()),
            Outcome::Disabled => f.write_str(
                "memory is disabled (MEM_DISABLE / CLAUDE_CODE_DISABLE_AUTO_MEMORY); nothing extracted",
            ),
            Outcome::NotThisTurn { turn, every } => {
                write!(f, "skipped: turn {turn} is not a multiple of --every {every}")
            }
            Outcome::SidechainOnly => f.write_str("skipped: only side-chain events (main agent only)"),
            Outcome::MemoryWritten { turns } => write!(
                f,
                "skipped: every turn ({turns}) wrote into the memory directory itself"
            ),
        }
    }
}

/// Extract the event lines `events` (JSONL as `mem-transcript replay`
/// prints them; `name` labels errors) with `opts`. Nothing is printed.
///
/// Errors: every bad line, in input order, as [`Error::Input`] naming
/// `name` and the line (never empty); nothing is extracted then.
pub fn extract_jsonl(
    events: impl Read,
    name: &str,
    opts: StreamOptions,
) -> Result<Outcome, Vec<Error>> {
    let mut st = EventStream::new(opts);
    let errs = stream::for_each_event_in(events, name, |ev| st.push(ev));
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(st.finish())
}

fn run_extract(a: ExtractArgs) -> Result<Exit, ExtractError> {
    if a.print_prompt {
        let mut out = Output::stdout(a.common.output.line_buffered);
        out.line(model::PROMPT.trim_end())?;
        out.flush()?;
        return Ok(Exit::Success);
    }
    if a.print_rules {
        let mut out = Output::stdout(a.common.output.line_buffered);
        out.line(rules::DEFAULT_RULES_YAML.trim_end())?;
        out.flush()?;
        return Ok(Exit::Success);
    }
    let rules = match &a.rules {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
            Rules::parse(&text, &p.display().to_string())?
        }
        None => Rules::default_rules(),
    };
    if let Some(cmd) = &a.model_cmd {
        return run_model(&a, rules, cmd);
    }
    let mut st = EventStream::new(StreamOptions {
        rules,
        max_candidates: a.max_candidates,
        max_quote_bytes: a.max_quote_bytes,
        cwd: a.common.place.cwd.clone(),
        fallback_cwd: std::env::current_dir().ok(),
        per_worktree: a.common.place.per_worktree,
        memory_dir: a.common.place.named_memory_dir(),
        explain: a.common.explain,
        every: a.every,
        disabled: memdir::is_disabled(),
    });
    // every bad line in input order, each naming its file and line: all
    // but the last here, the last as the error (printed after them)
    let mut errs = stream::for_each_event_checked(&a.files, |ev| st.push(ev));
    if let Some(last) = errs.pop() {
        for e in &errs {
            eprintln!("{NAME}: {e}");
        }
        return Err(last.into());
    }
    let outcome = st.finish_counted();
    if outcome.1 > 0 && matches!(outcome.0, Outcome::Extracted(_)) {
        eprintln!(
            "{NAME}: left out {} turn(s) in which the agent wrote into the memory directory",
            outcome.1
        );
    }
    match outcome.0 {
        Outcome::Extracted(result) => emit(&a, &result),
        o @ Outcome::Disabled => {
            warn(NAME, o);
            Ok(Exit::Success)
        }
        o => {
            eprintln!("{NAME}: {o}");
            Ok(Exit::Success)
        }
    }
}

/// `--model-cmd`: the events are read whole (the model sees them all).
fn run_model(a: &ExtractArgs, rules: Rules, cmd: &str) -> Result<Exit, ExtractError> {
    let events = read_events(&a.files)?;
    if memdir::is_disabled() {
        warn(
            NAME,
            "memory is disabled (MEM_DISABLE / CLAUDE_CODE_DISABLE_AUTO_MEMORY); nothing extracted",
        );
        return Ok(Exit::Success);
    }
    if let Some(n) = a.every.filter(|&n| n > 1) {
        let turns = user_turns(&events);
        if !turns.is_multiple_of(n) {
            eprintln!("{NAME}: skipped: turn {turns} is not a multiple of --every {n}");
            return Ok(Exit::Success);
        }
    }
    if !events.is_empty() && events.iter().all(|e| e.sidechain) {
        eprintln!("{NAME}: skipped: only side-chain events (main agent only)");
        return Ok(Exit::Success);
    }
    let (events, skipped) =
        without_memory_turns(events, a.common.place.named_memory_dir().as_deref());
    if skipped > 0 {
        eprintln!(
            "{NAME}: left out {skipped} turn(s) in which the agent wrote into the memory directory"
        );
        if events.iter().all(|e| e.sidechain) {
            return Ok(Exit::Success);
        }
    }
    let root = project_root_for(
        a.common.place.cwd.as_deref(),
        &events,
        a.common.place.per_worktree,
    );
    let opts = ExtractOptions {
        rules,
        project_id: root.as_deref().map(memdir::project_id),
        project_root: root,
        max_candidates: a.max_candidates,
        max_quote_bytes: a.max_quote_bytes,
    };
    let rules_result = extract::extract(&events, &opts);
    let mopts = model::ModelOptions {
        cmd: cmd.to_string(),
        timeout: std::time::Duration::from_secs(a.model_timeout.max(1)),
        budget_tokens: a.model_budget.max(250),
    };
    let (model_result, warnings) = model::extract_with_model(&events, &opts, &mopts)?;
    for w in &warnings {
        warn(NAME, w);
    }
    let mut result = model::merge(rules_result, model_result);
    if let Some(n) = opts.max_candidates {
        result.memories.truncate(n);
    }
    emit(a, &result)
}

/// Print the notes (`--explain`), the sensitive drops and the memories.
fn emit(a: &ExtractArgs, result: &Extraction) -> Result<Exit, ExtractError> {
    // What goes to stderr is scrubbed of secrets too: a note quotes the
    // transcript's own words. (The scrubber is made only when something
    // goes there.)
    let scrubber = std::cell::OnceCell::new();
    let redact = |s: &str| {
        scrubber
            .get_or_init(|| Scrubber::new(None))
            .redact_secrets(s)
    };
    if a.common.explain {
        for n in &result.notes {
            eprintln!("{NAME}: {}", redact(&n.to_string()));
        }
    }
    for d in &result.sensitive_drops {
        eprintln!(
            "{NAME}: dropped a candidate that still carries sensitive text: {}",
            redact(d)
        );
    }
    let format = a.common.output.format();
    let mut out = Output::stdout(a.common.output.line_buffered);
    for m in &result.memories {
        match format {
            Format::Jsonl => out.record(m)?,
            Format::Text => out.line(&format!(
                "{} [{}] {} — {}",
                m.mem_type.as_str(),
                m.effective_kind().as_str(),
                m.name,
                m.description
            ))?,
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

fn run_scrub(a: ScrubArgs) -> Result<Exit, ExtractError> {
    let root = match &a.project_root {
        Some(p) => Some(p.clone()),
        None => {
            let cwd = match &a.cwd {
                Some(c) => c.clone(),
                None => std::env::current_dir().map_err(ExtractError::WorkingDir)?,
            };
            Some(memdir::project_root(&cwd, false))
        }
    };
    let scrubber = Scrubber::new(root.as_deref());
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .map_err(|e| Error::io("<stdin>", e))?;
    let text = String::from_utf8_lossy(&input);
    let lines: Vec<&str> = text.lines().collect();
    let is_jsonl = a.jsonl
        || (!lines.is_empty()
            && lines.iter().all(|l| {
                l.trim().is_empty() || serde_json::from_str::<serde_json::Value>(l).is_ok()
            }));
    let mut out = Output::stdout(a.line_buffered || std::io::stdout().is_terminal());
    let mut found = 0usize;
    if a.check {
        for (i, l) in lines.iter().enumerate() {
            for f in scrubber.find(l) {
                found += 1;
                out.line(&format!("{}:{} {}", i + 1, f.start + 1, f.kind))?;
            }
        }
        out.flush()?;
        return Ok(if found > 0 {
            Exit::Failure
        } else {
            Exit::Success
        });
    }
    if is_jsonl {
        for (i, l) in lines.iter().enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<serde_json::Value>(l) {
                Ok(mut v) => {
                    scrubber.scrub_json(&mut v);
                    out.record(&v)?;
                }
                Err(e) => {
                    // not JSON after all: scrub it as text, and say so
                    warn(
                        NAME,
                        format!(
                            "<stdin>:{}: not JSON ({}), scrubbed as text",
                            i + 1,
                            mem_core::jsonl::describe(&e)
                        ),
                    );
                    out.line(&scrubber.scrub(l).text)?;
                }
            }
        }
    } else {
        let s = scrubber.scrub(&text);
        out.write_all_str(&s.text)?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

trait WriteStr {
    fn write_all_str(&mut self, s: &str) -> std::io::Result<()>;
}

impl WriteStr for Output {
    fn write_all_str(&mut self, s: &str) -> std::io::Result<()> {
        std::io::Write::write_all(self, s.as_bytes())
    }
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
