//! `mem-extract session`: the rolling summary of one session (docs/hooks.md
//! "Session memory, turn by turn").
//!
//! Claude Code's session-memory rule, checked when an assistant message ends
//! (its last event; the end of the input ends the last one): no summary
//! until the conversation reaches [`Thresholds::init_tokens`] (default
//! [`START_TOKENS`]); then an update when at least
//! [`Thresholds::update_tokens`] ([`STEP_TOKENS`]) came since the last
//! update (since 0 for the first) and either at least
//! [`Thresholds::tool_calls`] ([`MIN_TOOL_CALLS`]) tool calls happened since
//! the last update or the message that just ended made none (a natural
//! break). The thresholds come from flags, else the variables of
//! [`Thresholds::from_env`]. Each update appends one segment of at most
//! [`SEGMENT_TOKENS`]; the file keeps at most [`TOTAL_TOKENS`] (oldest segments
//! go first). Extractive and deterministic: requests, decisions, files
//! touched, commands and their outcomes, open errors — every line scrubbed.
//! With `--state FILE` only events past the recorded `seq` are read; the
//! events since the last segment are kept in the state
//! ([`SessionState::pending`]), so runs over consecutive stretches of a
//! session give the summary one run over all of it gives.
//!
//! `mem-hook` on `Stop` folds each turn in as it ends
//! ([`fold_in_state_dir`]). `--hook` (the `PreCompact` hook, after
//! `mem-transcript replay --hook`): only when auto-compaction is on
//! ([`auto_compact_off`]) and memory is on; state and summary live in the
//! session's hook-state folder ([`mem_core::memdir::session_state_dir`]):
//! `session.json` and [`SUMMARY_FILE`], which `SessionStart` with `source:
//! compact` injects. A compaction follows, so `--hook` also makes a segment
//! of what came after the last update ([`update_to_end`]): the summary
//! covers the whole session up to it. A later segment's passing run of a
//! command closes the earlier segments' open error for it; a command a hook
//! refused ([`mem_core::lesson::is_hook_refusal`]) is `not run`, not failed.
//! Tokens: `ceil(bytes / 4)` ([`mem_core::truncate::estimate_tokens`]).

use std::collections::BTreeSet;
use std::path::PathBuf;

use clap::Args;
use serde::{Deserialize, Serialize};

use mem_core::atomic::{write_atomic, write_if_changed};
use mem_core::cli::Output;
use mem_core::records::Event;
use mem_core::scrub::Scrubber;
use mem_core::truncate::{estimate_tokens, floor_to_bytes, floor_to_chars};
use mem_core::{Error, Exit, memdir};

use crate::ExtractError;

use crate::extract::{command_of, sentences};
use crate::rules::Rules;

/// Tokens of conversation before the first summary.
pub const START_TOKENS: usize = 10_000;
/// Tokens of conversation between updates.
pub const STEP_TOKENS: usize = 5_000;
/// Tool calls since the last update that allow one (else a natural break).
pub const MIN_TOOL_CALLS: usize = 3;
/// Budget of one segment, in tokens.
pub const SEGMENT_TOKENS: usize = 2_000;
/// Budget of the whole summary, in tokens.
pub const TOTAL_TOKENS: usize = 12_000;

/// The variable that sets [`Thresholds::init_tokens`].
pub const INIT_TOKENS_ENV: &str = "MEM_SESSION_INIT_TOKENS";
/// The variable that sets [`Thresholds::update_tokens`].
pub const UPDATE_TOKENS_ENV: &str = "MEM_SESSION_UPDATE_TOKENS";
/// The variable that sets [`Thresholds::tool_calls`].
pub const TOOL_CALLS_ENV: &str = "MEM_SESSION_TOOL_CALLS";

/// When the summary gets a new segment (Claude Code's session-memory rule;
/// see the module docs). Tokens are `ceil(bytes / 4)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Tokens of conversation before the first segment ([`START_TOKENS`]).
    pub init_tokens: usize,
    /// Tokens of conversation between segments ([`STEP_TOKENS`]).
    pub update_tokens: usize,
    /// Tool calls since the last segment that allow one in the middle of a
    /// turn ([`MIN_TOOL_CALLS`]); else only at a natural break.
    pub tool_calls: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            init_tokens: START_TOKENS,
            update_tokens: STEP_TOKENS,
            tool_calls: MIN_TOOL_CALLS,
        }
    }
}

impl Thresholds {
    /// The defaults, each overridden by its variable ([`INIT_TOKENS_ENV`],
    /// [`UPDATE_TOKENS_ENV`], [`TOOL_CALLS_ENV`]) when that is a whole
    /// number (at least 1); any other value is said on stderr and the
    /// default kept.
    pub fn from_env() -> Thresholds {
        let d = Thresholds::default();
        Thresholds {
            init_tokens: env_count(INIT_TOKENS_ENV, d.init_tokens),
            update_tokens: env_count(UPDATE_TOKENS_ENV, d.update_tokens),
            tool_calls: env_count(TOOL_CALLS_ENV, d.tool_calls),
        }
    }
}

fn env_count(var: &str, default: usize) -> usize {
    match std::env::var(var) {
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                eprintln!(
                    "mem-extract: session: {var}={v:?} is not a whole number of at least 1; using {default}"
                );
                default
            }
        },
        Err(_) => default,
    }
}

/// Most commands kept waiting for their result ([`SessionState::awaiting`]).
pub const MAX_AWAITING: usize = 64;

/// The summary's file name in the session's hook-state folder.
pub const SUMMARY_FILE: &str = "session-memory.md";

/// The state's file name in the session's hook-state folder.
pub const STATE_FILE: &str = "session.json";

/// Why auto-compaction is off for the project at `cwd`, or `None` when it
/// is on: [`mem_core::memdir::auto_compact_off`].
///
/// Errors: a settings file that is not a JSON object (naming it).
pub fn auto_compact_off(cwd: Option<&std::path::Path>) -> Result<Option<String>, Error> {
    memdir::auto_compact_off(cwd)
}

/// Options of `mem-extract session`.
#[derive(Debug, Clone, Args)]
pub struct SessionArgs {
    /// Event files (JSONL from `mem-transcript replay`); default stdin.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Where to write the summary (default: `session-memory.md` in the
    /// session's hook-state folder, `$XDG_CACHE_HOME/mem/<digest of the
    /// memory dir>/sessions/<session id>/`; never Claude Code's own
    /// `<session-id>/session-memory/summary.md`).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// State file for incremental runs (created when missing).
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// The project (default: the events' recorded cwd).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Flush every output line.
    #[arg(long)]
    line_buffered: bool,
    /// Tokens of conversation before the first segment (default 10000, or
    /// `$MEM_SESSION_INIT_TOKENS`).
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(1..))]
    init_tokens: Option<u64>,
    /// Tokens of conversation between segments (default 5000, or
    /// `$MEM_SESSION_UPDATE_TOKENS`).
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(1..))]
    update_tokens: Option<u64>,
    /// Tool calls since the last segment that allow one before a natural
    /// break (default 3, or `$MEM_SESSION_TOOL_CALLS`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    tool_calls: Option<u64>,
    /// The hook form: state and summary in the session's hook-state folder
    /// (`session.json`, `session-memory.md`), nothing when auto-compaction
    /// or memory is off; never fails the hook on an error of its own.
    #[arg(long, conflicts_with_all = ["out", "state"])]
    hook: bool,
}

/// What `--state` remembers between runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    /// The session summarized.
    pub session: String,
    /// Highest `seq` read (events at or below it are skipped); -1 before any.
    pub last_seq: i64,
    /// Conversation tokens so far.
    pub tokens: usize,
    /// `tokens` at the last update (0 before the first).
    pub tokens_at_update: usize,
    /// Tool calls since the last update.
    pub tool_calls: usize,
    /// Events not yet summarized (seq numbers of the pending window start).
    pub pending_from: i64,
    /// The segments written so far, oldest first.
    pub segments: Vec<String>,
    /// Commands summarized before their result came (tool call id →
    /// command as listed): the segment that gets the result lists it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub awaiting: std::collections::BTreeMap<String, String>,
    /// The events read since the last segment, as much of each as a
    /// segment uses ([`window_event`]: requests, commands, paths, results;
    /// scrubbed): the next segment is made of them, so a run per turn makes
    /// the same segments as one pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Event>,
}

impl SessionArgs {
    /// The thresholds: each flag, else its variable, else the default.
    fn thresholds(&self) -> Thresholds {
        let env = Thresholds::from_env();
        let pick =
            |f: Option<u64>, d: usize| f.map_or(d, |n| usize::try_from(n).unwrap_or(usize::MAX));
        Thresholds {
            init_tokens: pick(self.init_tokens, env.init_tokens),
            update_tokens: pick(self.update_tokens, env.update_tokens),
            tool_calls: pick(self.tool_calls, env.tool_calls),
        }
    }
}

/// Fold `events` into `state`; returns true when a new segment was added.
/// Events of other sessions and side chains are ignored. The rule is
/// checked as each assistant message ends (see the module docs).
pub fn update(
    state: &mut SessionState,
    events: &[Event],
    scrubber: &Scrubber,
    rules: &Rules,
) -> bool {
    fold(
        state,
        events,
        scrubber,
        rules,
        false,
        &Thresholds::default(),
    )
}

/// [`update`], then the events past the last update, however few, as one
/// more segment: the summary then covers the whole input. `PreCompact`
/// does this: everything up to the compaction is in the summary that
/// `SessionStart` injects after it.
pub fn update_to_end(
    state: &mut SessionState,
    events: &[Event],
    scrubber: &Scrubber,
    rules: &Rules,
) -> bool {
    fold(state, events, scrubber, rules, true, &Thresholds::default())
}

/// [`update`] (or, with `to_end`, [`update_to_end`]) with the thresholds
/// `th`. The events past the last segment are kept in the state
/// ([`SessionState::pending`]): folding a session's events in any number
/// of runs, each ending where an assistant message ends (a `Stop`), gives
/// the state one run over all of them gives.
pub fn fold(
    state: &mut SessionState,
    events: &[Event],
    scrubber: &Scrubber,
    rules: &Rules,
    to_end: bool,
    th: &Thresholds,
) -> bool {
    let mut window: Vec<Event> = std::mem::take(&mut state.pending);
    let mut added = false;
    // the assistant message being read: its id and its tool calls so far
    let mut msg: Option<(Option<&str>, usize)> = None;
    let evs: Vec<&Event> = events
        .iter()
        .filter(|ev| !ev.sidechain && (ev.seq as i64) > state.last_seq)
        .collect();
    for (k, ev) in evs.iter().enumerate() {
        if state.session.is_empty() {
            state.session = ev.session.clone();
        }
        if ev.session != state.session {
            continue;
        }
        state.last_seq = ev.seq as i64;
        state.tokens += event_tokens(ev);
        if ev.role == "assistant" {
            let id = ev.msg_id.as_deref();
            match &mut msg {
                Some((m, n)) if id.is_some() && *m == id => {
                    if ev.kind == "tool_use" {
                        *n += 1;
                    }
                }
                _ => msg = Some((id, usize::from(ev.kind == "tool_use"))),
            }
            if ev.kind == "tool_use" {
                state.tool_calls += 1;
            }
        }
        if (ev.seq as i64) >= state.pending_from {
            window.push(window_event(ev, scrubber));
        }
        // the message ends here when the next event is not part of it
        let ends = ev.role == "assistant"
            && evs.get(k + 1).is_none_or(|nx| {
                nx.role != "assistant" || ev.msg_id.is_none() || nx.msg_id != ev.msg_id
            });
        if !ends {
            continue;
        }
        let tools_in_last = msg.take().map_or(0, |m| m.1);
        if due(state, tools_in_last, th) {
            push_segment(state, &window, scrubber, rules);
            state.pending_from = ev.seq as i64 + 1;
            window.clear();
            added = true;
        }
    }
    if to_end && !window.is_empty() {
        let mut awaiting = state.awaiting.clone();
        let seg = segment(
            &window,
            state.segments.len() + 1,
            scrubber,
            rules,
            &mut awaiting,
        );
        // a window of nothing to say (no request, command, file) adds nothing
        if seg.trim_end().contains('\n') {
            push_segment(state, &window, scrubber, rules);
            added = true;
        }
        state.pending_from = state.last_seq + 1;
        window.clear();
    }
    state.pending = window;
    added
}

/// What a segment reads of `ev`, kept in the state until the
/// segment is made: a request's text, a tool call's paths and command, a
/// result's id, outcome and (a hook's refusal only) text; every string
/// scrubbed, nothing else (no assistant prose, no tool output).
pub fn window_event(ev: &Event, scrubber: &Scrubber) -> Event {
    let scrub = |t: &str| scrubber.scrub(t).text;
    let mut e = Event {
        session: ev.session.clone(),
        source: ev.source.clone(),
        line: ev.line,
        seq: ev.seq,
        role: ev.role.clone(),
        kind: ev.kind.clone(),
        tool: ev.tool.clone(),
        tool_id: ev.tool_id.clone(),
        is_error: ev.is_error,
        ..Default::default()
    };
    match (ev.role.as_str(), ev.kind.as_str()) {
        ("user", "text") => e.text = ev.text.as_deref().map(scrub),
        ("assistant", "tool_use") => {
            if let Some(input) = &ev.input {
                let mut kept = serde_json::Map::new();
                for k in ["file_path", "path", "notebook_path", "command", "cmd"] {
                    if let Some(v) = input.get(k) {
                        let v = match v {
                            serde_json::Value::String(t) => serde_json::Value::String(scrub(t)),
                            serde_json::Value::Array(a) => serde_json::Value::Array(
                                a.iter()
                                    .map(|x| match x {
                                        serde_json::Value::String(t) => {
                                            serde_json::Value::String(scrub(t))
                                        }
                                        other => other.clone(),
                                    })
                                    .collect(),
                            ),
                            other => other.clone(),
                        };
                        kept.insert(k.to_string(), v);
                    }
                }
                e.input = Some(serde_json::Value::Object(kept));
            }
        }
        (_, "tool_result") => {
            e.text = ev
                .text
                .as_deref()
                .filter(|t| mem_core::lesson::is_hook_refusal(t))
                .map(scrub);
        }
        _ => {}
    }
    e
}

/// Add the segment of `window` to `state` (the oldest go past
/// [`TOTAL_TOKENS`]); the earlier segments' open errors that this one ran
/// to success are closed.
fn push_segment(state: &mut SessionState, window: &[Event], scrubber: &Scrubber, rules: &Rules) {
    let seg = segment(
        window,
        state.segments.len() + 1,
        scrubber,
        rules,
        &mut state.awaiting,
    );
    let passed = passed_commands(&seg);
    for old in &mut state.segments {
        close_open_errors(old, &passed);
    }
    state.segments.push(seg);
    while state.segments.len() > 1 && estimate_tokens(&state.segments.concat()) > TOTAL_TOKENS {
        state.segments.remove(0);
    }
    state.tokens_at_update = state.tokens;
    state.tool_calls = 0;
}

/// The commands a segment lists as passed (`` - `c` — ok ``), as listed.
fn passed_commands(seg: &str) -> Vec<String> {
    seg.lines()
        .filter_map(|l| l.strip_prefix("- `")?.strip_suffix("` — ok"))
        .map(str::to_string)
        .collect()
}

/// Remove from the `### Open errors` section of `seg` the commands of
/// `passed` (a later segment ran them to success), and the section when
/// that empties it.
fn close_open_errors(seg: &mut String, passed: &[String]) {
    let Some(at) = seg.find("\n### Open errors\n") else {
        return;
    };
    let head = &seg[..at];
    let body = &seg[at + "\n### Open errors\n".len()..];
    let (items, tail) = match body.find("\n### ") {
        Some(i) => (&body[..=i], &body[i + 1..]),
        None => (body, ""),
    };
    let kept: Vec<&str> = items
        .lines()
        .filter(|l| {
            l.strip_prefix("- `")
                .and_then(|c| c.strip_suffix('`'))
                .is_none_or(|c| !passed.iter().any(|p| p == c))
        })
        .filter(|l| !l.is_empty())
        .collect();
    if kept.len() == items.lines().filter(|l| !l.is_empty()).count() {
        return;
    }
    let mut out = head.to_string();
    if !kept.is_empty() {
        out.push_str("\n### Open errors\n");
        for l in kept {
            out.push_str(l);
            out.push('\n');
        }
    }
    if !tail.is_empty() {
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(tail);
    }
    *seg = out;
}

/// Claude Code's rule, as an assistant message with `tools_in_last` tool
/// calls ends: initialised (at least [`START_TOKENS`]), at least
/// [`STEP_TOKENS`] since the last update, and [`MIN_TOOL_CALLS`] tool calls
/// since then or none in that message.
fn due(state: &SessionState, tools_in_last: usize, th: &Thresholds) -> bool {
    let started = state.tokens_at_update > 0 || state.tokens >= th.init_tokens;
    let tokens_met = state.tokens >= state.tokens_at_update + th.update_tokens;
    started && tokens_met && (state.tool_calls >= th.tool_calls || tools_in_last == 0)
}

fn event_tokens(ev: &Event) -> usize {
    let mut n = ev.text.as_deref().map_or(0, estimate_tokens);
    if let Some(i) = &ev.input {
        n += estimate_tokens(&i.to_string());
    }
    n
}

fn one_line(s: &str, n: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let c = floor_to_chars(&s, n);
    if c.len() < s.len() {
        format!("{c}…")
    } else {
        s
    }
}

/// One segment: extractive sections over `window`, at most [`SEGMENT_TOKENS`].
/// `awaiting` holds the commands of earlier segments whose result had not
/// come: a result here lists its command again with it; this window's
/// commands left without a result are added.
fn segment(
    window: &[Event],
    no: usize,
    scrubber: &Scrubber,
    rules: &Rules,
    awaiting: &mut std::collections::BTreeMap<String, String>,
) -> String {
    let mut requests = Vec::new();
    let mut decisions = Vec::new();
    let mut files = BTreeSet::new();
    let mut commands: Vec<(String, Option<bool>)> = Vec::new();
    // commands a hook refused (they never ran)
    let mut not_run: BTreeSet<usize> = BTreeSet::new();
    let mut calls: std::collections::HashMap<String, usize> = Default::default();
    for ev in window {
        match (ev.role.as_str(), ev.kind.as_str()) {
            ("user", "text") => {
                let t = ev.text.as_deref().unwrap_or("").trim();
                if t.is_empty() || t.starts_with('<') {
                    continue;
                }
                let ss = sentences(t);
                if let Some(first) = ss.first() {
                    requests.push(one_line(first, 160));
                }
                for s in ss.iter().skip(1).chain(ss.first()) {
                    let l = s.to_ascii_lowercase();
                    if rules
                        .feedback
                        .iter()
                        .chain(&rules.project)
                        .any(|r| r.fires(&l))
                        && !decisions.contains(&one_line(s, 160))
                    {
                        decisions.push(one_line(s, 160));
                    }
                }
            }
            ("assistant", "tool_use") => {
                if let Some(input) = &ev.input {
                    for k in ["file_path", "path", "notebook_path"] {
                        if let Some(p) = input.get(k).and_then(|v| v.as_str()) {
                            files.insert(p.to_string());
                        }
                    }
                }
                if let Some(c) = command_of(ev) {
                    if let Some(id) = &ev.tool_id {
                        calls.insert(id.clone(), commands.len());
                    }
                    commands.push((one_line(c.lines().next().unwrap_or(""), 120), None));
                }
            }
            (_, "tool_result") => {
                // a hook's refusal: the command did not run
                let refused = ev
                    .text
                    .as_deref()
                    .is_some_and(mem_core::lesson::is_hook_refusal);
                let ok = !ev.is_error.unwrap_or(false);
                let i = match ev.tool_id.as_ref().and_then(|id| calls.get(id)) {
                    Some(&i) => Some(i),
                    None => ev
                        .tool_id
                        .as_ref()
                        .and_then(|id| awaiting.remove(id))
                        .map(|c| {
                            commands.push((c, None));
                            commands.len() - 1
                        }),
                };
                if let Some(i) = i {
                    if refused {
                        not_run.insert(i);
                    } else {
                        commands[i].1 = Some(ok);
                    }
                }
            }
            _ => {}
        }
    }
    for (id, &i) in &calls {
        if commands[i].1.is_none() && !not_run.contains(&i) && awaiting.len() < MAX_AWAITING {
            // kept in the state file: scrubbed like the segments
            awaiting.insert(id.clone(), scrubber.scrub(&commands[i].0).text);
        }
    }
    let mut open: Vec<String> = Vec::new();
    for (i, (c, ok)) in commands.iter().enumerate() {
        if *ok == Some(false)
            && !commands[i + 1..]
                .iter()
                .any(|(d, o)| d == c && *o == Some(true))
        {
            open.push(c.clone());
        }
    }
    let mut s = format!("## Segment {no}\n");
    let mut section = |title: &str, items: Vec<String>| {
        if items.is_empty() {
            return;
        }
        s.push_str(&format!("\n### {title}\n"));
        for it in items {
            s.push_str(&format!("- {it}\n"));
        }
    };
    section("Requests", requests);
    section("Decisions", decisions);
    section("Files touched", files.into_iter().collect());
    section(
        "Commands",
        commands
            .iter()
            .enumerate()
            .map(|(i, (c, ok))| {
                let o = match ok {
                    _ if not_run.contains(&i) => "not run (stopped by a hook)",
                    Some(true) => "ok",
                    Some(false) => "failed",
                    None => "no result",
                };
                format!("`{c}` — {o}")
            })
            .collect(),
    );
    section(
        "Open errors",
        open.into_iter().map(|c| format!("`{c}`")).collect(),
    );
    let s = scrubber.scrub(&s).text;
    let cut = floor_to_bytes(&s, SEGMENT_TOKENS * 4);
    let mut seg = cut.to_string();
    if cut.len() < s.len()
        && let Some(i) = seg.rfind('\n')
    {
        seg.truncate(i + 1);
    }
    if !seg.ends_with('\n') {
        seg.push('\n');
    }
    seg
}

/// The rendered summary file.
pub fn render(state: &SessionState) -> String {
    let mut s = String::from("# Session summary\n\n");
    s.push_str(&state.segments.join("\n"));
    s
}

/// Run `session`.
///
/// Errors: bad input (exit 1, naming the line), an unreadable state file, I/O.
pub fn run(args: SessionArgs) -> Result<Exit, ExtractError> {
    if args.hook {
        if let Err(e) = run_hook(&args) {
            eprintln!("mem-extract: session --hook: {e} (no session memory written)");
        }
        return Ok(Exit::Success);
    }
    let events = crate::events::read_events(&args.files)?;
    let mut state = match &args.state {
        Some(p) if p.exists() => {
            let t = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
            serde_json::from_str(&t)
                .map_err(|e| Error::input(p.display().to_string(), e.line(), e.to_string()))?
        }
        _ => SessionState {
            last_seq: -1,
            ..Default::default()
        },
    };
    let root = crate::events::project_root_for(args.cwd.as_deref(), &events, false);
    let scrubber = Scrubber::new(root.as_deref());
    let rules = Rules::default_rules();
    let added = fold(
        &mut state,
        &events,
        &scrubber,
        &rules,
        false,
        &args.thresholds(),
    );
    let mut out = Output::stdout(args.line_buffered);
    if added {
        let path = match &args.out {
            Some(p) => p.clone(),
            None => {
                let cwd = args
                    .cwd
                    .clone()
                    .or_else(|| crate::events::events_cwd(&events))
                    .ok_or(ExtractError::NoCwd)?;
                // Never Claude Code's own session-memory file: the
                // session's hook-state folder, as `--hook` writes it.
                let resolved = memdir::resolve(&memdir::MemdirOptions {
                    cwd: Some(cwd),
                    ..Default::default()
                })?;
                memdir::session_state_dir(&resolved.dir, &state.session)?.join(SUMMARY_FILE)
            }
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        write_if_changed(&path, render(&state).as_bytes())?;
        out.line(&path.display().to_string())?;
    } else if state.tokens_at_update == 0 {
        eprintln!(
            "mem-extract: session: {} tokens so far; the summary starts past {}",
            state.tokens,
            args.thresholds().init_tokens
        );
    } else {
        eprintln!("mem-extract: session: no update due");
    }
    if let Some(p) = &args.state {
        let json = serde_json::to_vec_pretty(&state).map_err(|err| ExtractError::State {
            path: p.clone(),
            err,
        })?;
        write_atomic(p, &json)?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `session --hook`: fold the events on stdin into the session's state in
/// its hook-state folder and write [`SUMMARY_FILE`] there when a segment
/// was added (its path on stdout).
///
/// Errors: bad input, a settings file that is not JSON, I/O.
fn run_hook(a: &SessionArgs) -> Result<(), ExtractError> {
    let events = crate::events::read_events(&a.files)?;
    let Some(first) = events.iter().find(|e| !e.sidechain) else {
        eprintln!("mem-extract: session --hook: no main-agent events; nothing to summarize");
        return Ok(());
    };
    let cwd = match a.cwd.clone().or_else(|| crate::events::events_cwd(&events)) {
        Some(c) => c,
        None => std::env::current_dir().map_err(|e| Error::io(".", e))?,
    };
    if let Some(why) = memdir::memory_off(Some(&cwd))? {
        eprintln!("mem-extract: session --hook: memory is off ({why}); no session memory");
        return Ok(());
    }
    if let Some(why) = auto_compact_off(Some(&cwd))? {
        eprintln!("mem-extract: session --hook: auto-compaction is off ({why}); no session memory");
        return Ok(());
    }
    let resolved = memdir::resolve(&memdir::MemdirOptions {
        cwd: Some(cwd.clone()),
        ..Default::default()
    })?;
    let dir = memdir::session_state_dir(&resolved.dir, &first.session)?;
    let root = memdir::project_root(&cwd, false);
    // a compaction follows: everything up to it goes into the summary
    let done = fold_in_state_dir(&dir, &events, &root, true, &a.thresholds())?;
    let mut out = Output::stdout(a.line_buffered);
    if done.added {
        out.line(&done.summary.display().to_string())?;
    } else {
        eprintln!(
            "mem-extract: session --hook: {} tokens so far; no update due",
            done.tokens
        );
    }
    out.flush()?;
    Ok(())
}

/// What [`fold_in_state_dir`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    /// True when a segment was added (the summary was written).
    pub added: bool,
    /// The summary file ([`SUMMARY_FILE`] in the folder).
    pub summary: PathBuf,
    /// Conversation tokens so far.
    pub tokens: usize,
    /// Segments in the summary.
    pub segments: usize,
}

/// Fold `events` into the session state kept in the hook-state folder
/// `dir` ([`STATE_FILE`]), under its lock (`session.lock`, waited for), and
/// write [`SUMMARY_FILE`] there when a segment was added. `to_end`: a
/// compaction follows, so whatever came after the last segment is one more
/// ([`update_to_end`]); else the rule alone decides (`Stop`, [`update`]).
/// Paths and secrets are scrubbed against the project `root`.
///
/// Errors: a state file that is not the state (naming it and the line),
/// I/O on the folder.
pub fn fold_in_state_dir(
    dir: &std::path::Path,
    events: &[Event],
    root: &std::path::Path,
    to_end: bool,
    th: &Thresholds,
) -> Result<Folded, ExtractError> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let lock_path = dir.join("session.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| Error::io(&lock_path, e))?;
    lock.lock().map_err(|e| Error::io(&lock_path, e))?;
    let state_path = dir.join(STATE_FILE);
    let mut state = match std::fs::read_to_string(&state_path) {
        Ok(t) => serde_json::from_str(&t)
            .map_err(|e| Error::input(state_path.display().to_string(), e.line(), e.to_string()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => SessionState {
            last_seq: -1,
            ..Default::default()
        },
        Err(e) => return Err(Error::io(&state_path, e).into()),
    };
    let scrubber = Scrubber::new(Some(root));
    let added = fold(
        &mut state,
        events,
        &scrubber,
        &Rules::default_rules(),
        to_end,
        th,
    );
    let summary = dir.join(SUMMARY_FILE);
    if added {
        write_atomic(&summary, render(&state).as_bytes())?;
    }
    let json = serde_json::to_vec_pretty(&state).map_err(|err| ExtractError::State {
        path: state_path.clone(),
        err,
    })?;
    write_atomic(&state_path, &json)?;
    Ok(Folded {
        added,
        summary,
        tokens: state.tokens,
        segments: state.segments.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: u64, role: &str, kind: &str, text: &str) -> Event {
        Event {
            session: "s1".into(),
            source: "claude".into(),
            line: seq + 1,
            seq,
            role: role.into(),
            kind: kind.into(),
            text: Some(text.into()),
            ..Default::default()
        }
    }

    fn big_session(n: usize) -> Vec<Event> {
        let mut v = Vec::new();
        let filler = "word ".repeat(400); // 2,000 bytes = 500 tokens
        for i in 0..n {
            let s = (i * 5) as u64;
            v.push(ev(
                s,
                "user",
                "text",
                &format!("Please fix bug {i}. Never use unwrap in lib code. {filler}"),
            ));
            let mut u = ev(s + 1, "assistant", "tool_use", "");
            u.text = None;
            u.tool = Some("Bash".into());
            u.tool_id = Some(format!("t{i}"));
            u.input = Some(
                serde_json::json!({"command": format!("cargo test -p c{i}"), "file_path": "/home/user/proj/src/lib.rs"}),
            );
            v.push(u);
            let mut r = ev(s + 2, "tool", "tool_result", &filler);
            r.tool_id = Some(format!("t{i}"));
            r.is_error = Some(i % 2 == 0);
            v.push(r);
            v.push(ev(
                s + 3,
                "assistant",
                "text",
                &format!("Done with {i}. {filler}"),
            ));
        }
        v
    }

    #[test]
    fn starts_past_10k_and_updates_every_5k() {
        let sc = Scrubber::new(Some(std::path::Path::new("/home/user/proj")));
        let rules = Rules::default_rules();
        let evs = big_session(4); // ~6,000 tokens
        let mut st = SessionState {
            last_seq: -1,
            ..Default::default()
        };
        assert!(!update(&mut st, &evs, &sc, &rules));
        let evs = big_session(40);
        let mut st2 = SessionState {
            last_seq: -1,
            ..Default::default()
        };
        assert!(update(&mut st2, &evs, &sc, &rules));
        assert!(st2.segments.len() >= 3, "{}", st2.segments.len());
        let text = render(&st2);
        assert!(estimate_tokens(&text) <= TOTAL_TOKENS + 10);
        assert!(
            st2.segments
                .iter()
                .all(|s| estimate_tokens(s) <= SEGMENT_TOKENS)
        );
        assert!(text.contains("### Commands") && text.contains("src/lib.rs"));
        assert!(!text.contains("/home/user"), "{text}");
        assert!(text.contains("Never use unwrap"));
        // deterministic and incremental: the same events again add nothing
        let before = st2.clone();
        assert!(!update(&mut st2, &evs, &sc, &rules));
        assert_eq!(before, st2);
        let mut st3 = SessionState {
            last_seq: -1,
            ..Default::default()
        };
        update(&mut st3, &evs, &sc, &rules);
        assert_eq!(st3, before);
    }

    fn bash(seq: u64, id: &str, cmd: &str, out: &str, failed: bool) -> [Event; 2] {
        let mut u = ev(seq, "assistant", "tool_use", "");
        u.text = None;
        u.msg_id = Some(format!("m{seq}"));
        u.tool = Some("Bash".into());
        u.tool_id = Some(id.into());
        u.input = Some(serde_json::json!({ "command": cmd }));
        let mut r = ev(seq + 1, "tool", "tool_result", out);
        r.tool_id = Some(id.into());
        r.is_error = Some(failed);
        [u, r]
    }

    /// At a compaction the last stretch, under the thresholds, is a
    /// segment too, and a failure it ran to success is no longer open.
    #[test]
    fn the_end_of_the_session_is_summarized_and_fixed_errors_close() {
        let sc = Scrubber::new(None);
        let rules = Rules::default_rules();
        let log = "[ci] step: compiled\n".repeat(2_200); // ~11,000 tokens
        let mut evs = vec![ev(
            0,
            "user",
            "text",
            &format!("The CI log:\n{log}\nRun the build-token check."),
        )];
        evs.extend(bash(
            1,
            "a",
            "node src/build-token.mjs",
            "build-token: error: cannot read",
            true,
        ));
        let mut said = ev(3, "assistant", "text", "It failed; setup first.");
        said.msg_id = Some("m3".into());
        evs.push(said);
        evs.extend(bash(4, "b", "node src/setup.mjs", "setup: wrote", false));
        evs.extend(bash(
            6,
            "c",
            "node src/build-token.mjs",
            "build-token: ok",
            false,
        ));
        let mut done = ev(8, "assistant", "text", "It passes now.");
        done.msg_id = Some("m8".into());
        evs.push(done);
        let fresh = || SessionState {
            last_seq: -1,
            ..Default::default()
        };
        // the rule alone: one segment, ending at the failure
        let mut st = fresh();
        assert!(update(&mut st, &evs, &sc, &rules));
        assert_eq!(st.segments.len(), 1);
        assert!(st.segments[0].contains("### Open errors\n- `node src/build-token.mjs`\n"));
        // at a compaction: the rest is a segment, and the error is closed
        let mut st = fresh();
        assert!(update_to_end(&mut st, &evs, &sc, &rules));
        assert_eq!(st.segments.len(), 2);
        assert!(
            !st.segments[0].contains("Open errors"),
            "{}",
            st.segments[0]
        );
        assert!(st.segments[0].contains("- `node src/build-token.mjs` — failed\n"));
        assert!(st.segments[0].ends_with("failed\n"), "{:?}", st.segments[0]);
        assert_eq!(
            st.segments[1],
            "## Segment 2\n\n### Commands\n- `node src/setup.mjs` — ok\n- `node src/build-token.mjs` — ok\n"
        );
        assert_eq!(st.last_seq, 8);
        assert_eq!(st.pending_from, 9);
        // nothing new: nothing added
        assert!(!update_to_end(&mut st, &evs, &sc, &rules));
        assert_eq!(st.segments.len(), 2);

        // the rule cuts a segment between a command and its result: the
        // next segment lists the command with the result
        let mut evs = vec![ev(
            0,
            "user",
            "text",
            &format!("The CI log:\n{log}\nRun the check."),
        )];
        evs.extend(bash(
            1,
            "a",
            "node src/build-token.mjs",
            "error: cannot read",
            true,
        ));
        evs.extend(bash(3, "b", "node src/setup.mjs", "setup: wrote", false));
        evs.extend(bash(
            5,
            "c",
            "node src/build-token.mjs",
            "build-token: ok",
            false,
        ));
        let mut done = ev(7, "assistant", "text", "It passes now.");
        done.msg_id = Some("m7".into());
        evs.push(done);
        let mut st = fresh();
        assert!(update(&mut st, &evs[..6], &sc, &rules));
        assert!(st.segments[0].contains("- `node src/build-token.mjs` — no result\n"));
        assert_eq!(
            st.awaiting.get("c").map(String::as_str),
            Some("node src/build-token.mjs")
        );
        assert!(update_to_end(&mut st, &evs[6..], &sc, &rules));
        assert!(
            !st.segments[0].contains("Open errors"),
            "{}",
            st.segments[0]
        );
        assert_eq!(
            st.segments[1],
            "## Segment 2\n\n### Commands\n- `node src/build-token.mjs` — ok\n"
        );
        assert!(st.awaiting.is_empty());
    }

    /// A command a hook refused never ran: not failed, not an open error.
    #[test]
    fn a_refused_command_is_not_an_error() {
        let sc = Scrubber::new(None);
        let rules = Rules::default_rules();
        let refusal = format!(
            "{}\n- Run `node src/setup.mjs` before `node src/build-token.mjs`.",
            mem_core::lesson::STOP_HEADER
        );
        let mut evs = vec![ev(0, "user", "text", "Run the build-token check.")];
        evs.extend(bash(1, "a", "node src/build-token.mjs", &refusal, true));
        evs.extend(bash(3, "b", "node src/setup.mjs", "setup: wrote", false));
        let mut st = SessionState {
            last_seq: -1,
            ..Default::default()
        };
        assert!(update_to_end(&mut st, &evs, &sc, &rules));
        assert_eq!(
            st.segments,
            [
                "## Segment 1\n\n### Requests\n- Run the build-token check.\n\n### Commands\n- `node src/build-token.mjs` — not run (stopped by a hook)\n- `node src/setup.mjs` — ok\n"
            ]
        );
        assert!(st.awaiting.is_empty());
    }

    /// Claude Code's thresholds, exactly: nothing before 10k tokens; then
    /// at the end of an assistant message with 5k tokens since the last
    /// update and 3 tool calls since, or a message without tool calls.
    #[test]
    fn thresholds_are_claude_codes() {
        let sc = Scrubber::new(None);
        let rules = Rules::default_rules();
        let mut seq = 0u64;
        let mut next = |role: &str, kind: &str, msg: Option<&str>, tokens: usize| {
            let mut e = ev(seq, role, kind, &"x".repeat(tokens * 4));
            seq += 1;
            e.msg_id = msg.map(str::to_string);
            if kind == "tool_use" {
                e.text = None;
                e.tool = Some("Bash".into());
                e.tool_id = Some(format!("t{seq}"));
            }
            e
        };
        let mut st = SessionState {
            last_seq: -1,
            ..Default::default()
        };
        // 9,001 tokens and a message without tools: not yet started
        let a = vec![
            next("user", "text", None, 9_000),
            next("assistant", "text", Some("m1"), 1),
        ];
        assert!(!update(&mut st, &a, &sc, &rules));
        // past 10k, but the message made 1 tool call (text + tool_use of
        // one message) and only 1 call since: not due
        let b = vec![
            next("user", "text", None, 1_000),
            next("assistant", "text", Some("m2"), 1),
            next("assistant", "tool_use", Some("m2"), 0),
        ];
        assert!(!update(&mut st, &b, &sc, &rules));
        assert_eq!(st.tool_calls, 1);
        // a second call, then a message without tools: the natural break
        let c = vec![
            next("tool", "tool_result", None, 1),
            next("assistant", "tool_use", Some("m3"), 0),
            next("tool", "tool_result", None, 1),
        ];
        assert!(!update(&mut st, &c, &sc, &rules));
        let d = vec![next("assistant", "text", Some("m4"), 1)];
        assert!(update(&mut st, &d, &sc, &rules));
        assert_eq!(st.segments.len(), 1);
        let at = st.tokens_at_update;
        assert!(at >= START_TOKENS, "{at}");
        assert_eq!(st.tool_calls, 0);
        // 4,000 tokens later and a break: fewer than 5k since, not due
        let e = vec![
            next("user", "text", None, 4_000),
            next("assistant", "text", Some("m5"), 1),
        ];
        assert!(!update(&mut st, &e, &sc, &rules));
        // 5k reached; 1 and then 2 tool calls, each message with a call
        let f = vec![
            next("user", "text", None, 1_000),
            next("assistant", "tool_use", Some("m6"), 0),
            next("tool", "tool_result", None, 1),
            next("assistant", "tool_use", Some("m7"), 0),
            next("tool", "tool_result", None, 1),
        ];
        assert!(!update(&mut st, &f, &sc, &rules));
        assert_eq!(st.tool_calls, 2);
        // the third call: due at once, though the message has a call
        let g = vec![next("assistant", "tool_use", Some("m8"), 0)];
        assert!(update(&mut st, &g, &sc, &rules));
        assert_eq!(st.segments.len(), 2);
        assert!(st.tokens_at_update >= at + STEP_TOKENS);
    }
}
