//! A turn held until it ends ([`crate::EventStream`]): the strings of its
//! events copied into one buffer that is reused from turn to turn, each
//! event kept as byte ranges into it. Holding a turn costs a copy of its
//! strings, never an allocation per field.

use std::borrow::Cow;
use std::ops::Range;

use crate::extract::{EventText, EventView};

/// The events of one turn (see the module docs).
#[derive(Default)]
pub(crate) struct HeldTurn {
    buf: String,
    evs: Vec<Held>,
}

/// One event as ranges into [`HeldTurn::buf`].
struct Held {
    session: Range<usize>,
    line: u64,
    uuid: Option<Range<usize>>,
    block: u32,
    ts: Option<Range<usize>>,
    role: Range<usize>,
    kind: Range<usize>,
    tool: Option<Range<usize>>,
    tool_id: Option<Range<usize>>,
    command: Option<String>,
    path: Option<Range<usize>>,
    /// The text's range, and whether it is still JSON-escaped.
    text: Option<(Range<usize>, bool)>,
    is_error: Option<bool>,
    sidechain: bool,
    cwd: Option<Range<usize>>,
}

impl HeldTurn {
    /// Hold `ev`. Its text is left out when extraction never reads it: a
    /// side-chain event's, and the text of anyone but the user.
    pub(crate) fn push(&mut self, ev: EventView<'_>) {
        let buf = &mut self.buf;
        let mut put = |s: &str| {
            let start = buf.len();
            buf.push_str(s);
            start..buf.len()
        };
        let read = !ev.sidechain && (ev.kind != "text" || ev.role == "user");
        let text = match ev.text.as_ref().filter(|_| read) {
            Some(EventText::Plain(t)) => Some((put(t), false)),
            Some(EventText::Escaped(t)) => Some((put(t), true)),
            None => None,
        };
        let held = Held {
            session: put(&ev.session),
            line: ev.line,
            uuid: ev.uuid.as_deref().map(&mut put),
            block: ev.block,
            ts: ev.ts.as_deref().map(&mut put),
            role: put(&ev.role),
            kind: put(&ev.kind),
            tool: ev.tool.as_deref().map(&mut put),
            tool_id: ev.tool_id.as_deref().map(&mut put),
            command: ev.command,
            path: ev.path.as_deref().map(&mut put),
            text,
            is_error: ev.is_error,
            sidechain: ev.sidechain,
            cwd: ev.cwd.as_deref().map(&mut put),
        };
        self.evs.push(held);
    }

    /// Hand every held event, in order, to `f`; the turn is then empty
    /// (its buffer kept for the next).
    pub(crate) fn drain(&mut self, mut f: impl FnMut(EventView<'_>)) {
        let buf = self.buf.as_str();
        let s = |r: Range<usize>| Cow::Borrowed(&buf[r]);
        for h in self.evs.drain(..) {
            f(EventView {
                session: s(h.session),
                line: h.line,
                uuid: h.uuid.map(s),
                block: h.block,
                ts: h.ts.map(s),
                role: s(h.role),
                kind: s(h.kind),
                tool: h.tool.map(s),
                tool_id: h.tool_id.map(s),
                command: h.command,
                path: h.path.map(s),
                text: h.text.map(|(r, escaped)| {
                    if escaped {
                        EventText::Escaped(s(r))
                    } else {
                        EventText::Plain(s(r))
                    }
                }),
                is_error: h.is_error,
                sidechain: h.sidechain,
                cwd: h.cwd.map(s),
            });
        }
        self.buf.clear();
    }

    /// Leave the held events out.
    pub(crate) fn clear(&mut self) {
        self.evs.clear();
        self.buf.clear();
    }
}
