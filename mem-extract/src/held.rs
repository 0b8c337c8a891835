//! A turn held until it ends ([`crate::EventStream`]): the strings of its
//! events copied into one buffer that is reused from turn to turn, each
//! event kept as byte ranges into it. Holding a turn costs a copy of its
//! strings, never an allocation per field.

use std::borrow::Cow;
use std::ops::Range;

use crate::extract::markers::may_start_with_marker;
use crate::extract::view::EventView;
use crate::text::EventText;

/// Bytes kept of a passed tool call's output (decoded).
pub(crate) const SHOWN_BYTES: usize = 16 << 10;

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
    choices: Vec<crate::extract::Choice>,
    /// The text's range, and whether it is still JSON-escaped.
    text: Option<(Range<usize>, bool)>,
    is_error: Option<bool>,
    sidechain: bool,
    cwd: Option<Range<usize>>,
}

/// Bytes of an agent message held for the next user message's context.
pub(crate) const AGENT_TEXT_BYTES: usize = 2048;

impl HeldTurn {
    /// Hold `ev`. Its text is left out when extraction never reads it: a
    /// side-chain event's and the text of anyone but the user and the
    /// agent. Of the output of a tool call that succeeded (`is_error:
    /// false`) only the first [`SHOWN_BYTES`] are kept (what the agent was
    /// shown: a fix found there came from that text), unless it may start
    /// with an answer or a rejection (then all of it). Of the agent's words
    /// only the first [`AGENT_TEXT_BYTES`] are held: they are read for what
    /// the next user message's "it" names.
    pub(crate) fn push(&mut self, ev: EventView<'_>) {
        let buf = &mut self.buf;
        let mut put = |s: &str| {
            let start = buf.len();
            buf.push_str(s);
            start..buf.len()
        };
        let passed = ev.kind == "tool_result"
            && ev.is_error == Some(false)
            && ev.text.as_ref().is_some_and(|t| !may_start_with_marker(t));
        let agent = !ev.sidechain && ev.kind == "text" && ev.role == "assistant";
        let read = !ev.sidechain && (ev.kind != "text" || ev.role == "user") && !passed;
        let text = match ev.text.as_ref() {
            Some(t) if agent => {
                let head = t.prefix(AGENT_TEXT_BYTES);
                let head = mem_core::truncate::floor_to_chars(&head, AGENT_TEXT_BYTES);
                Some((put(head), false))
            }
            Some(EventText::Plain(t)) if read => Some((put(t), false)),
            Some(EventText::Escaped(t)) if read => Some((put(t), true)),
            // what a passed call showed the agent: only its first bytes are
            // read (a fix found there came from that text)
            Some(t) if passed && !ev.sidechain => {
                let shown = t.prefix(SHOWN_BYTES);
                Some((
                    put(mem_core::truncate::floor_to_bytes(&shown, SHOWN_BYTES)),
                    false,
                ))
            }
            _ => None,
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
            choices: ev.choices,
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
                choices: h.choices,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A succeeded tool call's output is held only when it may start with
    /// an answer or a rejection; a failed one's, and the user's words, are.
    #[test]
    fn passed_output_is_held_cut_unless_it_may_be_a_decision() {
        let ev = |kind: &str, role: &str, text: &str, is_error: Option<bool>| EventView {
            session: "s".into(),
            role: role.to_string().into(),
            kind: kind.to_string().into(),
            text: Some(EventText::Escaped(text.to_string().into())),
            is_error,
            ..EventView::default()
        };
        let mut turn = HeldTurn::default();
        turn.push(ev("text", "user", "Never push to main", None));
        turn.push(ev("tool_result", "tool", "output line\\n", Some(false)));
        turn.push(ev("tool_result", "tool", "output line\\n", Some(true)));
        turn.push(ev("tool_result", "tool", "output line\\n", None));
        turn.push(ev(
            "tool_result",
            "tool",
            "User has answered your questions:",
            Some(false),
        ));
        turn.push(ev(
            "tool_result",
            "tool",
            "\\nThe user doesn't want",
            Some(false),
        ));
        turn.push(ev("text", "assistant", "Done.", None));
        let long = "y".repeat(SHOWN_BYTES + 100);
        turn.push(ev("tool_result", "tool", &long, Some(false)));
        let mut held = Vec::new();
        turn.drain(|e| held.push(e.text.map(|t| t.whole().into_owned())));
        // the long passed output: its first SHOWN_BYTES, never the whole
        let cut = held.pop().flatten().expect("held");
        assert_eq!(cut.len(), SHOWN_BYTES);
        assert!(long.starts_with(&cut));
        assert_eq!(
            held,
            [
                Some("Never push to main".to_string()),
                // a passed output: its first bytes, decoded
                Some("output line\n".to_string()),
                Some("output line\n".to_string()),
                Some("output line\n".to_string()),
                Some("User has answered your questions:".to_string()),
                Some("\nThe user doesn't want".to_string()),
                Some("Done.".to_string()),
            ]
        );
    }
}
