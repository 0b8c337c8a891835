//! The lessons a memory states, and the trust gate on what they tell the
//! agent to run (docs/hooks.md "Lessons at the moment of action",
//! docs/security.md "What a command does").
//!
//! A lesson is a sentence of one of these forms, the commands in
//! backticks, case-insensitive:
//! - precondition: ``Run `X` before `Y` `` or ``Before running `Y`, run `X` ``;
//! - replacement: ``Use `X′` instead of `X` ``, ``Run `X′`, not `X` ``,
//!   ``Where you would run `X`, run `X′` ``.

use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::records::{Memory, Source, Trust};
use crate::risk::{Assessment, assess};

/// What a lesson says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Rule {
    /// Run `first` before `then`.
    Before {
        /// The precondition (X).
        first: String,
        /// The command it must precede (Y).
        then: String,
    },
    /// Use `instead` where you would run `avoid`.
    Instead {
        /// The command to run (X′).
        instead: String,
        /// The command not to run (X).
        avoid: String,
    },
}

impl Rule {
    /// The lesson in one sentence.
    pub fn sentence(&self) -> String {
        match self {
            Rule::Before { first, then } => format!("Run `{first}` before `{then}`."),
            Rule::Instead { instead, avoid } => format!("Use `{instead}` instead of `{avoid}`."),
        }
    }
}

impl Rule {
    /// The command the lesson tells the agent to run: `X` of a
    /// precondition, `X′` of a replacement.
    pub fn command(&self) -> &str {
        match self {
            Rule::Before { first, .. } => first,
            Rule::Instead { instead, .. } => instead,
        }
    }
}

fn res() -> &'static [(Regex, bool, bool)] {
    // (regex, is_before, swapped): captures 1 and 2.
    static RES: OnceLock<Vec<(Regex, bool, bool)>> = OnceLock::new();
    RES.get_or_init(|| {
        let c = r"`([^`\n]+)`";
        let mk = |p: String| Regex::new(&format!("(?i){p}")).expect("lesson regex");
        vec![
            // Run `X` before `Y`  → first=1, then=2
            (
                mk(format!(
                    r"\b(?:always\s+)?run\s+{c}\s+before\s+(?:running\s+|you\s+run\s+)?{c}"
                )),
                true,
                false,
            ),
            // Before running `Y`, run `X` → then=1, first=2
            (
                mk(format!(
                    r"\bbefore\s+(?:running\s+|you\s+run\s+)?{c}\s*,?\s*(?:always\s+)?(?:run|do)\s+{c}"
                )),
                true,
                true,
            ),
            // Use `X′` instead of `X` → instead=1, avoid=2
            (
                mk(format!(
                    r"\b(?:use|run)\s+{c}\s*,?\s*(?:instead\s+of|not|rather\s+than)\s+{c}"
                )),
                false,
                false,
            ),
            // Where you would run `X`, run `X′` → avoid=1, instead=2
            (
                mk(format!(r"\bwhere\s+you\s+would\s+run\s+{c}\s*,\s*(?:run|use)\s+{c}")),
                false,
                true,
            ),
        ]
    })
}

/// The rule a text states, if any (see module docs).
pub fn parse_rule(text: &str) -> Option<Rule> {
    if !text.contains('`') {
        return None;
    }
    // the earliest statement in the text wins
    let mut best: Option<(usize, Rule)> = None;
    for (re, before, swapped) in res() {
        let Some(c) = re.captures(text) else { continue };
        let at = c.get(0).map_or(0, |m| m.start());
        let (a, b) = (c[1].trim().to_string(), c[2].trim().to_string());
        if a.is_empty() || b.is_empty() || a == b || a.len() > 200 || b.len() > 200 {
            continue;
        }
        let (a, b) = if *swapped { (b, a) } else { (a, b) };
        let rule = if *before {
            Rule::Before { first: a, then: b }
        } else {
            Rule::Instead {
                instead: a,
                avoid: b,
            }
        };
        if best.as_ref().is_none_or(|(p, _)| at < *p) {
            best = Some((at, rule));
        }
    }
    best.map(|(_, r)| r)
}

/// The rule `memory` states: the first of its `How to use:`, `Fact:`, name,
/// description and body lines that states one.
///
/// An answer to the agent's question (`rule: decision/answer`) states none:
/// its question and its options are the agent's words, whatever the user
/// picked.
pub fn rule_of(memory: &Memory) -> Option<Rule> {
    if memory.extra.get("rule").and_then(|r| r.as_str()) == Some("decision/answer") {
        return None;
    }
    let (fact, _, how) = match &memory.body {
        Some(b) => crate::frontmatter::parse_body_sections(b),
        None => (None, None, None),
    };
    let how = memory.how.clone().or(how);
    let fact = memory.fact.clone().or(fact);
    let mut texts: Vec<&str> = Vec::new();
    texts.extend(how.as_deref());
    texts.extend(fact.as_deref());
    texts.push(&memory.name);
    texts.push(&memory.description);
    if let Some(b) = &memory.body {
        texts.extend(b.lines());
    }
    texts.into_iter().find_map(parse_rule)
}

/// The first line of the reason with which `mem-hook` stops a
/// command once on `PreToolUse` (a lesson bears on it and the session has
/// not done what it says). The agent sees it as the command's result; the
/// command did not run.
pub const STOP_HEADER: &str = "Stopped once by mem, not run: a lesson saved in memory from an earlier session bears on this command. The lesson, quoted as data:";

/// The first line of the reason with which a lesson the user marked
/// `enforce: deny` refuses a command.
pub const DENY_HEADER: &str = "Refused by a lesson saved in memory (enforce: deny):";

/// What Codex puts before a `PreToolUse` hook's `deny` reason in the
/// result of the call it did not run (0.169).
pub const CODEX_HOOK_BLOCKED: &str = "Command blocked by PreToolUse hook:";

/// True when a tool result's text is a hook's refusal of the command, not
/// its output: the command never ran, so it neither failed nor passed.
/// Recognised are mem's own refusals ([`STOP_HEADER`], [`DENY_HEADER`]) as
/// Claude Code records them (the reason alone, or after a prefix of its
/// own such as `PreToolUse:Bash hook error: `, on the first line) and any
/// hook's as Codex records it ([`CODEX_HOOK_BLOCKED`], then the reason).
/// (A command's output that imitates one is only kept from teaching a
/// lesson.)
pub fn is_hook_refusal(text: &str) -> bool {
    let t = text.trim_start();
    let first = t.lines().next().unwrap_or("");
    let head = crate::truncate::floor_to_bytes(first, 200 + STOP_HEADER.len());
    t.starts_with(CODEX_HOOK_BLOCKED) || head.contains(STOP_HEADER) || head.contains(DENY_HEADER)
}

/// The frontmatter key that records why a memory's command made it low
/// trust (`risk: "verification-off: …"`).
pub const RISK_KEY: &str = "risk";

/// The risk of the command `memory` tells the agent to run (its lesson's
/// `X` or `X′`), when that command is risky.
pub fn risk_of(memory: &Memory) -> Option<Assessment> {
    let rule = rule_of(memory)?;
    let a = assess(rule.command());
    a.is_risky().then_some(a)
}

/// The trust gate every writer applies to a memory it did not get from the
/// user directly (`source` other than `manual`): when the command its
/// lesson tells the agent to run is risky, the memory is `trust: low` and
/// records why under [`RISK_KEY`]. Returns that reason. A risky command
/// never becomes a normal-trust memory, whichever rule wrote it.
pub fn gate(memory: &mut Memory) -> Option<String> {
    if memory.source == Some(Source::Manual) {
        return None;
    }
    let a = risk_of(memory)?;
    let why = a.summary();
    memory.trust = Some(Trust::Low);
    memory
        .extra
        .insert(RISK_KEY.into(), serde_json::Value::String(why.clone()));
    Some(why)
}

/// The trust a reader gives `memory`: `low` when its file says so, and
/// also when its lesson runs a risky command and the user did not write it
/// (`source` other than `manual`, or none: a memory the agent's own memory
/// tool wrote), whatever the file says. Recall, the hooks and `MEMORY.md`
/// use this, so a file written before the gate, or by another tool, is not
/// believed on its word.
pub fn believed_trust(memory: &Memory) -> Trust {
    let t = memory.effective_trust();
    if t == Trust::Low || memory.source == Some(Source::Manual) || risk_of(memory).is_none() {
        t
    } else {
        Trust::Low
    }
}

#[cfg(test)]
mod refusal_tests {
    use super::*;

    #[test]
    fn a_refusal_is_known_as_each_client_records_it() {
        for t in [
            format!("{STOP_HEADER}\n- Run `a` before `b`."),
            format!("PreToolUse:Bash hook error: {STOP_HEADER}\n- Run `a` before `b`."),
            format!("{CODEX_HOOK_BLOCKED} {STOP_HEADER}"),
            format!("  {DENY_HEADER}\n- x"),
        ] {
            assert!(is_hook_refusal(&t), "{t}");
        }
        for t in [
            "build-token: error: cannot read .cache/setup.json".to_string(),
            format!("error\n{STOP_HEADER}"),
        ] {
            assert!(!is_hook_refusal(&t), "{t}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::MemoryType;

    #[test]
    fn hook_refusals_are_told_from_command_output() {
        for t in [
            format!("{STOP_HEADER}\n- Run `a` before `b`."),
            format!("  {DENY_HEADER}\n- Run `a` before `b`."),
            format!("Command blocked by PreToolUse hook: {STOP_HEADER}\n- …"),
            "Command blocked by PreToolUse hook: not on Fridays".to_string(),
        ] {
            assert!(is_hook_refusal(&t), "{t}");
        }
        for t in [
            "build-token: error: cannot read .cache/setup.json (ENOENT)",
            "Error: permission denied",
            "",
            "npm ERR! blocked by PreToolUse hook? no",
            "error: see Stopped once by mem, not run: a lesson",
        ] {
            assert!(!is_hook_refusal(t), "{t}");
        }
    }

    #[test]
    fn a_risky_lesson_is_low_trust_and_a_harmless_one_is_left_alone() {
        let mut m = Memory::new(
            "Use git commit --no-verify",
            "hooks fail",
            MemoryType::Feedback,
        );
        m.how = Some(
            "Use `git commit --no-verify -m <message>` instead of `git commit -m <message>`."
                .into(),
        );
        m.source = Some(Source::Assistant);
        m.trust = Some(Trust::Normal);
        let why = gate(&mut m).expect("risky");
        assert!(why.starts_with("verification-off"), "{why}");
        assert_eq!(m.trust, Some(Trust::Low));
        let mut ok = m.clone();
        ok.extra.clear();
        ok.trust = Some(Trust::Normal);
        ok.how = Some("Run `make gen` before `git commit`.".into());
        assert_eq!(gate(&mut ok), None);
        assert_eq!(ok.trust, Some(Trust::Normal));
        // a prohibition names the risky command as what not to run
        let mut no = ok.clone();
        no.how = Some("Use `git push --force-with-lease` instead of `git push --force`.".into());
        assert!(
            gate(&mut no).is_some(),
            "force-with-lease is still a force push"
        );
        no.how = Some("Use `git push` instead of `git push --force`.".into());
        no.trust = Some(Trust::Normal);
        assert_eq!(gate(&mut no), None);
        // the user's own record is the user's call
        let mut manual = m.clone();
        manual.trust = Some(Trust::Normal);
        manual.source = Some(Source::Manual);
        assert_eq!(gate(&mut manual), None);
        assert_eq!(manual.trust, Some(Trust::Normal));
        // a reader believes what the command does, not the file
        let mut claimed = m.clone();
        claimed.trust = Some(Trust::Normal);
        claimed.extra.clear();
        assert_eq!(believed_trust(&claimed), Trust::Low);
        claimed.source = None;
        assert_eq!(
            believed_trust(&claimed),
            Trust::Low,
            "no source is not the user's word"
        );
        assert_eq!(believed_trust(&manual), Trust::Normal);
        assert_eq!(believed_trust(&ok), Trust::Normal);
    }
}
