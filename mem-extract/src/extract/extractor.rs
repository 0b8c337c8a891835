//! The streaming driver: events in, one at a time; candidates out.

use std::rc::Rc;

use mem_core::records::{Source, Trust};
use mem_core::scrub::Scrubber;

use super::finish::finish_candidates;
use super::judge::Context;
use super::lessons::Lessons;
use super::markers::{INTERRUPTED, Pending};
use super::merge::Merged;
use super::message::from_message;
use super::notes::{Notes, note};
use super::options::{ExtractOptions, Extraction, FastMap, FastSet};
use super::origin::{At, at_of};
use super::secrets::SecretValues;
use super::sentence::quote_key;
use super::view::{EventView, MAX_MESSAGE_BYTES};
use crate::note::Bucket;
use crate::triggers::content_words;

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
    /// The session `ctx` belongs to: a new session names nothing yet.
    ctx_session: String,
    /// In how many of the run's user messages each content word occurs,
    /// and how many messages: a word most of them contain is no trigger.
    pub(super) df: FastMap<String, u32>,
    pub(super) messages: u32,
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
            ctx_session: String::new(),
            df: FastMap::default(),
            messages: 0,
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
        // what one session named is not what "it" means in the next
        if *ev.session != *self.ctx_session {
            self.ctx = Context::default();
            self.after_interrupt = false;
            self.ctx_session.clear();
            self.ctx_session.push_str(&ev.session);
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
                    if !t.starts_with(['<', '[']) && t.len() <= MAX_MESSAGE_BYTES {
                        self.messages += 1;
                        let words: FastSet<String> = content_words(t).into_iter().collect();
                        for w in words {
                            *self.df.entry(w).or_insert(0) += 1;
                        }
                    }
                    if t.starts_with(INTERRUPTED) {
                        self.after_interrupt = true;
                    }
                    if t.starts_with("<ide_") {
                        self.ctx.ide_wrapper(t);
                    }
                    let at = self.at(ev);
                    // a command the user ran themselves (`!uv run ty check`)
                    // is one the project runs
                    if let Some(cmd) = super::repeats::user_bash_input(t) {
                        let root = self.opts.project_root.as_deref();
                        self.lessons.repeats.ran(cmd, &at, root, true);
                    } else if t.len() <= MAX_MESSAGE_BYTES {
                        self.lessons.repeats.said.said(t, &at);
                    }
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
                // the agent spoke again: the stop is behind, no longer what
                // the next message answers
                self.after_interrupt = false;
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
                if ev.kind == "tool_use" {
                    self.after_interrupt = false;
                    if let Some(p) = ev.path.as_deref() {
                        self.ctx.wrote(p);
                    }
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
            df,
            messages,
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
        // what the project repeats across its sessions
        let mut repeat_notes = Notes {
            off: notes.off,
            ..Notes::default()
        };
        let repeated = lessons
            .repeats
            .memories(&opts, &mut repeat_notes, &mut merged);
        merged.extend(repeated);
        notes.v.extend(repeat_notes.v);
        for c in &mut merged {
            generic_triggers(&mut c.mem, &df, messages, &mut notes);
            package_manager_trigger(&mut c.mem);
        }
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

/// Fewest user messages in a run before their words are counted: in fewer,
/// every word is in a large share by chance.
const DF_MIN_MESSAGES: u32 = 8;

/// Leave out the one-word triggers that most development tasks contain
/// ([`crate::triggers::WEAK`]: "test", "build", "file") or that a third or
/// more of the run's user messages contain (`drop/generic-trigger`): such a
/// word is in most tasks of the project, so the memory would be recalled
/// for all of them. Names (a dot, dash, underscore, slash or digit) and
/// phrases stay.
pub(super) fn generic_triggers(
    m: &mut mem_core::records::Memory,
    df: &FastMap<String, u32>,
    messages: u32,
    notes: &mut Notes,
) {
    let common = |t: &str| {
        !t.contains([' ', '.', '-', '_', '/'])
            && !t.bytes().any(|b| b.is_ascii_digit())
            && (crate::triggers::is_weak(t)
                || messages >= DF_MIN_MESSAGES
                    && df.get(t).is_some_and(|&n| n.saturating_mul(3) >= messages))
    };
    let name = m.name.clone();
    m.triggers.retain(|t| {
        if common(t) {
            note(
                notes,
                false,
                Bucket::CurrentContext,
                "drop/generic-trigger",
                0,
                &format!("{t} ({name})"),
            );
            false
        } else {
            true
        }
    });
}

/// Package managers: a choice of one bears on every dependency a task adds.
/// (Not `cargo` or `go`: those build and test too.)
const PACKAGE_MANAGERS: &[&str] = &[
    "bun", "bundler", "composer", "conda", "mamba", "npm", "pip", "pip3", "pipenv", "pnpm",
    "poetry", "uv", "yarn",
];

/// Words before a package manager that make it a choice: "use pnpm",
/// "switch to poetry", "pnpm over npm", "instead of npm".
const CHOOSING: &[&str] = &[
    "use", "using", "prefer", "with", "to", "choose", "pick", "adopt", "over", "of", "not",
];

/// A choice of package manager the user made ("use pnpm instead of `npm
/// install`", "let's go with poetry") is about every dependency a later
/// task adds: `dependency` joins its triggers, so "add eslint as a dev
/// dependency" recalls it. Running one ("run `pnpm build`") is no choice,
/// and a lesson (a command that failed) gets none.
pub(super) fn package_manager_trigger(m: &mut mem_core::records::Memory) {
    if m.source != Some(Source::User) || m.triggers.iter().any(|t| t == "dependency") {
        return;
    }
    let words = mem_core::text::words(&m.name);
    let chosen = words.iter().enumerate().any(|(i, w)| {
        PACKAGE_MANAGERS.contains(&w.as_str())
            && (i == 0 || CHOOSING.contains(&words[i - 1].as_str()))
    });
    if chosen {
        m.triggers.push("dependency".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word in a third of the run's messages is no trigger; a rarer word,
    /// a name and a phrase are; a short run counts nothing.
    #[test]
    fn words_in_most_messages_are_no_triggers() {
        let mut df = FastMap::default();
        df.insert("timeline".to_string(), 5);
        df.insert("vis".to_string(), 1);
        df.insert("tests".to_string(), 1);
        df.insert("group.visible".to_string(), 9);
        let mut m = mem_core::records::Memory::new(
            "Hide groups with group.visible",
            "",
            mem_core::records::MemoryType::Feedback,
        );
        let triggers = [
            "group.visible",
            "timeline",
            "vis",
            "timeline groups",
            "tests",
        ];
        m.triggers = triggers.iter().map(|s| s.to_string()).collect();
        let mut notes = Notes::default();
        generic_triggers(&mut m, &df, 15, &mut notes);
        assert_eq!(m.triggers, ["group.visible", "vis", "timeline groups"]);
        assert_eq!(notes.v.len(), 2);
        assert_eq!(notes.v[0].rule, "drop/generic-trigger");
        m.triggers = triggers.iter().map(|s| s.to_string()).collect();
        generic_triggers(&mut m, &df, 16, &mut notes);
        assert_eq!(
            m.triggers.len(),
            4,
            "5 of 16 is under a third: {:?}",
            m.triggers
        );
        m.triggers.push("timeline".into());
        generic_triggers(&mut m, &df, 7, &mut notes);
        assert_eq!(m.triggers.len(), 5, "too few messages to count");
    }
}
