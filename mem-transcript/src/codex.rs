//! Codex CLI rollouts (`{timestamp, type, payload}` lines) mapped to the
//! same events as Claude sessions (docs/transcripts.md "Codex rollouts: how a tool call ended").
//!
//! A rollout is linear: the branch is the whole file (from the last
//! `compacted` item with `--resume`). `response_item` messages give text
//! (role `developer` → `meta`), `function_call` / `custom_tool_call` give
//! `tool_use`, their `*_output` give `tool_result` (tool name matched on
//! `call_id`); `event_msg` copies of messages are used only when the file
//! has no `response_item` message at all (old rollouts), never both.
//!
//! A result's `is_error` is how the call ended, from the first of: the
//! `event_msg` that records the call's end (`exec_command_end`,
//! `item_completed` of a `CommandExecution`, `patch_apply_end`; matched on
//! the call id, wherever it stands in the file), the output's JSON
//! `metadata.exit_code` / `success`, the exit code in a text output's
//! header (`Process exited with code N`, `Exit code: N`, which the result's
//! text leaves out); `None` when none says.

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

/// How a tool call ended, as the rollout records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit code 0, or a success flag.
    Passed,
    /// A non-zero exit code, `status: "failed"`/`"declined"`, or a failure
    /// flag.
    Failed,
}

impl Outcome {
    fn of_code(code: i64) -> Self {
        if code == 0 {
            Outcome::Passed
        } else {
            Outcome::Failed
        }
    }

    /// `is_error` of the tool result.
    pub fn is_error(self) -> bool {
        self == Outcome::Failed
    }
}

/// The outcome an `event_msg` item records for a call, by its call id:
/// `exec_command_end` (`call_id`, `exit_code`), `item_completed` of a
/// `CommandExecution` item (`id` = the call id, `exit_code`, `status`),
/// `patch_apply_end` (`call_id`, `success`).
pub fn event_outcome(v: &Value) -> Option<(&str, Outcome)> {
    if v["type"] != "event_msg" {
        return None;
    }
    let p = &v["payload"];
    let status = |o: &Value| match o["status"].as_str() {
        Some("failed" | "declined" | "Failed" | "Declined") => Some(Outcome::Failed),
        _ => None,
    };
    let code = |o: &Value| {
        o["exit_code"]
            .as_i64()
            .or_else(|| o["exitCode"].as_i64())
            .map(Outcome::of_code)
    };
    match p["type"].as_str()? {
        "exec_command_end" => {
            let id = p["call_id"].as_str()?;
            Some((id, code(p).or_else(|| status(p))?))
        }
        "patch_apply_end" => {
            let id = p["call_id"].as_str()?;
            let ok = p["success"].as_bool()?;
            Some((id, if ok { Outcome::Passed } else { Outcome::Failed }))
        }
        "item_completed" => {
            let item = &p["item"];
            if !matches!(
                item["type"].as_str(),
                Some("CommandExecution" | "commandExecution")
            ) {
                return None;
            }
            let id = item["call_id"].as_str().or_else(|| item["id"].as_str())?;
            Some((id, code(item).or_else(|| status(item))?))
        }
        _ => None,
    }
}

/// The exit code in the header of a text tool output: `Process exited
/// with code N` (unified exec, `exec_command` / `write_stdin`) or `Exit
/// code: N` (`shell` / `shell_command` as text), on a line before
/// `Output:`.
fn header_code(text: &str) -> Option<i64> {
    for line in text.lines().take(8) {
        let line = line.trim();
        if line == "Output:" {
            break;
        }
        let num = line
            .strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "));
        if let Some(n) = num.and_then(|n| n.trim().parse::<i64>().ok()) {
            return Some(n);
        }
    }
    None
}

/// The output text without the header `header_code` reads (`Chunk ID`,
/// `Wall time`, the exit line or `Process running with session ID N`,
/// `Original token count`, `Output:`), when the text has one; else the
/// text.
fn strip_header(text: &str) -> &str {
    if header_code(text).is_none() && !text.starts_with("Chunk ID: ") {
        return text;
    }
    let mut rest = text;
    while let Some((line, tail)) = rest.split_once('\n') {
        rest = tail;
        if line.trim_end() == "Output:" {
            return rest;
        }
    }
    text
}

/// What a `*_output` item says of its call: the text to show and how the
/// call ended (`None` when the output does not say). Forms: a JSON string
/// or object `{"output": …, "metadata": {"exit_code": N}}` (`shell`,
/// `local_shell`, `apply_patch`), `{"success": false}`, and text whose
/// header names the exit code (see `header_code`); anything else is its
/// text with no outcome.
pub fn read_output(out: &Value) -> (String, Option<Outcome>) {
    let obj = match out {
        Value::String(s) if s.trim_start().starts_with('{') => {
            serde_json::from_str::<Value>(s).ok()
        }
        Value::Object(_) => Some(out.clone()),
        _ => None,
    };
    if let Some(o) = obj.filter(Value::is_object) {
        let code = o["metadata"]["exit_code"].as_i64().map(Outcome::of_code);
        let flag = o["success"]
            .as_bool()
            .map(|ok| if ok { Outcome::Passed } else { Outcome::Failed });
        if code.is_some() || flag.is_some() || o.get("output").is_some() {
            let text = match &o["output"] {
                Value::Null => text_of(out).unwrap_or_default(),
                x => text_of(x).unwrap_or_default(),
            };
            let from_text = header_code(&text).map(Outcome::of_code);
            let text = strip_header(&text).to_string();
            return (text, code.or(flag).or(from_text));
        }
    }
    let text = text_of(out).unwrap_or_default();
    let outcome = header_code(&text).map(Outcome::of_code);
    (strip_header(&text).to_string(), outcome)
}

/// Events of a rollout: the conversation items in order.
pub struct Plan {
    /// Whether `event_msg` messages stand in for missing `response_item` ones.
    pub use_event_msgs: bool,
    /// Index of the first item to emit (`--resume`: the last `compacted`).
    pub start: usize,
}

impl Rollout {
    /// The outcome of each call that an `event_msg` records (see
    /// [`event_outcome`]), by call id; the last record of a call wins.
    pub fn outcomes(&self) -> HashMap<&str, Outcome> {
        self.items
            .iter()
            .filter_map(|i| event_outcome(&i.value))
            .collect()
    }

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
        let outcomes = self.outcomes();
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
                    let (text, said) = read_output(&p["output"]);
                    let outcome = call_id.and_then(|c| outcomes.get(c).copied()).or(said);
                    evs.push(EventOut {
                        role: "tool",
                        kind: "tool_result",
                        tool: call_id.and_then(|c| tools.get(c)).cloned().map(Cow::Owned),
                        tool_id: call_id.map(Cow::Borrowed),
                        text: Some(Text::Str(Cow::Owned(text))),
                        is_error: outcome.map(Outcome::is_error),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outputs_say_how_the_call_ended() {
        let text = "Chunk ID: 79340c\nWall time: 0.0144 seconds\nProcess exited with code 1\nOriginal token count: 15\nOutput:\nboom\n";
        assert_eq!(
            read_output(&json!(text)),
            ("boom\n".to_string(), Some(Outcome::Failed))
        );
        assert_eq!(
            read_output(&json!(
                "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nok\n"
            )),
            ("ok\n".to_string(), Some(Outcome::Passed))
        );
        assert_eq!(
            read_output(&json!(r#"{"output":"x","metadata":{"exit_code":2}}"#)),
            ("x".to_string(), Some(Outcome::Failed))
        );
        assert_eq!(
            read_output(&json!({"output": "done", "success": true})),
            ("done".to_string(), Some(Outcome::Passed))
        );
        // running on in a session, or plain text: not said
        assert_eq!(
            read_output(&json!(
                "Chunk ID: 1\nWall time: 1 seconds\nProcess running with session ID 3\nOutput:\nstarted\n"
            )),
            ("started\n".to_string(), None)
        );
        assert_eq!(
            read_output(&json!([{"type": "input_text", "text": "a.txt"}])),
            ("a.txt".to_string(), None)
        );
        // an exit line past the header is output, not the header
        assert_eq!(
            read_output(&json!("Output:\nProcess exited with code 1")).1,
            None
        );
    }

    #[test]
    fn events_record_the_end_of_calls() {
        let ev = |p: Value| json!({"type": "event_msg", "payload": p});
        assert_eq!(
            event_outcome(&ev(
                json!({"type": "exec_command_end", "call_id": "c1", "exit_code": 1})
            )),
            Some(("c1", Outcome::Failed))
        );
        assert_eq!(
            event_outcome(&ev(
                json!({"type": "item_completed", "item": {"type": "CommandExecution", "id": "c2", "status": "completed", "exit_code": 0}})
            )),
            Some(("c2", Outcome::Passed))
        );
        assert_eq!(
            event_outcome(&ev(
                json!({"type": "item_completed", "item": {"type": "CommandExecution", "id": "c3", "status": "declined"}})
            )),
            Some(("c3", Outcome::Failed))
        );
        assert_eq!(
            event_outcome(&ev(
                json!({"type": "patch_apply_end", "call_id": "c4", "success": false})
            )),
            Some(("c4", Outcome::Failed))
        );
        assert_eq!(
            event_outcome(&ev(
                json!({"type": "item_completed", "item": {"type": "AgentMessage", "id": "m"}})
            )),
            None
        );
    }
}
