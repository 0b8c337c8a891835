//! Pass 2 by several workers: each parses and renders a region of the
//! branch; this thread stitches the batches in order.

use std::borrow::Cow;

use mem_core::Error;
use mem_core::jsonl::{Warning, sanitize};

use super::emit::{
    Chain, NodeSpans, Replacements, Replayed, entry_events, message_id, parse_entry,
};
use super::index::Index;
use super::node::U_ESCAPE;
use super::walk::Branch;
use crate::branch_lines::{Region, plan_regions, read_region};
use crate::event::{Cut, Sink, write_event_cut};
use crate::input::Input;
use crate::input::clean_line;

/// One conversation entry as a worker left it: its events rendered with
/// holes, or the reason it could not be read.
pub(super) struct Rendered {
    /// Events: indices into the batch's cuts.
    events: std::ops::Range<usize>,
    /// Err: the warning's reason.
    result: Result<Facts, String>,
}

/// What the branch state needs of an entry.
pub(super) struct Facts {
    uuid: Option<String>,
    mid: Option<String>,
    advance: u32,
}

/// The rendered entries of one region.
#[derive(Default)]
pub(super) struct Batch {
    buf: Vec<u8>,
    cuts: Vec<Cut>,
    entries: Vec<Rendered>,
}

/// Parse and render the entries of one region (a worker's part);
/// `batch` is a spent one to reuse (its allocations; its contents are
/// cleared), or a new one.
pub(super) fn render_region(
    ix: &Index,
    nodes: &[u32],
    region: &Region,
    fallback_session: &str,
    repl: &Replacements,
    mut batch: Batch,
) -> Batch {
    batch.buf.clear();
    batch.cuts.clear();
    batch.entries.clear();
    // events take about as many bytes as their lines
    batch.buf.reserve(region.len() + region.len() / 4);
    batch.cuts.reserve(nodes.len() * 2);
    batch.entries.reserve(nodes.len());
    for &i in nodes {
        let n = &ix.nodes[i as usize];
        let (offset, len) = ix.span(i);
        let line0 = clean_line(region.slice(offset, len));
        let clean = if n.has(U_ESCAPE) {
            sanitize(&line0)
        } else {
            Cow::Borrowed(&*line0)
        };
        let first = batch.cuts.len();
        let mut copy = None;
        let result = parse_entry(n, &clean, &mut copy).map(|entry| {
            let advance = entry_events(n, &entry, fallback_session, repl, |ev| {
                batch.cuts.push(write_event_cut(&mut batch.buf, &ev));
                Ok(())
            })
            .unwrap_or(0);
            Facts {
                uuid: entry.uuid.as_deref().map(str::to_string),
                mid: message_id(&entry).map(str::to_string),
                advance,
            }
        });
        batch.entries.push(Rendered {
            events: first..batch.cuts.len(),
            result,
        });
    }
    batch
}

/// Pass 2 by `threads` workers: region `k` of the branch goes to worker
/// `k % threads`; this thread takes the batches in order and stitches them.
#[allow(clippy::too_many_arguments)]
pub(super) fn emit_parallel(
    input: &Input,
    ix: &Index,
    br: &Branch,
    repl: &Replacements,
    nodes: &[u32],
    spans: &NodeSpans<'_>,
    sink: &mut Sink<'_>,
    threads: usize,
) -> Result<Replayed, Error> {
    use std::sync::mpsc::sync_channel;
    let mut done = Replayed::start(ix, br);
    let plan = plan_regions(spans);
    let fallback_session = ix.session.as_deref().unwrap_or("");
    let io_out = |e| Error::io("<stdout>", e);
    let file = &input.file;
    std::thread::scope(|s| {
        let mut rxs = Vec::new();
        // spent batches go back to their worker: its buffers are reused, not
        // allocated (and page-faulted) again for every region
        let mut spent = Vec::new();
        for w in 0..threads.min(plan.len()) {
            let (tx, rx) = sync_channel::<std::io::Result<Batch>>(1);
            let (back, back_rx) = std::sync::mpsc::channel::<Batch>();
            rxs.push(rx);
            spent.push(back);
            let plan = &plan;
            s.spawn(move || {
                let mut buf = Vec::new();
                for r in plan.iter().skip(w).step_by(threads) {
                    let batch = read_region(file, spans, r.clone(), std::mem::take(&mut buf)).map(
                        |region| {
                            let spare = back_rx.try_recv().unwrap_or_default();
                            let b = render_region(
                                ix,
                                &nodes[r.clone()],
                                &region,
                                fallback_session,
                                repl,
                                spare,
                            );
                            buf = region.into_buf();
                            b
                        },
                    );
                    let stop = batch.is_err();
                    // The receiver is gone when stitching stopped (an error).
                    if tx.send(batch).is_err() || stop {
                        break;
                    }
                }
            });
        }
        let mut chain = Chain::default();
        for k in 0..plan.len() {
            let batch = rxs[k % rxs.len()]
                .recv()
                .map_err(|_| Error::io(&input.label, std::io::Error::other("a reader stopped")))?
                .map_err(|e| Error::io(&input.label, e))?;
            for (j, r) in plan[k].clone().zip(&batch.entries) {
                let n = &ix.nodes[nodes[j] as usize];
                let facts = match &r.result {
                    Ok(f) => f,
                    Err(reason) => {
                        done.warnings.push(Warning {
                            file: input.label.clone(),
                            line: n.line as usize,
                            reason: reason.clone(),
                        });
                        continue;
                    }
                };
                let first = chain.enter(n.ty, facts.mid.as_deref());
                let parent = chain.prev_uuid.take();
                for c in &batch.cuts[r.events.clone()] {
                    sink.stitch(&batch.buf, c, parent.as_deref(), first)
                        .map_err(io_out)?;
                    done.written += 1;
                }
                chain.leave(facts.advance, facts.uuid.as_deref());
            }
            // the worker may be done already: then the batch is dropped
            let _ = spent[k % spent.len()].send(batch);
        }
        Ok(done)
    })
}
