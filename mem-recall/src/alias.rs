//! The old spellings of the commands that moved to `mem-hook`: `mem-recall
//! --hook …` (the hook as settings files written before name it),
//! `mem-recall hooks install|uninstall|show …` and `mem-recall backtest …`.
//! Each runs the `mem-hook` next to this executable in its place (same
//! stdin, stdout, stderr and exit status), for one release; docs/hooks.md
//! "The mem-recall alias".
//!
//! | old                           | runs                          |
//! |-------------------------------|-------------------------------|
//! | `mem-recall --hook [OPTS]`    | `mem-hook [OPTS]`             |
//! | `mem-recall hooks ACTION …`   | `mem-hook ACTION …`           |
//! | `mem-recall backtest …`       | `mem-hook backtest …`         |

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use mem_core::Exit;

use crate::error::{NAME, RecallError, Result};

/// The binary the old spellings run, found next to `mem-recall`.
pub const MEM_HOOK: &str = "mem-hook";

/// An old spelling, and the arguments `mem-hook` gets for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    /// True for `--hook`: the hook never fails, so a missing `mem-hook`
    /// exits 0 with nothing on stdout.
    pub hook: bool,
    /// The arguments of `mem-hook`.
    pub args: Vec<OsString>,
}

impl Alias {
    /// The alias `args` (the command line without the program name) spell,
    /// if any: `--hook` anywhere (it is dropped; the other arguments pass
    /// on), or `hooks` (dropped) or `backtest` as the first argument.
    pub fn of(args: impl IntoIterator<Item = OsString>) -> Option<Alias> {
        let args: Vec<OsString> = args.into_iter().collect();
        match args.first().map(OsString::as_os_str) {
            Some(a) if a == OsStr::new("hooks") => {
                return Some(Alias {
                    hook: false,
                    args: args[1..].to_vec(),
                });
            }
            Some(a) if a == OsStr::new("backtest") => {
                return Some(Alias { hook: false, args });
            }
            _ => {}
        }
        if !args.iter().any(|a| a == "--hook") {
            return None;
        }
        Some(Alias {
            hook: true,
            args: args.into_iter().filter(|a| a != "--hook").collect(),
        })
    }

    /// Replace this process with `mem-hook` ([`mem_hook_path`]). Returns
    /// only when it cannot: for `--hook` the reason goes to stderr and the
    /// status is 0 (nothing injected); otherwise
    /// [`RecallError::NoMemHook`] (exit 1).
    pub fn exec(self) -> Result<Exit> {
        use std::os::unix::process::CommandExt as _;
        let err = match mem_hook_path() {
            Ok(path) => {
                let e = std::process::Command::new(&path)
                    .arg0(MEM_HOOK)
                    .args(&self.args)
                    .exec();
                RecallError::NoMemHook { path, err: e }
            }
            Err(e) => e,
        };
        if self.hook {
            eprintln!("{NAME}: hook: {err}; nothing injected");
            return Ok(Exit::Success);
        }
        Err(err)
    }
}

/// `mem-hook` in the directory of the running executable (symlinks
/// resolved, as the system reports it).
///
/// Errors: [`RecallError::NoProgramPath`] when that path is unknown.
pub fn mem_hook_path() -> Result<PathBuf> {
    let exe = std::env::current_exe().map_err(RecallError::NoProgramPath)?;
    let dir = exe.parent().map(PathBuf::from).unwrap_or_default();
    Ok(dir.join(MEM_HOOK))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(args: &[&str]) -> Option<Alias> {
        Alias::of(args.iter().map(OsString::from))
    }

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_old_spellings_name_mem_hooks_arguments() {
        assert_eq!(
            of(&["--hook"]),
            Some(Alias {
                hook: true,
                args: vec![]
            })
        );
        assert_eq!(
            of(&["--memory-dir", "/m", "--hook", "--today", "2026-07-11"]),
            Some(Alias {
                hook: true,
                args: os(&["--memory-dir", "/m", "--today", "2026-07-11"])
            })
        );
        assert_eq!(
            of(&["hooks", "install", "--codex", "--dry-run"]),
            Some(Alias {
                hook: false,
                args: os(&["install", "--codex", "--dry-run"])
            })
        );
        assert_eq!(
            of(&["backtest", "dir", "--format", "jsonl"]),
            Some(Alias {
                hook: false,
                args: os(&["backtest", "dir", "--format", "jsonl"])
            })
        );
        assert_eq!(of(&["--task", "hooks"]), None);
        assert_eq!(of(&["context", "--task", "backtest"]), None);
        assert_eq!(of(&[]), None);
    }
}
