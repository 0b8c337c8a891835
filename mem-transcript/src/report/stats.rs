//! `stats`: entries by type, turns, tool calls and errors by tool, tokens,
//! models, first and last timestamps, first prompt.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use mem_core::jsonl::{parse_lossy, sanitize};
use mem_core::records::transcript::{Tokens, TranscriptStats};
use mem_core::{Error, Exit};
use serde::Deserialize;
use serde_json::Value;

use crate::claude::Content;
use crate::codex::Rollout;
use crate::input::Input;
use crate::{FilesArgs, Global, report_warnings};

use super::{Loaded, joined_or, load, write_report};

#[derive(Deserialize)]
pub(super) struct StatEntry<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isMeta", default)]
    meta: Option<bool>,
    #[serde(rename = "isCompactSummary", default)]
    compact_summary: Option<bool>,
    #[serde(rename = "isSidechain", default)]
    sidechain: Option<bool>,
    #[serde(borrow, default)]
    message: Option<StatMessage<'a>>,
}

#[derive(Deserialize)]
pub(super) struct StatMessage<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

#[derive(Default)]
pub(super) struct Acc {
    tools: BTreeMap<String, u64>,
    errors: BTreeMap<String, u64>,
    models: Vec<String>,
    first: Option<i64>,
    last: Option<i64>,
    first_prompt: Option<String>,
    prompts: u64,
    turns: u64,
    tokens: [u64; 4],
}

impl Acc {
    fn ts(&mut self, t: Option<i64>) {
        if let Some(t) = t {
            self.first = Some(self.first.map_or(t, |f| f.min(t)));
            self.last = Some(self.last.map_or(t, |l| l.max(t)));
        }
    }
    fn model(&mut self, m: &str) {
        if !m.is_empty() && !m.starts_with('<') && !self.models.iter().any(|x| x == m) {
            self.models.push(m.to_string());
        }
    }
    fn prompt(&mut self, t: &str) {
        self.prompts += 1;
        if self.first_prompt.is_none() {
            self.first_prompt = Some(mem_core::truncate::floor_to_chars(t.trim(), 200).to_string());
        }
    }
}

pub(super) fn fmt_ms(t: Option<i64>) -> Option<String> {
    t.and_then(chrono::DateTime::from_timestamp_millis)
        .map(mem_core::time::fmt_ts)
}

pub(super) fn is_command_noise(t: &str) -> bool {
    let t = t.trim_start();
    t.starts_with("<command-") || t.starts_with("<local-command") || t.starts_with("Caveat:")
}

pub(super) fn stats_claude(inp: &Input) -> Result<(Acc, Vec<mem_core::jsonl::Warning>), Error> {
    let mut acc = Acc::default();
    let mut usage: HashMap<String, Usage> = HashMap::new();
    let mut ids: HashMap<String, String> = HashMap::new();
    let mut rd = inp.lines()?;
    while let Some(line) = rd.next_line().map_err(|e| Error::io(&inp.label, e))? {
        let clean = sanitize(line.bytes);
        let mut copy = None;
        let Ok((e, _, _)) = parse_lossy(&clean, &mut copy, serde_json::from_slice::<StatEntry>)
        else {
            continue;
        };
        acc.ts(e.timestamp.as_deref().and_then(crate::event::ts_millis));
        let Some(m) = &e.message else { continue };
        let ty = e.ty.as_deref().unwrap_or("");
        if ty == "assistant" {
            if let Some(model) = &m.model {
                acc.model(model);
            }
            match &m.id {
                Some(id) => {
                    if !usage.contains_key(id.as_ref()) {
                        acc.turns += 1;
                    }
                    usage.insert(id.to_string(), m.usage.unwrap_or_default());
                }
                None => {
                    acc.turns += 1;
                    let u = m.usage.unwrap_or_default();
                    usage.insert(format!("line:{}", line.no), u);
                }
            }
        }
        match &m.content {
            Some(Content::Blocks(bs)) => {
                for b in bs {
                    match b.ty.as_deref() {
                        Some("tool_use" | "server_tool_use") => {
                            let name = b.name.as_deref().unwrap_or("?").to_string();
                            if let Some(id) = &b.id
                                && ids.insert(id.to_string(), name.clone()).is_some()
                            {
                                continue;
                            }
                            *acc.tools.entry(name).or_default() += 1;
                        }
                        Some("tool_result") if b.is_error == Some(true) => {
                            let name = b
                                .tool_use_id
                                .as_deref()
                                .and_then(|i| ids.get(i).cloned())
                                .unwrap_or_else(|| "?".into());
                            *acc.errors.entry(name).or_default() += 1;
                        }
                        Some("text")
                            if ty == "user"
                                && e.meta != Some(true)
                                && e.compact_summary != Some(true)
                                && e.sidechain != Some(true) =>
                        {
                            if let Some(t) = &b.text
                                && !is_command_noise(t)
                            {
                                acc.prompt(t);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Some(Content::Text(t))
                if ty == "user"
                    && e.meta != Some(true)
                    && e.compact_summary != Some(true)
                    && e.sidechain != Some(true)
                    && !is_command_noise(t) =>
            {
                acc.prompt(t);
            }
            _ => {}
        }
    }
    for u in usage.values() {
        acc.tokens[0] += u.input_tokens.unwrap_or(0);
        acc.tokens[1] += u.output_tokens.unwrap_or(0);
        acc.tokens[2] += u.cache_creation_input_tokens.unwrap_or(0);
        acc.tokens[3] += u.cache_read_input_tokens.unwrap_or(0);
    }
    Ok((acc, Vec::new()))
}

pub(super) fn stats_codex(r: &Rollout) -> Acc {
    let mut acc = Acc::default();
    let mut ids: HashMap<String, String> = HashMap::new();
    let has_messages = !r.plan(false).use_event_msgs;
    let outcomes = r.outcomes();
    for it in &r.items {
        let v = &it.value;
        let p = &v["payload"];
        let t = match &v["timestamp"] {
            Value::String(s) => crate::event::ts_millis(s),
            Value::Number(n) => n
                .as_f64()
                .and_then(mem_core::time::from_epoch)
                .map(|t| t.timestamp_millis()),
            _ => None,
        };
        acc.ts(t);
        let ty = v["type"].as_str().unwrap_or("");
        let pty = p["type"].as_str().unwrap_or("");
        match (ty, pty) {
            ("turn_context", _) => {
                if let Some(m) = p["model"].as_str() {
                    acc.model(m);
                }
            }
            ("response_item", "message") => {
                let role = p["role"].as_str().unwrap_or("");
                if role == "assistant" {
                    acc.turns += 1;
                }
                if role == "user"
                    && let Some(t) = p["content"]
                        .as_array()
                        .and_then(|a| a.iter().find_map(|b| b["text"].as_str()))
                    && ![
                        "<environment_context>",
                        "<user_instructions>",
                        "# AGENTS.md",
                    ]
                    .iter()
                    .any(|m| t.trim_start().starts_with(m))
                {
                    acc.prompt(t);
                }
            }
            ("event_msg", "user_message") if !has_messages => {
                if let Some(t) = p["message"].as_str() {
                    acc.prompt(t);
                }
            }
            ("event_msg", "agent_message") if !has_messages => acc.turns += 1,
            ("event_msg", "token_count") => {
                let u = &p["info"]["total_token_usage"];
                if u.is_object() {
                    let cached = u["cached_input_tokens"].as_u64().unwrap_or(0);
                    acc.tokens = [
                        u["input_tokens"]
                            .as_u64()
                            .unwrap_or(0)
                            .saturating_sub(cached),
                        u["output_tokens"].as_u64().unwrap_or(0),
                        u["cache_write_input_tokens"].as_u64().unwrap_or(0),
                        cached,
                    ];
                }
            }
            ("response_item", t) if t.ends_with("_call") => {
                let name = p["name"]
                    .as_str()
                    .unwrap_or(t.trim_end_matches("_call"))
                    .to_string();
                if let Some(c) = p["call_id"].as_str() {
                    ids.insert(c.to_string(), name.clone());
                }
                *acc.tools.entry(name).or_default() += 1;
            }
            ("response_item", t) if t.ends_with("_output") => {
                let event = p["call_id"].as_str().and_then(|c| outcomes.get(c).copied());
                let err = event
                    .or_else(|| crate::codex::read_output(&p["output"]).1)
                    .is_some_and(crate::codex::Outcome::is_error);
                if err {
                    let name = p["call_id"]
                        .as_str()
                        .and_then(|c| ids.get(c).cloned())
                        .unwrap_or_else(|| "?".into());
                    *acc.errors.entry(name).or_default() += 1;
                }
            }
            _ => {}
        }
    }
    acc
}

pub(super) fn stats_record(
    label: &str,
    source: &str,
    session: Option<&str>,
    types: &BTreeMap<String, usize>,
    acc: &Acc,
) -> TranscriptStats {
    TranscriptStats {
        file: label.to_string(),
        source: source.to_string(),
        session: session.map(str::to_string),
        entries: types.iter().map(|(k, v)| (k.clone(), *v as u64)).collect(),
        turns: acc.turns,
        prompts: acc.prompts,
        tool_calls: acc.tools.clone(),
        tool_errors: acc.errors.clone(),
        tokens: Tokens {
            input: acc.tokens[0],
            output: acc.tokens[1],
            cache_creation: acc.tokens[2],
            cache_read: acc.tokens[3],
        },
        models: acc.models.clone(),
        first: fmt_ms(acc.first),
        last: fmt_ms(acc.last),
        duration_s: match (acc.first, acc.last) {
            (Some(f), Some(l)) => Some((l - f) as f64 / 1000.0),
            _ => None,
        },
        first_prompt: acc.first_prompt.clone(),
    }
}

/// `stats FILE…`.
///
/// Errors: as [`load`]; `--strict` on any warning.
pub fn stats(
    args: &FilesArgs,
    global: &Global,
    text: bool,
    out: &mut dyn Write,
) -> Result<Exit, Error> {
    for f in &args.files {
        let rec = match load(f, args.from, global.threads())? {
            Loaded::Empty(inp) => {
                stats_record(&inp.label, "", None, &BTreeMap::new(), &Acc::default())
            }
            Loaded::Claude(inp, ix) => {
                report_warnings(&ix.warnings, global.strict)?;
                let (acc, _) = stats_claude(&inp)?;
                stats_record(&inp.label, "claude", ix.session.as_deref(), &ix.types, &acc)
            }
            Loaded::Codex(inp, r) => {
                report_warnings(&r.warnings, global.strict)?;
                let acc = stats_codex(&r);
                stats_record(&inp.label, "codex", Some(&r.session), &r.types, &acc)
            }
        };
        write_report(out, &rec, text, write_stats_text)?;
    }
    Ok(Exit::Success)
}

pub(super) fn kv(v: &Value) -> String {
    let s: Vec<String> = v
        .as_object()
        .map(|o| o.iter().map(|(k, n)| format!("{k} {n}")).collect())
        .unwrap_or_default();
    joined_or(&s, "none")
}

pub(super) fn write_stats_text(out: &mut dyn Write, v: &Value) -> std::io::Result<()> {
    writeln!(out, "{}", v["file"].as_str().unwrap_or(""))?;
    writeln!(out, "  session: {}", v["session"].as_str().unwrap_or("-"))?;
    writeln!(out, "  entries: {}", kv(&v["entries"]))?;
    writeln!(out, "  turns: {}, prompts: {}", v["turns"], v["prompts"])?;
    writeln!(out, "  tool calls: {}", kv(&v["tool_calls"]))?;
    writeln!(out, "  tool errors: {}", kv(&v["tool_errors"]))?;
    let t = &v["tokens"];
    writeln!(
        out,
        "  tokens: input {}, output {}, cache creation {}, cache read {}",
        t["input"], t["output"], t["cache_creation"], t["cache_read"]
    )?;
    let models: Vec<&str> = v["models"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    writeln!(out, "  models: {}", joined_or(&models, "-"))?;
    writeln!(
        out,
        "  time: {} .. {} ({} s)",
        v["first"].as_str().unwrap_or("-"),
        v["last"].as_str().unwrap_or("-"),
        v["duration_s"]
    )?;
    writeln!(
        out,
        "  first prompt: {}",
        v["first_prompt"].as_str().unwrap_or("-")
    )
}
