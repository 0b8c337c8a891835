//! What every binary shares at its edge: the global options ([`GlobalArgs`]
//! and its parts), the output writer (buffered by destination), the
//! `--format` choice, and the one `main` shape that prints an error once as
//! `mem-x: {err:#}` and maps it to its exit code.
//!
//! Every tool flattens these option structs instead of declaring its own, so
//! an option has one name, environment variable, value name and help heading
//! everywhere (docs/conventions.md "Options every tool shares").

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use clap::builder::BoolishValueParser;
use serde::Serialize;

use crate::error::{Exit, UError, is_broken_pipe};

/// Output format of record-printing commands (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people.
    Text,
    /// One JSON object per line.
    Jsonl,
}

impl Format {
    /// The default: text on a terminal, jsonl otherwise.
    pub fn auto() -> Format {
        if std::io::stdout().is_terminal() {
            Format::Text
        } else {
            Format::Jsonl
        }
    }

    /// The chosen format, else [`Format::auto`].
    pub fn or_auto(chosen: Option<Format>) -> Format {
        chosen.unwrap_or_else(Format::auto)
    }
}

/// Where a tool acts: the memory directory, the project, worktree sharing
/// (help heading "Where"). Global: accepted before or after a subcommand.
#[derive(Debug, Clone, Default, Args)]
pub struct PlaceArgs {
    /// The memory directory (default: resolved for the project as
    /// `mem-index path` prints it) [env: MEM_MEMORY_DIR, which this option
    /// beats]
    // Only what the command line says: the environment variable is read
    // once, by `memdir::resolve` (or `named_memory_dir`), below it.
    #[arg(long, global = true, value_name = "DIR", help_heading = "Where")]
    pub memory_dir: Option<PathBuf>,
    /// The project to act for (default: the working directory).
    #[arg(long, global = true, value_name = "DIR", help_heading = "Where")]
    pub cwd: Option<PathBuf>,
    /// Do not share memory across linked worktrees. The environment value
    /// may be 1/0, true/false, yes/no or on/off.
    #[arg(
        long,
        env = "MEM_PER_WORKTREE",
        global = true,
        action = clap::ArgAction::SetTrue,
        value_parser = BoolishValueParser::new(),
        help_heading = "Where"
    )]
    pub per_worktree: bool,
}

/// The pinned clock: `--today` and `--now` (help heading "Time"), read by
/// [`crate::time::Clock::from_args`].
#[derive(Debug, Clone, Default, Args)]
pub struct TimeArgs {
    /// Today's date, YYYY-MM-DD (expiry, retirement dates, relative dates).
    #[arg(
        long,
        env = "MEM_TODAY",
        global = true,
        value_name = "YYYY-MM-DD",
        value_parser = crate::time::day_arg,
        help_heading = "Time"
    )]
    pub today: Option<String>,
    /// The current time, RFC 3339 (gates, cooldowns, ages).
    #[arg(
        long,
        env = "MEM_NOW",
        global = true,
        value_name = "RFC3339",
        value_parser = crate::time::ts_arg,
        help_heading = "Time"
    )]
    pub now: Option<String>,
}

impl TimeArgs {
    /// The clock these options pin (missing parts from the system clock).
    ///
    /// Errors: a `--today`/`--now` (or `MEM_TODAY`/`MEM_NOW`) that does not
    /// parse.
    pub fn clock(&self) -> crate::Result<crate::time::Clock> {
        crate::time::Clock::from_args(self.now.as_deref(), self.today.as_deref())
    }
}

/// `--format` and `--line-buffered` (help heading "Output"). `F` is the
/// format choice: [`Format`] everywhere except where a command prints a
/// third shape (mem-recall's markdown).
#[derive(Debug, Clone, Args)]
pub struct OutputArgs<F: clap::ValueEnum + Clone + Send + Sync + 'static = Format> {
    /// Output format (default: text on a terminal, jsonl otherwise).
    #[arg(long, value_enum, global = true, help_heading = "Output")]
    pub format: Option<F>,
    /// Flush every output line (for `tail -f` pipelines).
    #[arg(long, global = true, help_heading = "Output")]
    pub line_buffered: bool,
}

impl<F: clap::ValueEnum + Clone + Send + Sync + 'static> Default for OutputArgs<F> {
    fn default() -> Self {
        OutputArgs {
            format: None,
            line_buffered: false,
        }
    }
}

impl OutputArgs<Format> {
    /// The format chosen, else [`Format::auto`].
    pub fn format(&self) -> Format {
        Format::or_auto(self.format)
    }

    /// Standard output buffered as `--line-buffered` says.
    pub fn stdout(&self) -> Output {
        Output::stdout(self.line_buffered)
    }
}

/// The options every tool that reads or writes the memory directory takes:
/// where ([`PlaceArgs`]), when ([`TimeArgs`]) and how to print
/// ([`OutputArgs`]). Flattened into each tool's `Cli`.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// Where.
    #[command(flatten)]
    pub place: PlaceArgs,
    /// When.
    #[command(flatten)]
    pub time: TimeArgs,
    /// How to print.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl GlobalArgs {
    /// The memory-directory resolution these options ask for.
    pub fn memdir_options(&self) -> crate::memdir::MemdirOptions {
        self.place.memdir_options()
    }
}

impl PlaceArgs {
    /// The memory directory named explicitly: `--memory-dir`, else
    /// `MEM_MEMORY_DIR` (not empty); `None` when neither names one. For
    /// callers that need the named directory without resolving one.
    pub fn named_memory_dir(&self) -> Option<PathBuf> {
        self.memory_dir
            .clone()
            .or_else(crate::memdir::env_memory_dir)
    }

    /// The memory-directory resolution these options ask for (no agent).
    pub fn memdir_options(&self) -> crate::memdir::MemdirOptions {
        crate::memdir::MemdirOptions {
            memory_dir: self.memory_dir.clone(),
            cwd: self.cwd.clone(),
            per_worktree: self.per_worktree,
            agent: None,
        }
    }
}

/// Agent memory (help heading "Where"): `--agent NAME` with `--scope
/// user|project|local` names the agent's memory directory
/// ([`crate::memdir::resolve`], rule 4: `~/.claude/agent-memory/NAME/`,
/// `<project>/.claude/agent-memory/NAME/` or
/// `<project>/.claude/agent-memory-local/NAME/`). Global: accepted before
/// or after a subcommand.
#[derive(Debug, Clone, Args)]
pub struct AgentArgs {
    /// Agent memory: the agent's name (a subagent's `name`), with --scope.
    #[arg(long, global = true, value_name = "NAME", help_heading = "Where")]
    pub agent: Option<String>,
    /// Agent memory scope: user (~/.claude/agent-memory/NAME), project
    /// (.claude/agent-memory/NAME) or local (.claude/agent-memory-local/NAME).
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "project",
        requires = "agent",
        help_heading = "Where"
    )]
    pub scope: crate::memdir::AgentScope,
}

impl AgentArgs {
    /// The agent and scope for [`crate::memdir::MemdirOptions::agent`]
    /// (`None` without `--agent`).
    pub fn agent(&self) -> Option<(String, crate::memdir::AgentScope)> {
        self.agent.clone().map(|a| (a, self.scope))
    }
}

/// Pipe buffer size requested for a stdout that is a pipe, in bytes.
pub const PIPE_BUFFER: usize = 1 << 20;

/// Standard output, line-buffered to a terminal (or with `--line-buffered`),
/// otherwise one large buffered writer flushed at exit. When stdout is a pipe
/// its kernel buffer is raised to [`PIPE_BUFFER`] (Linux `F_SETPIPE_SZ`).
pub struct Output {
    inner: Box<dyn Write>,
}

impl Output {
    /// Stdout, buffered by destination.
    pub fn stdout(line_buffered: bool) -> Output {
        let out = std::io::stdout();
        let tty = out.is_terminal();
        #[cfg(target_os = "linux")]
        if !tty {
            let fd = std::io::stdout();
            if rustix::fs::fstat(&fd).is_ok_and(|st| {
                rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Fifo
            }) {
                let _ = rustix::pipe::fcntl_setpipe_size(&fd, PIPE_BUFFER);
            }
        }
        let lock = out.lock();
        let inner: Box<dyn Write> = if tty || line_buffered {
            Box::new(std::io::LineWriter::new(lock))
        } else {
            Box::new(std::io::BufWriter::with_capacity(256 * 1024, lock))
        };
        Output { inner }
    }

    /// An output into any writer (tests, files).
    pub fn to_writer(w: impl Write + 'static) -> Output {
        Output { inner: Box::new(w) }
    }

    /// Write one record as a JSON line.
    ///
    /// Errors: the write error (a broken pipe is recognised by the caller).
    pub fn record<T: Serialize + ?Sized>(&mut self, rec: &T) -> std::io::Result<()> {
        // `From` keeps an I/O error's kind (a broken pipe must stay one so
        // `main_with` exits 0 quietly); `io::Error::other` would hide it.
        serde_json::to_writer(&mut self.inner, rec).map_err(std::io::Error::from)?;
        self.inner.write_all(b"\n")
    }

    /// Write a line of text (a `\n` is added).
    pub fn line(&mut self, s: &str) -> std::io::Result<()> {
        self.inner.write_all(s.as_bytes())?;
        self.inner.write_all(b"\n")
    }

    /// Flush what is buffered.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The exit code an error maps to: the first [`crate::Error`] in its chain
/// decides; anything else is [`Exit::Failure`].
pub fn exit_of(err: &anyhow::Error) -> Exit {
    err.chain()
        .find_map(|e| e.downcast_ref::<crate::Error>())
        .map_or(Exit::Failure, crate::Error::exit)
}

/// What a tool's `run` fails with, as [`main_with`] reports it: a tool's
/// own error enum ([`UError`]), or an `anyhow::Error` whose first
/// [`crate::Error`] in its chain decides the code ([`exit_of`]).
pub trait Failure {
    /// The exit code.
    fn exit_code(&self) -> Exit;
    /// True for a closed output pipe (exit 0, nothing printed).
    fn broken_pipe(&self) -> bool;
    /// The message, printed once after `NAME: `.
    fn message(&self) -> String;
}

impl<E: UError> Failure for E {
    fn exit_code(&self) -> Exit {
        self.code()
    }
    fn broken_pipe(&self) -> bool {
        self.is_broken_pipe()
    }
    fn message(&self) -> String {
        self.to_string()
    }
}

impl Failure for anyhow::Error {
    fn exit_code(&self) -> Exit {
        exit_of(self)
    }
    fn broken_pipe(&self) -> bool {
        self.chain().any(is_broken_pipe)
    }
    fn message(&self) -> String {
        format!("{self:#}")
    }
}

/// The one `main` shape: run, print an error once as `NAME: {message}` on
/// stderr, map it to its exit code; a broken pipe exits 0 quietly. `run`
/// returns the exit code of a run that did not fail: an [`Exit`], or any
/// status (`mem-lock run` returns its command's).
pub fn main_with<T: Into<std::process::ExitCode>, E: Failure>(
    name: &str,
    run: impl FnOnce() -> Result<T, E>,
) -> std::process::ExitCode {
    catch_file_size_signal();
    match run() {
        Ok(code) => code.into(),
        Err(err) => {
            if err.broken_pipe() {
                return Exit::Success.into();
            }
            eprintln!("{name}: {}", err.message());
            err.exit_code().into()
        }
    }
}

/// Keep `SIGXFSZ` (a write past `ulimit -f` / `prlimit --fsize`) from
/// killing the process: with a handler installed the write fails with
/// `EFBIG` instead, which surfaces as an [`crate::Error::Io`] naming the file
/// ("File too large"), the atomic write removes its temp file and the old
/// file stays intact. Called by [`main_with`]; harmless to call twice.
pub fn catch_file_size_signal() {
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
}

/// When stdin is a terminal, say on stderr what the tool reads there, so
/// it does not wait silently: `NAME: reading WHAT from stdin (end with
/// Ctrl-D), e.g. EXAMPLE`. Nothing when stdin is a pipe or a file.
pub fn stdin_hint(name: &str, what: &str, example: &str) {
    if std::io::stdin().is_terminal() {
        eprintln!("{name}: reading {what} from stdin (end with Ctrl-D), e.g.: {example}");
    }
}

/// Print a warning on stderr as `NAME: warning: MSG`.
pub fn warn(name: &str, msg: impl std::fmt::Display) {
    eprintln!("{name}: warning: {msg}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `mem-index list | head -c 10` printed "Broken pipe" and
    /// exited 1: a record's write error lost its kind.
    #[test]
    fn a_broken_pipe_while_writing_a_record_stays_a_broken_pipe() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut out = Output::to_writer(Closed);
        let big = "x".repeat(1 << 20);
        let err = out.record(&serde_json::json!({ "a": big })).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
        let any = anyhow::Error::new(err).context("list");
        assert!(any.chain().any(crate::error::is_broken_pipe));
    }

    #[test]
    fn exit_follows_the_core_error_in_the_chain() {
        let e = anyhow::Error::new(crate::Error::NotDue("time".into())).context("dream");
        assert_eq!(exit_of(&e), Exit::TempFail);
        assert_eq!(exit_of(&anyhow::anyhow!("plain")), Exit::Failure);
    }

    #[test]
    fn records_are_one_line_each() {
        let buf = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        struct W(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);
        impl Write for W {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.borrow_mut().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut out = Output::to_writer(W(buf.clone()));
        out.record(&serde_json::json!({"a": "x\ny"})).unwrap();
        out.line("t").unwrap();
        out.flush().unwrap();
        assert_eq!(&*buf.borrow(), b"{\"a\":\"x\\ny\"}\nt\n");
    }
}
