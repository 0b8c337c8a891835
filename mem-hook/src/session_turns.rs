//! `mem-recall --hook` on `Stop`: the session memory kept turn by turn
//! (docs/hooks.md "Session memory, turn by turn").
//!
//! At the end of each turn (Claude Code's `Stop`, a natural break: the
//! agent's last message has no tool call waiting) the lines of the
//! transcript that the session summary has not read yet are read from the
//! summary's watermark (`compact.json`, shared with `PreCompact`; through
//! [`mem_transcript::capture::read_for_summary`], never the whole file
//! again) and folded into the summary's state by Claude Code's rule
//! ([`mem_extract::session::fold_in_state_dir`] with the thresholds of
//! [`mem_extract::session::Thresholds::from_env`]): a segment is added
//! once enough tokens and tool calls came since the last one. The state
//! keeps the events since the last segment, so one run a turn writes the
//! same summary as one pass over the session.
//!
//! The watermark moves only after the state is saved: a run stopped in
//! between reads the same lines again, and the state skips what it already
//! folded (by `seq`). With auto-compaction off nothing is read and the
//! watermark stays where it is, so no turn is skipped if it is turned on
//! again. The run prints nothing on stdout (a `Stop` hook's stdout is its
//! answer); what it did goes to stderr.

use std::path::{Path, PathBuf};

use mem_core::hooks::HookInput;
use mem_core::records::Event;
use mem_extract::session::{Thresholds, fold_in_state_dir};

use crate::NAME;

/// Fold the turn that just ended into the session memory of the session
/// `h` names (`input` is the hook JSON as received). `cwd`: the project's
/// working directory when the hook names none.
///
/// Errors: an unreadable transcript, a state folder that cannot be
/// written, a settings file that is not JSON.
pub fn on_stop(h: &HookInput, input: &[u8], cwd: Option<&Path>) -> crate::Result<()> {
    if h.stop_hook_active == Some(true) {
        // a Stop hook made the agent go on: the turn has not ended
        return Ok(());
    }
    let mut buf = Vec::new();
    let threads = mem_transcript::default_threads();
    let Some(read) = mem_transcript::capture::read_for_summary(input, &mut buf, threads)? else {
        return Ok(());
    };
    let (events, errors) = mem_core::jsonl::read_records::<Event>(&buf[..], "<transcript events>");
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    let events: Vec<Event> = events.into_iter().map(|(_, e)| e).collect();
    let Some(first) = events.iter().find(|e| !e.sidechain) else {
        // nothing of the main agent: the lines are read all the same
        read.commit()?;
        return Ok(());
    };
    let cwd: PathBuf = match h.cwd.as_deref().filter(|c| !c.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => match cwd {
            Some(c) => c.to_path_buf(),
            None => std::env::current_dir().map_err(mem_recall::RecallError::WorkingDir)?,
        },
    };
    let resolved = mem_core::memdir::resolve(&mem_core::memdir::MemdirOptions {
        cwd: Some(cwd.clone()),
        ..Default::default()
    })?;
    let dir = mem_core::memdir::session_state_dir(&resolved.dir, &first.session)?;
    let root = mem_core::memdir::project_root(&cwd, false);
    let th = Thresholds::from_env();
    let done = fold_in_state_dir(&dir, &events, &root, false, &th)
        .map_err(|e| crate::error::HookError::SessionMemory(e.to_string()))?;
    read.commit()?;
    if done.added {
        eprintln!(
            "{NAME}: hook: session memory: {} tokens, segment {} written to {}",
            done.tokens,
            done.segments,
            done.summary.display()
        );
    } else {
        eprintln!(
            "{NAME}: hook: session memory: {} tokens, {} segment(s); no update due",
            done.tokens, done.segments
        );
    }
    Ok(())
}
