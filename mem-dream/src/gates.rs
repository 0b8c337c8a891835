//! The four gates, in order (docs/consolidation.md "Gates"):
//! 1. **master** — off with `MEM_DISABLE=1`, `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`,
//!    `autoMemoryEnabled: false` in the user's or the project's settings, or
//!    remote mode (`CLAUDE_CODE_REMOTE=1`, `MEM_REMOTE=1`); and, for a run
//!    without `--force` (the automatic one), `autoDreamEnabled: false`;
//! 2. **time** — at least `--min-hours` since the lock's mtime;
//! 3. **sessions** — at least `--min-sessions` sessions of the project modified
//!    since then, not counting those whose `entrypoint` is excluded, or at
//!    least one daily log (`logs/YYYY/MM/YYYY-MM-DD.md`) modified since then;
//!    the session scan runs at most every `--scan-interval` minutes of the
//!    clock, its result kept in the cache dir (never in the memory dir);
//! 4. **lock** — `.consolidate-lock` free, stale, dead or corrupt.
//!
//! `--force` skips 2 and 3. Checking the gates never changes the lock; only
//! the session scan state is written (not with `--dry-run`).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};
use mem_core::lock::Lock;
use mem_core::memdir;
use mem_core::time::Clock;
use mem_core::{Error, Result};
use serde::{Deserialize, Serialize};

use mem_core::session::SessionFile;

/// What the gates look at.
pub struct Context<'a> {
    /// The memory directory.
    pub dir: &'a Path,
    /// The project's directory (whose `.claude/settings*.json` are read).
    pub cwd: Option<&'a Path>,
    /// Its consolidation lock.
    pub lock: &'a Lock,
    /// The clock.
    pub clock: &'a Clock,
    /// `--min-hours`.
    pub min_hours: f64,
    /// `--min-sessions`.
    pub min_sessions: usize,
    /// `--exclude-entrypoint`.
    pub exclude: &'a [String],
    /// `--scan-interval`, minutes.
    pub scan_interval: f64,
    /// `--force`.
    pub force: bool,
    /// `--dry-run` (no scan state is written).
    pub dry_run: bool,
    /// The lock's stale window.
    pub stale: Duration,
    /// Every session of the project.
    pub sessions: &'a [SessionFile],
    /// The folders scanned.
    pub tdirs: &'a [PathBuf],
}

/// One gate's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// `master`, `time`, `sessions`, `lock`.
    pub name: &'static str,
    /// `Some(true)` open, `Some(false)` closed, `None` not checked (an
    /// earlier gate closed, or skipped by `--force`).
    pub open: Option<bool>,
    /// Why.
    pub detail: String,
}

impl Gate {
    /// `open: …`, `closed: …` or `not checked: …`.
    pub fn describe(&self) -> String {
        let s = match self.open {
            Some(true) => "open",
            Some(false) => "closed",
            None => "not checked",
        };
        format!("{s}: {}", self.detail)
    }
}

/// All four gates, and the sessions that counted.
#[derive(Debug, Clone)]
pub struct Report {
    /// The gates in order.
    pub gates: Vec<Gate>,
    /// The sessions modified since the last consolidation that count.
    pub counted: Vec<SessionFile>,
}

impl Report {
    /// The first closed gate, as `name: detail`.
    pub fn closed(&self) -> Option<String> {
        self.gates
            .iter()
            .find(|g| g.open == Some(false))
            .map(|g| format!("{}: {}", g.name, g.detail))
    }
}

/// The scan state kept in the cache dir.
#[derive(Debug, Serialize, Deserialize)]
struct ScanState {
    scanned_at: String,
    since: Option<String>,
    dirs: Vec<PathBuf>,
    count: usize,
}

/// The scan state file of a memory directory.
pub fn scan_state_path(dir: &Path) -> Result<PathBuf> {
    Ok(memdir::cache_dir_for(dir)?.join("dream-scan.json"))
}

fn ts(t: SystemTime) -> String {
    mem_core::time::fmt_ts(DateTime::<Utc>::from(t))
}

/// The master switch for the project at `cwd`: `Some(reason)` when off —
/// `MEM_DISABLE=1`, memory off as Claude Code reads it
/// ([`memdir::memory_off`]: `CLAUDE_CODE_DISABLE_AUTO_MEMORY`,
/// `autoMemoryEnabled: false`), remote mode ([`memdir::remote_mode`]:
/// `CLAUDE_CODE_REMOTE=1`, `MEM_REMOTE=1`), or, unless `force`,
/// `autoDreamEnabled: false` in the user's or the project's settings
/// ([`memdir::dream_off`]): that setting turns off the automatic run only,
/// and the reason says how to run it by hand.
///
/// Errors: a settings file that is not JSON (named).
pub fn master_off(cwd: Option<&Path>, force: bool) -> Result<Option<String>> {
    if let Some(r) = memdir::memory_off(cwd)? {
        return Ok(Some(r));
    }
    if let Some(r) = memdir::remote_mode() {
        return Ok(Some(r));
    }
    if force {
        return Ok(None);
    }
    Ok(memdir::dream_off(cwd)?.map(|r| {
        format!(
            "{r} (automatic consolidation is off; run it by hand with `mem-dream --force`, or /dream in Claude Code)"
        )
    }))
}

/// Check the gates in order (see module docs).
///
/// Errors: an unreadable lock or settings file.
pub fn check(context: &Context<'_>) -> Result<Report> {
    let mut gates = Vec::with_capacity(4);
    let mut counted = Vec::new();
    let mut closed = false;

    // 1. master
    match master_off(context.cwd, context.force)? {
        Some(r) => {
            gates.push(Gate {
                name: "master",
                open: Some(false),
                detail: r,
            });
            closed = true;
        }
        None => gates.push(Gate {
            name: "master",
            open: Some(true),
            detail: match memdir::dream_off(context.cwd)? {
                Some(r) => format!("consolidation by hand (--force; {r})"),
                None => "consolidation enabled".into(),
            },
        }),
    }

    // 2. time
    let last = context.lock.last_consolidated()?;
    if closed {
        gates.push(Gate {
            name: "time",
            open: None,
            detail: "an earlier gate is closed".into(),
        });
    } else {
        let (hours, text) = match last {
            None => (f64::INFINITY, "never consolidated".to_string()),
            Some(t) => {
                let now: SystemTime = context.clock.now.into();
                let h = match now.duration_since(t) {
                    Ok(d) => d.as_secs_f64() / 3600.0,
                    Err(e) => -(e.duration().as_secs_f64() / 3600.0),
                };
                (
                    h,
                    format!("{h:.1} h since the last consolidation ({})", ts(t)),
                )
            }
        };
        if context.force {
            gates.push(Gate {
                name: "time",
                open: None,
                detail: format!("skipped by --force ({text})"),
            });
        } else if hours >= context.min_hours {
            gates.push(Gate {
                name: "time",
                open: Some(true),
                detail: format!("{text} >= {} h", context.min_hours),
            });
        } else {
            gates.push(Gate {
                name: "time",
                open: Some(false),
                detail: format!("{text} < {} h", context.min_hours),
            });
            closed = true;
        }
    }

    // 3. sessions (the list is also what gather reads, so it is made even
    // under --force).
    let newer: Vec<&SessionFile> = context
        .sessions
        .iter()
        .filter(|s| last.is_none_or(|t| s.mtime > t))
        .collect();
    let excluded = newer
        .iter()
        .filter(|s| {
            s.head
                .entrypoint
                .as_ref()
                .is_some_and(|e| context.exclude.contains(e))
        })
        .count();
    counted.extend(
        newer
            .iter()
            .filter(|s| {
                !s.head
                    .entrypoint
                    .as_ref()
                    .is_some_and(|e| context.exclude.contains(e))
            })
            .map(|&s| s.clone()),
    );
    if closed {
        gates.push(Gate {
            name: "sessions",
            open: None,
            detail: "an earlier gate is closed".into(),
        });
    } else {
        let since = last.map(ts);
        let state_path = scan_state_path(context.dir).ok();
        // Within the cooldown, the previous count stands.
        let cached = (context.scan_interval > 0.0 && !context.force)
            .then_some(state_path.as_ref())
            .flatten()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| serde_json::from_str::<ScanState>(&t).ok())
            .filter(|s| s.since == since && s.dirs == context.tdirs)
            .and_then(|s| {
                let at = mem_core::time::parse_ts(&s.scanned_at)?;
                let age = (context.clock.now - at).num_milliseconds() as f64 / 60_000.0;
                (age >= 0.0 && age < context.scan_interval).then_some((s.count, s.scanned_at))
            });
        let (count, how) = match cached {
            Some((n, at)) => (
                n,
                format!(
                    " (scan of {at}; next scan after {} min)",
                    context.scan_interval
                ),
            ),
            None => {
                if !context.dry_run
                    && let Some(p) = &state_path
                {
                    let st = ScanState {
                        scanned_at: mem_core::time::fmt_ts(context.clock.now),
                        since: since.clone(),
                        dirs: context.tdirs.to_vec(),
                        count: counted.len(),
                    };
                    let _ = mem_core::atomic::write_atomic(
                        p,
                        serde_json::to_string(&st).unwrap_or_default().as_bytes(),
                    );
                }
                (counted.len(), String::new())
            }
        };
        let mut text = format!(
            "{count} session(s) since the last consolidation{}{how}",
            if excluded > 0 {
                format!(" ({excluded} excluded by entrypoint)")
            } else {
                String::new()
            }
        );
        // A daily log newer than the last consolidation is work to do
        // whatever the session count (assistant mode writes only logs).
        let logs = mem_index::daily_log::logs_since(context.dir, last);
        if let Some(first) = logs.first() {
            text.push_str(&format!(
                "; {} daily log(s) newer ({first}{})",
                logs.len(),
                if logs.len() > 1 { ", …" } else { "" }
            ));
        }
        if context.force {
            gates.push(Gate {
                name: "sessions",
                open: None,
                detail: format!("skipped by --force ({text})"),
            });
        } else if count >= context.min_sessions {
            gates.push(Gate {
                name: "sessions",
                open: Some(true),
                detail: format!("{text} >= {}", context.min_sessions),
            });
        } else if !logs.is_empty() {
            gates.push(Gate {
                name: "sessions",
                open: Some(true),
                detail: format!("{text}: a daily log to distil"),
            });
        } else {
            gates.push(Gate {
                name: "sessions",
                open: Some(false),
                detail: format!("{text} < {}", context.min_sessions),
            });
            closed = true;
        }
    }

    // 4. lock (looked at, never changed here).
    if closed {
        gates.push(Gate {
            name: "lock",
            open: None,
            detail: "an earlier gate is closed".into(),
        });
    } else {
        let st = context.lock.status(context.stale)?;
        if st.busy() {
            return Err(Error::Busy {
                path: context.lock.path().to_path_buf(),
                pid: st.pid.unwrap_or(0),
            });
        }
        let detail = match st.reclaim() {
            Some(r) => format!("{r}: will be reclaimed"),
            None if !st.exists => "no lock yet (never consolidated)".into(),
            None => "free".into(),
        };
        gates.push(Gate {
            name: "lock",
            open: Some(true),
            detail,
        });
    }
    Ok(Report { gates, counted })
}
