//! `mem-hook`: the Claude Code and Codex hook for `SessionStart` and
//! `UserPromptSubmit` (docs/hooks.md).
//!
//! Reads one JSON object on stdin (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`, plus `prompt` or `source`) and prints
//! `{"hookSpecificOutput":{"hookEventName":"…","additionalContext":"…"}}`
//! ([`HookOutput`], docs/records.md "Hook output") with at most
//! [`MAX_CHARS`] characters of context:
//! - `UserPromptSubmit`: the memories recalled for the prompt;
//! - `SessionStart`: only what Claude Code does not load itself — the
//!   memories recalled without a task (`type: user` without triggers or
//!   paths) and MEMORY.md's WARNING line when the index is cut; with
//!   `source: compact`, the session memory (kept on `Stop` and `PreCompact`) first
//!   ([`crate::session_memory`]); then `mem-dream` is started detached when
//!   a consolidation is due ([`crate::autodream`]);
//! - `PreToolUse` (Bash): the lessons that bear on the command about to run
//!   ([`crate::lessons`]);
//! - `Stop`: nothing on stdout; the turn that ended is folded into the
//!   session memory ([`crate::session_turns`]), without the time budget
//!   (the agent's hook timeout bounds it).
//!
//! Each memory is injected at most once per session ([`crate::once`]).
//!
//! Nothing to add → nothing printed; memory off
//! ([`mem_core::memdir::memory_off`]) → nothing printed. It never blocks
//! the agent: any error (and any panic) prints nothing on stdout, exits 0
//! and says why on stderr; past its time budget ([`DEFAULT_BUDGET`], 2 s;
//! env [`BUDGET_ENV`]) it prints nothing and exits 0 as well.

use std::io::{Read, Write};
use std::time::Duration;

use crate::budget::Alarm;
use mem_core::Exit;
use mem_core::hooks::HookInput;
use mem_core::records::hook::{AddedContext, HookOutput, HookSpecificOutput};
use mem_core::text::Stems;
use mem_recall::{Common, NAME, RecallArgs, Session, render};

/// Most characters of `additionalContext`.
pub const MAX_CHARS: usize = 10_000;

/// Most bytes of hook JSON read from stdin.
pub const MAX_INPUT: u64 = 16 << 20;

pub use crate::once::{HOOK_MAX_ITEMS, HOOK_MAX_TOKENS};

/// The hook's default time budget: 2 seconds.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(2000);

/// The variable that sets the time budget, in milliseconds.
pub const BUDGET_ENV: &str = "MEM_HOOK_BUDGET_MS";

/// The time budget: [`BUDGET_ENV`] when it is a number of milliseconds,
/// else [`DEFAULT_BUDGET`] (a bad value is reported on stderr).
pub fn budget() -> Duration {
    match std::env::var(BUDGET_ENV) {
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(ms) => Duration::from_millis(ms),
            Err(_) => {
                eprintln!(
                    "{NAME}: hook: {BUDGET_ENV}={v:?} is not a number of milliseconds; using {} ms",
                    DEFAULT_BUDGET.as_millis()
                );
                DEFAULT_BUDGET
            }
        },
        Err(_) => DEFAULT_BUDGET,
    }
}

/// Run the hook; whatever happens, exit 0. Errors and panics are reported
/// on stderr and nothing is printed on stdout.
///
/// The work (reading stdin, loading the memory directory, recall) runs
/// under an [`Alarm`] of [`budget`]: past it, the process says so on stderr
/// and ends with status 0 and nothing on stdout (a stdin that never ends, a
/// slow or hostile file system never block the agent). The alarm is
/// stopped before the answer is written: the agent gets the whole answer
/// or nothing.
pub fn run_guarded(common: &Common) -> Exit {
    let limit = budget();
    let mut alarm = match Alarm::arm(
        limit,
        &format!(
            "{NAME}: hook: past its time budget of {} ms ({BUDGET_ENV}); nothing added to the context",
            limit.as_millis()
        ),
    ) {
        Ok(a) => Some(a),
        Err(e) => {
            eprintln!("{NAME}: hook: cannot set its time budget: {e}");
            None
        }
    };
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut input = Vec::new();
        std::io::stdin()
            .take(MAX_INPUT)
            .read_to_end(&mut input)
            .map_err(crate::error::HookError::Stdin)?;
        // Stop adds nothing to the context and keeps no one waiting for a
        // prompt: its session-memory update is bounded by the agent's hook
        // timeout instead (a run stopped midway loses no turn).
        if is_stop(&input)
            && let Some(a) = alarm.take()
            && let Err(e) = a.disarm()
        {
            eprintln!("{NAME}: hook: cannot stop its time budget: {e}");
            return Ok(None);
        }
        answer(common, &input, true)
    }));
    if let Some(a) = alarm
        && let Err(e) = a.disarm()
    {
        // the alarm may still end the process: print nothing
        eprintln!("{NAME}: hook: cannot stop its time budget: {e} (nothing added to the context)");
        return Exit::Success;
    }
    match res {
        Ok(Ok(Some(json))) => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = out.write_all(json.as_bytes()).and_then(|()| out.flush()) {
                eprintln!("{NAME}: hook: cannot write the answer: {e}");
            }
        }
        Ok(Ok(None)) => {}
        Ok(Err(e)) => eprintln!("{NAME}: hook: {e} (nothing added to the context)"),
        Err(_) => eprintln!("{NAME}: hook: internal error (nothing added to the context)"),
    }
    Exit::Success
}

/// True when `input` is hook JSON for `Stop`.
fn is_stop(input: &[u8]) -> bool {
    serde_json::from_slice::<HookInput>(input).is_ok_and(|h| h.event() == "Stop")
}

/// The hook's answer for `input` (one JSON line), or `None` when there is
/// nothing to add.
///
/// Errors: input that is not hook JSON, or any error of recall itself.
pub fn respond(common: &Common, input: &[u8]) -> crate::error::Result<Option<String>> {
    answer(common, input, false)
}

/// [`respond`]; with `exiting` (the process ends after the answer) the
/// memories loaded and the decisions are left to the OS to reclaim instead
/// of being freed one allocation at a time.
fn answer(common: &Common, input: &[u8], exiting: bool) -> crate::error::Result<Option<String>> {
    let h: HookInput = serde_json::from_slice(input)
        .map_err(|e| crate::error::HookError::NotHookJson(e.to_string()))?;
    let Some(event) = h.hook_event_name.as_deref() else {
        return Err(crate::error::HookError::NotHookJson(
            "missing field `hook_event_name`".into(),
        ));
    };
    let (task, start) = match event {
        "UserPromptSubmit" => (h.prompt.clone().unwrap_or_default(), false),
        "SessionStart" => (String::new(), true),
        "PreToolUse" | "Stop" => (String::new(), false),
        other => return Err(crate::error::HookError::UnknownEvent(other.to_string())),
    };
    let cwd = h
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(std::path::Path::new);
    // Memory off (CLAUDE_CODE_DISABLE_AUTO_MEMORY, autoMemoryEnabled: false
    // in the user's or the project's settings): nothing is injected.
    let here = match cwd.or(common.place.cwd.as_deref()) {
        Some(c) => Some(c.to_path_buf()),
        None => std::env::current_dir().ok(),
    };
    if let Some(why) = mem_core::memdir::memory_off(here.as_deref())? {
        eprintln!("{NAME}: hook: memory is off ({why}); nothing added to the context");
        return Ok(None);
    }
    if event == "PreToolUse" {
        return crate::lessons::respond(common, &h, here.as_deref());
    }
    if event == "Stop" {
        crate::session_turns::on_stop(&h, input, here.as_deref())?;
        return Ok(None);
    }
    // Once per session (docs/hooks.md): the budget is applied after the
    // memories this session already holds are left out.
    let session = h.session_id.as_deref().filter(|s| !s.is_empty());
    let stems = Stems::default();
    let s = Session::open(common, cwd, None, &stems)?;
    if let Some(dir) = s.memory_dir.as_deref() {
        mem_recall::state::sweep(dir, session);
    }
    if start {
        // once a session, on stderr: never in the context
        s.say_waiting();
    }
    let args = RecallArgs {
        task: Some(task),
        paths: Vec::new(),
        max_items: if session.is_some() {
            usize::MAX
        } else {
            HOOK_MAX_ITEMS
        },
        max_tokens: if session.is_some() {
            usize::MAX
        } else {
            HOOK_MAX_TOKENS
        },
        min_score: mem_recall::gate::DEFAULT_MIN_SCORE,
        records: None,
        no_expand: false,
        all: false,
        // the hook never injects a suspect memory
        trust: mem_recall::TrustArg::Normal,
    };
    let q = s.query(&args);
    let ds = mem_recall::decide(&s.items, &q, &stems);
    let mems = match (session, s.memory_dir.as_deref()) {
        (Some(sid), Some(dir)) => {
            let reset = if start { h.source.as_deref() } else { None };
            crate::once::memories(dir, sid, reset, &s.items, &ds)?
        }
        _ => mem_recall::recalled_md(&s.items, &ds),
    };
    if start && let Some(dir) = s.memory_dir.as_deref() {
        crate::autodream::on_session_start(dir, &s.cwd);
    }
    let mut ctx = String::new();
    if start
        && let Some(ix) = s
            .memory_dir
            .as_deref()
            .and_then(mem_recall::context::load_index)
        && ix.cut
        && let Some(w) = &ix.warning
    {
        ctx.push_str(&format!("MEMORY.md was cut when loaded: {w}\n"));
        if let Some(limit) = mem_recall::context::index_limit_warning(&ix) {
            ctx.push_str(&format!("{limit}\n"));
        }
    }
    if !mems.is_empty() {
        if !ctx.is_empty() {
            ctx.push('\n');
        }
        ctx.push_str(&render::rendered_md(&mems));
    }
    // After a compaction: the session's own summary first (PreCompact saved it).
    if start
        && h.source.as_deref() == Some("compact")
        && let (Some(dir), Some(id)) = (s.memory_dir.as_deref(), h.session_id.as_deref())
        && let Some(sm) = crate::session_memory::injected(dir, id)
    {
        ctx = if ctx.is_empty() {
            sm
        } else {
            format!("{sm}\n{ctx}")
        };
    }
    if exiting {
        // Thousands of small allocations: let the OS reclaim them at exit.
        std::mem::forget(ds);
        std::mem::forget(q);
        std::mem::forget(s);
    }
    if ctx.trim().is_empty() {
        return Ok(None);
    }
    let added = AddedContext::new(fit(&ctx));
    let specific = if start {
        HookSpecificOutput::SessionStart(added)
    } else {
        HookSpecificOutput::UserPromptSubmit(added)
    };
    Ok(Some(HookOutput::new(specific).to_line()?))
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
