//! Codex CLI rollouts (`{timestamp, type, payload}` lines) mapped to the
//! same events as Claude sessions (DESIGN.md "Transcripts", last paragraph).
//!
//! A rollout is linear: the branch is the whole file (from the last
//! `compacted` item with `--resume`). `response_item` messages give text
//! (role `developer` → `meta`), `function_call` / `custom_tool_call` give
//! `tool_use`, their `*_output` give `tool_result` (tool name matched on
//! `call_id`); `event_msg` copies of messages are used only when the file
//! has no `response_item` message at all (old rollouts), never both.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use mem_core::Error;
use mem_core::jsonl::{Warning, describe, parse_lossy, sanitize};
use serde_json::Value;

use crate::event::{EventOut, Sink, Text, ToolInput, norm_ts};
use crate::input::{Input, lossy_line, recovered_line, skipped_line};

/// Prefixes of Codex user messages that carry context, not the human's words.
const META_PREFIXES: [&str; 3] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md",
];

/// One parsed rollout line.
#[derive(Debug, Clone)]
pub struct RolloutLine {
    /// 1-based line.
    pub line: usize,
    /// Byte offset of the line.
    pub offset: u64,
    /// Byte length of the raw line, `\n` included.
    pub len: u64,
    /// The line's object.
    pub value: Value,
}

/// A whole rollout, read (rollouts are small; lines are parsed once).
#[derive(Debug, Default)]
pub struct Rollout {
    /// File label.
    pub label: String,
    /// Session id (`session_meta.payload.id`, else from the file name).
    pub session: String,
    /// True when `session_meta` is missing or unreadable.
    pub meta_damaged: bool,
    /// Recorded cwd (`session_meta` or the first `turn_context`).
    pub cwd: Option<String>,
    /// Items in file order.
    pub items: Vec<RolloutLine>,
    /// Read warnings.
    pub warnings: Vec<Warning>,
    /// Lines in the file.
    pub lines: usize,
    /// Lines skipped as unreadable.
    pub bad_lines: Vec<usize>,
    /// Lines read as U+FFFD where they are not UTF-8.
    pub lossy: Vec<usize>,
    /// Entries by `type` (`response_item/message`, `event_msg/token_count`, …).
    pub types: BTreeMap<String, usize>,
    /// The last line has no `\n`.
    pub torn_tail: bool,
}

/// The UUID at the end of a rollout file name
/// (`rollout-2026-01-11T10-00-00-<uuid>.jsonl`).
pub fn id_from_name(label: &str) -> Option<String> {
    let stem = Path::new(label).file_stem()?.to_str()?;
    let tail = stem.get(stem.len().checked_sub(36)?..)?;
    let ok = tail.len() == 36
        && tail.char_indices().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    ok.then(|| tail.to_string())
}

/// Read a rollout. Errors: [`Error::Io`]; [`Error::Input`] when no line is
/// a JSON object.
pub fn read(input: &Input) -> Result<Rollout, Error> {
    let mut r = Rollout {
        label: input.label.clone(),
        ..Rollout::default()
    };
    let mut rd = input.lines()?;
    let mut first_err = None;
    let mut session = None;
    while let Some(line) = rd.next_line().map_err(|e| Error::io(&input.label, e))? {
        r.lines = line.no;
        if let Some(last) = r.items.last_mut()
            && last.len == 0
        {
            last.len = line.offset - last.offset;
        }
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let clean = sanitize(line.bytes);
        let mut copy = None;
        let parsed = parse_lossy(&clean, &mut copy, |b| {
            serde_json::from_slice::<Value>(b).and_then(|v| {
                if v.is_object() {
                    Ok(v)
                } else {
                    Err(serde::de::Error::custom("not a JSON object"))
                }
            })
        });
        let value = match parsed {
            Ok((v, at, lossy)) => {
                if lossy {
                    r.lossy.push(line.no);
                    r.warnings.push(lossy_line(&input.label, line.no));
                }
                if at > 0 {
                    r.warnings.push(recovered_line(&input.label, line.no, at));
                }
                v
            }
            Err(e) => {
                r.torn_tail |= !line.terminated;
                let err = describe(&e);
                r.bad_lines.push(line.no);
                r.warnings
                    .push(skipped_line(&input.label, line.no, line.terminated, &err));
                first_err.get_or_insert((line.no, err));
                continue;
            }
        };
        if !line.terminated {
            r.torn_tail = true;
        }
        let ty = value["type"].as_str().unwrap_or("").to_string();
        let sub = value["payload"]["type"].as_str();
        let name = match sub {
            Some(s) => format!("{ty}/{s}"),
            None => ty.clone(),
        };
        *r.types.entry(name).or_default() += 1;
        if ty == "session_meta" && session.is_none() {
            session = value["payload"]["id"].as_str().map(str::to_string);
            if let Some(c) = value["payload"]["cwd"].as_str() {
                r.cwd = Some(c.to_string());
            }
        }
        if ty == "turn_context"
            && r.cwd.is_none()
            && let Some(c) = value["payload"]["cwd"].as_str()
        {
            r.cwd = Some(c.to_string());
        }
        r.items.push(RolloutLine {
            line: line.no,
            offset: line.offset,
            len: 0,
            value,
        });
    }
    if let Some(last) = r.items.last_mut()
        && last.len == 0
    {
        last.len = input.size - last.offset;
    }
    if r.items.is_empty()
        && let Some(first) = first_err
    {
        return Err(crate::input::not_a_transcript(&input.label, r.lines, first));
    }
    match session {
        Some(s) => r.session = s,
        None => {
            r.meta_damaged = true;
            r.session = id_from_name(&input.label).unwrap_or_default();
            if !r.items.is_empty() {
                r.warnings.push(Warning {
                    file: input.label.clone(),
                    line: 1,
                    reason: format!(
                        "session metadata damaged or missing; session id {} taken from the file name",
                        if r.session.is_empty() { "(none)" } else { &r.session }
                    ),
                });
            }
        }
    }
    Ok(r)
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().filter_map(text_of).collect();
            (!parts.is_empty()).then(|| parts.join("\n"))
        }
        Value::Object(o) => ["text", "content", "output", "message"]
            .iter()
            .find_map(|k| o.get(*k).and_then(text_of)),
        _ => None,
    }
}

fn output_is_error(v: &Value) -> bool {
    let obj = match v {
        Value::String(s) => serde_json::from_str::<Value>(s).ok(),
        Value::Object(_) => Some(v.clone()),
        _ => None,
    };
    let Some(o) = obj else { return false };
    if let Some(code) = o["metadata"]["exit_code"].as_i64() {
        return code != 0;
    }
    o["success"].as_bool() == Some(false)
}

/// Events of a rollout: the conversation items in order.
pub struct Plan {
    /// Whether `event_msg` messages stand in for missing `response_item` ones.
    pub use_event_msgs: bool,
    /// Index of the first item to emit (`--resume`: the last `compacted`).
    pub start: usize,
}

impl Rollout {
    /// Which items to emit.
    pub fn plan(&self, resume: bool) -> Plan {
        let has_messages = self
            .items
            .iter()
            .any(|i| i.value["type"] == "response_item" && i.value["payload"]["type"] == "message");
        let start = if resume {
            self.items
                .iter()
                .rposition(|i| i.value["type"] == "compacted")
                .unwrap_or(0)
        } else {
            0
        };
        Plan {
            use_event_msgs: !has_messages,
            start,
        }
    }

    /// Emit the events (or with `raw`, the original lines of the emitted
    /// items, re-serialized only when the line was recovered).
    ///
    /// Errors: I/O on the output.
    pub fn emit(&self, resume: bool, sink: &mut Sink<'_>) -> Result<u64, Error> {
        let plan = self.plan(resume);
        let io_out = |e| Error::io("<stdout>", e);
        let mut tools: HashMap<String, String> = HashMap::new();
        let mut prev: Option<String> = None;
        let mut cwd = self.cwd.clone();
        let mut written = 0;
        for it in &self.items[plan.start..] {
            let v = &it.value;
            let p = &v["payload"];
            let ty = v["type"].as_str().unwrap_or("");
            let pty = p["type"].as_str().unwrap_or("");
            if ty == "turn_context"
                && let Some(c) = p["cwd"].as_str()
            {
                cwd = Some(c.to_string());
            }
            let ts = match &v["timestamp"] {
                Value::String(s) => norm_ts(s).map(|c| Cow::Owned(c.into_owned())),
                Value::Number(n) => n
                    .as_f64()
                    .and_then(mem_core::time::from_epoch)
                    .map(|t| Cow::Owned(mem_core::time::fmt_ts(t))),
                _ => None,
            };
            let uuid = format!("{}:{}", self.session, it.line);
            let base = EventOut {
                uuid: Some(Cow::Owned(uuid.clone())),
                parent: prev.clone().map(Cow::Owned),
                msg_id: p["id"].as_str().map(Cow::Borrowed),
                ts,
                cwd: cwd.clone().map(Cow::Owned),
                ..EventOut::new(&self.session, "codex", it.line as u64, "assistant", "text")
            };
            let mut evs: Vec<EventOut<'_>> = Vec::new();
            match (ty, pty) {
                ("compacted", _) => {
                    evs.push(EventOut {
                        role: "system",
                        kind: "compact",
                        text: Some(Cow::Borrowed("Conversation compacted").into()),
                        ..base.clone()
                    });
                    if let Some(m) = p["message"].as_str().filter(|m| !m.is_empty()) {
                        evs.push(EventOut {
                            role: "user",
                            kind: "summary",
                            block: 1,
                            text: Some(Cow::Borrowed(m).into()),
                            ..base.clone()
                        });
                    }
                }
                ("response_item", "message") => {
                    let role = p["role"].as_str().unwrap_or("assistant");
                    let (role, meta): (&'static str, bool) = match role {
                        "user" => ("user", false),
                        "assistant" => ("assistant", false),
                        _ => ("system", true),
                    };
                    let parts: Vec<&str> = p["content"]
                        .as_array()
                        .map(|a| a.iter().filter_map(|b| b["text"].as_str()).collect())
                        .or_else(|| p["content"].as_str().map(|s| vec![s]))
                        .unwrap_or_default();
                    for (b, t) in parts.into_iter().enumerate() {
                        let is_meta = meta
                            || (role == "user"
                                && META_PREFIXES.iter().any(|m| t.trim_start().starts_with(m)));
                        evs.push(EventOut {
                            role,
                            kind: if is_meta { "meta" } else { "text" },
                            block: b as u32,
                            text: Some(Cow::Borrowed(t).into()),
                            ..base.clone()
                        });
                    }
                }
                ("response_item", "reasoning") => {
                    if let Some(a) = p["summary"].as_array() {
                        for (b, s) in a.iter().filter_map(|s| s["text"].as_str()).enumerate() {
                            evs.push(EventOut {
                                kind: "thinking",
                                block: b as u32,
                                text: Some(Cow::Borrowed(s).into()),
                                ..base.clone()
                            });
                        }
                    }
                }
                ("response_item", t) if t.ends_with("_call") => {
                    let name = p["name"]
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| t.trim_end_matches("_call").to_string());
                    let call_id = p["call_id"].as_str().or_else(|| p["id"].as_str());
                    if let Some(c) = call_id {
                        tools.insert(c.to_string(), name.clone());
                    }
                    let raw = ["arguments", "input", "action"]
                        .iter()
                        .map(|k| &p[*k])
                        .find(|x| !x.is_null());
                    let input = raw.map(|x| match x {
                        Value::String(s) => {
                            serde_json::from_str::<Value>(s).unwrap_or_else(|_| x.clone())
                        }
                        _ => x.clone(),
                    });
                    evs.push(EventOut {
                        kind: "tool_use",
                        tool: Some(Cow::Owned(name)),
                        tool_id: call_id.map(Cow::Borrowed),
                        input: input.map(ToolInput::Value),
                        ..base.clone()
                    });
                }
                ("response_item", t) if t.ends_with("_output") => {
                    let call_id = p["call_id"].as_str();
                    let out = &p["output"];
                    evs.push(EventOut {
                        role: "tool",
                        kind: "tool_result",
                        tool: call_id.and_then(|c| tools.get(c)).cloned().map(Cow::Owned),
                        tool_id: call_id.map(Cow::Borrowed),
                        text: Some(Text::Str(Cow::Owned(text_of(out).unwrap_or_default()))),
                        is_error: Some(output_is_error(out)),
                        ..base.clone()
                    });
                }
                ("event_msg", "user_message" | "agent_message" | "agent_reasoning")
                    if plan.use_event_msgs =>
                {
                    let text = p["message"].as_str().or_else(|| p["text"].as_str());
                    if let Some(t) = text {
                        let (role, kind) = match pty {
                            "user_message" => ("user", "text"),
                            "agent_message" => ("assistant", "text"),
                            _ => ("assistant", "thinking"),
                        };
                        let kind = if role == "user"
                            && META_PREFIXES.iter().any(|m| t.trim_start().starts_with(m))
                        {
                            "meta"
                        } else {
                            kind
                        };
                        evs.push(EventOut {
                            role,
                            kind,
                            msg_id: None,
                            text: Some(Cow::Borrowed(t).into()),
                            ..base.clone()
                        });
                    }
                }
                _ => {}
            }
            if !evs.is_empty() {
                for ev in evs {
                    sink.emit(ev).map_err(io_out)?;
                    written += 1;
                }
                prev = Some(uuid);
            }
        }
        Ok(written)
    }

    /// The items `--raw` prints (from the last `compacted` with `resume`).
    pub fn raw_items(&self, resume: bool) -> &[RolloutLine] {
        &self.items[self.plan(resume).start..]
    }
}
