//! The events a run reads: from files or stdin, the project they belong to,
//! their turns, and the turns in which the agent wrote into the memory
//! directory.

use std::path::{Path, PathBuf};

use mem_core::records::Event;
use mem_core::{Error, memdir};

/// The tool's name in messages.
pub(crate) const NAME: &str = "mem-extract";

/// On a terminal stdin, say what is expected there.
pub(crate) fn stdin_hint() {
    mem_core::cli::stdin_hint(
        NAME,
        "events (JSONL from mem-transcript replay)",
        "mem-transcript replay SESSION.jsonl | mem-extract | mem-index write",
    );
}

/// Read event records from files (or stdin when empty). Every bad line is
/// reported on stderr; the first is returned as the error.
///
/// Errors: [`Error::Input`] naming the file and line, [`Error::Io`].
pub fn read_events(files: &[PathBuf]) -> Result<Vec<Event>, Error> {
    let mut all = Vec::new();
    let mut errs = Vec::new();
    if files.is_empty() {
        stdin_hint();
        let (ok, e) = mem_core::jsonl::read_records::<Event>(std::io::stdin().lock(), "<stdin>");
        all.extend(ok.into_iter().map(|(_, e)| e));
        errs.extend(e);
    } else {
        for f in files {
            let file = std::fs::File::open(f).map_err(|e| Error::io(f, e))?;
            let (ok, e) = mem_core::jsonl::read_records::<Event>(
                std::io::BufReader::new(file),
                &f.display().to_string(),
            );
            all.extend(ok.into_iter().map(|(_, e)| e));
            errs.extend(e);
        }
    }
    let mut it = errs.into_iter();
    match it.next() {
        None => Ok(all),
        Some(first) => {
            for e in it {
                eprintln!("{NAME}: {e}");
            }
            Err(first)
        }
    }
}

/// The recorded cwd of the main agent's events (the first one found).
pub fn events_cwd(events: &[Event]) -> Option<PathBuf> {
    events
        .iter()
        .filter(|e| !e.sidechain)
        .find_map(|e| e.cwd.as_deref().filter(|c| !c.is_empty()))
        .map(PathBuf::from)
}

/// The project root for path scrubbing: `--cwd` or the events' cwd, then its
/// main worktree root (this worktree's with `per_worktree`), else that cwd.
pub fn project_root_for(
    cwd: Option<&Path>,
    events: &[Event],
    per_worktree: bool,
) -> Option<PathBuf> {
    let cwd = cwd
        .map(Path::to_path_buf)
        .or_else(|| events_cwd(events))
        .or_else(|| std::env::current_dir().ok())?;
    Some(memdir::project_root(&cwd, per_worktree))
}

/// Number of user turns (the main agent's user text, not meta).
pub fn user_turns(events: &[Event]) -> u64 {
    events
        .iter()
        .filter(|e| !e.sidechain && e.role == "user" && e.kind == "text")
        .count() as u64
}

/// True when the last turn (the tool calls after the last user message)
/// already wrote into the memory directory: into `memory_dir` when given,
/// else any `…/.claude/projects/<slug>/memory/…` or `MEMORY.md`
/// ([`mem_core::session::writes_memory`]).
pub fn last_turn_wrote_memory(events: &[Event], memory_dir: Option<&Path>) -> bool {
    let main: Vec<&Event> = events.iter().filter(|e| !e.sidechain).collect();
    let start = main
        .iter()
        .rposition(|e| is_turn_start(e.role.as_str(), e.kind.as_str()))
        .map_or(0, |i| i + 1);
    turn_writes_memory(&main[start..], memory_dir)
}

/// True when one of `events` is a tool call writing into the memory
/// directory (see [`last_turn_wrote_memory`]).
fn turn_writes_memory(events: &[&Event], memory_dir: Option<&Path>) -> bool {
    let dir = memory_dir_prefix(memory_dir);
    events.iter().any(|e| {
        e.kind == "tool_use"
            && mem_core::session::writes_memory(
                e.tool.as_deref(),
                e.input.as_ref().and_then(mem_core::session::write_path_of),
                dir.as_deref(),
            )
    })
}

/// The events without the turns (a user message and what follows it up to
/// the next) in which the agent wrote into the memory directory, and how
/// many turns were left out. Side-chain events stay with the turn they
/// fall in.
pub fn without_memory_turns(events: Vec<Event>, memory_dir: Option<&Path>) -> (Vec<Event>, u64) {
    let mut out = Vec::with_capacity(events.len());
    let mut turn: Vec<Event> = Vec::new();
    let mut skipped = 0;
    let mut flush = |turn: &mut Vec<Event>, out: &mut Vec<Event>| {
        let main: Vec<&Event> = turn.iter().filter(|e| !e.sidechain).collect();
        if turn_writes_memory(&main, memory_dir) {
            skipped += 1;
            turn.clear();
        } else {
            out.append(turn);
        }
    };
    for e in events {
        if !e.sidechain && is_turn_start(&e.role, &e.kind) {
            flush(&mut turn, &mut out);
        }
        turn.push(e);
    }
    flush(&mut turn, &mut out);
    (out, skipped)
}

/// True for the event that starts a turn: the main agent's user text.
pub(crate) fn is_turn_start(role: &str, kind: &str) -> bool {
    role == "user" && kind == "text"
}

/// The memory directory as compared by [`mem_core::session::writes_memory`].
pub(crate) fn memory_dir_prefix(memory_dir: Option<&Path>) -> Option<String> {
    memory_dir.map(|d| d.to_string_lossy().trim_end_matches('/').to_string())
}
