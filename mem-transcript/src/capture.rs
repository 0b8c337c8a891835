//! `replay --hook`: the events of a session that a hook has not yet
//! captured (docs/hooks.md "Per-turn capture").
//!
//! The hook JSON on stdin names the session (`session_id`,
//! `transcript_path`, `cwd`, `hook_event_name`, `stop_hook_active`). A
//! watermark per session and purpose, in
//! [`mem_core::memdir::session_state_dir`] (`capture.json` for `Stop` and
//! `SessionEnd`, `compact.json` for `PreCompact`), records how far the
//! transcript was read: each run seeks to it and reads only the complete
//! lines after it.
//!
//! - `Stop`: nothing when `stop_hook_active` is true; else the main-agent
//!   chain of the new lines, once at least [`EVERY_ENV`] turns (default 1)
//!   have ended since the watermark (a skipped run leaves the watermark
//!   where it was, so the next run takes those turns too). A turn in which
//!   the agent wrote into the memory directory (`Write`, `Edit`, … on a path
//!   inside it) is left out, that turn only.
//! - `SessionEnd`: the same, whatever the throttle (the rest).
//! - `PreCompact`: every event of the new lines (its own watermark), for
//!   `mem-extract session`; memory-writing turns are kept.
//! - `SubagentStop`: nothing (main agent only). Side-chain events are never
//!   emitted.
//!
//! For a lesson that spans turns (a command fails in one turn and passes
//! in the next), the tool calls and results of the last captured turn that
//! had any ([`CARRY_EVENTS`] events, [`CARRY_BYTES`] bytes at most) are
//! kept in the watermark and emitted again before the new turn's events;
//! `mem-index write` finds what they give a second time unchanged.
//!
//! The watermark moves (written atomically) only after the events were
//! written to stdout; a run that fails before leaves it, and a duplicate run
//! (two copies of the hook) either waits out nothing — it finds the lock
//! held and exits 0 — or finds nothing new. A `mem-extract` or `mem-index
//! write` that fails after reading the events loses that turn's candidates:
//! the pipe gives no acknowledgement, and a watermark that waited for one
//! would make every later turn read the whole backlog again.
//!
//! Claude Code transcripts are read from the watermark's byte offset; a
//! Codex rollout is read whole and only events past the watermark's line
//! are kept (rollouts are small).

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use mem_core::Error;
use mem_core::hooks::HookInput;
use serde::{Deserialize, Serialize};

use crate::claude::{self, Branch, SIDECHAIN};
use crate::event::Sink;
use crate::input::{Input, Source};

/// The variable that sets the throttle: capture on `Stop` once this many
/// turns have ended since the last capture (default 1: every turn).
pub const EVERY_ENV: &str = "MEM_CAPTURE_EVERY";

/// Most tool events carried into the next run as context.
pub const CARRY_EVENTS: usize = 40;

/// Most bytes of carried events.
pub const CARRY_BYTES: usize = 64 * 1024;

/// How far a session's transcript was read for one purpose: the
/// `capture.json` / `compact.json` file. Unknown fields are kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Watermark {
    /// The transcript read (as the hook named it).
    #[serde(default)]
    pub transcript: String,
    /// Bytes read: the offset of the first line not yet read (always the
    /// start of a line).
    #[serde(default)]
    pub offset: u64,
    /// Lines before `offset` (line numbers of new entries continue from it).
    #[serde(default)]
    pub lines: u64,
    /// The next event's `seq` (events are numbered across runs).
    #[serde(default)]
    pub seq: u64,
    /// The uuid of the last main-chain entry emitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_uuid: Option<String>,
    /// Main-agent turns read (captured or left out).
    #[serde(default)]
    pub turns: u64,
    /// Turns emitted.
    #[serde(default)]
    pub captured: u64,
    /// Turns left out because the agent wrote into the memory directory.
    #[serde(default)]
    pub skipped: u64,
    /// Runs that read new lines.
    #[serde(default)]
    pub reads: u64,
    /// Bytes read over all runs (each line once: equals `offset`).
    #[serde(default)]
    pub bytes_read: u64,
    /// The carried tool events (event JSON lines), emitted again first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carry: Vec<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// What a hook run is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// `Stop` (throttled) or `SessionEnd` (not): memories.
    Capture { throttled: bool },
    /// `PreCompact`: the session summary.
    Compact,
}

impl Purpose {
    fn file(self) -> &'static str {
        match self {
            Purpose::Capture { .. } => "capture",
            Purpose::Compact => "compact",
        }
    }
}

/// The throttle: [`EVERY_ENV`] when it is a whole number of at least 1,
/// else 1 (a bad value is reported on stderr).
pub fn every() -> u64 {
    match std::env::var(EVERY_ENV) {
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n >= 1 => n,
            _ => {
                crate::note(&format!(
                    "{EVERY_ENV}={v:?} is not a whole number of at least 1; capturing every turn"
                ));
                1
            }
        },
        Err(_) => 1,
    }
}

/// Run `replay --hook` on the hook JSON `stdin`, writing the events to
/// `out`. Prints notes on stderr (`mem-transcript: capture: …`); nothing on
/// stdout when there is nothing to capture.
///
/// Errors: hook input that is not JSON or names no transcript, an
/// unreadable transcript, a state folder that cannot be written, the
/// output.
pub fn run_hook(stdin: &[u8], out: &mut dyn Write, threads: usize) -> Result<(), Error> {
    let h = parse_hook(stdin)?;
    let purpose = match h.event() {
        "SubagentStop" => return Ok(()),
        "Stop" if h.stop_hook_active == Some(true) => return Ok(()),
        "Stop" => Purpose::Capture { throttled: true },
        "PreCompact" => Purpose::Compact,
        _ => Purpose::Capture { throttled: false },
    };
    if let Some(read) = read_new(&h, purpose, out, threads)? {
        read.commit()?;
    }
    Ok(())
}

/// The events of the session named by the hook JSON `stdin` that the
/// session summary has not yet read (the `compact.json` watermark, shared
/// with `PreCompact`): every event of the complete lines past it, written
/// to `out`, whatever the hook's event. The watermark moves only when the
/// caller calls [`SummaryRead::commit`], after it has saved what it made of
/// the events: a run stopped before that reads the same lines again.
/// `None` when there is nothing to read (no transcript, a sub-agent's,
/// memory or auto-compaction off, nothing new, another run holding the
/// lock); a note on stderr says which.
///
/// Errors: hook input that is not JSON, an unreadable transcript, a state
/// folder that cannot be written, the output.
pub fn read_for_summary(
    stdin: &[u8],
    out: &mut dyn Write,
    threads: usize,
) -> Result<Option<SummaryRead>, Error> {
    let h = parse_hook(stdin)?;
    Ok(read_new(&h, Purpose::Compact, out, threads)?.map(|inner| SummaryRead { inner }))
}

/// A read of [`read_for_summary`] whose watermark is not yet saved; the
/// session's lock stays held until [`SummaryRead::commit`] or drop.
#[derive(Debug)]
pub struct SummaryRead {
    inner: NewLines,
}

impl SummaryRead {
    /// Save the watermark past the lines read (atomically).
    ///
    /// Errors: the state file cannot be written.
    pub fn commit(self) -> Result<(), Error> {
        self.inner.commit()
    }
}

/// Lines read past a watermark, the next watermark not yet saved.
#[derive(Debug)]
struct NewLines {
    state_path: PathBuf,
    next: Watermark,
    _lock: std::fs::File,
}

impl NewLines {
    fn commit(self) -> Result<(), Error> {
        let json = serde_json::to_vec_pretty(&self.next)
            .map_err(|e| Error::io(&self.state_path, e.into()))?;
        mem_core::atomic::write_atomic(&self.state_path, &json)
    }
}

fn parse_hook(stdin: &[u8]) -> Result<HookInput, Error> {
    serde_json::from_slice(stdin).map_err(|e| {
        Error::input(
            "<stdin>",
            e.line(),
            format!("hook input is not JSON: {}", mem_core::jsonl::describe(&e)),
        )
    })
}

/// Read past the watermark of `purpose` for the session of `h`, writing
/// the events to `out`; the read to commit, or `None` (nothing to do).
fn read_new(
    h: &HookInput,
    purpose: Purpose,
    out: &mut dyn Write,
    threads: usize,
) -> Result<Option<NewLines>, Error> {
    // Codex sends a null `transcript_path` for a thread without a rollout:
    // nothing to capture, nothing to say.
    let Some(path) = h
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(crate::expand_tilde)
    else {
        return Ok(None);
    };
    if crate::is_subagent_path(&path) {
        // a sub-agent's own transcript: never the main agent
        return Ok(None);
    }
    let cwd = match h.cwd.as_deref().filter(|c| !c.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => std::env::current_dir().map_err(|e| Error::io(".", e))?,
    };
    if let Some(why) = mem_core::memdir::memory_off(Some(&cwd))? {
        note(&format!("memory is off ({why}); nothing read"));
        return Ok(None);
    }
    if purpose == Purpose::Compact
        && let Some(why) = mem_core::memdir::auto_compact_off(Some(&cwd))?
    {
        // no summary is kept: the watermark stays, so no turn is skipped
        // when auto-compaction is turned on again
        note(&format!(
            "auto-compaction is off ({why}); nothing read for the session summary"
        ));
        return Ok(None);
    }
    let resolved = mem_core::memdir::resolve(&mem_core::memdir::MemdirOptions {
        cwd: Some(cwd.clone()),
        ..Default::default()
    })?;
    let session = match h.session_id.as_deref().filter(|s| !s.is_empty()) {
        Some(s) => s.to_string(),
        None => path
            .file_stem()
            .map_or_else(|| "session".into(), |s| s.to_string_lossy().into_owned()),
    };
    let dir = mem_core::memdir::session_state_dir(&resolved.dir, &session)?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let lock_path = dir.join(format!("{}.lock", purpose.file()));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| Error::io(&lock_path, e))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            note("another run for this session holds the lock; it reads these lines");
            return Ok(None);
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&lock_path, e)),
    }
    let state_path = dir.join(format!("{}.json", purpose.file()));
    let run = Run {
        path: &path,
        purpose,
        memory_dir: &resolved.dir,
        threads,
        every: if purpose == (Purpose::Capture { throttled: true }) {
            every()
        } else {
            1
        },
    };
    let wm = load(&state_path, &path);
    Ok(run.step(wm, out)?.map(|next| NewLines {
        state_path,
        next,
        _lock: lock,
    }))
}

fn note(msg: &str) {
    crate::note(&format!("capture: {msg}"));
}

/// The watermark at `state` for `transcript`; a fresh one when missing,
/// unreadable (said on stderr, naming the file and line) or for another
/// transcript.
fn load(state: &Path, transcript: &Path) -> Watermark {
    let fresh = Watermark {
        transcript: transcript.display().to_string(),
        ..Watermark::default()
    };
    let text = match std::fs::read(state) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return fresh,
        Err(e) => {
            note(&format!(
                "{}: cannot read ({e}); reading the session from its start",
                state.display()
            ));
            return fresh;
        }
    };
    match serde_json::from_slice::<Watermark>(&text) {
        Ok(w) if w.transcript == fresh.transcript => w,
        Ok(_) => fresh,
        Err(e) => {
            note(&format!(
                "{}:{}: not a watermark ({}); reading the session from its start",
                state.display(),
                e.line(),
                mem_core::jsonl::describe(&e)
            ));
            fresh
        }
    }
}

struct Run<'a> {
    path: &'a Path,
    purpose: Purpose,
    memory_dir: &'a Path,
    threads: usize,
    every: u64,
}

/// One emitted event, as much of it as capture reads.
#[derive(Debug, Deserialize)]
pub(crate) struct Lite {
    #[serde(default)]
    pub(crate) role: String,
    #[serde(default)]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) tool: Option<String>,
    #[serde(default)]
    pub(crate) input: Option<serde_json::Value>,
    #[serde(default)]
    pub(crate) sidechain: bool,
    #[serde(default)]
    pub(crate) uuid: Option<String>,
    #[serde(default)]
    pub(crate) line: u64,
}

impl Run<'_> {
    /// Read past `wm`, write the events, and return the watermark to save
    /// (`None`: leave it as it is).
    fn step(&self, mut wm: Watermark, out: &mut dyn Write) -> Result<Option<Watermark>, Error> {
        let inp = Input::open(self.path)?;
        if wm.offset > inp.size {
            note(&format!(
                "{}: shorter than the watermark ({} < {} bytes); reading it from its start",
                inp.label, inp.size, wm.offset
            ));
            wm = Watermark {
                transcript: wm.transcript,
                ..Watermark::default()
            };
        }
        let end = complete_end(&inp, wm.offset)?;
        if end <= wm.offset {
            return Ok(None);
        }
        let source = if wm.offset == 0 {
            crate::input::sniff(&inp)?
        } else if wm.extra.get("source").and_then(|s| s.as_str()) == Some("codex") {
            Source::Codex
        } else {
            Source::Claude
        };
        let (buf, lines, seq) = match source {
            Source::Claude => self.claude_tail(&inp, &wm, end)?,
            Source::Codex => codex_tail(self.path, &inp, &wm, end)?,
        };
        let events = split(&buf);
        let mut turns: Vec<Vec<(&[u8], Lite)>> = Vec::new();
        let mut starts = 0u64;
        for (line, ev) in events {
            if ev.sidechain {
                continue;
            }
            if ev.role == "user" && ev.kind == "text" {
                starts += 1;
                turns.push(Vec::new());
            }
            match turns.last_mut() {
                Some(t) => t.push((line, ev)),
                None => turns.push(vec![(line, ev)]),
            }
        }
        if self.every > 1 && starts < self.every {
            note(&format!(
                "{starts} turn(s) since the last capture; capturing every {} ({EVERY_ENV})",
                self.every
            ));
            return Ok(None);
        }
        let dir = self.memory_dir.to_string_lossy();
        let mut kept: Vec<&Vec<(&[u8], Lite)>> = Vec::new();
        let mut skipped = 0u64;
        for t in &turns {
            let wrote = self.purpose != Purpose::Compact
                && t.iter().any(|(_, e)| {
                    e.kind == "tool_use"
                        && mem_core::session::writes_memory(
                            e.tool.as_deref(),
                            e.input.as_ref().and_then(mem_core::session::write_path_of),
                            Some(&dir),
                        )
                });
            if wrote {
                skipped += 1;
            } else {
                kept.push(t);
            }
        }
        let mut write = |l: &[u8]| out.write_all(l).and_then(|()| out.write_all(b"\n"));
        let mut written: std::io::Result<()> = Ok(());
        if self.purpose != Purpose::Compact && !kept.is_empty() {
            for l in &wm.carry {
                written = written.and_then(|()| write(l.as_bytes()));
            }
        }
        for t in &kept {
            for (l, _) in t.iter() {
                written = written.and_then(|()| write(l));
            }
        }
        written
            .and_then(|()| out.flush())
            .map_err(|e| Error::io("<stdout>", e))?;
        let read = end - wm.offset;
        let captured = kept
            .iter()
            .filter(|t| {
                t.first()
                    .is_some_and(|(_, e)| e.role == "user" && e.kind == "text")
            })
            .count() as u64;
        note(&format!(
            "read {read} bytes ({lines} lines) from byte {}: {starts} turn(s), {captured} captured, {skipped} left out (the agent wrote memory)",
            wm.offset,
        ));
        if let Some(u) = turns
            .iter()
            .flatten()
            .rev()
            .find_map(|(_, e)| e.uuid.clone())
        {
            wm.last_uuid = Some(u);
        }
        if self.purpose != Purpose::Compact {
            let carry = carry_of(&kept);
            if !carry.is_empty() {
                wm.carry = carry;
            }
        }
        if source == Source::Codex {
            wm.extra.insert("source".into(), "codex".into());
        }
        wm.offset = end;
        wm.lines += lines;
        wm.seq = seq;
        wm.turns += starts;
        wm.captured += captured;
        wm.skipped += skipped;
        wm.reads += 1;
        wm.bytes_read += read;
        Ok(Some(wm))
    }

    /// The events of the main chain among the lines `[wm.offset, end)`, the
    /// number of those lines and the next `seq`.
    fn claude_tail(
        &self,
        inp: &Input,
        wm: &Watermark,
        end: u64,
    ) -> Result<(Vec<u8>, u64, u64), Error> {
        let (mut ix, _) = claude::index_range(inp, wm.offset, end)?;
        let base = wm.lines as usize;
        for n in &mut ix.nodes {
            n.line += base as u32;
        }
        for w in &mut ix.warnings {
            w.line += base;
        }
        for q in &mut ix.queued {
            q.0 += base;
        }
        if !ix.warnings.is_empty() {
            crate::report_warnings(&ix.warnings, false)?;
        }
        let lines = ix.lines as u64;
        let mut buf = Vec::new();
        let seq = {
            let mut sink = Sink::buffered(&mut buf, false);
            sink.seq = wm.seq;
            if let Some(br) = new_chain(&ix) {
                claude::emit(inp, &ix, &br, false, &mut sink, self.threads)?;
            }
            claude::emit_queued(inp, &ix, &mut sink)?;
            sink.flush().map_err(|e| Error::io("<memory>", e))?;
            sink.seq
        };
        Ok((buf, lines, seq))
    }
}

/// The main chain among the indexed new lines: from the newest main-agent
/// entry back to the first whose parent is not among them (an entry read
/// before, or a root).
fn new_chain(ix: &claude::Index) -> Option<Branch> {
    let leaf = ix
        .default_leaf()
        .filter(|&i| !ix.nodes[i as usize].has(SIDECHAIN))?;
    Some(ix.walk_from(leaf, false, false))
}

/// A Codex rollout read whole: the events of lines past `wm.lines` up to
/// `end`, the number of those lines and the next `seq`.
fn codex_tail(
    path: &Path,
    inp: &Input,
    wm: &Watermark,
    end: u64,
) -> Result<(Vec<u8>, u64, u64), Error> {
    let mut f = &inp.file;
    f.seek(SeekFrom::Start(0))
        .map_err(|e| Error::io(&inp.label, e))?;
    let mut head = Vec::new();
    f.take(end)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(&inp.label, e))?;
    let total = memchr::memchr_iter(b'\n', &head).count() as u64;
    let opts = crate::ReplayOptions {
        from: Some(Source::Codex),
        threads: 1,
        ..Default::default()
    };
    let (all, ws) = crate::replay_to_vec(path, &opts)?;
    if !ws.is_empty() {
        crate::report_warnings(&ws, false)?;
    }
    let mut buf = Vec::new();
    let mut seq = wm.seq;
    for (line, ev) in split(&all) {
        if ev.line > wm.lines && ev.line <= total {
            buf.extend_from_slice(line);
            buf.push(b'\n');
            seq += 1;
        }
    }
    Ok((buf, total - wm.lines, seq))
}

/// The event lines of `buf` with what capture reads of each (lines that do
/// not parse are kept as they are, read as nothing).
pub(crate) fn split(buf: &[u8]) -> Vec<(&[u8], Lite)> {
    buf.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let ev = serde_json::from_slice::<Lite>(l).unwrap_or(Lite {
                role: String::new(),
                kind: String::new(),
                tool: None,
                input: None,
                sidechain: false,
                uuid: None,
                line: 0,
            });
            (l, ev)
        })
        .collect()
}

/// The tool events of the last turn in `kept` that has any, at most
/// [`CARRY_EVENTS`] and [`CARRY_BYTES`] (the newest kept).
fn carry_of(kept: &[&Vec<(&[u8], Lite)>]) -> Vec<String> {
    for t in kept.iter().rev() {
        let tools: Vec<&[u8]> = t
            .iter()
            .filter(|(_, e)| matches!(e.kind.as_str(), "tool_use" | "tool_result"))
            .map(|(l, _)| *l)
            .collect();
        if tools.is_empty() {
            continue;
        }
        let mut out: Vec<String> = Vec::new();
        let mut bytes = 0;
        for l in tools.iter().rev() {
            if out.len() >= CARRY_EVENTS || bytes + l.len() > CARRY_BYTES {
                break;
            }
            bytes += l.len();
            out.push(String::from_utf8_lossy(l).into_owned());
        }
        out.reverse();
        return out;
    }
    Vec::new()
}

/// The end of the last complete line (after its `\n`) at or after `from`;
/// `from` when there is none (a line still being written is left for the
/// next run).
pub(crate) fn complete_end(inp: &Input, from: u64) -> Result<u64, Error> {
    use std::os::unix::fs::FileExt;
    const CHUNK: u64 = 64 * 1024;
    let mut hi = inp.size;
    let mut buf = vec![0u8; CHUNK as usize];
    while hi > from {
        let lo = hi.saturating_sub(CHUNK).max(from);
        let n = (hi - lo) as usize;
        inp.file
            .read_exact_at(&mut buf[..n], lo)
            .map_err(|e| Error::io(&inp.label, e))?;
        if let Some(i) = memchr::memrchr(b'\n', &buf[..n]) {
            return Ok(lo + i as u64 + 1);
        }
        hi = lo;
    }
    Ok(from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carry_keeps_the_newest_tool_events_of_the_last_turn_with_any() {
        let ev = |kind: &str| Lite {
            role: "assistant".into(),
            kind: kind.into(),
            tool: None,
            input: None,
            sidechain: false,
            uuid: None,
            line: 0,
        };
        let a: Vec<(&[u8], Lite)> = vec![
            (b"u1", ev("text")),
            (b"t1", ev("tool_use")),
            (b"r1", ev("tool_result")),
        ];
        let b: Vec<(&[u8], Lite)> = vec![(b"u2", ev("text"))];
        assert_eq!(carry_of(&[&a, &b]), vec!["t1", "r1"]);
        assert!(carry_of(&[&b]).is_empty());
    }

    #[test]
    fn watermark_keeps_unknown_fields() {
        let w: Watermark =
            serde_json::from_str(r#"{"transcript":"t","offset":5,"future":{"x":1}}"#).unwrap();
        assert_eq!(w.offset, 5);
        let back = serde_json::to_value(&w).unwrap();
        assert_eq!(back["future"]["x"], 1);
    }
}
