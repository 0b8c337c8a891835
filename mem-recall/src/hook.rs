//! `mem-recall --hook`: the Claude Code hook for `SessionStart` and
//! `UserPromptSubmit` (DESIGN.md "Agent hooks").
//!
//! Reads one JSON object on stdin (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`, plus `prompt` or `source`) and prints
//! `{"hookSpecificOutput":{"hookEventName":"…","additionalContext":"…"}}`
//! with at most [`MAX_CHARS`] characters of context:
//! - `UserPromptSubmit`: the memories recalled for the prompt;
//! - `SessionStart`: only what Claude Code does not load itself — the
//!   memories recalled without a task (`type: user` without triggers or
//!   paths) and MEMORY.md's WARNING line when the index is cut.
//!
//! Nothing to add → nothing printed; memory off
//! ([`mem_core::memdir::memory_off`]) → nothing printed. It never blocks the agent: any error
//! (and any panic) prints nothing on stdout, exits 0 and says why on stderr.

use std::io::{Read, Write};

use serde::Deserialize;

use crate::text::Stems;
use crate::{Common, NAME, RecallArgs, Session, render};
use mem_core::Exit;

/// Most characters of `additionalContext`.
pub const MAX_CHARS: usize = 10_000;

/// Most bytes of hook JSON read from stdin.
pub const MAX_INPUT: u64 = 16 << 20;

/// The hook input (fields Claude Code sends; others ignored).
#[derive(Debug, Deserialize)]
pub struct HookInput {
    /// The session's id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The session's transcript file.
    #[serde(default)]
    pub transcript_path: Option<String>,
    /// The session's working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// `SessionStart`, `UserPromptSubmit`, …
    pub hook_event_name: String,
    /// The prompt (UserPromptSubmit).
    #[serde(default)]
    pub prompt: Option<String>,
    /// `startup`, `resume`, `clear`, `compact` (SessionStart).
    #[serde(default)]
    pub source: Option<String>,
}

/// Run the hook; whatever happens, exit 0. Errors and panics are reported
/// on stderr and nothing is printed on stdout.
pub fn run_guarded(common: &Common) -> Exit {
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut input = Vec::new();
        std::io::stdin()
            .take(MAX_INPUT)
            .read_to_end(&mut input)
            .map_err(|e| anyhow::anyhow!("cannot read stdin: {e}"))?;
        respond(common, &input)
    }));
    match res {
        Ok(Ok(Some(json))) => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = out.write_all(json.as_bytes()).and_then(|()| out.flush()) {
                eprintln!("{NAME}: hook: cannot write the answer: {e}");
            }
        }
        Ok(Ok(None)) => {}
        Ok(Err(e)) => eprintln!("{NAME}: hook: {e:#} (nothing added to the context)"),
        Err(_) => eprintln!("{NAME}: hook: internal error (nothing added to the context)"),
    }
    Exit::Success
}

/// The hook's answer for `input` (one JSON line), or `None` when there is
/// nothing to add.
///
/// Errors: input that is not hook JSON, or any error of recall itself.
pub fn respond(common: &Common, input: &[u8]) -> anyhow::Result<Option<String>> {
    let h: HookInput = serde_json::from_slice(input)
        .map_err(|e| anyhow::anyhow!("stdin is not hook JSON: {e}"))?;
    let (task, start) = match h.hook_event_name.as_str() {
        "UserPromptSubmit" => (h.prompt.clone().unwrap_or_default(), false),
        "SessionStart" => (String::new(), true),
        other => {
            anyhow::bail!("event {other:?} is not handled (use SessionStart or UserPromptSubmit)")
        }
    };
    let cwd = h
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(std::path::Path::new);
    // Memory off (CLAUDE_CODE_DISABLE_AUTO_MEMORY, autoMemoryEnabled: false
    // in the user's or the project's settings): nothing is injected.
    let here = match cwd.or(common.cwd.as_deref()) {
        Some(c) => Some(c.to_path_buf()),
        None => std::env::current_dir().ok(),
    };
    if let Some(why) = mem_core::memdir::memory_off(here.as_deref())? {
        eprintln!("{NAME}: hook: memory is off ({why}); nothing added to the context");
        return Ok(None);
    }
    let stems = Stems::default();
    let s = Session::open(common, cwd, None, &stems)?;
    let args = RecallArgs {
        task: Some(task),
        paths: Vec::new(),
        max_items: 20,
        max_tokens: 2000,
        min_score: crate::gate::DEFAULT_MIN_SCORE,
        records: None,
    };
    let q = s.query(&args);
    let ds = crate::decide(&s.items, &q, &stems);
    let mems = crate::recalled_memories(&s.items, &ds);
    let mut ctx = String::new();
    if start
        && let Some(ix) = s.memory_dir.as_deref().and_then(crate::context::load_index)
        && ix.cut
        && let Some(w) = ix.warning
    {
        ctx.push_str(&format!("MEMORY.md was cut when loaded: {w}\n"));
    }
    if !mems.is_empty() {
        if !ctx.is_empty() {
            ctx.push('\n');
        }
        ctx.push_str(&render::memories_md(&mems));
    }
    if ctx.trim().is_empty() {
        return Ok(None);
    }
    let ctx = fit(&ctx);
    let v = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": h.hook_event_name,
            "additionalContext": ctx,
        }
    });
    Ok(Some(format!("{v}\n")))
}

/// `ctx` within [`MAX_CHARS`] characters, marked when cut.
pub fn fit(ctx: &str) -> String {
    const MARK: &str = "\n[truncated: hook context limit]";
    if ctx.chars().count() <= MAX_CHARS {
        return ctx.to_string();
    }
    let head = mem_core::truncate::floor_to_chars(ctx, MAX_CHARS - MARK.chars().count());
    format!("{head}{MARK}")
}
