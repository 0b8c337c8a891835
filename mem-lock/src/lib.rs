//! mem-lock: the PID/mtime lock file that guards consolidation (docs/consolidation.md
//! "The lock"; the protocol itself is [`mem_core::lock`]).
//!
//! Subcommands: `status`, `acquire`, `release`, `stamp`, `rollback`,
//! `run LOCK -- CMD…`. The lock is the LOCK argument, else
//! `--memory-dir DIR` (env `MEM_MEMORY_DIR`) + `/.consolidate-lock`.
//!
//! Output (`--format jsonl`, one object per line):
//! - `status`: `{"path","exists","content","pid","alive","mtime","age_secs",
//!   "stale","stale_after_secs","corrupt","busy"}`;
//! - `acquire`: `{"path","pid","mtime","previous_mtime","previous_content",
//!   "reclaimed","warnings"}` (`reclaimed`: `dead_pid`, `stale`, `empty`,
//!   `garbage` or null; mtimes are RFC 3339 UTC or null for "never");
//! - `release`: `{"path","result","holder"}` (`result`: `released`,
//!   `already_free`, `missing`, `not_holder`);
//! - `stamp`: `{"path","mtime"}`; `rollback`: `{"path","mtime","removed"}`;
//! - `run` prints nothing of its own (the command owns stdout).
//!
//! Exit codes: 0 success; 1 bad input or environment; 2 usage; 75 busy;
//! `run` returns the command's status (128+N when it died of signal N; 126
//! when it can't be executed, 127 when it is not found).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command as Process;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};
use clap::{Args, Parser, Subcommand};
use mem_core::Exit;
use mem_core::cli::{Format, Output, OutputArgs, warn};
use mem_core::lock::{
    Acquired, Content, DEFAULT_STALE_AFTER, Finish, Finished, LOCK_FILE, Lock, LockState, Reclaim,
    Released,
};
use mem_core::records::{
    LockAcquired, LockReleased, LockRolledBack, LockStamped, LockStatus, ReclaimKind, ReleaseResult,
};
use serde::Serialize;

const NAME: &str = "mem-lock";

/// The consolidation lock: mtime = last consolidation time, content = holder PID (0 = none).
#[derive(Debug, Parser)]
#[command(
    name = "mem-lock",
    version,
    about,
    long_about = "The consolidation lock: a file whose mtime is the last consolidation \
time and whose content is the holder's PID (0 = no holder). A missing lock means never \
consolidated. A live holder with an mtime inside the stale window is busy (exit 75); \
a dead PID, an older mtime, an empty file or garbage is reclaimed with a warning.",
    after_long_help = "Examples:\n  \
mem-lock status ~/.claude/projects/-home-me-proj/memory/.consolidate-lock\n  \
mem-lock run --memory-dir memory -- ./consolidate.sh\n  \
prev=$(mem-lock acquire --format text --pid $$ LOCK) || exit\n  \
if work; then mem-lock stamp LOCK; else mem-lock rollback --to \"$prev\" LOCK; fi\n  \
mem-lock release --pid $$ LOCK"
)]
pub struct Cli {
    /// Global options.
    #[command(flatten)]
    pub global: Global,
    /// The subcommand.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// Options every subcommand takes.
#[derive(Debug, Args)]
pub struct Global {
    /// The memory directory: the lock is DIR/.consolidate-lock when LOCK is not given.
    #[arg(
        long,
        global = true,
        env = "MEM_MEMORY_DIR",
        value_name = "DIR",
        help_heading = "Where"
    )]
    pub memory_dir: Option<PathBuf>,
    /// `--format`, `--line-buffered`.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--stale-after`.
#[derive(Debug, Clone, Args)]
pub struct StaleArg {
    /// A live holder whose mtime is older than this is reclaimed: 1h, 30m, 90s, 1h30m, 2d, or seconds.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "1h",
        value_parser = parse_duration,
        help_heading = "Lock"
    )]
    pub stale_after: Duration,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Show the lock: holder, liveness, mtime (last consolidation), staleness.
    #[command(
        after_long_help = "Example:\n  mem-lock status --format jsonl memory/.consolidate-lock"
    )]
    Status {
        /// The lock file (default: DIR/.consolidate-lock of --memory-dir).
        lock: Option<PathBuf>,
        /// The stale window.
        #[command(flatten)]
        stale: StaleArg,
    },
    /// Take the lock for a PID; prints the previous mtime (`never` when there was no lock).
    ///
    /// Exit 75 when a live holder's mtime is inside the stale window. The
    /// mtime becomes now; hand the printed previous mtime to `rollback --to`
    /// when the work fails.
    #[command(after_long_help = "Example:\n  \
prev=$(mem-lock acquire --format text --pid $$ memory/.consolidate-lock) || exit\n  \
# … work; on failure: mem-lock rollback --to \"$prev\" memory/.consolidate-lock")]
    Acquire {
        /// The lock file (default: DIR/.consolidate-lock of --memory-dir).
        lock: Option<PathBuf>,
        /// The stale window.
        #[command(flatten)]
        stale: StaleArg,
        /// Hold the lock on behalf of this process (e.g. `$$` of a shell script). Default: the parent process.
        #[arg(long, value_name = "PID", help_heading = "Lock")]
        pid: Option<u32>,
    },
    /// Release the lock: write 0 atomically and keep the mtime.
    #[command(after_long_help = "Example:\n  mem-lock release --pid $$ memory/.consolidate-lock")]
    Release {
        /// The lock file (default: DIR/.consolidate-lock of --memory-dir).
        lock: Option<PathBuf>,
        /// Release only if this PID holds the lock (otherwise warn and leave it).
        #[arg(long, value_name = "PID", help_heading = "Lock")]
        pid: Option<u32>,
    },
    /// Set the mtime (the last consolidation time); the content is kept.
    ///
    /// A missing lock is created with content 0.
    #[command(
        after_long_help = "Example:\n  mem-lock stamp --at 2026-07-11T10:00:00Z memory/.consolidate-lock"
    )]
    Stamp {
        /// The lock file (default: DIR/.consolidate-lock of --memory-dir).
        lock: Option<PathBuf>,
        /// The time to set, RFC 3339 (default: now).
        #[arg(long, value_name = "RFC3339", value_parser = parse_time, help_heading = "Lock")]
        at: Option<SystemTime>,
    },
    /// Restore the mtime from before an acquire; `--to never` removes the lock.
    ///
    /// `never` (what acquire prints when there was no lock) removes the lock
    /// file, which also releases it: never consolidated again.
    #[command(
        after_long_help = "Example:\n  mem-lock rollback --to 2026-07-10T09:00:00Z memory/.consolidate-lock"
    )]
    Rollback {
        /// The lock file (default: DIR/.consolidate-lock of --memory-dir).
        lock: Option<PathBuf>,
        /// The mtime to restore, RFC 3339, or `never`.
        #[arg(long, value_name = "RFC3339|never", value_parser = parse_time_or_never, help_heading = "Lock")]
        to: Never,
    },
    /// Run a command under the lock: stamp on success, roll back on failure, always release.
    ///
    /// Acquires (exit 75 when busy), runs CMD with SIGINT, SIGTERM and SIGHUP
    /// forwarded to it, then in one atomic step writes 0 and sets the mtime
    /// to the completion time (exit 0) or back to its earlier value (failure
    /// or interruption). Returns the command's status (128+N when it died of
    /// signal N).
    #[command(
        after_long_help = "Example:\n  mem-lock run memory/.consolidate-lock -- ./consolidate.sh --all"
    )]
    Run {
        /// The lock file (default: DIR/.consolidate-lock of --memory-dir).
        lock: Option<PathBuf>,
        /// The stale window.
        #[command(flatten)]
        stale: StaleArg,
        /// Hold the lock on behalf of this process. Default: mem-lock itself.
        #[arg(long, value_name = "PID", help_heading = "Lock")]
        pid: Option<u32>,
        /// The command and its arguments (after `--`).
        #[arg(last = true, required = true, value_name = "CMD")]
        cmd: Vec<OsString>,
    },
}

/// A time, or `never` (no lock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Never(pub Option<SystemTime>);

/// Parse a humane duration: `1h`, `30m`, `90s`, `2d`, `1h30m`, or plain seconds.
///
/// Errors: a message naming the value.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let bad = || format!("{text:?} is not a duration (like 1h, 30m, 90s, 1h30m or seconds)");
    if t.is_empty() {
        return Err(bad());
    }
    if let Ok(n) = t.parse::<u64>() {
        return Ok(Duration::from_secs(n));
    }
    let mut total: u64 = 0;
    let mut num = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            's' => 1,
            _ => return Err(bad()),
        };
        let n: u64 = num.parse().map_err(|_| bad())?;
        num.clear();
        total = n
            .checked_mul(unit)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
    }
    if !num.is_empty() {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

/// Parse an RFC 3339 timestamp into a [`SystemTime`].
///
/// Errors: a message naming the value.
pub fn parse_time(text: &str) -> Result<SystemTime, String> {
    DateTime::parse_from_rfc3339(text.trim())
        .map(|t| SystemTime::from(t.with_timezone(&Utc)))
        .map_err(|e| format!("{text:?} is not an RFC 3339 timestamp: {e}"))
}

fn parse_time_or_never(s: &str) -> Result<Never, String> {
    if s.trim() == "never" {
        Ok(Never(None))
    } else {
        parse_time(s).map(|t| Never(Some(t)))
    }
}

/// RFC 3339 UTC with `Z` (sub-second digits only when non-zero).
pub fn fmt_time(time: SystemTime) -> String {
    mem_core::time::fmt_ts(DateTime::<Utc>::from(time))
}

fn fmt_opt(t: Option<SystemTime>) -> Option<String> {
    t.map(fmt_time)
}

/// A lock's content as printed: `"0"`, a PID, `""`, the garbage, or
/// `None` when there is no file.
pub fn content_text(content: &Content) -> Option<String> {
    match content {
        Content::Missing => None,
        Content::Free => Some("0".into()),
        Content::Pid(p) => Some(p.to_string()),
        Content::Empty => Some(String::new()),
        Content::Garbage(g) => Some(g.clone()),
    }
}

/// A lock's content as JSON (for messages): `"4242"`, or `null`.
fn content_json(c: &Content) -> String {
    serde_json::to_string(&content_text(c)).expect("a string serializes")
}

fn ago(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=119 => format!("{s}s ago"),
        120..=7199 => format!("{}m ago", s / 60),
        7200..=172_799 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86_400),
    }
}

/// The record of a status.
pub fn status_record(st: &LockState, stale_after: Duration) -> LockStatus {
    LockStatus {
        path: st.path.display().to_string(),
        exists: st.exists,
        content: content_text(&st.content),
        pid: st.pid,
        alive: st.alive,
        mtime: fmt_opt(st.mtime),
        age_secs: st.age.map(|a| a.as_secs()),
        stale: st.stale,
        stale_after_secs: stale_after.as_secs(),
        corrupt: st.corrupt,
        busy: st.busy(),
    }
}

/// One line for people describing a status.
pub fn status_text(st: &LockState) -> String {
    let path = st.path.display();
    let when = match (st.mtime, st.age) {
        (Some(m), Some(a)) => format!("{} ({})", fmt_time(m), ago(a)),
        _ => String::new(),
    };
    match &st.content {
        Content::Missing => format!("{path}: missing (never consolidated)"),
        Content::Free => format!("{path}: free; last consolidated {when}"),
        Content::Pid(pid) => {
            let what = if st.busy() {
                "busy"
            } else if !st.alive {
                "reclaimable: holder is dead"
            } else {
                "reclaimable: stale"
            };
            let life = if st.alive { "alive" } else { "dead" };
            format!("{path}: held by pid {pid} ({life}) since {when}; {what}")
        }
        Content::Empty => format!("{path}: corrupt lock (empty file), {when}; reclaimable"),
        Content::Garbage(g) => format!("{path}: corrupt lock ({g:?}), {when}; reclaimable"),
    }
}

/// The record of an acquire.
pub fn acquired_record(acquired: &Acquired) -> LockAcquired {
    LockAcquired {
        path: acquired.path.display().to_string(),
        pid: acquired.pid,
        mtime: fmt_time(acquired.mtime),
        previous_mtime: fmt_opt(acquired.previous_mtime),
        previous_content: content_text(&acquired.previous),
        reclaimed: acquired.reclaimed.as_ref().map(|r| match r {
            Reclaim::DeadHolder(_) => ReclaimKind::DeadPid,
            Reclaim::StaleHolder { .. } => ReclaimKind::Stale,
            Reclaim::Empty => ReclaimKind::Empty,
            Reclaim::Garbage(_) => ReclaimKind::Garbage,
        }),
        warnings: acquired.warnings.clone(),
    }
}

/// What stops a `mem-lock` command, and its exit code
/// ([`LockError::code`]): 75 for a busy lock, 1 for everything else.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// An error of the lock protocol: I/O naming the lock file, a busy lock
    /// (exit 75).
    #[error(transparent)]
    Core(#[from] mem_core::Error),
    /// Writing the output failed (a closed pipe exits 0 quietly).
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// Neither LOCK nor `--memory-dir` was given.
    #[error("no lock: give LOCK or --memory-dir DIR (env MEM_MEMORY_DIR)")]
    NoLock,
    /// `acquire` without `--pid` in a process without a parent.
    #[error("no parent process to hold the lock for: give --pid")]
    NoParent,
    /// `run` without a command.
    #[error("run: no command given")]
    NoCommand,
    /// `run`: the signal handlers could not be installed (nothing run).
    #[error("cannot install signal handlers: {0}")]
    Signals(std::io::Error),
    /// `run`: waiting for the command failed.
    #[error("waiting for {program}: {err}")]
    Wait {
        /// The command.
        program: String,
        /// Why.
        err: std::io::Error,
    },
}

impl LockError {
    /// The exit code: 75 for a busy lock, 1 otherwise.
    pub fn code(&self) -> Exit {
        match self {
            LockError::Core(e) => e.exit(),
            _ => Exit::Failure,
        }
    }
}

impl mem_core::error::UError for LockError {
    fn code(&self) -> Exit {
        LockError::code(self)
    }

    fn is_broken_pipe(&self) -> bool {
        match self {
            LockError::Output(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
            LockError::Core(e) => mem_core::error::is_broken_pipe(e),
            _ => false,
        }
    }
}

/// How a `mem-lock` run that did not fail ends: its own exit code, or
/// (`run`) the command's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// mem-lock's own code.
    Exit(Exit),
    /// The status of the command `run` ran (128+N for signal N; 126 / 127
    /// when it can't be executed / is not found).
    Command(u8),
}

impl From<Status> for std::process::ExitCode {
    fn from(s: Status) -> Self {
        match s {
            Status::Exit(e) => e.into(),
            Status::Command(c) => c.into(),
        }
    }
}

struct Ctx {
    out: Output,
    format: Format,
    memory_dir: Option<PathBuf>,
}

impl Ctx {
    fn lock(&self, lock: Option<PathBuf>) -> Result<Lock, LockError> {
        match (lock, &self.memory_dir) {
            (Some(p), _) => Ok(Lock::new(p)),
            (None, Some(d)) => Ok(Lock::new(d.join(LOCK_FILE))),
            (None, None) => Err(LockError::NoLock),
        }
    }

    fn emit<T: Serialize>(&mut self, text: Option<String>, rec: &T) -> std::io::Result<()> {
        match self.format {
            Format::Jsonl => self.out.record(rec),
            Format::Text => match text {
                Some(t) => self.out.line(&t),
                None => Ok(()),
            },
        }
    }
}

/// Parse the command line and run.
///
/// Errors: [`LockError`] (exit 1, or 75 when busy).
pub fn run() -> Result<Status, LockError> {
    let cli = Cli::parse();
    run_cli(cli)
}

/// Run a parsed command line: see [`run`].
///
/// Errors: [`LockError`] (exit 1, or 75 when busy).
pub fn run_cli(cli: Cli) -> Result<Status, LockError> {
    let format = cli.global.output.format();
    let mut ctx = Ctx {
        out: cli.global.output.stdout(),
        format,
        memory_dir: cli.global.memory_dir,
    };
    let status = match cli.cmd {
        Cmd::Status { lock, stale } => {
            let lock = ctx.lock(lock)?;
            let st = lock.status(stale.stale_after)?;
            ctx.emit(
                Some(status_text(&st)),
                &status_record(&st, stale.stale_after),
            )?;
            Status::Exit(Exit::Success)
        }
        Cmd::Acquire { lock, stale, pid } => {
            let lock = ctx.lock(lock)?;
            let pid = match pid {
                Some(p) => p,
                None => parent_pid()?,
            };
            let a = lock.acquire(pid, stale.stale_after)?;
            for w in &a.warnings {
                warn(NAME, w);
            }
            let text = a.previous_mtime.map_or_else(|| "never".into(), fmt_time);
            ctx.emit(Some(text), &acquired_record(&a))?;
            Status::Exit(Exit::Success)
        }
        Cmd::Release { lock, pid } => {
            let lock = ctx.lock(lock)?;
            let r = match pid {
                Some(p) => lock.release_as(p)?,
                None => lock.release()?,
            };
            let (result, holder) = match &r {
                Released::Released => (ReleaseResult::Released, None),
                Released::AlreadyFree => (ReleaseResult::AlreadyFree, None),
                Released::Missing => (ReleaseResult::Missing, None),
                Released::NotHolder(c) => (ReleaseResult::NotHolder, content_text(c)),
            };
            if let Released::NotHolder(c) = &r {
                warn(
                    NAME,
                    format!(
                        "{}: not released: held by {} (not pid {})",
                        lock.path().display(),
                        content_json(c),
                        pid.unwrap_or(0)
                    ),
                );
            }
            let rec = LockReleased {
                path: lock.path().display().to_string(),
                result,
                holder,
            };
            ctx.emit(None, &rec)?;
            Status::Exit(Exit::Success)
        }
        Cmd::Stamp { lock, at } => {
            let lock = ctx.lock(lock)?;
            let t = lock.stamp(at)?;
            let rec = LockStamped {
                path: lock.path().display().to_string(),
                mtime: fmt_time(t),
            };
            ctx.emit(Some(fmt_time(t)), &rec)?;
            Status::Exit(Exit::Success)
        }
        Cmd::Rollback { lock, to } => {
            let lock = ctx.lock(lock)?;
            lock.rollback(to.0)?;
            let rec = LockRolledBack {
                path: lock.path().display().to_string(),
                mtime: fmt_opt(to.0),
                removed: to.0.is_none(),
            };
            ctx.emit(None, &rec)?;
            Status::Exit(Exit::Success)
        }
        Cmd::Run {
            lock,
            stale,
            pid,
            cmd,
        } => {
            let lock = ctx.lock(lock)?;
            Status::Command(run_under_lock(
                &lock,
                pid.unwrap_or_else(std::process::id),
                stale.stale_after,
                &cmd,
            )?)
        }
    };
    ctx.out.flush()?;
    Ok(status)
}

fn parent_pid() -> Result<u32, LockError> {
    rustix::process::getppid()
        .map(|p| p.as_raw_nonzero().get() as u32)
        .ok_or(LockError::NoParent)
}

/// Acquire `lock` for `pid`, run `cmd` with SIGINT/SIGTERM/SIGHUP forwarded,
/// then finish: stamp on success, roll back on failure or interruption, and
/// release either way. Returns the command's exit status (128+N for signal
/// N; 126 / 127 when it can't be executed / is not found).
///
/// Errors: [`mem_core::Error::Busy`] when the lock is busy (nothing run);
/// [`mem_core::Error::Io`] on the lock file.
pub fn run_under_lock(
    lock: &Lock,
    pid: u32,
    stale_after: Duration,
    cmd: &[OsString],
) -> Result<u8, LockError> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let (prog, args) = cmd.split_first().ok_or(LockError::NoCommand)?;
    // Catch the signals before taking the lock, so no interruption can leave
    // it held.
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(LockError::Signals)?;
    let held = lock.acquire(pid, stale_after)?;
    for w in &held.warnings {
        warn(NAME, w);
    }
    let interrupted = Arc::new(AtomicI32::new(0));
    let child = Process::new(prog).args(args).spawn();
    let (code, ok) = match child {
        Err(e) => {
            warn(NAME, format!("{}: {e}", prog.to_string_lossy()));
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            (code, false)
        }
        Ok(mut child) => {
            let child_pid = child.id() as i32;
            let handle = signals.handle();
            let flag = interrupted.clone();
            let forwarder = std::thread::spawn(move || {
                for sig in signals.forever() {
                    flag.store(sig, Ordering::SeqCst);
                    let sig = match sig {
                        SIGINT => rustix::process::Signal::INT,
                        SIGTERM => rustix::process::Signal::TERM,
                        _ => rustix::process::Signal::HUP,
                    };
                    if let Some(p) = rustix::process::Pid::from_raw(child_pid) {
                        let _ = rustix::process::kill_process(p, sig);
                    }
                }
            });
            let waited = child.wait();
            handle.close();
            let _ = forwarder.join();
            let st = waited.map_err(|err| LockError::Wait {
                program: prog.to_string_lossy().into_owned(),
                err,
            })?;
            let code = exit_code(st);
            (code, st.success())
        }
    };
    let sig = interrupted.load(Ordering::SeqCst);
    let outcome = if ok && sig == 0 {
        Finish::Success { at: None }
    } else {
        Finish::Failure
    };
    match lock.finish(&held, outcome)? {
        Finished::Released(_) => {}
        Finished::TakenOver(c) => warn(
            NAME,
            format!(
                "{}: taken over meanwhile (now {}): left alone",
                lock.path().display(),
                content_json(&c)
            ),
        ),
    }
    Ok(code)
}

/// A process status as a shell would report it: the exit code, or 128+N
/// when it died of signal N.
pub fn exit_code(st: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (st.code(), st.signal()) {
        (Some(c), _) => (c & 0xff) as u8,
        (None, Some(s)) => (128 + s).clamp(0, 255) as u8,
        _ => 1,
    }
}

/// The default stale window, for help and callers.
pub const STALE_AFTER: Duration = DEFAULT_STALE_AFTER;

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations_are_humane() {
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        for bad in ["", "h", "1x", "1h30", "-5", "1.5h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(STALE_AFTER, parse_duration("1h").unwrap());
    }

    #[test]
    fn times_round_trip() {
        let t = parse_time("2026-07-11T10:00:00.123456789Z").unwrap();
        assert_eq!(fmt_time(t), "2026-07-11T10:00:00.123456789Z");
        assert_eq!(
            fmt_time(parse_time("2026-07-11T12:00:00+02:00").unwrap()),
            "2026-07-11T10:00:00Z"
        );
        assert!(parse_time("yesterday").is_err());
        assert_eq!(parse_time_or_never("never"), Ok(Never(None)));
    }

    #[test]
    fn run_needs_a_command_after_dashes() {
        assert!(Cli::try_parse_from(["mem-lock", "run", "L"]).is_err());
        let cli = Cli::try_parse_from(["mem-lock", "run", "L", "--", "true", "-x"]).unwrap();
        match cli.cmd {
            Cmd::Run { lock, cmd, .. } => {
                assert_eq!(lock, Some(PathBuf::from("L")));
                assert_eq!(cmd, vec![OsString::from("true"), OsString::from("-x")]);
            }
            _ => panic!("not run"),
        }
    }
}
