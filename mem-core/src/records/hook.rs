//! What a hook prints on stdout, as a type (docs/records.md "Hook
//! output"): Claude Code's hook output `{"hookSpecificOutput":{…}}`, the
//! inner object tagged by `hookEventName`. Codex reads the same shape.
//!
//! `mem-recall --hook` answers `SessionStart` and `UserPromptSubmit` with
//! `additionalContext`, and `PreToolUse` with `additionalContext` and/or
//! `permissionDecision` and `permissionDecisionReason`. Fields are printed
//! in the order declared, after `hookEventName`; optional fields that are
//! absent are not printed. Unknown fields are kept in `extra` and written
//! back after the known ones.

use serde::{Deserialize, Serialize};

use super::Extra;

/// A hook's answer: one JSON object on stdout,
/// `{"hookSpecificOutput":{"hookEventName":…, …}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookOutput {
    /// What the answer says for its event.
    #[serde(rename = "hookSpecificOutput")]
    pub specific: HookSpecificOutput,
    /// Unknown fields (Claude Code's `continue`, `systemMessage`, …), kept.
    #[serde(flatten)]
    pub extra: Extra,
}

impl HookOutput {
    /// The answer holding `specific` and nothing else.
    pub fn new(specific: HookSpecificOutput) -> HookOutput {
        HookOutput {
            specific,
            extra: Extra::new(),
        }
    }

    /// The answer as printed: its JSON on one line, then `\n`.
    ///
    /// Errors: none in practice (every key is a string); the JSON
    /// serializer's error type is kept.
    pub fn to_line(&self) -> serde_json::Result<String> {
        let mut line = serde_json::to_string(self)?;
        line.push('\n');
        Ok(line)
    }
}

/// `hookSpecificOutput`: the answer for one event, tagged by
/// `hookEventName`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "hookEventName")]
pub enum HookSpecificOutput {
    /// `SessionStart`: context added at the start of a session.
    SessionStart(AddedContext),
    /// `UserPromptSubmit`: context added with the user's prompt.
    UserPromptSubmit(AddedContext),
    /// `PreToolUse`: a reminder and/or a decision on the tool call.
    PreToolUse(PreToolUseOutput),
}

impl HookSpecificOutput {
    /// The `hookEventName` as printed (`SessionStart`, `UserPromptSubmit`,
    /// `PreToolUse`).
    pub fn event(&self) -> &'static str {
        match self {
            HookSpecificOutput::SessionStart(_) => "SessionStart",
            HookSpecificOutput::UserPromptSubmit(_) => "UserPromptSubmit",
            HookSpecificOutput::PreToolUse(_) => "PreToolUse",
        }
    }

    /// The `additionalContext`, when the answer has one.
    pub fn additional_context(&self) -> Option<&str> {
        match self {
            HookSpecificOutput::SessionStart(c) | HookSpecificOutput::UserPromptSubmit(c) => {
                Some(&c.additional_context)
            }
            HookSpecificOutput::PreToolUse(p) => p.additional_context.as_deref(),
        }
    }
}

/// The context a `SessionStart` or `UserPromptSubmit` answer adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddedContext {
    /// The text put in the agent's context.
    #[serde(rename = "additionalContext")]
    pub additional_context: String,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

impl AddedContext {
    /// The answer adding `text` and nothing else.
    pub fn new(text: String) -> AddedContext {
        AddedContext {
            additional_context: text,
            extra: Extra::new(),
        }
    }
}

/// A `PreToolUse` answer: a decision on the tool call, a reminder, or both
/// (`enforce: ask` gives both; `enforce: deny` only the decision).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreToolUseOutput {
    /// Whether the tool call runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<PermissionDecision>,
    /// Why (shown to the user for `ask` and `allow`, to the agent for
    /// `deny`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    /// The text put in the agent's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `permissionDecision` of a [`PreToolUseOutput`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    /// The call runs without asking.
    Allow,
    /// The call is refused; the reason goes to the agent.
    Deny,
    /// The user is asked; the reason is shown to them.
    Ask,
    /// The decision is left to the agent's other rules.
    Defer,
    /// A decision this version does not know, kept as written.
    #[serde(untagged)]
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_serialize_as_documented() {
        let start = HookOutput::new(HookSpecificOutput::SessionStart(AddedContext::new(
            "# Recalled memories\n…".into(),
        )));
        assert_eq!(
            start.to_line().unwrap(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":\"# Recalled memories\\n…\"}}\n"
        );
        let ask = HookOutput::new(HookSpecificOutput::PreToolUse(PreToolUseOutput {
            permission_decision: Some(PermissionDecision::Ask),
            permission_decision_reason: Some("why".into()),
            additional_context: Some("reminder".into()),
            extra: Extra::new(),
        }));
        let line = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"why","additionalContext":"reminder"}}"#;
        assert_eq!(serde_json::to_string(&ask).unwrap(), line);
        let back: HookOutput = serde_json::from_str(line).unwrap();
        assert_eq!(back, ask);
        assert_eq!(back.specific.event(), "PreToolUse");
        assert_eq!(back.specific.additional_context(), Some("reminder"));
        // unknown fields and decisions survive, in their place
        let odd = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"later","x":1},"systemMessage":"hi"}"#;
        let back: HookOutput = serde_json::from_str(odd).unwrap();
        let HookSpecificOutput::PreToolUse(p) = &back.specific else {
            panic!("{back:?}")
        };
        assert_eq!(
            p.permission_decision,
            Some(PermissionDecision::Other("later".into()))
        );
        assert_eq!(serde_json::to_string(&back).unwrap(), odd);
    }
}
