//! The fields of one event that extraction reads.

use std::borrow::Cow;

use mem_core::records::Event;

use crate::command::command_of;
use crate::text::EventText;

/// The fields of one event that extraction reads, borrowed from a parsed
/// [`Event`] or from a JSONL line (see [`crate::stream`]).
///
/// From a line, `text` is still JSON-escaped ([`EventText::Escaped`]) and
/// decoded only as far as extraction reads it: a user message whole, a tool
/// output's first [`min_text_window`] bytes when it is read at all.
#[derive(Debug, Clone, Default)]
pub struct EventView<'a> {
    /// Session id.
    pub session: Cow<'a, str>,
    /// 1-based line of the entry in its transcript.
    pub line: u64,
    /// The entry's uuid.
    pub uuid: Option<Cow<'a, str>>,
    /// Index of the block within its message.
    pub block: u32,
    /// UTC RFC 3339 timestamp.
    pub ts: Option<Cow<'a, str>>,
    /// `user` | `assistant` | `system` | `tool`.
    pub role: Cow<'a, str>,
    /// `text` | `tool_use` | `tool_result` | ….
    pub kind: Cow<'a, str>,
    /// Tool name, for `tool_use`.
    pub tool: Option<Cow<'a, str>>,
    /// Tool call id, for `tool_use` and `tool_result`.
    pub tool_id: Option<Cow<'a, str>>,
    /// The command line a tool call runs (see [`command_of`]).
    pub command: Option<String>,
    /// The file a tool call writes (`file_path`, `path` or `notebook_path` of its input).
    pub path: Option<Cow<'a, str>>,
    /// For the question tool (`AskUserQuestion`): the options it offered
    /// (see [`choices_of`]).
    pub choices: Vec<Choice>,
    /// The text (see the type's docs).
    pub text: Option<EventText<'a>>,
    /// For `tool_result`: whether the tool reported an error.
    pub is_error: Option<bool>,
    /// True for side-chain entries.
    pub sidechain: bool,
    /// The recorded working directory.
    pub cwd: Option<Cow<'a, str>>,
}

/// User messages longer than this (bytes, leading whitespace trimmed) are
/// pasted material, never read for intent.
pub const MAX_MESSAGE_BYTES: usize = 8000;

/// The smallest text window extraction needs with a quote budget of
/// `max_quote_bytes` (failure detection reads 4 KiB, the error excerpt four
/// budgets plus 1 KiB).
pub fn min_text_window(max_quote_bytes: usize) -> usize {
    max_quote_bytes
        .saturating_mul(4)
        .saturating_add(1024)
        .max(4096)
}

impl<'a> EventView<'a> {
    /// The view of a parsed event (borrowed, the whole text).
    pub fn of(ev: &'a Event) -> Self {
        let input = ev.input.as_ref();
        EventView {
            session: Cow::Borrowed(&ev.session),
            line: ev.line,
            uuid: ev.uuid.as_deref().map(Cow::Borrowed),
            block: ev.block,
            ts: ev.ts.as_deref().map(Cow::Borrowed),
            role: Cow::Borrowed(&ev.role),
            kind: Cow::Borrowed(&ev.kind),
            tool: ev.tool.as_deref().map(Cow::Borrowed),
            tool_id: ev.tool_id.as_deref().map(Cow::Borrowed),
            command: command_of(ev),
            path: input
                .and_then(|i| write_path_of(|k| i.get(k)))
                .map(Cow::Borrowed),
            choices: input
                .and_then(|i| i.get("questions"))
                .map(choices_of)
                .unwrap_or_default(),
            text: ev
                .text
                .as_deref()
                .map(|t| EventText::Plain(Cow::Borrowed(t))),
            is_error: ev.is_error,
            sidechain: ev.sidechain,
            cwd: ev.cwd.as_deref().map(Cow::Borrowed),
        }
    }

    /// An owned copy (to keep past the line it was read from).
    pub fn into_owned(self) -> EventView<'static> {
        fn o(c: Cow<'_, str>) -> Cow<'static, str> {
            Cow::Owned(c.into_owned())
        }
        EventView {
            session: o(self.session),
            line: self.line,
            uuid: self.uuid.map(o),
            block: self.block,
            ts: self.ts.map(o),
            role: o(self.role),
            kind: o(self.kind),
            tool: self.tool.map(o),
            tool_id: self.tool_id.map(o),
            command: self.command,
            path: self.path.map(o),
            choices: self.choices,
            text: self.text.map(EventText::into_owned),
            is_error: self.is_error,
            sidechain: self.sidechain,
            cwd: self.cwd.map(o),
        }
    }
}

/// The file a tool call writes: the first string among `file_path`, `path`,
/// `notebook_path` of its input (`get` looks a key up).
pub fn write_path_of<'v>(get: impl Fn(&str) -> Option<&'v serde_json::Value>) -> Option<&'v str> {
    ["file_path", "path", "notebook_path"]
        .iter()
        .find_map(|k| get(k).and_then(|v| v.as_str()))
}

/// One option the question tool offered: its question, the option's label
/// (what the answer says) and the description the agent wrote beside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choice {
    /// The question, as asked.
    pub question: String,
    /// The option's label: the answer when the user picks it.
    pub label: String,
    /// What the option means, in the agent's words (may be empty).
    pub description: String,
}

/// The options of a question tool's `questions` input (`[{"question": Q,
/// "options": [{"label": L, "description": D}, …]}, …]`), at most 64; a
/// question without options is one choice with an empty label (its
/// question known); any other shape gives none.
pub fn choices_of(questions: &serde_json::Value) -> Vec<Choice> {
    let mut out = Vec::new();
    for q in questions.as_array().into_iter().flatten() {
        let Some(question) = q.get("question").and_then(|v| v.as_str()) else {
            continue;
        };
        let before = out.len();
        for o in q
            .get("options")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            let Some(label) = o.get("label").and_then(|v| v.as_str()) else {
                continue;
            };
            let description = o.get("description").and_then(|v| v.as_str()).unwrap_or("");
            if out.len() < 64
                && question.len() <= 400
                && label.len() <= 400
                && description.len() <= 400
            {
                out.push(Choice {
                    question: question.to_string(),
                    label: label.to_string(),
                    description: description.to_string(),
                });
            }
        }
        // a question without options (the user's own words) is known too
        if out.len() == before && out.len() < 64 && question.len() <= 400 {
            out.push(Choice {
                question: question.to_string(),
                ..Choice::default()
            });
        }
    }
    out
}
