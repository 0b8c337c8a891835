//! Replaying one transcript: the events of the chosen branch
//! (docs/transcripts.md "Replay: one branch"), for the `replay` command and
//! for callers of the library.

use std::path::Path;

use mem_core::Error;
use mem_core::jsonl::Warning;

use crate::event::Sink;
use crate::input::{self, Input, Source};
use crate::{claude, codex, default_threads, entries, is_subagent_path};

/// Options of a replay for callers of the library (mem-dream): plain
/// values, the command line's `--from`, `--resume`, `--leaf`, `--raw`, `-j`.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The reader (`None`: guessed from the file name and first lines).
    pub from: Option<Source>,
    /// The branch resume would continue instead of the newest leaf.
    pub resume: bool,
    /// The branch ending at this entry uuid.
    pub leaf: Option<String>,
    /// The branch's original lines instead of events.
    pub raw: bool,
    /// Threads that index and render a large session (at least 1).
    pub threads: usize,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            from: None,
            resume: false,
            leaf: None,
            raw: false,
            threads: default_threads(),
        }
    }
}

/// What a replay tells its caller besides the events.
#[derive(Debug)]
pub enum Notice<'a> {
    /// Lines that could not be read as they are (`FILE:LINE: reason`).
    Warnings(&'a [Warning]),
    /// A 0-byte file (the label): no events.
    Empty(&'a str),
    /// A file without conversation entries (the label): no events.
    NoConversation(&'a str),
    /// `--leaf` given for a Codex rollout (the label), which has one branch.
    LeafIgnored(&'a str),
}

impl std::fmt::Display for Notice<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::Warnings(ws) => {
                for (i, w) in ws.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{w}")?;
                }
                Ok(())
            }
            Notice::Empty(l) => write!(f, "{l}: empty session (0 bytes): no events"),
            Notice::NoConversation(l) => write!(f, "{l}: no conversation entries: no events"),
            Notice::LeafIgnored(l) => write!(
                f,
                "mem-transcript: warning: {l}: --leaf ignored for a Codex rollout (it has one branch)"
            ),
        }
    }
}

/// Replay one transcript into `sink`: the events of the chosen branch
/// (docs/transcripts.md "Replay: one branch"), with the branch walk and the recovery rules of
/// `mem-transcript replay`. Each warning batch and note goes to `notice`
/// first; an error it returns stops the replay (`--strict`).
///
/// Errors: [`Error::Io`] (the file, the output), [`Error::Input`] (not a
/// transcript, an unknown `--leaf`), or what `notice` returns.
pub fn replay_file(
    path: &Path,
    opts: &ReplayOptions,
    sink: &mut Sink<'_>,
    notice: &mut dyn FnMut(Notice<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    sink.reset();
    sink.set_sidechain(is_subagent_path(path));
    let inp = Input::open(path)?;
    if inp.size == 0 {
        return notice(Notice::Empty(&inp.label));
    }
    let source = match opts.from {
        Some(s) => s,
        None => input::sniff(&inp)?,
    };
    match source {
        Source::Claude => {
            let ix = claude::index_with(&inp, opts.threads)?;
            let walk = claude::WalkOpts {
                resume: opts.resume,
                leaf: opts.leaf.clone(),
            };
            let br = ix.walk(&walk)?;
            let mut ws = ix.warnings.clone();
            ws.extend(ix.walk_warnings(&br));
            if !ws.is_empty() {
                notice(Notice::Warnings(&ws))?;
            }
            if br.leaf.is_none() {
                return notice(Notice::NoConversation(&inp.label));
            }
            // resume shows the model committed context collapses as their summary
            let collapses = if opts.resume && !opts.raw {
                entries::collapses(&inp, &ix, &br)?
            } else {
                Vec::new()
            };
            let done = if collapses.is_empty() {
                claude::emit(&inp, &ix, &br, opts.raw, sink, opts.threads)?
            } else {
                claude::emit_collapsed(&inp, &ix, &br, &collapses, sink, opts.threads)?
            };
            if !done.warnings.is_empty() {
                notice(Notice::Warnings(&done.warnings))?;
            }
            if !opts.raw {
                claude::emit_queued(&inp, &ix, sink)?;
            }
        }
        Source::Codex => {
            let r = codex::read(&inp)?;
            if !r.warnings.is_empty() {
                notice(Notice::Warnings(&r.warnings))?;
            }
            if opts.leaf.is_some() {
                notice(Notice::LeafIgnored(&inp.label))?;
            }
            if opts.raw {
                let mut win = input::Window::new(&inp.file);
                for it in r.raw_items(opts.resume) {
                    let b = win
                        .get(it.offset, it.len as usize)
                        .map_err(|e| Error::io(&inp.label, e))?;
                    let nl = !b.ends_with(b"\n");
                    sink.raw(b).map_err(|e| Error::io("<stdout>", e))?;
                    if nl {
                        sink.raw(b"\n").map_err(|e| Error::io("<stdout>", e))?;
                    }
                }
            } else {
                r.emit(opts.resume, sink)?;
            }
        }
    }
    Ok(())
}

/// Replay one transcript into its event lines (JSONL, as `mem-transcript
/// replay` prints them). Warnings are returned, not printed.
///
/// Errors: as [`replay_file`].
pub fn replay_to_vec(path: &Path, opts: &ReplayOptions) -> Result<(Vec<u8>, Vec<Warning>), Error> {
    let mut buf = Vec::new();
    let mut warnings = Vec::new();
    {
        let mut sink = Sink::buffered(&mut buf, false);
        replay_file(path, opts, &mut sink, &mut |n| {
            if let Notice::Warnings(ws) = n {
                warnings.extend_from_slice(ws);
            }
            Ok(())
        })?;
        sink.flush().map_err(|e| Error::io("<memory>", e))?;
    }
    Ok((buf, warnings))
}
