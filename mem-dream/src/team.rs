//! `mem-dream --tier team`: the consolidation plan of the repository's team
//! tier (`<checkout root>/.claude/team-memory/` ([`mem_core::memdir::checkout_root`])), for review. It writes
//! nothing, anywhere: no topic file, no `MEMORY.md`, no lock, no journal, no
//! recovery. The person applies the plan and commits it
//! (docs/team-memory.md "Consolidation"):
//!
//! ```text
//! mem-dream --tier team --diff > team.diff   # review it
//! git apply team.diff && git add .claude/team-memory && git commit
//! ```
//!
//! The plan is the one [`consolidate::plan`] makes (merge duplicates,
//! supersede contradictions, absolutize relative dates, redact, retire what
//! expired, rebuild the index) over the team tier's own memories only: no
//! session or daily log is gathered (they are one person's), and no gate
//! applies. Diff paths are relative to the repository root (`a/.claude/team-memory/…`),
//! so `git apply` takes the diff from the root.

use std::path::Path;

use mem_core::cli::{Format, Output, warn};
use mem_core::memdir;
use mem_core::records::PlanOp;
use mem_core::scrub::Scrubber;
use mem_core::store;
use mem_core::time::Clock;
use mem_core::{Error, Exit};

use crate::consolidate::{self, Change};
use crate::error::{DreamError, Result};
use crate::{Cli, NAME, apply};

/// What a team-tier run says on stderr about applying the plan.
pub const APPLY_NOTE: &str = "the team tier is only planned, never written by mem-dream: save the plan with `mem-dream --tier team --diff > team.diff`, apply it from the repository root with `git apply team.diff`, review and commit";

/// Plan the consolidation of the team tier of the project at the cwd and
/// print it (ops, or `--diff`); write nothing.
///
/// Errors: inside a hook's agent ([`memdir::hook_guarded`]), `undo` (there is nothing mem-dream wrote to undo), `--transcripts`
/// (sessions are never gathered into the team tier), a team folder behind a
/// link, or an unreadable team folder or index ([`DreamError`], exit 1).
pub fn run(cli: &Cli, clock: &Clock, format: Format, out: &mut Output) -> Result<Exit> {
    if memdir::hook_guarded() {
        return Err(DreamError::TeamFromHook);
    }
    if cli.command.is_some() {
        return Err(DreamError::TeamUndo);
    }
    if !cli.run.transcripts.is_empty() {
        return Err(DreamError::TeamTranscripts);
    }
    let place = &cli.global.args.place;
    let cwd = match &place.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().map_err(|e| Error::io(".", e))?,
    };
    let root = memdir::checkout_root(&cwd);
    let dir = memdir::team_dir(&root);
    if place.named_memory_dir().is_some() {
        warn(
            NAME,
            format!(
                "--tier team plans {} (the memory directory option is for the personal tier)",
                dir.display()
            ),
        );
    }
    if !dir.is_dir() {
        eprintln!("{NAME}: nothing to plan: {} does not exist", dir.display());
        return Ok(Exit::Success);
    }
    // A clone may carry a link: only a folder below the root is read.
    mem_core::confine::check_below(&root, &dir)?;
    let c = plan(&dir, &root, clock, &cli.run)?;
    crate::print_plan(
        out,
        format,
        &c,
        cli.run.diff.then_some(diff as fn(&Change) -> String),
        cli.global.explain,
    )?;
    eprintln!(
        "{NAME}: team tier {}: {} op(s), {} file change(s) planned, nothing written",
        dir.display(),
        c.ops.len(),
        c.changes.len()
    );
    if !cli.run.dry_run && !c.changes.is_empty() {
        eprintln!("{NAME}: {APPLY_NOTE}");
    }
    Ok(Exit::Success)
}

/// The unified diff of one change of the team tier, as `git apply` takes it
/// from the repository root: paths `a/.claude/team-memory/…`, and the
/// `# reason: …` line before the file's header instead of before each
/// hunk (`git apply` reads text before a header as commentary).
pub fn diff(change: &Change) -> String {
    let rooted = Change {
        rel: format!("{}/{}", memdir::TEAM_DIR, change.rel),
        before: change.before.clone(),
        after: change.after.clone(),
        reasons: change.reasons.clone(),
    };
    let mut out = format!("# reason: {}\n", change.reasons.join("; "));
    for l in apply::diff(&rooted).split_inclusive('\n') {
        if !l.starts_with("# reason: ") {
            out.push_str(l);
        }
    }
    out
}

/// The consolidation plan of the team folder `dir` (read only).
///
/// Errors: an unreadable folder, topic file or index.
pub fn plan(
    dir: &Path,
    root: &Path,
    clock: &Clock,
    a: &crate::RunArgs,
) -> Result<consolidate::Plan> {
    let st = crate::orient(dir, |_| None)?;
    let scrubber = Scrubber::new(Some(root));
    let mut p = consolidate::plan(
        dir,
        st.items,
        st.broken,
        st.old_index.as_deref(),
        &scrubber,
        &crate::plan_options(a, clock.today, &st.bad_names),
    );
    team_index(dir, &mut p)?;
    Ok(p)
}

/// Replace the plan's `MEMORY.md` with the team tier's derived index
/// ([`mem_index::team::render_index`]: a function of the topic files alone,
/// what `mem-index reindex --tier team` and the merge driver write) of the
/// topic files as the plan leaves them, and the `index` op's counts with
/// its.
///
/// Errors: the folder cannot be read again; a planned topic file does not
/// parse (a bug of the plan).
fn team_index(dir: &Path, p: &mut consolidate::Plan) -> Result<()> {
    let mut st = store::load(dir)?;
    for c in &p.changes {
        let Some(id) = c.rel.strip_suffix(".md") else {
            continue;
        };
        if c.rel.contains('/') || c.rel == store::INDEX_FILE {
            continue;
        }
        st.topics.retain(|t| t.id != id);
        if let Some(bytes) = &c.after {
            let text = String::from_utf8_lossy(bytes);
            let mut memory = mem_core::frontmatter::parse(&c.rel, &text)?;
            memory.id = Some(id.to_string());
            st.topics.push(store::Topic {
                id: id.to_string(),
                path: dir.join(&c.rel),
                mtime: std::time::SystemTime::UNIX_EPOCH,
                size: bytes.len() as u64,
                hash: store::hash_bytes(bytes),
                memory,
            });
        }
    }
    st.topics.sort_by(|a, b| a.id.cmp(&b.id));
    let r = mem_index::team::render_index(&st);
    let path = dir.join(store::INDEX_FILE);
    let before = match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(&path, e).into()),
    };
    p.changes.retain(|c| c.rel != store::INDEX_FILE);
    if before.as_deref() != Some(r.text.as_bytes()) && (before.is_some() || !r.text.is_empty()) {
        let mut reasons = vec![format!(
            "rebuild the team index: {} lines, {} bytes",
            r.lines, r.bytes
        )];
        reasons.extend(r.warning.clone());
        p.changes.push(Change {
            rel: store::INDEX_FILE.to_string(),
            before,
            after: Some(r.text.into_bytes()),
            reasons,
        });
        p.changes.sort_by(|a, b| a.rel.cmp(&b.rel));
    }
    for o in p.ops.iter_mut() {
        if let PlanOp::Index {
            lines,
            bytes,
            files,
            ..
        } = o
        {
            (*lines, *bytes) = (r.lines, r.bytes);
            *files = st.topics.len() + st.broken.len();
        }
    }
    Ok(())
}
