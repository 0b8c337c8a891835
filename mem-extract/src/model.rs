//! Optional model-backed extraction (`--model-cmd 'CMD'`).
//!
//! Protocol: CMD runs under `sh -c`. Its stdin receives [`PROMPT`], a line
//! `---EVENTS---`, then the main agent's events as JSONL (user and assistant
//! text, tool calls, tool results capped at the quote budget; every string
//! scrubbed first, so no secret reaches the model). Its stdout must be memory
//! records (DESIGN.md "Memory"), one JSON object a line; anything else on a
//! line is an error naming the line. A non-zero exit is an error. The records
//! are then validated (required fields, ids), given the project id, scrubbed
//! and dropped when still sensitive, and merged — exactly like the rules'
//! output.

use std::io::Write;
use std::process::{Command, Stdio};

use mem_core::Error;
use mem_core::records::{Event, Memory};
use mem_core::scrub::Scrubber;
use mem_core::truncate::truncate_marked;

use crate::extract::{Bucket, ExtractOptions, Extraction, Note};

/// The prompt sent before the events.
pub const PROMPT: &str = "\
You extract long-lived memories for a coding agent from one session's events (JSONL below).
Output one JSON object per line and nothing else, each a memory record:
  {\"name\": short title, \"description\": one line, \"type\": \"user\"|\"feedback\"|\"project\"|\"reference\",
   \"kind\": \"durable-lesson\"|\"preference\"|\"one-time-state\"|\"reference\", \"fact\", \"why\", \"how\",
   \"triggers\": [words], \"expires\": \"YYYY-MM-DD\"|\"never\", \"evidence\": [\"transcript:<digest>#<line>\"]}
Keep only what holds across sessions: the user's own corrections and preferences (feedback), facts about
the user (user), project facts and dated project state (project; a state with an end date is
one-time-state with expires), dashboards/runbooks/trackers/docs the user points to (reference), and
lessons from a failed command fixed by another one. Never: side chains, tool output taken as the
user's intent, task progress, chatter, preferences stated only by the assistant. Resolve relative
dates against the local day of the message's timestamp. Never copy secrets, session ids or absolute
paths. Output nothing when nothing qualifies.
";

/// Run the model command over `events` and post-process its records like the
/// rules' output.
///
/// Errors: [`Error::Msg`] when CMD cannot start or exits non-zero,
/// [`Error::Input`] (`<model-cmd>:LINE`) for a line that is not a valid record.
pub fn extract_with_model(
    events: &[Event],
    opts: &ExtractOptions,
    cmd: &str,
) -> Result<Extraction, Error> {
    let scrubber = Scrubber::new(opts.project_root.as_deref());
    let mut input = String::from(PROMPT);
    input.push_str("---EVENTS---\n");
    for e in events.iter().filter(|e| !e.sidechain) {
        if !matches!(e.kind.as_str(), "text" | "tool_use" | "tool_result") {
            continue;
        }
        let mut e = e.clone();
        e.cwd = None;
        e.session = crate::extract::evidence_of(&e);
        if let Some(t) = e.text.as_mut() {
            *t = truncate_marked(t, opts.max_quote_bytes.max(2000)).into_owned();
        }
        let mut v = serde_json::to_value(&e).map_err(|e| Error::Msg(e.to_string()))?;
        scrubber.scrub_json(&mut v);
        input.push_str(&v.to_string());
        input.push('\n');
    }
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Msg(format!("--model-cmd: cannot start: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child
        .wait_with_output()
        .map_err(|e| Error::Msg(format!("--model-cmd: {e}")))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(Error::Msg(format!(
            "--model-cmd: exited with {}",
            out.status
        )));
    }
    let (recs, errs) =
        mem_core::jsonl::read_records::<Memory>(out.stdout.as_slice(), "<model-cmd>");
    if let Some(e) = errs.into_iter().next() {
        return Err(e);
    }
    let mut res = Extraction::default();
    for (line, mut m) in recs {
        if let Err(e) = m.resolve_id() {
            return Err(Error::input("<model-cmd>", line, e.to_string()));
        }
        if m.project.is_none() {
            m.project = opts.project_id.clone();
        }
        let r = scrubber.scrub_memory(&mut m);
        if !r.remaining.is_empty() {
            res.sensitive_drops
                .push(format!("{}: {}", m.name, r.remaining[0].field));
            continue;
        }
        crate::extract::ensure_id(&mut m);
        if res
            .memories
            .iter()
            .any(|x: &Memory| x.name == m.name && x.mem_type == m.mem_type)
        {
            continue;
        }
        res.notes.push(Note {
            kept: true,
            bucket: Bucket::DurableInstruction,
            rule: "model".into(),
            line: line as u64,
            text: m.name.clone(),
        });
        res.memories.push(m);
    }
    if let Some(n) = opts.max_candidates {
        res.memories.truncate(n);
    }
    Ok(res)
}
