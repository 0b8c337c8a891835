//! Shared by the transcript targets: one temporary file rewritten per input,
//! the event-stream checks, and the `tree` / `verify` / `stats` reports.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use clap::Parser;
use mem_core::records::Event;
use mem_transcript::input::Input;
use mem_transcript::{Cli, FilesArgs, FromArg, Global, VerifyArgs, report};

/// A private directory holding one transcript file, reused for every input.
pub struct Scratch {
    _dir: tempfile::TempDir,
    /// The transcript's path.
    pub path: PathBuf,
    /// Where `verify --repair` writes.
    pub repaired: PathBuf,
    file: File,
}

impl Scratch {
    /// A scratch directory (under `$TMPDIR`, which dev/fuzz.sh points
    /// at a directory in memory it removes afterwards: `verify --repair`
    /// syncs what it writes, and a static is never dropped) with the
    /// transcript named `name`.
    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(name);
        let repaired = dir.path().join("repaired.out");
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .expect("scratch file");
        Scratch {
            _dir: dir,
            path,
            repaired,
            file,
        }
    }

    /// Replace the file's content with `data` and open it as an [`Input`].
    pub fn input(&mut self, data: &[u8]) -> Input {
        self.file.set_len(0).expect("truncate");
        self.file.seek(SeekFrom::Start(0)).expect("seek");
        self.file.write_all(data).expect("write");
        Input {
            file: self.file.try_clone().expect("dup"),
            label: self.path.display().to_string(),
            size: data.len() as u64,
        }
    }
}

/// Check a jsonl event stream: every line is one [`Event`] (the record
/// `replay` promises), `seq` counts from 0, `source` is `source`. Returns
/// the number of events.
pub fn check_events(out: &[u8], source: &str) -> u64 {
    let mut n = 0u64;
    if out.is_empty() {
        return 0;
    }
    assert!(out.ends_with(b"\n"), "event stream not newline-terminated");
    for line in out[..out.len() - 1].split(|&b| b == b'\n') {
        let ev: Event = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "event line is not an Event ({e}): {}",
                String::from_utf8_lossy(line)
            )
        });
        assert_eq!(ev.seq, n, "seq out of order");
        assert_eq!(ev.source, source);
        n += 1;
    }
    n
}

/// The global options at their defaults (parsed, so new options keep theirs).
fn global() -> Global {
    Cli::try_parse_from(["mem-transcript", "stats", "x"])
        .expect("default options")
        .global
}

/// `tree`, `stats` and `verify` (then `--repair` and `verify` of the
/// repaired copy), in jsonl or text (`text`). Errors are fine; panics are not.
pub fn reports(path: &Path, repaired: &Path, from: FromArg, text: bool) {
    static G: std::sync::OnceLock<Global> = std::sync::OnceLock::new();
    let g = G.get_or_init(global);
    let files = |p: &Path| FilesArgs {
        files: vec![p.to_path_buf()],
        from,
    };
    let mut out = Vec::new();
    let _ = report::tree(&files(path), g, text, &mut out);
    out.clear();
    let _ = report::stats(&files(path), g, text, &mut out);
    out.clear();
    let _ = std::fs::remove_file(repaired);
    let r = report::verify(
        &VerifyArgs {
            files: files(path),
            repair: Some(repaired.to_path_buf()),
        },
        g,
        text,
        &mut out,
    );
    if r.is_ok() && repaired.exists() {
        out.clear();
        let _ = report::verify(
            &VerifyArgs {
                files: files(repaired),
                repair: None,
            },
            g,
            text,
            &mut out,
        );
    }
}
