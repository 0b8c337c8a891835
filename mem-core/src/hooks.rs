//! The agent hooks mem installs: one table, read by the installer and by
//! the docs, so the events, commands and timeouts are said once.
//!
//! Format: Claude Code `settings.json` `hooks` (event → matcher groups →
//! `{"type":"command","command":…,"timeout":…}`); Codex `hooks.json` has the
//! same shape (see docs/hooks.md). Every command reads the hook's JSON on
//! stdin ([`HookInput`], the one type every tool reads it into) and never
//! blocks the agent: on any error it prints nothing on stdout and exits 0.

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
    /// The agent's timeout for the command, in seconds (Claude Code; Codex:
    /// [`HookSpec::codex_timeout_secs`]).
    pub timeout_secs: u32,
}

/// The longest timeout Codex gives a `SessionEnd` hook, in seconds: it
/// clamps a larger one to this and prints `warning: clamping SessionEnd hook
/// timeout to 3s` before every session (its default there is 1 s). Other
/// events have no cap (default 600 s).
pub const CODEX_SESSION_END_MAX_SECS: u32 = 3;

/// The write path a hook runs on the session that sent it: `replay --hook`
/// reads the hook JSON (its `transcript_path`, `hook_event_name`) and emits
/// the events to capture (on `Stop`, the turn that just ended). What
/// `mem-index write` reports goes to stderr: a `Stop` hook's stdout is read
/// as its answer (JSON for Claude Code, invalid as plain text for Codex).
pub const WRITE_PATH: &str = "mem-transcript replay --hook | mem-extract | mem-index write >&2";

/// What the `PreCompact` hook runs: `replay --hook` emits the session's
/// events since the last compaction and `mem-extract session --hook` folds
/// them into the session summary. The summary's path, which `mem-extract
/// session` prints, goes to stderr like the write path's report: Codex
/// reads a hook's plain-text stdout as a malformed answer.
pub const COMPACT_PATH: &str = "mem-transcript replay --hook | mem-extract session --hook >&2";

/// Every hook mem installs, in the order they are written.
pub const HOOKS: &[HookSpec] = &[
    HookSpec {
        event: "SessionStart",
        matcher: None,
        command: "mem-hook",
        timeout_secs: 10,
    },
    HookSpec {
        event: "UserPromptSubmit",
        matcher: None,
        command: "mem-hook",
        timeout_secs: 10,
    },
    HookSpec {
        event: "PreToolUse",
        matcher: Some("Bash"),
        command: "mem-hook",
        timeout_secs: 5,
    },
    HookSpec {
        event: "Stop",
        matcher: None,
        command: WRITE_PATH,
        timeout_secs: 30,
    },
    HookSpec {
        event: "Stop",
        matcher: None,
        command: "mem-hook",
        timeout_secs: 30,
    },
    HookSpec {
        event: "PreCompact",
        matcher: None,
        command: COMPACT_PATH,
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
    "mem-hook",
    "mem-dream",
];

/// The JSON object an agent sends a hook command on stdin: one type for
/// every mem tool that reads it (`mem-hook`, `mem-transcript
/// replay --hook`). See docs/hooks.md for what each event answers.
///
/// Claude Code sends `session_id`, `transcript_path`, `cwd`,
/// `permission_mode` and `hook_event_name` with every event, plus the
/// event's own fields: `source` (`SessionStart`: `startup`, `resume`,
/// `clear`, `compact`), `prompt` (`UserPromptSubmit`), `tool_name`,
/// `tool_input`, `tool_use_id` (`PreToolUse`), `stop_hook_active`
/// (`Stop`, `SubagentStop`), `trigger` (`PreCompact`), `reason`
/// (`SessionEnd`). Codex sends the same shapes plus `turn_id` and `model`,
/// and a `transcript_path` that is its rollout
/// (`$CODEX_HOME/sessions/…/rollout-….jsonl`) or `null` before one exists.
///
/// Every field is optional (a missing field and `null` both read as
/// `None`); fields not listed here are ignored, so a newer agent's
/// additions never make the input unreadable. Each tool decides what a
/// missing field means for it (e.g. `mem-hook` refuses an input
/// without `hook_event_name`).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub struct HookInput {
    /// The session's id (Claude Code: a UUID; Codex: the thread id).
    pub session_id: Option<String>,
    /// The session's transcript file (Claude Code's `<session>.jsonl`,
    /// Codex's rollout), `~` allowed; `None` when the agent has none yet.
    pub transcript_path: Option<String>,
    /// The session's working directory.
    pub cwd: Option<String>,
    /// The event: `SessionStart`, `UserPromptSubmit`, `PreToolUse`,
    /// `PostToolUse`, `Stop`, `SubagentStop`, `PreCompact`, `SessionEnd`.
    pub hook_event_name: Option<String>,
    /// `SessionStart`: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// `UserPromptSubmit`: the prompt.
    pub prompt: Option<String>,
    /// `PreToolUse`: the tool about to run (`Bash`, …).
    pub tool_name: Option<String>,
    /// `PreToolUse`: the tool's input; for `Bash`, `{"command": …}`.
    pub tool_input: Option<serde_json::Value>,
    /// `PreToolUse`: the tool call's id.
    pub tool_use_id: Option<String>,
    /// `Stop`, `SubagentStop`: true when the agent goes on because a `Stop`
    /// hook blocked it.
    pub stop_hook_active: Option<bool>,
    /// The turn's id: sent by Codex, not by Claude Code (how a Codex input
    /// is recognised).
    pub turn_id: Option<String>,
    /// The model's name: sent by Codex (Claude Code: `SessionStart` only).
    pub model: Option<String>,
}

impl HookInput {
    /// The event name, or `""` when the input has none.
    pub fn event(&self) -> &str {
        self.hook_event_name.as_deref().unwrap_or("")
    }

    /// True for an input Codex sent (it has a `turn_id`).
    pub fn is_codex(&self) -> bool {
        self.turn_id.is_some()
    }
}

impl HookSpec {
    /// The timeout written into Codex's `hooks.json`: [`Self::timeout_secs`]
    /// within Codex's cap ([`CODEX_SESSION_END_MAX_SECS`] for `SessionEnd`),
    /// so Codex takes it as written, without a warning.
    pub fn codex_timeout_secs(&self) -> u32 {
        if self.event == "SessionEnd" {
            self.timeout_secs.min(CODEX_SESSION_END_MAX_SECS)
        } else {
            self.timeout_secs
        }
    }

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
    fn codex_timeouts_are_within_its_caps() {
        for h in HOOKS {
            let t = h.codex_timeout_secs();
            assert!(t >= 1 && t <= h.timeout_secs, "{}", h.event);
            if h.event == "SessionEnd" {
                assert_eq!(t, CODEX_SESSION_END_MAX_SECS);
            } else {
                assert_eq!(t, h.timeout_secs);
            }
        }
    }

    #[test]
    fn every_stage_gets_its_path() {
        let stop = HOOKS.iter().find(|h| h.event == "Stop").unwrap();
        assert_eq!(
            stop.command_with(|t| format!("'/opt/mem/bin/{t}'")),
            "'/opt/mem/bin/mem-transcript' replay --hook | '/opt/mem/bin/mem-extract' | '/opt/mem/bin/mem-index' write >&2"
        );
        let pre = HOOKS.iter().find(|h| h.event == "PreToolUse").unwrap();
        assert_eq!(pre.matcher, Some("Bash"));
        assert_eq!(pre.command_with(|t| format!("/b/{t}")), "/b/mem-hook");
    }

    #[test]
    fn hook_input_reads_both_agents_shapes_and_ignores_unknown_fields() {
        let claude: HookInput = serde_json::from_str(
            r#"{"session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","description":"run"},"tool_use_id":"toolu_1","future":{"x":1}}"#,
        )
        .unwrap();
        assert_eq!(claude.event(), "PreToolUse");
        assert_eq!(claude.tool_input.as_ref().unwrap()["command"], "npm test");
        assert_eq!(claude.tool_use_id.as_deref(), Some("toolu_1"));
        assert!(!claude.is_codex());
        let codex: HookInput = serde_json::from_str(
            r#"{"session_id":"0199","transcript_path":null,"cwd":"/p","hook_event_name":"Stop","model":"gpt-5-codex","turn_id":"t1","stop_hook_active":false}"#,
        )
        .unwrap();
        assert!(codex.is_codex());
        assert_eq!(codex.transcript_path, None);
        assert_eq!(codex.stop_hook_active, Some(false));
        assert_eq!(codex.model.as_deref(), Some("gpt-5-codex"));
        let empty: HookInput = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, HookInput::default());
        assert_eq!(empty.event(), "");
    }
}
