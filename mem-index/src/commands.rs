//! One function per subcommand of the `mem-index` binary. Each prints its
//! records ([`mem_core::records::IndexOp`], [`Memory`], [`Finding`], …; or a
//! text line per record on a terminal) and returns the exit code of a run
//! that did not fail.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Serialize;

use mem_core::cli::{Format, Output, warn};
use mem_core::error::{Error, Exit};
use mem_core::memdir::{self, AgentScope};
use mem_core::records::{
    Finding, FindingCode, IndexOp, Level, Memory, PathExplain, PathInfo, TierMove,
};
use mem_core::store;
use mem_core::time::Clock;

use crate::error::{IndexError, Result};
use crate::{
    Global, ListArgs, NAME, SnapshotCmd, Strategy, TierArg, WriteArgs, check, daily_log,
    index_file, kind_of, list_table, memdir_opts, merge, nearest_ids, resolve_dir,
    resolve_reader_dir, retire, snapshot, team, type_of, write, write_summary,
};

/// `write`: memory records (JSONL) into topic files, then `MEMORY.md`.
/// Exit 1 when a record was refused (every one reported on stderr).
pub fn write_cmd(global: &Global, args: &WriteArgs, today: NaiveDate, fmt: Format) -> Result<Exit> {
    if let Some(why) = memory_off(global)? {
        return Ok(disabled_note(&why));
    }
    let (batch, errs, label) = read_input::<Memory>(&args.files);
    let dir = resolve_dir(global)?;
    if batch.is_empty() && errs.is_empty() && !dir.exists() {
        // Nothing to write and no directory: nothing is created, not even
        // the lock. (In an existing directory the run still recovers an
        // interrupted batch.)
        eprintln!("{NAME}: no records; nothing written");
        return Ok(Exit::Success);
    }
    let opts = write::WriteOptions {
        skip_invalid: args.skip_invalid,
        allow_sensitive: args.allow_sensitive,
        if_match: args.if_match.clone(),
        max_files: args.max_files,
        evict: args.evict,
        include_foreign: args.include_foreign,
        today,
    };
    if errs
        .iter()
        .any(|e| matches!(e, IndexError::Core(Error::Io { .. })))
        || (!errs.is_empty() && !args.skip_invalid)
    {
        return Ok(refuse_batch(&errs));
    }
    // Records refused on their own are found before anything is touched
    // (not even the lock file is created).
    if !args.skip_invalid {
        let scrubber = (!args.allow_sensitive).then(|| mem_core::scrub::Scrubber::new(None));
        let bad: Vec<IndexError> = batch
            .iter()
            .filter_map(|(line, m)| {
                write::validate_record(m, scrubber.as_ref())
                    .err()
                    .map(|r| IndexError::input(&label, *line, r))
            })
            .collect();
        if !bad.is_empty() {
            return Ok(refuse_batch(&bad));
        }
    }
    // Assistant (daily-log) mode: the candidates go to the daily log;
    // edits of a listed memory (`hash`, `--if-match`) still name their file.
    let cwd = global
        .args
        .place
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok());
    let (batch, errs) = match memdir::assistant_mode(cwd.as_deref())? {
        Some(why) if args.if_match.is_none() => {
            let (edits, candidates): (Vec<_>, Vec<_>) =
                batch.into_iter().partition(|(_, m)| is_edit(m));
            let code = write_logs(
                global, &dir, candidates, &errs, args, &label, today, fmt, &why,
            )?;
            if edits.is_empty() || code != Exit::Success {
                return Ok(code);
            }
            (edits, Vec::new())
        }
        _ => (batch, errs),
    };
    let lock = store::lock_index(&dir)?;
    recover(&lock, &dir, today)?;
    let rep = write::write_batch(&lock, &dir, batch, &label, errs, &opts)?;
    drop(lock);
    for w in &rep.warnings {
        warn(NAME, w);
    }
    for e in &rep.errors {
        eprintln!("{NAME}: {e}");
    }
    let mut out = Output::stdout(global.args.output.line_buffered);
    for r in &rep.evicted {
        if let IndexOp::Retire { id, path, reason } = r {
            warn(NAME, format!("{id} retired to {path} ({reason})"));
        }
    }
    for r in &rep.results {
        let dup = match r {
            IndexOp::Duplicate { duplicate_of, .. } => format!(" (same fact as {duplicate_of})"),
            _ => String::new(),
        };
        let text = format!(
            "{:<9} {} {}{dup}",
            r.op(),
            r.id().unwrap_or_default(),
            r.path().unwrap_or_default()
        );
        emit(&mut out, fmt, r, &text)?;
    }
    out.flush()?;
    if let Some(idx) = &rep.index {
        report_index(idx);
        eprintln!("{NAME}: {}", write_summary(&rep.results, &dir));
    }
    if !rep.errors.is_empty() {
        if rep.index.is_none() {
            eprintln!(
                "{NAME}: batch refused: {} bad record(s); nothing written",
                rep.errors.len()
            );
        }
        return Ok(Exit::Failure);
    }
    Ok(Exit::Success)
}

/// True when a record edits a memory as `list` or `show` printed it (it
/// carries that version's `hash`).
fn is_edit(m: &Memory) -> bool {
    m.hash.is_some() || m.extra.contains_key("hash")
}

/// `write` in assistant mode (`why` says what turned it on): append the
/// candidates to their daily logs as `log` does, leaving out those already
/// in their day's log; say on stderr where they went. `errs` are the
/// batch's input errors (reported; with `--skip-invalid` the valid records
/// are still appended, and the run fails).
#[allow(clippy::too_many_arguments)]
fn write_logs(
    global: &Global,
    dir: &Path,
    batch: Vec<(usize, Memory)>,
    errs: &[IndexError],
    args: &WriteArgs,
    label: &str,
    today: NaiveDate,
    fmt: Format,
    why: &str,
) -> Result<Exit> {
    let scrubber = (!args.allow_sensitive).then(|| mem_core::scrub::Scrubber::new(None));
    let mut refused: Vec<IndexError> = Vec::new();
    let mut recs = Vec::new();
    for (line, m) in batch {
        match write::validate_record(&m, scrubber.as_ref()) {
            Ok(_) => recs.push(m),
            Err(r) => refused.push(IndexError::input(label, line, r)),
        }
    }
    for e in errs.iter().chain(&refused) {
        eprintln!("{NAME}: {e}");
    }
    let failed = !errs.is_empty() || !refused.is_empty();
    if recs.is_empty() {
        eprintln!("{NAME}: assistant mode ({why}): no records; nothing appended");
        return Ok(if failed { Exit::Failure } else { Exit::Success });
    }
    let lock = store::lock_index(dir)?;
    let (done, present) = daily_log::append_new_logs(&lock, dir, &recs, today)?;
    drop(lock);
    let mut out = Output::stdout(global.args.output.line_buffered);
    for (id, p) in &done {
        let text = format!("log {id} → {}", p.display());
        let rec = IndexOp::Log {
            id: id.clone(),
            path: p.display().to_string(),
        };
        emit(&mut out, fmt, &rec, &text)?;
    }
    out.flush()?;
    let mut files: Vec<&PathBuf> = done.iter().chain(&present).map(|(_, p)| p).collect();
    files.sort();
    files.dedup();
    let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    eprintln!(
        "{NAME}: assistant mode ({why}): write: {} appended to the daily log {}{}; no topic file written (`mem-dream` distils the logs into topic files)",
        done.len(),
        files.join(", "),
        if present.is_empty() {
            String::new()
        } else {
            format!(", {} already there", present.len())
        }
    );
    Ok(if failed { Exit::Failure } else { Exit::Success })
}

/// `list`: the memories on disk as records (provenance as read: absent is
/// `manual` / `normal`), or a table.
pub fn list_cmd(global: &Global, args: &ListArgs, today: NaiveDate, fmt: Format) -> Result<Exit> {
    let dir = tier_reader_dir(global)?;
    let since = match &args.since {
        Some(s) => {
            Some(mem_core::time::parse_day(s).ok_or_else(|| IndexError::BadSince(s.clone()))?)
        }
        None => None,
    };
    let st = store::load(&dir)?;
    for w in index_file::store_warnings(&st) {
        warn(NAME, w);
    }
    let mut out = Output::stdout(global.args.output.line_buffered);
    let rows: Vec<&Memory> = st
        .topics
        .iter()
        .map(|t| &t.memory)
        .filter(|m| args.mem_type.is_none_or(|t| m.mem_type == type_of(t)))
        .filter(|m| args.kind.is_none_or(|k| m.effective_kind() == kind_of(k)))
        .filter(|m| !args.expired || m.is_expired(today))
        .filter(|m| since.is_none_or(|s| m.verified_at.is_some_and(|v| v >= s)))
        .collect();
    match fmt {
        Format::Jsonl => {
            for m in rows {
                let mut m = m.clone();
                m.source = Some(m.effective_source());
                m.trust = Some(m.effective_trust());
                crate::with_links(&mut m);
                out.record(&m)?;
            }
        }
        Format::Text => {
            for line in list_table(&rows) {
                out.line(&line)?;
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `show ID`: the memory as a record, or its topic file as written.
pub fn show_cmd(global: &Global, id: &str, fmt: Format) -> Result<Exit> {
    let dir = tier_reader_dir(global)?;
    let Some(t) = store::read_one(&dir, id)? else {
        return Err(no_such_memory(&dir, id));
    };
    let mut out = Output::stdout(global.args.output.line_buffered);
    match fmt {
        Format::Jsonl => {
            let mut m = t.memory.clone();
            crate::with_links(&mut m);
            out.record(&m)?;
        }
        Format::Text => {
            use std::io::Write;
            let text = mem_core::confine::read_text_capped(
                &t.path,
                mem_core::confine::MAX_TOPIC_BYTES,
                false,
            )?;
            out.write_all(text.as_bytes())?;
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `reindex`: rebuild `MEMORY.md` (of the team tier with `--tier team`).
pub fn reindex_cmd(global: &Global, today: NaiveDate, fmt: Format) -> Result<Exit> {
    if let Some(why) = memory_off(global)? {
        return Ok(disabled_note(&why));
    }
    let team = global.tier == TierArg::Team;
    let dir = if team {
        let root = team::repo_root(global.args.place.cwd.as_deref())?;
        let dir = memdir::team_dir(&root);
        team::refuse_linked_tier(&root, &dir)?;
        recover_team_move(&root)?;
        dir
    } else {
        resolve_dir(global)?
    };
    let (r, st) = if dir.is_dir() {
        let lock = store::lock_index(&dir)?;
        let res = if team {
            team::reindex(&lock, &dir)?
        } else {
            index_file::reindex(&lock, &dir, today)?
        };
        drop(lock);
        res
    } else {
        // No memory directory: nothing to index, nothing created.
        (
            mem_core::index_md::render(&[], today),
            store::Store::default(),
        )
    };
    for w in index_file::store_warnings(&st) {
        warn(NAME, w);
    }
    report_index(&r);
    let mut out = Output::stdout(global.args.output.line_buffered);
    let rec = IndexOp::Index {
        lines: r.lines,
        bytes: r.bytes,
        files: st.file_count(),
        omitted: r.omitted.len(),
    };
    let text = format!(
        "MEMORY.md: {} lines, {} bytes, {} topic files, {} left out",
        r.lines,
        r.bytes,
        st.file_count(),
        r.omitted.len()
    );
    emit(&mut out, fmt, &rec, &text)?;
    out.flush()?;
    Ok(Exit::Success)
}

/// `check`: lint the directory (or the team tier). Exit 1 on an error
/// finding; with `--tier team`, 3 on a secret.
pub fn check_cmd(
    g: &Global,
    max_files: usize,
    repair: bool,
    today: NaiveDate,
    fmt: Format,
) -> Result<Exit> {
    let team = g.tier == TierArg::Team;
    let dir = tier_reader_dir(g)?;
    if repair {
        // a promotion or demotion cut short first: it writes both tiers
        let root = team::repo_root(g.args.place.cwd.as_deref())?;
        recover_team_move(&root)?;
    }
    if repair && mem_core::journal::needs_recovery(&dir) {
        let lock = store::lock_index(&dir)?;
        recover(&lock, &dir, today)?;
    }
    if repair && dir.is_dir() {
        // topic files missing from the index, entries of files gone: the
        // index is rebuilt (mem's own lines only; every other line is kept)
        let drift = if team {
            team::check_team(&dir, today)?
        } else {
            check::check(&dir, today, max_files)?
        }
        .iter()
        .any(|f| {
            matches!(
                f.code,
                FindingCode::NotIndexed | FindingCode::MissingFile | FindingCode::IndexDrift
            )
        });
        if drift {
            if team {
                let root = team::repo_root(g.args.place.cwd.as_deref())?;
                team::refuse_linked_tier(&root, &dir)?;
            }
            let lock = store::lock_index(&dir)?;
            if team {
                team::reindex(&lock, &dir)?;
            } else {
                index_file::reindex(&lock, &dir, today)?;
            }
            note_recovered(&format!(
                "{}: MEMORY.md rebuilt from its topic files",
                dir.display()
            ));
        }
    }
    let found: Vec<Finding> = if team {
        team::check_team(&dir, today)?
    } else {
        let mut found = check::check(&dir, today, max_files)?;
        let tdir = team::team_dir_for(g.args.place.cwd.as_deref())?;
        found.extend(check::tier_conflicts(&dir, &tdir, today));
        found
    };
    let mut out = Output::stdout(g.args.output.line_buffered);
    for f in &found {
        let loc = match f.line {
            Some(l) => format!("{}:{l}", f.file),
            None => f.file.clone(),
        };
        let text = format!("{:<7} {loc}: {} [{}]", f.level, f.message, f.code);
        emit(&mut out, fmt, f, &text)?;
    }
    out.flush()?;
    let errors = found.iter().filter(|f| f.level == Level::Error);
    let secret = errors.clone().any(|f| f.code == FindingCode::Sensitive);
    Ok(if team && secret {
        Exit::Sensitive
    } else if errors.count() > 0 {
        Exit::Failure
    } else {
        Exit::Success
    })
}

/// `path`: the resolved memory directory (text even into a pipe unless
/// `--format jsonl`), with `--explain` the rule that chose it.
pub fn path_cmd(global: &Global, explain: bool) -> Result<Exit> {
    let mut r = memdir::resolve(&memdir_opts(global, None))?;
    if global.tier != TierArg::Team {
        // A directory named by --memory-dir or MEM_MEMORY_DIR must exist;
        // the project's own may not exist yet (its path is still printed).
        memdir::require_given_dir(&r)?;
    }
    if global.tier == TierArg::Team {
        r.root = team::repo_root(global.args.place.cwd.as_deref())?;
        r.dir = memdir::team_dir(&r.root);
        r.notes.push(format!(
            "--tier team: the team tier of the repository at {}",
            r.root.display()
        ));
    }
    let mut out = Output::stdout(global.args.output.line_buffered);
    // A plain path even into a pipe (`cat "$(mem-index path)/MEMORY.md"`);
    // JSON only when asked for.
    if global.args.output.format == Some(Format::Jsonl) {
        let explain = match explain {
            true => Some(PathExplain {
                rule: r.rule.to_string(),
                root: r.root.display().to_string(),
                notes: r.notes.clone(),
                memory_off: memory_off(global)?,
            }),
            false => None,
        };
        out.record(&PathInfo {
            dir: r.dir.display().to_string(),
            explain,
        })?;
    } else {
        out.line(&r.dir.display().to_string())?;
        if explain {
            out.line(&format!("rule: {}", r.rule))?;
            for n in &r.notes {
                out.line(&format!("note: {n}"))?;
            }
            if let Some(why) = memory_off(global)? {
                out.line(&format!("memory is off: {why}"))?;
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `retire ID --reason TEXT [--purge]`.
pub fn retire_cmd(
    g: &Global,
    id: &str,
    reason: &str,
    purge: bool,
    today: NaiveDate,
    fmt: Format,
) -> Result<Exit> {
    if let Some(why) = memory_off(g)? {
        return Ok(disabled_note(&why));
    }
    let dir = resolve_dir(g)?;
    let lock = store::lock_index(&dir)?;
    recover(&lock, &dir, today)?;
    let (r, idx) = retire::retire(&lock, &dir, id, reason, today, purge)?;
    drop(lock);
    report_index(&idx);
    let mut out = Output::stdout(g.args.output.line_buffered);
    let text = format!(
        "{} {} → {} ({reason})",
        r.op(),
        r.id().unwrap_or_default(),
        r.path().unwrap_or_default()
    );
    emit(&mut out, fmt, &r, &text)?;
    out.flush()?;
    Ok(Exit::Success)
}

/// `restore ID`.
pub fn restore_cmd(global: &Global, id: &str, today: NaiveDate, fmt: Format) -> Result<Exit> {
    if let Some(why) = memory_off(global)? {
        return Ok(disabled_note(&why));
    }
    let dir = resolve_dir(global)?;
    let lock = store::lock_index(&dir)?;
    recover(&lock, &dir, today)?;
    let (p, idx) = retire::restore(&lock, &dir, id, today)?;
    drop(lock);
    report_index(&idx);
    let mut out = Output::stdout(global.args.output.line_buffered);
    let rec = IndexOp::Restore {
        id: id.to_string(),
        path: p.display().to_string(),
    };
    emit(
        &mut out,
        fmt,
        &rec,
        &format!("restore {id} → {}", p.display()),
    )?;
    out.flush()?;
    Ok(Exit::Success)
}

/// `log`: append records to the daily logs. The batch is refused whole
/// (exit 1) when a record is bad.
pub fn log_cmd(global: &Global, files: &[PathBuf], today: NaiveDate, fmt: Format) -> Result<Exit> {
    if let Some(why) = memory_off(global)? {
        return Ok(disabled_note(&why));
    }
    let dir = resolve_dir(global)?;
    let (batch, mut errs, label) = read_input::<Memory>(files);
    let scrubber = mem_core::scrub::Scrubber::new(None);
    for (line, m) in &batch {
        if let Err(reason) = write::validate_record(m, Some(&scrubber)) {
            errs.push(IndexError::input(&label, *line, reason));
        }
    }
    if !errs.is_empty() {
        return Ok(refuse_batch(&errs));
    }
    let recs: Vec<Memory> = batch.into_iter().map(|(_, m)| m).collect();
    let lock = store::lock_index(&dir)?;
    let done = daily_log::append_logs(&lock, &dir, &recs, today)?;
    drop(lock);
    let mut out = Output::stdout(global.args.output.line_buffered);
    for (id, p) in done {
        let text = format!("log {id} → {}", p.display());
        let rec = IndexOp::Log {
            id,
            path: p.display().to_string(),
        };
        emit(&mut out, fmt, &rec, &text)?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `snapshot save|sync`: agent-memory snapshots shared through git.
pub fn snapshot_cmd(global: &Global, sc: &SnapshotCmd, clock: &Clock, fmt: Format) -> Result<Exit> {
    if global.agent.is_none() {
        return Err(IndexError::NeedsAgent);
    }
    if let Some(why) = memory_off(global)? {
        return Ok(disabled_note(&why));
    }
    let mut g2 = global.clone();
    g2.args.place.memory_dir = None;
    let project = memdir::resolve(&memdir_opts(&g2, Some(AgentScope::Project)))?.dir;
    let mut out = Output::stdout(global.args.output.line_buffered);
    let now = mem_core::time::fmt_ts(clock.now);
    match sc {
        SnapshotCmd::Save => {
            let (snap, n) = snapshot::snapshot_save(&project, &now)?;
            let text = format!("snapshot saved to {} ({n} files written)", snap.display());
            let rec = IndexOp::SnapshotSave {
                path: snap.display().to_string(),
                files: n,
                updated_at: now,
            };
            emit(&mut out, fmt, &rec, &text)?;
        }
        SnapshotCmd::Sync { strategy } => {
            let snap = snapshot::snapshot_dir(&project)
                .ok_or_else(|| IndexError::NotAgentFolder(project.clone()))?;
            let local = match global.args.place.named_memory_dir() {
                Some(d) => d,
                None => memdir::resolve(&memdir_opts(&g2, Some(AgentScope::Local)))?.dir,
            };
            let Some(updated) = snapshot::snapshot_updated_at(&snap) else {
                eprintln!(
                    "{NAME}: no snapshot at {} (snapshot.json missing); nothing to do",
                    snap.display()
                );
                return Ok(Exit::Success);
            };
            match strategy {
                Strategy::None => {
                    eprintln!("{NAME}: --strategy none: snapshot of {updated} left alone");
                }
                Strategy::Initialize => {
                    snapshot_initialize(&mut out, fmt, &snap, &local, updated, clock.today)?
                }
                Strategy::PromptUpdate => snapshot_propose(&mut out, fmt, &snap, &local, updated)?,
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `snapshot sync --strategy initialize`: copy the snapshot into an empty
/// local scope.
fn snapshot_initialize(
    out: &mut Output,
    fmt: Format,
    snap: &Path,
    local: &Path,
    updated: String,
    today: NaiveDate,
) -> Result<()> {
    let (files, _) = store::list_files(local)?;
    if !files.is_empty() {
        eprintln!(
            "{NAME}: {} is not empty; --strategy initialize copies only into an empty scope",
            local.display()
        );
        return Ok(());
    }
    let lock = store::lock_index(local)?;
    let n = snapshot::copy_dir(snap, local, false)?;
    let st = store::load(local)?;
    index_file::write_index(&st, today)?;
    mem_core::confine::write_atomic(
        local,
        &snapshot::synced_marker(local),
        serde_json::to_string(&snapshot::SnapshotMeta {
            updated_at: updated.clone(),
        })
        .expect("a string serializes")
        .as_bytes(),
    )?;
    drop(lock);
    let text = format!("initialized {} from snapshot ({n} files)", local.display());
    let rec = IndexOp::SnapshotInitialize {
        path: local.display().to_string(),
        files: n,
        updated_at: updated,
    };
    emit(out, fmt, &rec, &text)?;
    Ok(())
}

/// `snapshot sync --strategy prompt-update`: when the snapshot is newer
/// than the one last taken, print each memory it would change as a merged
/// record (never overwrite).
fn snapshot_propose(
    out: &mut Output,
    fmt: Format,
    snap: &Path,
    local: &Path,
    updated: String,
) -> Result<()> {
    let seen = snapshot::SnapshotMeta::read(&snapshot::synced_marker(local)).map(|m| m.updated_at);
    let newer = match (&seen, mem_core::time::parse_ts(&updated)) {
        (Some(s), Some(u)) => mem_core::time::parse_ts(s).is_none_or(|s| u > s),
        _ => true,
    };
    if !newer {
        eprintln!("{NAME}: snapshot of {updated} already taken; nothing to propose");
        return Ok(());
    }
    let snap_store = store::load(snap)?;
    let local_store = store::load(local)?;
    let mut n = 0;
    for t in &snap_store.topics {
        let mut proposal = match local_store.get(&t.id) {
            Some(l) => {
                let mut a = l.memory.clone();
                a.hash = None;
                let mut b = t.memory.clone();
                b.hash = None;
                if mem_core::frontmatter::render(&a) == mem_core::frontmatter::render(&b) {
                    continue;
                }
                write::merge(&a, &b)
            }
            None => t.memory.clone(),
        };
        proposal.hash = None;
        n += 1;
        let text = format!(
            "propose {} — {}",
            proposal.id.as_deref().unwrap_or(""),
            proposal.description
        );
        emit(out, fmt, &proposal, &text)?;
    }
    eprintln!(
        "{NAME}: snapshot of {updated} is newer: {n} record(s) proposed; apply with `mem-index write` (nothing was overwritten)"
    );
    Ok(())
}

/// `promote ID…`: personal memories into the team tier, all or nothing
/// (exit 1 with every refusal on stderr).
pub fn promote_cmd(global: &Global, ids: &[String], fmt: Format) -> Result<Exit> {
    let personal = resolve_reader_dir(global)?;
    let root = team::repo_root(global.args.place.cwd.as_deref())?;
    let tdir = memdir::team_dir(&root);
    for id in ids {
        if store::read_one(&personal, id)?.is_none() {
            return Err(no_such_memory(&personal, id));
        }
    }
    match team::promote(&personal, &tdir, &root, ids)? {
        Ok(done) => {
            let n = done.len();
            let mut out = Output::stdout(global.args.output.line_buffered);
            for d in done {
                let notes = if d.notes.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", d.notes.join("; "))
                };
                let text = format!("promote {} {} → {}{notes}", d.result, d.id, d.path);
                emit(&mut out, fmt, &IndexOp::Promote(d), &text)?;
            }
            out.flush()?;
            eprintln!(
                "{NAME}: {n} memor{} in the team tier; review and commit {}",
                if n == 1 { "y" } else { "ies" },
                tdir.display()
            );
            Ok(Exit::Success)
        }
        Err(refused) => {
            for r in &refused {
                for f in &r.refusals {
                    eprintln!("{NAME}: promote refused: {}: {f}", r.id);
                }
            }
            eprintln!(
                "{NAME}: promotion refused: {} memor{} would carry something that must not be shared; nothing was written (edit the personal memory, then promote again)",
                refused.len(),
                if refused.len() == 1 { "y" } else { "ies" }
            );
            Ok(Exit::Failure)
        }
    }
}

/// `demote ID…`: team memories back to the personal directory.
pub fn demote_cmd(global: &Global, ids: &[String], today: NaiveDate, fmt: Format) -> Result<Exit> {
    if let Some(why) = memory_off(global)? {
        return Ok(disabled_note(&why));
    }
    let root = team::repo_root(global.args.place.cwd.as_deref())?;
    let tdir = memdir::team_dir(&root);
    team::refuse_linked_tier(&root, &tdir)?;
    let personal = resolve_dir(global)?;
    for id in ids {
        if store::read_one(&tdir, id)?.is_none() {
            return Err(no_such_memory(&tdir, id));
        }
    }
    let done: Vec<TierMove> = team::demote(&root, &tdir, &personal, ids, today)?;
    let mut out = Output::stdout(global.args.output.line_buffered);
    for d in done {
        let text = format!("demote {} {} → {}", d.result, d.id, d.path);
        emit(&mut out, fmt, &IndexOp::Demote(d), &text)?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `merge-driver %O %A %B [%P]`, or `merge-driver --install`.
pub fn merge_driver_cmd(
    global: &Global,
    install: bool,
    files: &[PathBuf],
    fmt: Format,
) -> Result<Exit> {
    if install {
        let root = team::repo_root(global.args.place.cwd.as_deref())?;
        if memdir::git_info(&root).is_none() {
            return Err(IndexError::NotGitRepo(root));
        }
        let exe = std::env::current_exe().map_err(IndexError::NoProgramPath)?;
        let r = merge::install(&root, &exe)?;
        team::ensure_tier(&memdir::team_dir(&root))?;
        let mut out = Output::stdout(global.args.output.line_buffered);
        let text = format!(
            "{} {}\nmerge.mem.driver = {} ({})",
            r.gitattributes,
            if r.gitattributes_added {
                "line added"
            } else {
                "already has the line"
            },
            r.driver,
            if r.config_changed {
                "set"
            } else {
                "already set"
            }
        );
        emit(&mut out, fmt, &r, &text)?;
        out.flush()?;
        return Ok(Exit::Success);
    }
    let path = files.get(3).map(|p| p.to_string_lossy().into_owned());
    match merge::run_driver(&files[0], &files[1], &files[2], path.as_deref())? {
        merge::Outcome::Clean => {}
        merge::Outcome::BodyConflict => warn(
            NAME,
            format!(
                "{}: both sides changed the body: both versions kept in the body (`mem-index check --tier team` warns until one is chosen)",
                path.as_deref().unwrap_or("topic file")
            ),
        ),
        merge::Outcome::IndexByLines => warn(
            NAME,
            "MEMORY.md merged line by line (the merged commits were not found): run `mem-index reindex --tier team` and commit",
        ),
    }
    Ok(Exit::Success)
}

/// One record: as a JSON line, or its text line.
fn emit<T: Serialize>(out: &mut Output, fmt: Format, rec: &T, text: &str) -> std::io::Result<()> {
    match fmt {
        Format::Jsonl => out.record(rec),
        Format::Text => out.line(text),
    }
}

/// Why memory is off for the project of these options (see
/// [`memdir::memory_off`]), or `None`.
fn memory_off(g: &Global) -> Result<Option<String>> {
    let cwd = match &g.args.place.cwd {
        Some(c) => Some(c.clone()),
        None => std::env::current_dir().ok(),
    };
    Ok(memdir::memory_off(cwd.as_deref())?)
}

fn disabled_note(why: &str) -> Exit {
    eprintln!("{NAME}: memory is off ({why}); nothing written");
    Exit::Success
}

/// The records of `files` (stdin when none), the errors of the lines that
/// do not parse, and the input's name for messages.
fn read_input<T: serde::de::DeserializeOwned>(
    files: &[PathBuf],
) -> (Vec<(usize, T)>, Vec<IndexError>, String) {
    if files.is_empty() {
        mem_core::cli::stdin_hint(
            NAME,
            "memory records (JSONL)",
            "mem-transcript replay SESSION.jsonl | mem-extract | mem-index write",
        );
        let (ok, errs) = mem_core::jsonl::read_records(std::io::stdin().lock(), "<stdin>");
        return (
            ok,
            errs.into_iter().map(Into::into).collect(),
            "<stdin>".into(),
        );
    }
    let mut ok = Vec::new();
    let mut errs = Vec::new();
    for f in files {
        let name = f.display().to_string();
        match std::fs::File::open(f) {
            Ok(file) => {
                let (o, e) = mem_core::jsonl::read_records(file, &name);
                ok.extend(o);
                errs.extend(e.into_iter().map(Into::into));
            }
            Err(e) => errs.push(IndexError::io(f, e)),
        }
    }
    let label = if files.len() == 1 {
        files[0].display().to_string()
    } else {
        "<input>".into()
    };
    (ok, errs, label)
}

/// The folder a reading command acts on: the team tier with `--tier team`
/// (it may not exist: an empty tier), else [`resolve_reader_dir`].
fn tier_reader_dir(g: &Global) -> Result<PathBuf> {
    Ok(match g.tier {
        TierArg::Team => team::team_dir_for(g.args.place.cwd.as_deref())?,
        TierArg::Personal => resolve_reader_dir(g)?,
    })
}

/// "no such memory" for `ID`, with the nearest ids on disk.
fn no_such_memory(dir: &Path, id: &str) -> IndexError {
    let near = store::load(dir)
        .map(|st| nearest_ids(id, st.topics.iter().map(|t| t.id.as_str())))
        .unwrap_or_default();
    IndexError::NoSuchMemory {
        path: dir.join(format!("{id}.md")),
        near,
    }
}

/// Before anything else: finish what a killed writer left (see
/// [`mem_core::journal::recover`]), saying so on stderr.
/// Say on stderr what a recovery finished.
pub(crate) fn note_recovered(said: &str) {
    eprintln!("{NAME}: recovered: {said}");
}

/// Finish a promotion or demotion that a killed run left in the team tier
/// of the repository at `root` ([`team::recover_move`]), when there is one.
fn recover_team_move(root: &Path) -> Result<()> {
    let tdir = memdir::team_dir(root);
    if !tdir.join(team::MOVE_JOURNAL).exists() {
        return Ok(());
    }
    team::refuse_linked_tier(root, &tdir)?;
    let lock = store::lock_index(&tdir)?;
    if let Some(said) = team::recover_move(&lock, &tdir)? {
        note_recovered(&said);
    }
    Ok(())
}

fn recover(lock: &store::IndexGuard, dir: &Path, today: NaiveDate) -> Result<()> {
    for s in mem_core::journal::recover(lock, dir, today)?.said {
        eprintln!("{NAME}: recovered: {s}");
    }
    Ok(())
}

fn report_index(r: &mem_core::index_md::Rendered) {
    if let Some(w) = &r.warning {
        warn(
            NAME,
            format!(
                "MEMORY.md cut to stay within its limits: {} entries left out ({} lines, {} bytes written): {}",
                r.omitted.len(),
                r.lines,
                r.bytes,
                w
            ),
        );
    }
}

/// Report every bad record of a refused batch on stderr, then the refusal;
/// returns the exit code (1). Nothing has been written.
fn refuse_batch(errs: &[IndexError]) -> Exit {
    for e in errs {
        eprintln!("{NAME}: {e}");
    }
    eprintln!(
        "{NAME}: batch refused: {} bad record(s); nothing written",
        errs.len()
    );
    Exit::Failure
}
