//! The shell commands a session ran, read incrementally: what `mem-hook`'s
//! `PreToolUse` lessons check a precondition against (docs/hooks.md
//! "Lessons at the moment of action").
//!
//! The lines are read with `replay`'s readers (a Claude Code line with its
//! entry model, [`crate::claude::Entry`]; a Codex rollout through the
//! rollout reader, whose calls become `tool_use` events), and the commands
//! are taken from the main agent's tool calls:
//! their input's `command` (a string, or an argument list whose script after
//! `-lc`/`-c` is the command, else its words joined by one space) or `cmd`.
//! That is Claude Code's `Bash` `input.command` and the `arguments` of
//! Codex's `shell`, `shell_command`, `exec_command` and `local_shell` calls.

use std::os::unix::fs::FileExt;
use std::path::Path;

use mem_core::Error;
use serde_json::Value;

use crate::capture::{complete_end, split};
use mem_core::jsonl::{parse_lossy, sanitize};

use crate::claude::{Content, Entry};
use crate::input::{Input, Source};

/// The shell commands of the main agent's tool calls in the complete lines
/// of the transcript at `path` (Claude Code JSONL or a Codex rollout) from
/// byte `offset` on, oldest first, and the byte offset after the last
/// complete line read (where the next call starts; `offset` itself when no
/// line was completed since).
///
/// At most the last `max_read` bytes are read: when `offset` lies further
/// back, reading starts at the first line that begins in them. A file
/// shorter than `offset` (rewritten) is read from its start. A line still
/// being written (no final newline) is left for the next call. Side-chain
/// (sub-agent) calls are left out; lines that do not parse are passed over
/// without a warning. Claude Code entries of every main-agent branch count
/// (a rewound branch's commands did run). A Codex rollout is read whole
/// each time (its calls' names span it), its events before `offset`
/// dropped.
///
/// Errors: the transcript cannot be opened or read (a missing file, a
/// directory, an I/O error).
pub fn commands_since(
    path: &Path,
    offset: u64,
    max_read: u64,
) -> Result<(Vec<String>, u64), Error> {
    let inp = open_regular(path)?;
    let offset = if offset > inp.size { 0 } else { offset };
    let end = complete_end(&inp, offset)?;
    let floor = inp.size.saturating_sub(max_read);
    let start = if offset >= floor {
        offset
    } else {
        line_start_at(&inp, floor, end)?
    };
    if end <= start {
        return Ok((Vec::new(), end.max(offset)));
    }
    let cmds = match crate::input::sniff(&inp)? {
        Source::Claude => claude_commands(&inp, start, end)?,
        Source::Codex => split(&codex_events(path, &inp, start, end)?)
            .into_iter()
            .filter(|(_, e)| e.kind == "tool_use" && !e.sidechain)
            .filter_map(|(_, e)| e.input.as_ref().and_then(command_of))
            .collect(),
    };
    Ok((cmds, end))
}

/// The transcript at `path` as an [`Input`], only when it is a regular file
/// (a compressed one through [`Input::open`]): a FIFO or a device named as
/// the transcript is refused at once, never waited on.
///
/// Errors: [`Error::Io`] naming the path (not found, not a regular file).
fn open_regular(path: &Path) -> Result<Input, Error> {
    if path.extension().is_some_and(|e| e == "zst") {
        return Input::open(path);
    }
    let file = mem_core::confine::open_regular(path, true)?;
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    Ok(Input {
        file,
        label: path.display().to_string(),
        size,
    })
}

/// The shell command a tool call's input carries (see module docs).
fn command_of(input: &Value) -> Option<String> {
    match (input.get("command"), input.get("cmd")) {
        (Some(Value::Array(a)), _) => {
            let w: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
            Some(match w.as_slice() {
                [_, flag, script, ..] if matches!(*flag, "-lc" | "-c") => (*script).to_string(),
                _ => w.join(" "),
            })
        }
        (Some(Value::String(s)), _) | (_, Some(Value::String(s))) => Some(s.clone()),
        _ => None,
    }
}

/// The start of the first line that begins at or after `at` (`end` when
/// none does before it).
fn line_start_at(inp: &Input, at: u64, end: u64) -> Result<u64, Error> {
    if at == 0 {
        return Ok(0);
    }
    let mut pos = at - 1;
    let mut buf = vec![0u8; 64 * 1024];
    while pos < end {
        let n = (end - pos).min(buf.len() as u64) as usize;
        inp.file
            .read_exact_at(&mut buf[..n], pos)
            .map_err(|e| Error::io(&inp.label, e))?;
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
    Ok(end)
}

/// The commands of the main agent's `tool_use` blocks among the Claude Code
/// lines `[start, end)`, in file order: each line is read with replay's
/// entry model ([`claude::Entry`]), lines without a `"tool_use"` token
/// passed over unparsed (no entry holds a tool call without one).
fn claude_commands(inp: &Input, start: u64, end: u64) -> Result<Vec<String>, Error> {
    static TOOL_USE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"tool_use\""));
    let mut out = Vec::new();
    let mut rd = inp.lines_in(start, end);
    while let Some(line) = rd.next_line().map_err(|e| Error::io(&inp.label, e))? {
        if TOOL_USE.find(line.bytes).is_none() {
            continue;
        }
        let clean = sanitize(line.bytes);
        let mut copy = None;
        let Ok((entry, _, _)) = parse_lossy(&clean, &mut copy, serde_json::from_slice::<Entry>)
        else {
            continue;
        };
        if entry.ty.as_deref() != Some("assistant") || entry.sidechain == Some(true) {
            continue;
        }
        let Some(Content::Blocks(blocks)) = entry.message.and_then(|m| m.content) else {
            continue;
        };
        for b in blocks {
            if b.ty.as_deref() != Some("tool_use") {
                continue;
            }
            if let Some(c) = b
                .input
                .and_then(|raw| serde_json::from_str::<Value>(raw).ok())
                .as_ref()
                .and_then(command_of)
            {
                out.push(c);
            }
        }
    }
    Ok(out)
}

/// The events (JSON lines) of the Codex rollout lines `[start, end)`: the
/// rollout is read whole (its calls' names and outcomes span it), the
/// events of other lines dropped.
fn codex_events(path: &Path, inp: &Input, start: u64, end: u64) -> Result<Vec<u8>, Error> {
    let mut head = vec![0u8; end as usize];
    inp.file
        .read_exact_at(&mut head, 0)
        .map_err(|e| Error::io(&inp.label, e))?;
    let before = memchr::memchr_iter(b'\n', &head[..start as usize]).count() as u64;
    let upto = before + memchr::memchr_iter(b'\n', &head[start as usize..]).count() as u64;
    let opts = crate::ReplayOptions {
        from: Some(Source::Codex),
        threads: 1,
        ..Default::default()
    };
    let (all, _) = crate::replay_to_vec(path, &opts)?;
    let mut buf = Vec::new();
    for (line, ev) in split(&all) {
        if ev.line > before && ev.line <= upto {
            buf.extend_from_slice(line);
            buf.push(b'\n');
        }
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: &str = concat!(
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"build it"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm run build \"x\"","description":"d"}}]}}"#,
        "\n",
        r#"{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"x1","parentUuid":"r1","isSidechain":true,"sessionId":"s","timestamp":"2026-01-01T00:00:03Z","message":{"role":"assistant","id":"m2","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"rm -rf side"}}]}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a2","parentUuid":"r1","sessionId":"s","timestamp":"2026-01-01T00:00:04Z","message":{"role":"assistant","id":"m3","content":[{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"npm test"}}]}}"#,
        "\n",
    );

    const CODEX: &str = concat!(
        r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s","cwd":"/p"}}"#,
        "\n",
        r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"format it"}]}}"#,
        "\n",
        r#"{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c1","arguments":"{\"command\":[\"bash\",\"-lc\",\"cargo fmt --all\"],\"workdir\":\"/p\"}"}}"#,
        "\n",
        r#"{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#,
        "\n",
        r#"{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","call_id":"c2","arguments":"{\"cmd\":\"make lint\"}"}}"#,
        "\n",
    );

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Read `text` in one step, then in two (split after line `cut`, the
    /// rest written later), and check both give `want`.
    fn check(name: &str, text: &str, cut: usize, want: &[&str]) {
        let t = tempfile::tempdir().unwrap();
        let whole = write(t.path(), name, text);
        let (cmds, end) = commands_since(&whole, 0, u64::MAX).unwrap();
        assert_eq!(cmds, want, "{name}: one step");
        assert_eq!(end, text.len() as u64);
        assert_eq!(
            commands_since(&whole, end, u64::MAX).unwrap(),
            (vec![], end)
        );

        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let first = lines[..cut].concat();
        // the first part with half of the next line: that line waits
        let torn = format!("{first}{}", &lines[cut][..10]);
        let d = t.path().join("two");
        std::fs::create_dir_all(&d).unwrap();
        let p = write(&d, name, &torn);
        let (mut got, mid) = commands_since(&p, 0, u64::MAX).unwrap();
        assert_eq!(mid, first.len() as u64, "{name}: a torn line is left");
        write(&d, name, text);
        let (rest, end2) = commands_since(&p, mid, u64::MAX).unwrap();
        got.extend(rest);
        assert_eq!(got, want, "{name}: two steps");
        assert_eq!(end2, end);
    }

    #[test]
    fn claude_code_bash_commands_of_the_main_agent() {
        check("s.jsonl", CLAUDE, 2, &["npm run build \"x\"", "npm test"]);
    }

    #[test]
    fn spaced_json_is_read_and_a_command_that_is_no_string_passed_over() {
        let t = tempfile::tempdir().unwrap();
        let p = write(
            t.path(),
            "s.jsonl",
            concat!(
                r#"{"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls -la"}}]}}"#,
                "\n",
                r#"{"type": "assistant", "uuid": "a2", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": 1}}]}}"#,
                "\n",
            ),
        );
        assert_eq!(commands_since(&p, 0, u64::MAX).unwrap().0, ["ls -la"]);
    }

    #[test]
    fn codex_function_call_commands() {
        check(
            "rollout-2026-01-01.jsonl",
            CODEX,
            3,
            &["cargo fmt --all", "make lint"],
        );
    }

    #[test]
    fn a_long_backlog_is_read_from_its_last_bytes_and_a_shorter_file_from_its_start() {
        let t = tempfile::tempdir().unwrap();
        let p = write(t.path(), "s.jsonl", CLAUDE);
        let last = CLAUDE.trim_end().rsplit('\n').next().unwrap().len() as u64 + 1;
        // the last line and a few bytes of the one before: that one is left
        let (cmds, end) = commands_since(&p, 0, last + 5).unwrap();
        assert_eq!(cmds, ["npm test"]);
        assert_eq!(end, CLAUDE.len() as u64);
        let (cmds, _) = commands_since(&p, 1 << 40, u64::MAX).unwrap();
        assert_eq!(cmds.len(), 2);
        assert!(commands_since(&t.path().join("missing.jsonl"), 0, u64::MAX).is_err());
    }

    /// A FIFO named as the transcript is refused at once, never waited on
    /// (no writer ever comes here).
    #[test]
    fn a_fifo_is_refused_without_waiting() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("s.jsonl");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let start = std::time::Instant::now();
        let err = commands_since(&fifo, 0, u64::MAX).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
}
