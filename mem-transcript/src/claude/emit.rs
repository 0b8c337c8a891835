//! Pass 2: the events of the branch (or its raw lines), read by offset in
//! file regions; an entry's events and the branch state (`parent`, an
//! assistant turn's block numbers) carried from entry to entry.

use std::borrow::Cow;

use mem_core::Error;
use mem_core::jsonl::{Warning, describe, parse_lossy, sanitize};

use super::entry::{Content, Entry, content_text, tool_text};
use super::fast_entry::fast_entry;
use super::index::Index;
use super::node::{BOUNDARY, FAST, META, Node, NodeType, SIDECHAIN, SUMMARY, U_ESCAPE};
use super::walk::{Branch, WalkOpts};
use crate::branch_lines::{BranchLines, Spans};
use crate::event::{EventOut, Sink, Text, ToolInput, norm_ts};
use crate::input::Input;
use crate::input::clean_line;

pub use crate::entries::Replacements;

/// Options of `replay`.
#[derive(Debug, Clone, Default)]
pub struct ReplayOpts {
    /// Branch choice.
    pub walk: WalkOpts,
    /// Print the branch's original lines instead of events.
    pub raw: bool,
}

/// What a replay did: the branch and the warnings met.
#[derive(Debug, Default)]
pub struct Replayed {
    /// Events written (or raw lines).
    pub written: u64,
    /// Conversation entries on the branch.
    pub entries: usize,
    /// Warnings of pass 2 (content that could not be read).
    pub warnings: Vec<Warning>,
}

impl Replayed {
    /// Nothing written yet for the branch `br` of `ix`.
    pub fn start(ix: &Index, br: &Branch) -> Replayed {
        Replayed {
            entries: ix.conversation_count(br),
            ..Replayed::default()
        }
    }
}

/// The lines of `nodes`, from the index (no list of their own).
pub(super) struct NodeSpans<'a> {
    pub(super) ix: &'a Index,
    pub(super) nodes: &'a [u32],
}

impl Spans for NodeSpans<'_> {
    fn count(&self) -> usize {
        self.nodes.len()
    }
    fn span(&self, k: usize) -> (u64, usize) {
        self.ix.span(self.nodes[k])
    }
}

/// `--raw`: the original lines of the branch, byte for byte, with the
/// entries of [`Index::extras`] that belong to it
/// ([`crate::entries::raw_extras`]) at their place in file order.
pub(super) fn emit_raw(
    input: &Input,
    ix: &Index,
    br: &Branch,
    sink: &mut Sink<'_>,
    threads: usize,
) -> Result<Replayed, Error> {
    let mut done = Replayed::start(ix, br);
    let extras = crate::entries::raw_extras(input, ix, br)?;
    let mut spans: Vec<(u64, usize)> = Vec::with_capacity(br.nodes.len() + extras.len());
    let mut next = extras.iter().peekable();
    for &i in &br.nodes {
        let n = &ix.nodes[i as usize];
        while let Some(e) = next.next_if(|e| e.line < n.line as usize) {
            spans.push((e.offset, e.len));
        }
        spans.push(ix.span(i));
    }
    spans.extend(next.map(|e| (e.offset, e.len)));
    let bytes: u64 = spans.iter().map(|s| s.1 as u64).sum();
    let io_in = |e| Error::io(&input.label, e);
    let io_out = |e| Error::io("<stdout>", e);
    let mut write = |mut lines: BranchLines<'_>, spans: &[(u64, usize)]| {
        for &(off, len) in spans {
            let b = lines.get(off, len).map_err(io_in)?;
            sink.raw(b).map_err(io_out)?;
            if !b.ends_with(b"\n") {
                sink.raw(b"\n").map_err(io_out)?;
            }
            done.written += 1;
        }
        Ok::<(), Error>(())
    };
    if threads > 1 && bytes >= AHEAD_MIN {
        std::thread::scope(|s| write(BranchLines::ahead(s, &input.file, &spans), &spans))?;
    } else {
        write(BranchLines::here(&input.file, &spans), &spans)?;
    }
    Ok(done)
}

/// Branches with fewer bytes to read than this are read by one thread.
pub(super) const AHEAD_MIN: u64 = 4 << 20;

/// Parse one conversation entry of pass 2 (`line0` as read, `clean` after
/// [`sanitize`]). Errors: the warning's reason.
///
/// A line that is not UTF-8 is read from its U+FFFD copy (kept in `copy`),
/// as resume decodes it (pass 1 warned about it).
pub(super) fn parse_entry<'a>(
    n: &Node,
    clean: &'a [u8],
    copy: &'a mut Option<Vec<u8>>,
) -> Result<Entry<'a>, String> {
    let fast = if n.has(FAST) {
        simdutf8::basic::from_utf8(clean).ok().and_then(fast_entry)
    } else {
        None
    };
    match fast {
        Some(e) => Ok(e),
        None => parse_lossy(clean, copy, serde_json::from_slice::<Entry>)
            .map(|(e, _, _)| e)
            .map_err(|e| format!("content not readable, entry skipped ({})", describe(&e))),
    }
}

/// Call `f` with each event of one parsed conversation entry, in order,
/// before the branch state is known: `seq` 0, `parent` unset, and for an
/// assistant entry `block` counted from the entry's first block (the caller
/// adds the turn's blocks so far). Returns the blocks the entry takes in its
/// turn (assistant entries; 0 for others).
///
/// Errors: what `f` returns.
pub(super) fn entry_events<'a>(
    n: &Node,
    entry: &'a Entry<'a>,
    fallback_session: &'a str,
    repl: &Replacements,
    mut f: impl FnMut(EventOut<'a>) -> std::io::Result<()>,
) -> std::io::Result<u32> {
    let session: &str = entry.session.as_deref().unwrap_or(fallback_session);
    let base = EventOut {
        uuid: entry.uuid.clone(),
        ts: entry.timestamp.as_deref().and_then(norm_ts),
        sidechain: n.has(SIDECHAIN),
        cwd: entry.cwd.clone(),
        ..EventOut::new(session, "claude", u64::from(n.line), "user", "text")
    };
    match n.ty {
        NodeType::System => {
            let text = entry.content.as_ref().and_then(content_text);
            let text = text.or_else(|| entry.subtype.clone());
            let kind = if n.has(BOUNDARY) { "compact" } else { "meta" };
            f(EventOut {
                role: "system",
                kind,
                text: text.map(Text::from),
                ..base
            })?;
            Ok(0)
        }
        NodeType::User => {
            let kind = if n.has(SUMMARY) {
                "summary"
            } else if n.has(META) {
                "meta"
            } else {
                "text"
            };
            match entry.message.as_ref().and_then(|m| m.content.as_ref()) {
                Some(Content::Text(t)) => f(EventOut {
                    kind,
                    text: Some(t.clone().into()),
                    ..base
                })?,
                Some(Content::Blocks(blocks)) => {
                    for (b, blk) in (0u32..).zip(blocks) {
                        match blk.ty.as_deref() {
                            Some("tool_result") => f(EventOut {
                                block: b,
                                role: "tool",
                                kind: "tool_result",
                                tool_id: blk.tool_use_id.clone(),
                                // what the model saw: a content replacement's
                                // stand-in when the session recorded one
                                text: Some(
                                    match blk.tool_use_id.as_deref().and_then(|id| repl.get(id)) {
                                        Some(r) => Text::Str(Cow::Owned(r.clone())),
                                        None => tool_text(blk.content),
                                    },
                                ),
                                is_error: Some(blk.is_error.unwrap_or(false)),
                                ..base.clone()
                            })?,
                            Some("text") | None if blk.text.is_some() => f(EventOut {
                                block: b,
                                kind,
                                text: blk.text.clone().map(Text::from),
                                ..base.clone()
                            })?,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            Ok(0)
        }
        NodeType::Assistant => {
            let msg = entry.message.as_ref();
            let base = EventOut {
                role: "assistant",
                msg_id: msg.and_then(|m| m.id.clone()),
                ..base
            };
            match msg.and_then(|m| m.content.as_ref()) {
                Some(Content::Text(t)) => {
                    f(EventOut {
                        text: Some(t.clone().into()),
                        ..base
                    })?;
                    Ok(1)
                }
                Some(Content::Blocks(blocks)) => {
                    for (b, blk) in (0u32..).zip(blocks) {
                        let ev = match blk.ty.as_deref() {
                            Some("text") => EventOut {
                                text: blk.text.clone().map(Text::from),
                                ..base.clone()
                            },
                            Some("thinking") => EventOut {
                                kind: "thinking",
                                text: blk
                                    .thinking
                                    .clone()
                                    .or_else(|| blk.text.clone())
                                    .map(Text::from),
                                ..base.clone()
                            },
                            Some("tool_use" | "server_tool_use") => EventOut {
                                kind: "tool_use",
                                tool: blk.name.clone(),
                                tool_id: blk.id.clone(),
                                input: blk.input.map(ToolInput::Raw),
                                ..base.clone()
                            },
                            _ => continue,
                        };
                        f(EventOut { block: b, ..ev })?;
                    }
                    Ok(blocks.len() as u32)
                }
                _ => Ok(0),
            }
        }
        _ => Ok(0),
    }
}

/// The branch state pass 2 carries from entry to entry: the parent of the
/// next event and the assistant turn being numbered.
#[derive(Default)]
pub(super) struct Chain {
    /// uuid of the last conversation entry emitted.
    pub(super) prev_uuid: Option<String>,
    /// `message.id` of the current assistant turn.
    pub(super) turn: Option<String>,
    /// Blocks of the current turn so far.
    pub(super) next_block: u32,
}

impl Chain {
    /// The block number the entry's first block gets (assistant entries
    /// continue their turn's numbering; the others end the turn).
    pub(super) fn enter(&mut self, ty: NodeType, mid: Option<&str>) -> u32 {
        if ty == NodeType::Assistant {
            let same = mid.is_some() && self.turn.as_deref() == mid;
            if !same {
                self.next_block = 0;
                self.turn = mid.map(str::to_string);
            }
            self.next_block
        } else {
            self.turn = None;
            0
        }
    }

    /// After the entry's events: its blocks and uuid.
    pub(super) fn leave(&mut self, advance: u32, uuid: Option<&str>) {
        self.next_block += advance;
        self.prev_uuid = uuid.map(str::to_string);
    }
}

pub(super) fn message_id<'a>(entry: &'a Entry<'a>) -> Option<&'a str> {
    entry.message.as_ref().and_then(|m| m.id.as_deref())
}

pub(super) fn emit_lines(
    input: &Input,
    ix: &Index,
    br: &Branch,
    repl: &Replacements,
    sink: &mut Sink<'_>,
    mut lines: BranchLines<'_>,
) -> Result<Replayed, Error> {
    let mut done = Replayed::start(ix, br);
    let io_in = |e| Error::io(&input.label, e);
    let io_out = |e| Error::io("<stdout>", e);
    let mut chain = Chain::default();
    let fallback_session = ix.session.as_deref().unwrap_or("");
    for &i in &br.nodes {
        let n = &ix.nodes[i as usize];
        if !n.ty.is_conversation() {
            // progress / attachment / unknown: walked through, not emitted;
            // the next emitted entry's parent stays the last emitted one.
            continue;
        }
        let (offset, len) = ix.span(i);
        let line0 = clean_line(lines.get(offset, len).map_err(io_in)?);
        let clean = if n.has(U_ESCAPE) {
            sanitize(&line0)
        } else {
            Cow::Borrowed(&*line0)
        };
        let mut copy = None;
        let entry = match parse_entry(n, &clean, &mut copy) {
            Ok(e) => e,
            Err(reason) => {
                done.warnings.push(Warning {
                    file: input.label.clone(),
                    line: n.line as usize,
                    reason,
                });
                continue;
            }
        };
        let first = chain.enter(n.ty, message_id(&entry));
        let parent = chain.prev_uuid.take();
        let before = sink.seq;
        let advance = entry_events(n, &entry, fallback_session, repl, |ev| {
            sink.emit(EventOut {
                parent: parent.as_deref().map(Cow::Borrowed),
                block: ev.block + first,
                ..ev
            })
        })
        .map_err(io_out)?;
        done.written += sink.seq - before;
        chain.leave(advance, entry.uuid.as_deref());
    }
    Ok(done)
}
