//! Whether Codex trusts mem's hooks, decided as Codex decides it.
//!
//! Codex runs a hook of a user or project `hooks.json` only when its
//! `config.toml` holds `hooks.state."<key>".trusted_hash` equal to the
//! hook's current hash (Codex's `/hooks` review writes it; `codex exec
//! --dangerously-bypass-hook-trust` skips the check for one run); an
//! untrusted hook is skipped without a word. `hooks.state."<key>".enabled =
//! false` turns a hook off.
//!
//! - The key is `<hooks.json path>:<event>:<group>:<handler>`: the event in
//!   snake case (`pre_tool_use`), the 0-based index of the matcher group in
//!   the event's list and of the handler in the group's `hooks`.
//! - The hash is `sha256:<hex>` of the hook's identity as compact JSON,
//!   keys sorted: `{"event_name": …, "matcher": …, "hooks": [handler]}`, the
//!   handler `{"type": "command", "command": …, "timeout": …, "async": …}`
//!   (plus `statusMessage` when set), the timeout as Codex normalizes it
//!   (`SessionEnd`: default 1, within 1..=3; others: default 600, at
//!   least 1) and the matcher left out where the event has none (Codex
//!   ignores it for `UserPromptSubmit` and `Stop`) or where it is not set.
//!
//! Any edit of the command, the timeout or the matcher changes the hash:
//! the hook needs trust again.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// Codex's verdict on one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// The stored hash is the hook's: Codex runs it.
    Trusted,
    /// No hash stored: Codex skips it until reviewed.
    Untrusted,
    /// A hash of an earlier version of the hook: Codex skips it until
    /// reviewed again.
    Modified,
    /// `enabled = false`: Codex never runs it.
    Disabled,
}

impl Trust {
    /// How the status line says it.
    pub fn words(self) -> &'static str {
        match self {
            Trust::Trusted => "trusted",
            Trust::Untrusted => "not trusted: Codex skips it",
            Trust::Modified => "changed since it was trusted: Codex skips it",
            Trust::Disabled => "turned off in Codex's config.toml (enabled = false)",
        }
    }
}

/// One hook of a `hooks.json` and Codex's verdict on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookTrust {
    /// The event (`PreToolUse`).
    pub event: String,
    /// The command.
    pub command: String,
    /// Codex's key of the hook (`hooks.state."<key>"`).
    pub key: String,
    /// The hook's current hash.
    pub hash: String,
    /// The verdict.
    pub trust: Trust,
}

/// `PreToolUse` → `pre_tool_use`.
pub fn event_label(event: &str) -> String {
    let mut s = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// The timeout Codex runs a hook of `event` with, for the `timeout` written.
pub fn normalized_timeout(event: &str, timeout: Option<u64>) -> u64 {
    match event {
        "SessionEnd" | "Interrupt" => timeout
            .unwrap_or(1)
            .clamp(1, u64::from(mem_core::hooks::CODEX_SESSION_END_MAX_SECS)),
        _ => timeout.unwrap_or(600).max(1),
    }
}

fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        _ => v.clone(),
    }
}

/// Codex's hash of a command hook: `event` its event, `matcher` its group's
/// matcher, `handler` the handler object as written in `hooks.json`.
pub fn hook_hash(event: &str, matcher: Option<&str>, handler: &Map<String, Value>) -> String {
    let mut h = Map::new();
    h.insert("type".into(), json!("command"));
    h.insert(
        "command".into(),
        handler.get("command").cloned().unwrap_or(Value::Null),
    );
    let timeout = handler.get("timeout").and_then(Value::as_u64);
    h.insert("timeout".into(), json!(normalized_timeout(event, timeout)));
    h.insert(
        "async".into(),
        json!(
            handler
                .get("async")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        ),
    );
    if let Some(m) = handler.get("statusMessage").filter(|m| m.is_string()) {
        h.insert("statusMessage".into(), m.clone());
    }
    let mut id = Map::new();
    id.insert("event_name".into(), json!(event_label(event)));
    let matcher = matcher.filter(|_| !matches!(event, "UserPromptSubmit" | "Stop"));
    if let Some(m) = matcher {
        id.insert("matcher".into(), json!(m));
    }
    id.insert("hooks".into(), json!([h]));
    let text = serde_json::to_string(&canonical(&Value::Object(id))).unwrap_or_default();
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(71);
    hex.push_str("sha256:");
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// The stored state of one hook key: (`trusted_hash`, `enabled`), the last
/// of `configs` that has the key winning.
fn stored(configs: &[toml_edit::Document<String>], keys: &[String]) -> (Option<String>, bool) {
    let mut hash = None;
    let mut enabled = true;
    for doc in configs {
        let Some(state) = doc.get("hooks").and_then(|h| h.get("state")) else {
            continue;
        };
        for k in keys {
            if let Some(s) = state.get(k.as_str()) {
                if let Some(h) = s.get("trusted_hash").and_then(|h| h.as_str()) {
                    hash = Some(h.to_string());
                }
                if let Some(e) = s.get("enabled").and_then(|e| e.as_bool()) {
                    enabled = e;
                }
                break;
            }
        }
    }
    (hash, enabled)
}

/// The `config.toml` files whose `hooks.state` Codex reads for the hooks of
/// `hooks_path`: the user's (`$CODEX_HOME/config.toml`), then the one
/// beside `hooks_path` (a project's `.codex/config.toml`), when another.
pub fn config_files(hooks_path: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(h) = mem_core::memdir::codex_home() {
        out.push(h.join("config.toml"));
    }
    if let Some(dir) = hooks_path.parent() {
        let c = dir.join("config.toml");
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Codex's verdict on each hook of `hooks` (the `hooks.json` at
/// `hooks_path`, parsed) that `mine` accepts (by its command), reading
/// `config_texts` (the `config.toml` files in the order Codex layers them;
/// one that does not parse is left out, as Codex would refuse it).
pub fn verdicts(
    hooks_path: &Path,
    hooks: &Map<String, Value>,
    config_texts: &[String],
    mine: impl Fn(&str) -> bool,
) -> Vec<HookTrust> {
    let configs: Vec<toml_edit::Document<String>> = config_texts
        .iter()
        .filter_map(|t| toml_edit::Document::parse(t.clone()).ok())
        .collect();
    // the path as written, and as the file system resolves it
    let mut paths = vec![hooks_path.display().to_string()];
    if let Ok(c) = hooks_path.canonicalize() {
        let c = c.display().to_string();
        if !paths.contains(&c) {
            paths.push(c);
        }
    }
    let mut out = Vec::new();
    let Some(events) = hooks.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in events {
        let Some(groups) = groups.as_array() else {
            continue;
        };
        for (gi, g) in groups.iter().enumerate() {
            let matcher = g.get("matcher").and_then(Value::as_str);
            let Some(hs) = g.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (hi, h) in hs.iter().enumerate() {
                let Some(obj) = h.as_object() else { continue };
                let Some(command) = obj.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if obj.get("type").and_then(Value::as_str) != Some("command") || !mine(command) {
                    continue;
                }
                let label = event_label(event);
                let keys: Vec<String> = paths
                    .iter()
                    .map(|p| format!("{p}:{label}:{gi}:{hi}"))
                    .collect();
                let hash = hook_hash(event, matcher, obj);
                let (stored_hash, enabled) = stored(&configs, &keys);
                let trust = if !enabled {
                    Trust::Disabled
                } else {
                    match stored_hash {
                        Some(s) if s == hash => Trust::Trusted,
                        Some(_) => Trust::Modified,
                        None => Trust::Untrusted,
                    }
                };
                out.push(HookTrust {
                    event: event.clone(),
                    command: command.to_string(),
                    key: keys[0].clone(),
                    hash,
                    trust,
                });
            }
        }
    }
    out
}

/// The `config.toml` lines that trust `hooks` (what Codex's `/hooks`
/// review writes for them).
pub fn trust_toml(hooks: &[&HookTrust]) -> String {
    let mut s = String::new();
    for h in hooks {
        let key = serde_json::to_string(&h.key).unwrap_or_default();
        s.push_str(&format!(
            "[hooks.state.{key}]\ntrusted_hash = \"{}\"\n",
            h.hash
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashes Codex 0.169.1 computed (`codex app-server` `hooks/list`
    /// `currentHash`) for the hooks `mem-recall hooks install --codex` of an earlier version wrote.
    #[test]
    fn hashes_are_codexs() {
        let h = |event: &str, matcher: Option<&str>, handler: Value| {
            hook_hash(event, matcher, handler.as_object().unwrap())
        };
        assert_eq!(
            h(
                "PreToolUse",
                Some("Bash"),
                json!({"type": "command", "command": "/work/wt-codex/target/debug/mem-recall --hook", "timeout": 5})
            ),
            "sha256:5282a93a05b988ee107ab1a56d87381564dac6e7dcd5e2250283e7a45fb6257f"
        );
        assert_eq!(
            h(
                "SessionStart",
                None,
                json!({"type": "command", "command": "/work/wt-codex/target/debug/mem-recall --hook", "timeout": 10})
            ),
            "sha256:d2279a461b59c96af590dfef37451b4b282d10ae0e8aff7c669fa04a2dbbb6f3"
        );
        // written as 60, run (and hashed) as Codex's cap of 3
        let end = json!({"type": "command", "command": "/work/wt-codex/target/debug/mem-transcript replay --hook | /work/wt-codex/target/debug/mem-extract | /work/wt-codex/target/debug/mem-index write >&2", "timeout": 60});
        let want = "sha256:1b8e7a5b6ef6774b24257cd22e97b909c9aa3537e3079f453ca6afe4ce77e6e9";
        assert_eq!(h("SessionEnd", None, end.clone()), want);
        let mut three = end;
        three["timeout"] = json!(3);
        assert_eq!(h("SessionEnd", None, three), want);
    }

    #[test]
    fn verdicts_read_the_state_codex_stores() {
        let hooks = json!({"hooks": {
            "PreToolUse": [{"hooks": [{"type": "command", "command": "echo other"}]},
                           {"matcher": "Bash", "hooks": [{"type": "command", "command": "mem-recall --hook", "timeout": 5}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "mem-recall --hook", "timeout": 30}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": "mem-recall --hook", "timeout": 10}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "mem-recall --hook", "timeout": 10}]}]}});
        let path = Path::new("/nonexistent/h/hooks.json");
        let mine = |c: &str| c.starts_with("mem-");
        let hooks = hooks.as_object().unwrap();
        let before = verdicts(path, hooks, &[], mine);
        assert_eq!(before.len(), 4);
        assert!(before.iter().all(|v| v.trust == Trust::Untrusted));
        assert_eq!(before[0].key, "/nonexistent/h/hooks.json:pre_tool_use:1:0");
        let pre = &before[0];
        let stop = &before[1];
        let config = format!(
            "model = \"m\"\n{}[hooks.state.\"/nonexistent/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:old\"\n\n[hooks.state]\n\"/nonexistent/h/hooks.json:session_start:0:0\" = {{ enabled = false }}\n",
            trust_toml(&[pre])
        );
        let after = verdicts(path, hooks, &[config], mine);
        let by = |e: &str| after.iter().find(|v| v.event == e).unwrap().trust;
        assert_eq!(by("PreToolUse"), Trust::Trusted);
        assert_eq!(by("Stop"), Trust::Modified);
        assert_eq!(by("SessionStart"), Trust::Disabled);
        assert_eq!(by("UserPromptSubmit"), Trust::Untrusted);
        assert_eq!(stop.event, "Stop");
    }
}
