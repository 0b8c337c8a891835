//! Running a parsed `mem-transcript` command line: one function per
//! subcommand, `replay` here.

use std::io::Write;

use clap::Parser;
use mem_core::{Error, Exit};

use crate::event::Sink;
use crate::replay::{Notice, ReplayOptions, replay_file};
use crate::{
    Cli, Cmd, Global, ReplayArgs, TranscriptError, append, capture, entries, eprint_line, input,
    ls, note, project, report, report_warnings,
};

/// Run the tool with parsed arguments, writing to `out`.
///
/// Errors: [`TranscriptError`] (exit 1), I/O on the output.
pub fn run_cli(cli: Cli, out: &mut dyn Write) -> Result<Exit, TranscriptError> {
    let text = cli.global.output.format() == mem_core::cli::Format::Text;
    let g = &cli.global;
    let code = match cli.cmd {
        Cmd::Replay(a) => replay(&a, g, text, out)?,
        Cmd::Tree(a) => report::tree(&a, g, text, out)?,
        Cmd::Verify(a) => report::verify(&a, g, text, out)?,
        Cmd::Stats(a) => report::stats(&a, g, text, out)?,
        Cmd::Ls(a) => ls::ls(&a, g, text, out)?,
        Cmd::Locate(a) => ls::locate(&a, g, text, out)?,
        Cmd::Files(a) => entries::files(&a, g, text, out)?,
        Cmd::Append(a) => append::append(&a.file, std::io::stdin().lock(), out, text)?,
    };
    out.flush().map_err(|e| Error::io("<stdout>", e))?;
    Ok(code)
}

/// The binary's entry: parse `std::env::args`, run, write to stdout.
pub fn run() -> Result<Exit, TranscriptError> {
    let cli = Cli::parse();
    let mut out = cli.global.output.stdout();
    run_cli(cli, &mut out)
}

fn replay(a: &ReplayArgs, g: &Global, text: bool, out: &mut dyn Write) -> Result<Exit, Error> {
    if a.hook {
        if mem_core::memdir::hook_guarded() {
            // mem's own model command's agent: no write path inside it
            return Ok(Exit::Success);
        }
        // A hook never fails the agent's turn: what went wrong goes to
        // stderr, nothing was captured, the watermark did not move.
        let r = input::read_small(std::io::stdin().lock(), "<stdin>")
            .and_then(|stdin| capture::run_hook(&stdin, out, g.threads()));
        if let Err(e) = r {
            note(&format!("capture: {e} (nothing captured)"));
        }
        return Ok(Exit::Success);
    }
    // Events collect in large pieces unless every line must show at once.
    let mut sink = if g.output.line_buffered || std::io::IsTerminal::is_terminal(&std::io::stdout())
    {
        Sink::new(out, text)
    } else {
        Sink::buffered(out, text)
    };
    let opts = ReplayOptions {
        from: a.from.source(),
        resume: a.resume,
        leaf: a.leaf.clone(),
        raw: a.raw,
        threads: g.threads(),
    };
    if let Some(dir) = &a.project {
        return project::replay_project(dir, a, g, &opts, &mut sink);
    }
    for f in &a.files {
        replay_file(f, &opts, &mut sink, &mut |n| match n {
            Notice::Warnings(ws) => report_warnings(ws, g.strict),
            Notice::LeafIgnored(_) => {
                eprint_line(&n.to_string());
                Ok(())
            }
            other => {
                note(&other.to_string());
                Ok(())
            }
        })?;
    }
    sink.flush().map_err(|e| Error::io("<stdout>", e))?;
    Ok(Exit::Success)
}
