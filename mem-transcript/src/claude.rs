//! Claude Code sessions: the node index (pass 1), the branch walk (docs/transcripts.md
//! "Replay: one branch", rules 1–5) and the events of the branch (pass 2, re-reading only
//! the lines of the branch by offset).
//!
//! Memory: per node a 32-byte record (offset, length, timestamp, line,
//! parent node, type, flags), its 16-byte uuid key and a 4-byte slot of the
//! uuid table; content is parsed only for the lines of the chosen branch.
//!
//! - `node`: one chain node; `uuid_table`: nodes by uuid key;
//!   `head`: the fields pass 1 reads of a line; `index`: pass 1.
//! - `walk`: the branch walk.
//! - `entry`: the entry model of pass 2; `fast_entry`: its fast parser.
//! - [`emit()`] here: pass 2, by one reader, one reader ahead or several
//!   workers; `emit`: pass 2 (events or raw lines) and what its workers
//!   share; `emit_parallel`: pass 2 by several workers; `queued`: messages
//!   typed while the agent worked.

mod emit;
mod emit_parallel;
mod entry;
mod fast_entry;
mod head;
mod index;
mod node;
mod queued;
mod uuid_table;
mod walk;

pub use emit::*;
pub use entry::*;
pub use index::*;
pub use node::*;
pub use queued::*;
pub use uuid_table::*;
pub use walk::*;

use mem_core::Error;

use crate::branch_lines::BranchLines;
use crate::entries::Collapse;
use crate::event::Sink;
use crate::input::Input;
use emit::{AHEAD_MIN, NodeSpans, emit_lines, emit_raw};
use emit_parallel::emit_parallel;

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
