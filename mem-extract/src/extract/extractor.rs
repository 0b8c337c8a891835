//! The streaming driver: events in, one at a time; candidates out.

use std::rc::Rc;

use mem_core::records::{Source, Trust};
use mem_core::scrub::Scrubber;

use super::decisions::{INTERRUPTED, Pending};
use super::finish::finish_candidates;
use super::judge::Context;
use super::lessons::Lessons;
use super::merge::Merged;
use super::message::from_message;
use super::notes::{Notes, note};
use super::origin::{At, at_of};
use super::secrets::SecretValues;
use super::summary::quote_key;
use super::view::{EventView, MAX_MESSAGE_BYTES};
use super::{Bucket, ExtractOptions, Extraction, FastMap, FastSet};

/// Streaming extraction: feed events one at a time with [`Extractor::push`],
/// then [`Extractor::finish`]. Holds only what the rules need (candidates so
/// far, open tool calls, a window of each failed command's output), never
/// the events themselves.
pub struct Extractor {
    pub(super) opts: ExtractOptions,
    pub(super) scrubber: Scrubber,
    pub(super) notes: Notes,
    /// The message candidates, merged.
    pub(super) cands: Merged,
    pub(super) skipped: usize,
    /// Source entries used: per session, (uuid or line, block).
    pub(super) seen: FastMap<String, FastSet<(String, u32)>>,
    pub(super) digest: Option<(String, Rc<str>)>,
    pub(super) lessons: Lessons,
    /// Open tool calls whose result may hold the user's decision: the
    /// question tool's calls, and every call's command (a rejection's reason
    /// names what to do instead of it).
    pub(super) decisions: FastMap<String, Pending>,
    /// The user interrupted the agent: their next message corrects it.
    pub(super) after_interrupt: bool,
    /// Secret values seen in the user's text and the agent's commands: a
    /// rule may carry a piece of one into a trigger or a sentence the
    /// scrubber cannot recognise on its own (`hunter2xyz` split off
    /// `--password hunter2xyz`), so every field is cleared of them.
    pub(super) secrets: SecretValues,
    /// The user's messages read so far (as [`quote_key`]s): a compaction
    /// summary's quote of one of them adds nothing.
    pub(super) said: FastSet<u64>,
    /// What the turns before the next user message name (its "it").
    pub(super) ctx: Context,
}

impl Extractor {
    /// A new extraction with `opts`.
    pub fn new(opts: ExtractOptions) -> Self {
        Extractor {
            scrubber: Scrubber::new(opts.project_root.as_deref()),
            opts,
            notes: Notes::default(),
            cands: Merged::default(),
            skipped: 0,
            seen: FastMap::default(),
            digest: None,
            lessons: Lessons::default(),
            decisions: FastMap::default(),
            after_interrupt: false,
            secrets: SecretValues::default(),
            said: FastSet::default(),
            ctx: Context::default(),
        }
    }

    pub(super) fn at(&mut self, ev: &EventView<'_>) -> At {
        at_of(&mut self.digest, ev)
    }

    /// Do not collect [`Extraction::notes`] (they cost time on long streams).
    pub fn without_notes(mut self) -> Self {
        self.notes.off = true;
        self.lessons.notes.off = true;
        self.cands.notes.off = true;
        self.lessons.cands.notes.off = true;
        self
    }

    /// Read one event (in stream order).
    pub fn push(&mut self, ev: &EventView<'_>) {
        if ev.sidechain {
            self.skipped += 1;
            return;
        }
        match &*ev.kind {
            "text" if ev.role == "user" => {
                let id = match &ev.uuid {
                    Some(u) => u.to_string(),
                    None => ev.line.to_string(),
                };
                let fresh = match self.seen.get_mut(&*ev.session) {
                    Some(ids) => ids.insert((id, ev.block)),
                    None => {
                        let mut ids = FastSet::default();
                        ids.insert((id, ev.block));
                        self.seen.insert(ev.session.to_string(), ids);
                        true
                    }
                };
                if !fresh {
                    return; // the same source entry is used once
                }
                if let Some(text) = ev.text.as_ref() {
                    let text = text.whole();
                    self.secrets.learn(&self.scrubber, &text);
                    if text.len() <= MAX_MESSAGE_BYTES {
                        self.said.insert(quote_key(&text));
                    }
                    let t = text.trim_start();
                    if t.starts_with(INTERRUPTED) {
                        self.after_interrupt = true;
                    }
                    let at = self.at(ev);
                    let before = self.cands.v.len();
                    self.ctx.stopped = self.after_interrupt;
                    from_message(
                        &at,
                        &text,
                        text.len(),
                        &self.ctx,
                        &self.opts,
                        &self.scrubber,
                        &mut self.cands,
                        &mut self.notes,
                    );
                    // wrappers (`<ide_opened_file>`, the interrupt marker) do
                    // not end the wait for the correction
                    if self.after_interrupt && !t.starts_with(['<', '[']) && !t.is_empty() {
                        self.after_interrupt = false;
                        if self.cands.v.len() == before {
                            self.correction_after_interrupt(&at, t);
                        }
                    }
                }
            }
            "text" if ev.role == "assistant" => {
                if let Some(text) = ev.text.as_ref() {
                    self.ctx.assistant(&text.prefix(4096));
                }
            }
            "summary" => self.read_summary(ev),
            "tool_use" | "tool_result" => {
                if ev.kind == "tool_use"
                    && let Some(cmd) = ev.command.as_deref()
                {
                    self.secrets.learn(&self.scrubber, cmd);
                }
                if ev.kind == "tool_use"
                    && let Some(p) = ev.path.as_deref()
                {
                    self.ctx.wrote(p);
                }
                self.decision_in(ev);
                // the origin is made only when a call or a failure is kept
                let digest = &mut self.digest;
                self.lessons
                    .step(ev, || at_of(digest, ev), &self.opts, &self.scrubber);
            }
            _ => {}
        }
    }

    /// The candidates: merged, scrubbed, limited.
    pub fn finish(self) -> Extraction {
        let Extractor {
            opts,
            scrubber,
            notes: msg_notes,
            cands,
            skipped,
            lessons,
            secrets,
            ..
        } = self;
        let mut notes = Notes {
            off: msg_notes.off,
            ..Notes::default()
        };
        if skipped > 0 {
            note(
                &mut notes,
                false,
                Bucket::CurrentContext,
                "drop/sidechain",
                0,
                &format!("{skipped} side-chain events"),
            );
        }
        notes.v.extend(msg_notes.v);
        notes.v.extend(lessons.notes.v);
        // the merge notes, messages' first, as when merged at the end
        notes.v.extend(cands.notes.v);
        notes.v.extend(lessons.cands.notes.v);
        let mut merged = cands.v;
        merged.extend(lessons.cands.v);
        for c in &mut merged {
            secrets.clear(&mut c.mem);
            // Text the person pasted (a log, a page) that poses as an
            // instruction to an AI is not theirs to vouch for.
            let m = &mut c.mem;
            if m.source == Some(Source::User) && m.trust != Some(Trust::Low) {
                let texts = [
                    Some(&m.name),
                    Some(&m.description),
                    m.fact.as_ref(),
                    m.how.as_ref(),
                ];
                if let Some(why) = texts
                    .into_iter()
                    .flatten()
                    .find_map(|t| crate::instruction::pasted_instruction(t))
                {
                    m.trust = Some(Trust::Low);
                    note(
                        &mut notes,
                        true,
                        Bucket::DurableInstruction,
                        &format!("trust/low: pasted {why}"),
                        0,
                        &m.name,
                    );
                }
            }
        }
        finish_candidates(merged, notes, &opts, &scrubber)
    }
}
