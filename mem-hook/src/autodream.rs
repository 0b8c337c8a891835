//! Auto-dream: `SessionStart` checks the consolidation gates cheaply and,
//! when they open, starts `mem-dream` detached (docs/hooks.md "Auto-dream").
//!
//! The cheap check, in order (each a few `stat`s, no transcript read):
//! 1. **master** — [`master_off`]: memory off, `autoDreamEnabled: false`
//!    (user or project settings), remote mode (`CLAUDE_CODE_REMOTE`,
//!    `MEM_REMOTE`);
//! 2. the memory directory exists (nothing is created for a project without
//!    one);
//! 3. **lock** — no live holder of `.consolidate-lock`;
//! 4. **time** — at least [`MIN_HOURS`] since the lock's mtime;
//! 5. **throttle** — no start from a hook in the last
//!    [`START_INTERVAL`] (the marker [`START_MARK`] in the cache folder);
//! 6. **sessions** — at least [`MIN_SESSIONS`] session files of the project
//!    modified since the last consolidation (file names and mtimes only),
//!    or a daily log modified since then.
//!
//! `mem-dream` itself checks its four gates again, precisely (the sessions'
//! recorded cwd and entrypoint), and takes the lock: when a cheap check
//! opened a gate the precise one closes, it exits "not due"; a second start
//! finds the lock held and exits 75. Its output goes to [`LOG_FILE`] in the
//! memory dir's cache folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use mem_core::lock::Lock;
use mem_core::memdir;

use mem_recall::{NAME, RecallError};

/// Hours since the last consolidation before a start (mem-dream's
/// `--min-hours` default).
pub const MIN_HOURS: f64 = mem_core::lock::DEFAULT_MIN_HOURS;

/// Sessions since the last consolidation before a start (mem-dream's
/// `--min-sessions` default).
pub const MIN_SESSIONS: usize = mem_core::lock::DEFAULT_MIN_SESSIONS;

/// Least time between two starts from a hook (mem-dream's
/// `--scan-interval` default).
pub const START_INTERVAL: Duration =
    Duration::from_secs(mem_core::lock::DEFAULT_SCAN_INTERVAL_MIN as u64 * 60);

/// The marker of the last start, in the memory dir's cache folder.
pub const START_MARK: &str = "dream-start";

/// Where the started mem-dream writes its stdout and stderr, in the memory
/// dir's cache folder (emptied when over [`LOG_MAX_BYTES`]).
pub const LOG_FILE: &str = "dream.log";

/// Size past which [`LOG_FILE`] is emptied before a start.
pub const LOG_MAX_BYTES: u64 = 1 << 20;

/// Why auto-dream is off for the project at `cwd` (Claude Code's master
/// gate), or `None`: memory off or `autoDreamEnabled: false`
/// ([`memdir::dream_off`]), or remote mode ([`memdir::remote_mode`]).
///
/// Errors: a settings file that is not JSON (named).
pub fn master_off(cwd: &Path) -> mem_core::Result<Option<String>> {
    if let Some(r) = memdir::dream_off(Some(cwd))? {
        return Ok(Some(r));
    }
    Ok(memdir::remote_mode())
}

/// The cheap check (see module docs): `Ok(())` when mem-dream should be
/// started for `memory_dir` (project at `cwd`), else `Err(reason)`.
pub fn due(memory_dir: &Path, cwd: &Path) -> Result<(), String> {
    match master_off(cwd) {
        Ok(Some(r)) => return Err(format!("master: {r}")),
        Ok(None) => {}
        Err(e) => return Err(format!("master: {e}")),
    }
    if !memory_dir.is_dir() {
        return Err(format!("{} does not exist", memory_dir.display()));
    }
    let lock = Lock::in_dir(memory_dir);
    let st = lock
        .status(mem_core::lock::DEFAULT_STALE_AFTER)
        .map_err(|e| format!("lock: {e}"))?;
    if st.busy() {
        return Err(format!(
            "lock: held by live process {}",
            st.pid.unwrap_or(0)
        ));
    }
    let last = st.mtime.filter(|_| st.exists);
    let now = SystemTime::now();
    if let Some(t) = last {
        let hours = now
            .duration_since(t)
            .map_or(0.0, |d| d.as_secs_f64() / 3600.0);
        if hours < MIN_HOURS {
            return Err(format!("time: {hours:.1} h < {MIN_HOURS} h"));
        }
    }
    let cache = memdir::cache_dir_for(memory_dir).map_err(|e| e.to_string())?;
    if let Ok(m) = std::fs::metadata(cache.join(START_MARK))
        && let Ok(t) = m.modified()
        && now.duration_since(t).is_ok_and(|d| d < START_INTERVAL)
    {
        return Err(format!(
            "throttle: started less than {} min ago",
            START_INTERVAL.as_secs() / 60
        ));
    }
    let n = sessions_since(cwd, last);
    // a daily log newer than the last consolidation is work to do
    if n < MIN_SESSIONS && mem_index::daily_log::logs_since(memory_dir, last).is_empty() {
        return Err(format!("sessions: {n} < {MIN_SESSIONS}"));
    }
    Ok(())
}

/// Session files of the project at `cwd` (every worktree's transcript
/// folders) modified after `since` (all when `None`), by name and mtime.
pub fn sessions_since(cwd: &Path, since: Option<SystemTime>) -> usize {
    let root = memdir::project_root(cwd, false);
    let roots = memdir::project_worktrees(&root);
    let Ok(dirs) = memdir::transcript_dirs_for(&roots) else {
        return 0;
    };
    let mut n = 0;
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            if !mem_core::session::is_session_name(&e.file_name().to_string_lossy()) {
                continue;
            }
            let Ok(m) = e.metadata() else { continue };
            if m.is_file() && since.is_none_or(|s| m.modified().is_ok_and(|t| t > s)) {
                n += 1;
            }
        }
    }
    n
}

/// The mem-dream to start: the one next to the running executable, else
/// `mem-dream` found on `PATH`.
pub fn dream_binary() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join("mem-dream")))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("mem-dream"))
}

/// Start `mem-dream --memory-dir DIR --cwd CWD` detached: its own process
/// group, stdin from `/dev/null`, stdout and stderr appended to
/// [`LOG_FILE`], [`memdir::HOOK_GUARD_ENV`] set so that no hook of an agent
/// it may run starts anything; never waited for. Touches [`START_MARK`].
///
/// Returns the child's PID. Errors: the cache folder, log or process cannot
/// be made.
pub fn start(memory_dir: &Path, cwd: &Path) -> crate::error::Result<u32> {
    use std::os::unix::process::CommandExt;
    let cache = memdir::cache_dir_for(memory_dir)?;
    std::fs::create_dir_all(&cache).map_err(|err| RecallError::Cannot {
        action: "create",
        path: cache.clone(),
        err,
    })?;
    let log_path = cache.join(LOG_FILE);
    let big = std::fs::metadata(&log_path).is_ok_and(|m| m.len() > LOG_MAX_BYTES);
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(!big)
        .write(true)
        .truncate(big)
        .open(&log_path)
        .map_err(|err| RecallError::Cannot {
            action: "open",
            path: log_path.clone(),
            err,
        })?;
    let err = log.try_clone().map_err(|err| RecallError::Cannot {
        action: "open",
        path: log_path.clone(),
        err,
    })?;
    mem_core::atomic::write_unsynced(
        &cache.join(START_MARK),
        format!("{}\n", std::process::id()).as_bytes(),
    )?;
    let bin = dream_binary();
    let child = Command::new(&bin)
        .arg("--memory-dir")
        .arg(memory_dir)
        .arg("--cwd")
        .arg(cwd)
        .current_dir(cwd)
        .env(memdir::HOOK_GUARD_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(err))
        .process_group(0)
        .spawn()
        .map_err(|err| RecallError::Cannot {
            action: "start",
            path: bin.clone(),
            err,
        })?;
    // Not waited for: it outlives the hook and is reaped by init.
    Ok(child.id())
}

/// What `SessionStart` does: [`due`], then [`start`]; says on stderr what
/// happened. Never fails.
pub fn on_session_start(memory_dir: &Path, cwd: &Path) {
    match due(memory_dir, cwd) {
        Ok(()) => match start(memory_dir, cwd) {
            Ok(pid) => eprintln!(
                "{NAME}: hook: consolidation due; mem-dream started (pid {pid}, log {})",
                memdir::cache_dir_for(memory_dir)
                    .map(|c| c.join(LOG_FILE).display().to_string())
                    .unwrap_or_default()
            ),
            Err(e) => eprintln!("{NAME}: hook: consolidation due but not started: {e:#}"),
        },
        Err(why) => eprintln!("{NAME}: hook: no consolidation: {why}"),
    }
}
