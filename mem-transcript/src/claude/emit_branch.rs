//! Pass 2's entry: the events (or raw lines) of a branch, by one reader,
//! one reader ahead or several workers, and a branch with its context
//! collapses.

use mem_core::Error;

use super::emit::{AHEAD_MIN, NodeSpans, Replayed, emit_lines, emit_raw};
use super::emit_parallel::emit_parallel;
use super::index::Index;
use super::walk::Branch;
use crate::branch_lines::BranchLines;
use crate::entries::Collapse;
use crate::event::Sink;
use crate::input::Input;

/// Emit the branch (pass 2): events, or the original lines with `raw`.
///
/// Large branches written as JSON lines to a buffered sink are read,
/// parsed and rendered by `threads` workers, a region each in
/// turn, and stitched in order here (`seq`, `parent` and an assistant
/// turn's block numbers depend on what came before); other branches are
/// read one region ahead. The output is the same byte for byte.
///
/// Errors: I/O on the file or the output.
pub fn emit(
    input: &Input,
    ix: &Index,
    br: &Branch,
    raw: bool,
    sink: &mut Sink<'_>,
    threads: usize,
) -> Result<Replayed, Error> {
    if raw {
        return emit_raw(input, ix, br, sink, threads);
    }
    let repl = crate::entries::replacements(input, ix)?;
    // The lines pass 2 reads: the branch's conversation entries (the others
    // are walked through unread).
    let nodes: Vec<u32> = br
        .nodes
        .iter()
        .copied()
        .filter(|&i| ix.nodes[i as usize].ty.is_conversation())
        .collect();
    let spans = NodeSpans { ix, nodes: &nodes };
    let bytes: u64 = nodes.iter().map(|&i| ix.span(i).1 as u64).sum();
    let threads = if bytes >= AHEAD_MIN {
        threads.max(1)
    } else {
        1
    };
    if threads > 1 && bytes >= AHEAD_MIN && sink.stitches() {
        return emit_parallel(input, ix, br, &repl, &nodes, &spans, sink, threads);
    }
    if threads > 1 && bytes >= AHEAD_MIN {
        std::thread::scope(|s| {
            let lines = BranchLines::ahead(s, &input.file, &spans);
            emit_lines(input, ix, br, &repl, sink, lines)
        })
    } else {
        let lines = BranchLines::here(&input.file, &spans);
        emit_lines(input, ix, br, &repl, sink, lines)
    }
}

/// Emit `br` with each collapse's span replaced by one `user` `summary`
/// event carrying its placeholder text (what a resumed session shows the
/// model), at the commit's line.
///
/// Errors: as [`crate::claude::emit`].
pub fn emit_collapsed(
    input: &Input,
    ix: &Index,
    br: &Branch,
    collapses: &[Collapse],
    sink: &mut crate::event::Sink<'_>,
    threads: usize,
) -> Result<crate::claude::Replayed, Error> {
    use std::borrow::Cow;
    let mut done = crate::claude::Replayed::start(ix, br);
    let mut from = 0;
    let session = ix.session.as_deref().unwrap_or("");
    let mut part = |nodes: &[u32], sink: &mut crate::event::Sink<'_>| {
        if nodes.is_empty() {
            return Ok::<(), Error>(());
        }
        let sub = Branch {
            nodes: nodes.to_vec(),
            ..br.clone()
        };
        let d = crate::claude::emit(input, ix, &sub, false, sink, threads)?;
        done.written += d.written;
        done.warnings.extend(d.warnings);
        Ok(())
    };
    for c in collapses {
        part(&br.nodes[from..c.start], sink)?;
        sink.emit(crate::event::EventOut {
            uuid: c.uuid.as_deref().map(Cow::Borrowed),
            text: Some(crate::event::Text::Str(Cow::Borrowed(&c.text))),
            cwd: ix.cwd.as_deref().map(Cow::Borrowed),
            ..crate::event::EventOut::new(session, "claude", c.line as u64, "user", "summary")
        })
        .map_err(|e| Error::io("<stdout>", e))?;
        from = c.end + 1;
    }
    part(&br.nodes[from..], sink)?;
    Ok(done)
}
