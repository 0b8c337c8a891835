//! The agent hooks mem installs: one table, read by the installer and by
//! the docs, so the events, commands and timeouts are said once.
//!
//! Format: Claude Code `settings.json` `hooks` (event → matcher groups →
//! `{"type":"command","command":…,"timeout":…}`); Codex `hooks.json` has the
//! same shape (see docs/hooks.md). Every command reads the hook's JSON on
//! stdin and never blocks the agent: on any error it prints nothing on stdout
//! and exits 0.

/// One hook mem installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSpec {
    /// The event name (`SessionStart`, `UserPromptSubmit`, `PreToolUse`,
    /// `Stop`, `PreCompact`, `SessionEnd`).
    pub event: &'static str,
    /// The matcher (`Bash` for `PreToolUse`), or `None` for every case.
    pub matcher: Option<&'static str>,
    /// The command: a shell pipeline of mem tools named by their bare
    /// names; the installer puts each tool's absolute path in their place
    /// (see [`HookSpec::command_with`]).
    pub command: &'static str,
    /// The agent's timeout for the command, in seconds.
    pub timeout_secs: u32,
}

/// The write path a hook runs on the session that sent it: `replay --hook`
/// reads the hook JSON (its `transcript_path`, `hook_event_name`) and emits
/// the events to capture (on `Stop`, the turn that just ended). What
/// `mem-index write` reports goes to stderr: a `Stop` hook's stdout is read
/// as its answer (JSON for Claude Code, invalid as plain text for Codex).
pub const WRITE_PATH: &str = "mem-transcript replay --hook | mem-extract | mem-index write >&2";

/// Every hook mem installs, in the order they are written.
pub const HOOKS: &[HookSpec] = &[
    HookSpec {
        event: "SessionStart",
        matcher: None,
        command: "mem-recall --hook",
        timeout_secs: 10,
    },
    HookSpec {
        event: "UserPromptSubmit",
        matcher: None,
        command: "mem-recall --hook",
        timeout_secs: 10,
    },
    HookSpec {
        event: "PreToolUse",
        matcher: Some("Bash"),
        command: "mem-recall --hook",
        timeout_secs: 5,
    },
    HookSpec {
        event: "Stop",
        matcher: None,
        command: WRITE_PATH,
        timeout_secs: 30,
    },
    HookSpec {
        event: "PreCompact",
        matcher: None,
        command: "mem-transcript replay --hook | mem-extract session --hook",
        timeout_secs: 30,
    },
    HookSpec {
        event: "SessionEnd",
        matcher: None,
        command: WRITE_PATH,
        timeout_secs: 60,
    },
];

/// The mem tools a hook command may name.
pub const TOOLS: &[&str] = &[
    "mem-transcript",
    "mem-extract",
    "mem-index",
    "mem-recall",
    "mem-dream",
];

impl HookSpec {
    /// The command with each tool name at the start of a pipeline stage
    /// replaced by `resolve(name)` (e.g. an absolute, shell-quoted path).
    pub fn command_with(&self, resolve: impl Fn(&str) -> String) -> String {
        self.command
            .split(" | ")
            .map(|stage| match stage.split_once(' ') {
                Some((tool, rest)) if TOOLS.contains(&tool) => format!("{} {rest}", resolve(tool)),
                None if TOOLS.contains(&stage) => resolve(stage),
                _ => stage.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_gets_its_path() {
        let stop = HOOKS.iter().find(|h| h.event == "Stop").unwrap();
        assert_eq!(
            stop.command_with(|t| format!("'/opt/mem/bin/{t}'")),
            "'/opt/mem/bin/mem-transcript' replay --hook | '/opt/mem/bin/mem-extract' | '/opt/mem/bin/mem-index' write >&2"
        );
        let pre = HOOKS.iter().find(|h| h.event == "PreToolUse").unwrap();
        assert_eq!(pre.matcher, Some("Bash"));
        assert_eq!(
            pre.command_with(|t| format!("/b/{t}")),
            "/b/mem-recall --hook"
        );
    }
}
