//! The `/dream` custom command of Claude Code that `hooks install` writes
//! beside the settings file (docs/hooks.md "The /dream command").
//!
//! Claude Code reads custom slash commands from `commands/*.md` of its
//! config folder (`~/.claude/commands/`, user scope) and of the project
//! (`<project>/.claude/commands/`, project scope). mem's `dream.md` asks
//! Claude to run `mem-dream --force` (the tool by its absolute path, in the
//! project's directory, so the project's memory directory is the one
//! consolidated) and to report the plan: a consolidation by hand, which
//! `autoDreamEnabled: false` leaves on.
//!
//! Only for Claude Code's own settings files (user or `--project`): a file
//! named by `--settings` gets no command.
//!
//! The file is mem's own when its text is exactly what mem writes for the
//! bin dir it names ([`is_mems`]): only such a file is updated or removed;
//! a user's own `dream.md` is never overwritten nor removed.

use std::path::{Path, PathBuf};

use mem_core::Error;

/// The command's file name: `/dream`.
pub const FILE: &str = "dream.md";

/// Where the `/dream` command goes for the settings file `settings`:
/// `commands/dream.md` in the same folder (`~/.claude/commands/dream.md`
/// for `~/.claude/settings.json`, `<project>/.claude/commands/dream.md` for
/// the project's).
pub fn command_path(settings: &Path) -> PathBuf {
    settings
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("commands")
        .join(FILE)
}

/// The text of mem's `dream.md` with the tools in `bin`.
pub fn text(bin: &Path) -> String {
    let dream = crate::quote::quote(&bin.join("mem-dream").to_string_lossy());
    format!(
        "---
description: Consolidate this project's memory now (mem-dream --force) and report the plan
argument-hint: \"[--dry-run]\"
allowed-tools: Bash({dream} --force:*)
---
<!-- written by `mem-hook install`; `mem-hook uninstall` removes it while it is unchanged -->
Consolidate this project's memory now with mem.

1. Run this command with the Bash tool, in the project's root directory (mem-dream
   consolidates the memory directory of the project it runs in, the one
   `mem-index path` prints):

    {dream} --force --explain --format text $ARGUMENTS

2. Report the plan it printed, one line per op: merge, supersede, update, create,
   retire, redact, absolutize-date (each with its memory and reason), then the
   index. Quote the gate and error lines it wrote on stderr. When it says
   `not due` or `nothing to change`, say so and why.
3. Say that `mem-dream undo` takes the run back.

Do not edit the memory files yourself.
"
    )
}

/// True when `content` is mem's `dream.md` ([`text`]) for the bin dir its
/// command line names.
pub fn is_mems(content: &str) -> bool {
    let Some(line) = content
        .lines()
        .find(|l| l.starts_with("    ") && l.contains("mem-dream") && l.contains(" --force "))
    else {
        return false;
    };
    let Some(words) = shlex::split(line.trim()) else {
        return false;
    };
    let Some(exe) = words.first().map(Path::new) else {
        return false;
    };
    if exe.file_name().is_none_or(|n| n != "mem-dream") {
        return false;
    }
    let bin = exe.parent().unwrap_or_else(|| Path::new("/"));
    content == text(bin)
}

/// What is at `path`: nothing, mem's command for `bin`, mem's command for
/// another bin dir, or someone else's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// No file.
    Missing,
    /// mem's command, as it would be written now.
    Installed,
    /// mem's command for another bin dir.
    Differs,
    /// A file mem did not write (or one edited since): never touched.
    Foreign,
}

/// The state of the `/dream` command at `path` for tools in `bin`.
///
/// Errors: the file exists but cannot be read.
pub fn state(path: &Path, bin: &Path) -> mem_core::Result<State> {
    let content = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::Missing),
        Err(e) => return Err(Error::io(path, e)),
    };
    Ok(if content == text(bin) {
        State::Installed
    } else if is_mems(&content) {
        State::Differs
    } else {
        State::Foreign
    })
}

/// Install mem's `/dream` command beside `settings` (tools in `bin`);
/// with `dry_run` print the diff on stdout and change nothing. `project`
/// is the project root when the file is the project's: no link may lie
/// between it and the file. Prints what it did, as `hooks install` does.
///
/// Errors: a link below the project root, a file that cannot be read or
/// written.
pub fn install(
    settings: &Path,
    bin: &Path,
    dry_run: bool,
    project: Option<&Path>,
) -> mem_core::Result<()> {
    let path = command_path(settings);
    if let Some(root) = project {
        mem_core::confine::check_below(root, &path)?;
    }
    let new = text(bin);
    let old = match state(&path, bin)? {
        State::Installed => {
            say(
                dry_run,
                &format!(
                    "{}: unchanged (mem's /dream command is already there)",
                    path.display()
                ),
            );
            return Ok(());
        }
        State::Foreign => {
            say(
                dry_run,
                &format!(
                    "{}: left alone (a /dream command mem did not write; mem's is not installed)",
                    path.display()
                ),
            );
            return Ok(());
        }
        State::Missing => None,
        State::Differs => Some(std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?),
    };
    if dry_run {
        eprintln!("{}: dry run, nothing written", path.display());
        let label = path.display().to_string();
        print!(
            "{}",
            mem_core::diff::unified(label.trim_start_matches('/'), old.as_deref(), Some(&new))
        );
        return Ok(());
    }
    mem_core::atomic::write_atomic(&path, new.as_bytes())?;
    println!(
        "wrote {} (/dream: consolidate the project's memory now with mem-dream --force)",
        path.display()
    );
    Ok(())
}

/// Remove mem's `/dream` command beside `settings` when it is still mem's
/// own ([`is_mems`]); a file mem did not write is left alone. With
/// `dry_run` nothing is removed. `project`: as for [`install`].
///
/// Errors: a link below the project root, a file that cannot be read or
/// removed.
pub fn uninstall(settings: &Path, dry_run: bool, project: Option<&Path>) -> mem_core::Result<()> {
    let path = command_path(settings);
    if let Some(root) = project {
        mem_core::confine::check_below(root, &path)?;
    }
    let content = match std::fs::read(&path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            say(
                dry_run,
                &format!("{}: unchanged (no such file)", path.display()),
            );
            return Ok(());
        }
        Err(e) => return Err(Error::io(&path, e)),
    };
    if !is_mems(&content) {
        say(
            dry_run,
            &format!(
                "{}: left alone (a /dream command mem did not write, or one edited since)",
                path.display()
            ),
        );
        return Ok(());
    }
    if dry_run {
        eprintln!(
            "{}: dry run, nothing removed (mem's /dream command would be removed)",
            path.display()
        );
        return Ok(());
    }
    std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
    // the commands folder goes too when mem's file was all it held
    if let Some(d) = path.parent() {
        let _ = std::fs::remove_dir(d);
    }
    println!("removed {} (mem's /dream command)", path.display());
    Ok(())
}

/// The status line of the `/dream` command beside `settings` for tools in
/// `bin`, as `hooks status` prints it.
pub fn status_line(settings: &Path, bin: &Path) -> String {
    let path = command_path(settings);
    match state(&path, bin) {
        Ok(State::Installed) => format!("/dream command: {} (mem's)", path.display()),
        Ok(State::Missing) => format!("/dream command: {} (none)", path.display()),
        Ok(State::Differs) => format!(
            "/dream command: {} (mem's, for another bin dir; install updates it)",
            path.display()
        ),
        Ok(State::Foreign) => format!("/dream command: {} (not mem's; left alone)", path.display()),
        Err(e) => format!("/dream command: {e}"),
    }
}

/// Print `line` on stdout, or on stderr for a dry run (whose stdout is the
/// diff), as the settings file's lines are.
fn say(dry_run: bool, line: &str) {
    if dry_run {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mems_own_text_is_recognised_for_any_bin_dir_and_nothing_else() {
        for bin in ["/usr/local/bin", "/home/u/my tools/bin", "/opt/it's/bin"] {
            let t = text(Path::new(bin));
            assert!(is_mems(&t), "{bin}:\n{t}");
            assert!(!is_mems(&t.replace("Do not edit", "Never edit")));
            assert!(!is_mems(&format!("{t}\nmore")));
        }
        assert!(!is_mems("Run mem-dream --force and tell me.\n"));
        assert_eq!(
            command_path(Path::new("/h/.claude/settings.json")),
            Path::new("/h/.claude/commands/dream.md")
        );
    }
}
