//! `append FILE`: add entries to a transcript the way an agent does, safely.
//!
//! All entries from stdin are validated first (each a JSON object with a
//! string `type`; a batch whose last line has no `\n` is refused); nothing
//! is written when one is bad. The file is opened in append mode and locked
//! (`File::lock`, advisory, exclusive; waits for other writers). When the
//! file's last byte is not `\n` (a torn tail), a `\n` is written first so the
//! new entry starts on its own line. Each entry is a single `write`.

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use mem_core::jsonl::read_records;
use mem_core::{Error, Exit};
use serde_json::Value;

/// Validate entries from `input` and append them to `path`.
///
/// Errors: [`Error::Input`] for each bad line (first reported in the error,
/// all on stderr), [`Error::Io`] on the file.
pub fn append(
    path: &Path,
    input: impl Read,
    out: &mut dyn Write,
    text: bool,
) -> Result<Exit, Error> {
    let (ok, errs) = read_records::<Value>(input, "<stdin>");
    let mut bad: Vec<Error> = errs;
    let mut lines: Vec<Vec<u8>> = Vec::with_capacity(ok.len());
    for (no, v) in &ok {
        match v {
            Value::Object(o) if o.get("type").is_some_and(Value::is_string) => {
                let mut b = serde_json::to_vec(v).map_err(|e| Error::io(path, e.into()))?;
                b.push(b'\n');
                lines.push(b);
            }
            Value::Object(_) => {
                bad.push(Error::input("<stdin>", *no, "entry has no string \"type\""))
            }
            _ => bad.push(Error::input("<stdin>", *no, "entry is not a JSON object")),
        }
    }
    if let Some(first) = bad.first() {
        for e in &bad[1..] {
            eprintln!("mem-transcript: {e}");
        }
        return Err(Error::input(
            "<stdin>",
            match first {
                Error::Input { line, .. } => *line,
                _ => 0,
            },
            format!(
                "{} ({} bad entr{}; nothing appended to {})",
                match first {
                    Error::Input { reason, .. } => reason.clone(),
                    e => e.to_string(),
                },
                bad.len(),
                if bad.len() == 1 { "y" } else { "ies" },
                path.display()
            ),
        ));
    }
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(crate::input::is_a_directory(path));
    }
    let file = OpenOptions::new()
        .append(true)
        .read(true)
        .create(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.lock().map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut fresh_line = false;
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1)
            .map_err(|e| Error::io(path, e))?;
        if last[0] != b'\n' {
            write_once(&file, b"\n").map_err(|e| Error::io(path, e))?;
            fresh_line = true;
        }
    }
    for l in &lines {
        write_once(&file, l).map_err(|e| Error::io(path, e))?;
    }
    file.unlock().map_err(|e| Error::io(path, e))?;
    if fresh_line {
        eprintln!(
            "{}: last line had no newline (torn); it was ended before appending",
            path.display()
        );
    }
    if text {
        writeln!(
            out,
            "appended {} entr{} to {}",
            lines.len(),
            if lines.len() == 1 { "y" } else { "ies" },
            path.display()
        )
        .map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(Exit::Success)
}

/// One `write` of the whole buffer (O_APPEND makes it land at the end);
/// a short write (rare: disk full, signal) is finished by further writes.
fn write_once(mut f: &std::fs::File, b: &[u8]) -> std::io::Result<()> {
    let n = f.write(b)?;
    if n < b.len() {
        f.write_all(&b[n..])?;
    }
    Ok(())
}
