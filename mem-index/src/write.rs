//! `write`: a batch of memory records into topic files ("merge over
//! create", duplicates by fact, the file limit and `--evict`), callable in
//! process (mem-dream and mem-recall's backtest use it).
//!
//! Every mutating function takes the held index lock
//! ([`mem_core::store::lock_index`]) as a `&IndexGuard`, so a caller that
//! already holds it for a larger batch (mem-dream's apply phase) passes it
//! on instead of deadlocking on a second lock.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::NaiveDate;

use mem_core::error::Error;

use crate::error::{IndexError, Result};
use mem_core::index_md::{self, Rendered};
use mem_core::records::{IndexOp, Memory, Shape, Source, Trust};
use mem_core::scrub::Scrubber;
use mem_core::store::{self, IndexGuard, Store, Topic};
use mem_core::{confine, frontmatter, id};

use crate::index_file::{store_warnings, write_index};
use crate::retire::retire_in;

/// Default of `--max-files`.
pub const DEFAULT_MAX_FILES: usize = 200;

/// How [`write_batch`] treats a batch.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Write the valid records and report the others (the run still fails).
    pub skip_invalid: bool,
    /// Accept records carrying secrets, session ids or absolute paths.
    pub allow_sensitive: bool,
    /// `--if-match HASH`: every record that updates a file needs that file's
    /// current hash to be this.
    pub if_match: Option<String>,
    /// Most topic files after the batch (0 = unlimited).
    pub max_files: usize,
    /// Past `max_files`, retire expired memories first, then the lowest in
    /// index order, instead of refusing new files.
    pub evict: bool,
    /// Let `evict` retire memories mem did not write too
    /// ([`Memory::written_by_mem`]); without it they are never evicted.
    pub include_foreign: bool,
    /// Today (for expiry and the index order).
    pub today: NaiveDate,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            skip_invalid: false,
            allow_sensitive: false,
            if_match: None,
            max_files: DEFAULT_MAX_FILES,
            evict: false,
            include_foreign: false,
            today: chrono::Local::now().date_naive(),
        }
    }
}

/// The outcome of [`write_batch`].
#[derive(Debug)]
pub struct WriteReport {
    /// One result per written (or skipped-as-same) record, in input order:
    /// [`IndexOp::Create`], `Update`, `Unchanged` or `Duplicate`.
    pub results: Vec<IndexOp>,
    /// Every refused record (`<stdin>:LINE: reason`). Non-empty means the run
    /// fails; nothing was written unless `skip_invalid`.
    pub errors: Vec<IndexError>,
    /// Memories retired to make room (`--evict`): [`IndexOp::Retire`].
    pub evicted: Vec<IndexOp>,
    /// The index as written (None when nothing was written).
    pub index: Option<Rendered>,
    /// Warnings about the directory (broken files, bad names), worded.
    pub warnings: Vec<String>,
}

impl WriteReport {
    /// A batch refused whole: its `errors` (and the directory's
    /// `warnings`), nothing written.
    fn refused(errors: Vec<IndexError>, warnings: Vec<String>) -> WriteReport {
        WriteReport {
            results: Vec::new(),
            errors,
            evicted: Vec::new(),
            index: None,
            warnings,
        }
    }
}

/// Normalised fact text for duplicate detection: the record's `fact` (or the
/// fact read from its body), else its body; lowercase, whitespace collapsed.
/// `None` when there is nothing to compare.
pub fn fact_key(memory: &Memory) -> Option<String> {
    let fact = match &memory.fact {
        Some(f) if !f.trim().is_empty() => f.clone(),
        _ => {
            let body = memory.body.as_deref().unwrap_or("");
            match frontmatter::parse_body_sections(body).0 {
                Some(f) => f,
                None => body.to_string(),
            }
        }
    };
    let norm = fact
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    if norm.is_empty() {
        None
    } else {
        Some(blake3::hash(norm.as_bytes()).to_hex()[..16].to_string())
    }
}

/// `a` with `b`'s new entries after it ([`mem_core::merge::unite`]).
fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    mem_core::merge::unite(&mut out, b);
    out
}

/// Merge `new` into `old` ("merge over create"): the one with the newer
/// `verified_at` wins field by field (the incoming record on a tie or when
/// neither has one); a field set on only one side is kept; triggers, paths,
/// evidence and supersedes are unioned; unknown keys of both are kept.
/// `trust: low` on either side stays low: a suspect record never gains trust
/// by landing on a trusted one.
pub fn merge(old: &Memory, new: &Memory) -> Memory {
    // Newer `verified_at` wins. On a tie the incoming record wins only when it
    // brings evidence the file lacks (or neither has any: a hand edit), so a
    // second run of the write path over the same sessions changes nothing.
    let new_wins = match (new.verified_at, old.verified_at) {
        (Some(n), Some(o)) if n != o => n > o,
        (Some(_), None) => true,
        (None, Some(_)) => false,
        _ => {
            (new.evidence.is_empty() && old.evidence.is_empty())
                || new.evidence.iter().any(|e| !old.evidence.contains(e))
        }
    };
    let (w, l) = if new_wins { (new, old) } else { (old, new) };
    let mut m = w.clone();
    m.id = old.id.clone().or_else(|| new.id.clone());
    macro_rules! fill {
        ($($f:ident),*) => { $( if m.$f.is_none() { m.$f = l.$f.clone(); } )* };
    }
    fill!(
        kind,
        scope,
        project,
        source,
        trust,
        verified_at,
        expires,
        superseded_by,
        retired_at,
        retired_reason,
        confidence
    );
    // The same memory learned again in another session (evidence from a
    // transcript the file has none from) is surer: confidence + 0.1, at most
    // 0.95. A rerun over the same sessions brings no new transcript.
    let sessions = |x: &Memory| -> Vec<String> {
        x.evidence
            .iter()
            .filter_map(|e| e.strip_prefix("transcript:")?.split('#').next())
            .map(str::to_string)
            .collect()
    };
    let (was, now) = (sessions(old), sessions(new));
    if !was.is_empty() && now.iter().any(|d| !was.contains(d)) {
        m.confidence = Some(mem_core::merge::confirmed_confidence(
            old.confidence,
            new.confidence,
        ));
    }
    if old.trust == Some(Trust::Low) || new.trust == Some(Trust::Low) {
        m.trust = Some(Trust::Low);
    }
    m.triggers = union(&old.triggers, &new.triggers);
    m.paths = union(&old.paths, &new.paths);
    m.evidence = union(&old.evidence, &new.evidence);
    m.supersedes = union(&old.supersedes, &new.supersedes);
    // The body: the winner's body, or its fact/why/how; else the loser's.
    let w_has_text = w.body.is_some() || w.fact.is_some() || w.why.is_some() || w.how.is_some();
    if !w_has_text {
        m.body = l.body.clone();
        m.fact = l.fact.clone();
        m.why = l.why.clone();
        m.how = l.how.clone();
    } else if w.body.is_none() {
        // Sections rendered from fact/why/how; fill missing parts from the loser.
        fill!(fact, why, how);
    }
    let mut extra = l.extra.clone();
    for (k, v) in &w.extra {
        extra.insert(k.clone(), v.clone());
    }
    m.extra = extra;
    // the file's shape and the text of its unknown keys stay
    m.layout = old.layout.clone();
    frontmatter::keep_links(&mut m, [old, new]);
    m.hash = None;
    m
}

/// Apply an edit ("what the memory now is", docs/records.md "Edits and
/// candidates") to the file's memory `old`: every field takes the record's
/// value as written, and a field the record leaves out is removed (a record
/// from `list` or `show` carries every field the file has). The text is the
/// exception: a record with none of `body`, `fact`, `why`, `how` keeps the
/// file's; one that changes `fact`, `why` or `how` but gives the file's
/// `body` unchanged gets its body written again from those lines.
///
/// Provenance: a record without `source` or `trust` keeps the file's, and
/// the file's `trust: low` stays low unless the edit is `checked` (it
/// carried the file's `hash`: a person reviewed what `list` or `show`
/// printed); a hand edit by `id` never vouches for a suspect memory.
pub fn apply_edit(old: &Memory, edit: &Memory, checked: bool) -> Memory {
    let mut m = edit.clone();
    m.id = old.id.clone().or_else(|| edit.id.clone());
    if m.source.is_none() {
        m.source = old.source;
    }
    if m.trust.is_none() || (!checked && old.trust == Some(Trust::Low)) {
        m.trust = old.trust;
    }
    let has_text =
        edit.body.is_some() || edit.fact.is_some() || edit.why.is_some() || edit.how.is_some();
    if !has_text {
        m.body = old.body.clone();
        m.fact = old.fact.clone();
        m.why = old.why.clone();
        m.how = old.how.clone();
    } else if edit.body.is_some()
        && edit.body == old.body
        && (edit.fact != old.fact || edit.why != old.why || edit.how != old.how)
    {
        m.body = None;
    }
    m.hash = None;
    m
}

/// True when a record without `hash` is a hand edit of the memory `id`
/// names: it gives that `id` itself, carries no `evidence` and says no
/// `source` other than `manual` (what `mem-extract` writes always carries
/// both a source and evidence, and is merged instead).
fn is_hand_edit(rec: &Memory) -> bool {
    rec.id.is_some() && rec.evidence.is_empty() && rec.source.is_none_or(|s| s == Source::Manual)
}

/// The id of a record without one: the file an earlier mem named for the
/// same name when there is one ([`id::legacy_id`]: ids were cut at 64
/// bytes then), else the short `derived` id ([`id::derive_id`]), with
/// `-2`, `-3`, … when a memory of another name (its whole slug differs)
/// already has it in the directory or the batch.
fn derived_id(
    st: &Store,
    planned: &[(String, Memory, Option<bool>)],
    rec: &Memory,
    derived: String,
) -> String {
    record_id(rec, derived, |cand| {
        st.get(cand)
            .map(|t| &t.memory)
            .into_iter()
            .chain(
                planned
                    .iter()
                    .filter(|(pid, _, _)| pid == cand)
                    .map(|(_, m, _)| m),
            )
            .collect()
    })
}

/// The id `write` gives a record `rec` that names none, `derived` being
/// its short id ([`Memory::resolve_id`]): the id an earlier mem named for
/// the same name when a memory holds it ([`id::legacy_id`]), else
/// `derived`, with `-2`, `-3`, … while a memory of another name (its whole
/// slug differs) holds it. `holders(id)` gives the memories that hold an
/// id (in the directory, or planned with it). A memory of the same name
/// holding the id is the one the record updates. Used by mem-dream so a
/// memory distilled from a daily log lands on the file `write` would have
/// updated.
pub fn record_id<'a>(
    rec: &Memory,
    derived: String,
    holders: impl Fn(&str) -> Vec<&'a Memory>,
) -> String {
    if let Ok(legacy) = id::legacy_id(&rec.name)
        && legacy != derived
        && !holders(&legacy).is_empty()
    {
        return legacy;
    }
    let Ok(full) = id::full_slug(&rec.name) else {
        return derived;
    };
    let other = |cand: &str, m: &Memory| {
        // a slug name that is the id (Claude Code's current shape) says
        // nothing of the lesson's whole name: taken as the same
        !(m.name == cand || id::full_slug(&m.name).is_ok_and(|f| f == full))
    };
    let taken = |cand: &str| holders(cand).into_iter().any(|m| other(cand, m));
    let mut cand = derived.clone();
    let mut k = 2;
    while taken(&cand) {
        cand = format!("{derived}-{k}");
        k += 1;
    }
    cand
}

/// Every memory mem writes says who it came from: a record (or merged file)
/// without `source` is `manual`, without `trust` is `normal`. A memory not
/// written by the user (`source` other than `manual`) whose lesson runs a
/// risky command is `trust: low` ([`mem_core::lesson::gate`];
/// docs/security.md "What a command does").
pub fn with_provenance(mut m: Memory) -> Memory {
    m.source.get_or_insert(Source::Manual);
    m.trust.get_or_insert(Trust::Normal);
    mem_core::lesson::gate(&mut m);
    m
}

/// Prepare a record for comparison and rendering: no `hash`, no `id` key
/// in `extra`.
fn clean(mut m: Memory) -> Memory {
    m.hash = None;
    m.extra.remove("hash");
    m.extra.remove("id");
    // `links` as `list` and `show` print it, not a key of the file
    let links = frontmatter::links(&frontmatter::body_text(&m));
    if m.extra.get("links") == Some(&serde_json::json!(links)) {
        m.extra.remove("links");
    }
    m
}

/// True when two memories render the same topic file content, as read
/// back (CRLF line ends read as LF).
fn same(a: &Memory, b: &Memory) -> bool {
    frontmatter::normalize(&frontmatter::render(a))
        == frontmatter::normalize(&frontmatter::render(b))
}

/// Check one record on its own (id, required values, kind, sensitive
/// content). Returns its id.
pub fn validate_record(
    m: &Memory,
    scrubber: Option<&Scrubber>,
) -> std::result::Result<String, String> {
    let id = m.resolve_id().map_err(|e| e.to_string())?;
    if m.name.trim().is_empty() {
        return Err("name is empty".into());
    }
    if m.effective_kind() == mem_core::Kind::OneTimeState && m.expires.is_none() {
        return Err("kind one-time-state needs `expires`".into());
    }
    if let Some(s) = scrubber {
        let found = s.check_memory(m);
        if !found.is_empty() {
            let parts: Vec<String> = found
                .iter()
                .map(|f| {
                    let kinds: Vec<String> =
                        f.findings.iter().map(|x| x.kind.to_string()).collect();
                    format!("field `{}` carries {}", f.field, kinds.join(", "))
                })
                .collect();
            return Err(format!(
                "{} (refused; --allow-sensitive accepts it)",
                parts.join("; ")
            ));
        }
    }
    Ok(id)
}

/// Write a batch of memory records (`(line, record)`, line for error
/// messages; `source` names the input, e.g. `<stdin>`) into `dir`, merging
/// into existing topics, then rebuild `MEMORY.md`. The batch is validated
/// whole first: any refused record means nothing is written, unless
/// `opts.skip_invalid`. `input_errors` are errors already found while
/// reading the batch (they count as refused lines).
///
/// Errors: [`Error::Io`] on a write failure (earlier files of the batch may
/// be written: each file is atomic, the batch is not). Refused records are
/// not `Err`: they are in [`WriteReport::errors`].
pub fn write_batch(
    _lock: &IndexGuard,
    dir: &Path,
    batch: Vec<(usize, Memory)>,
    source: &str,
    input_errors: Vec<IndexError>,
    opts: &WriteOptions,
) -> Result<WriteReport> {
    let mut errors = input_errors;
    let scrubber = if opts.allow_sensitive {
        None
    } else {
        Some(Scrubber::new(None))
    };
    let mut st = store::load(dir)?;
    let warnings = store_warnings(&st);

    // 1. Validate every record against itself and the directory.
    let mut fact_owner: HashMap<String, String> = HashMap::new();
    for t in &st.topics {
        if let Some(k) = fact_key(&t.memory) {
            fact_owner.entry(k).or_insert_with(|| t.id.clone());
        }
    }
    let mut planned: Vec<(String, Memory, Option<bool>)> = Vec::new();
    let mut pending: HashMap<String, usize> = HashMap::new();
    for (line, rec) in batch {
        // An edit names the version it was made from by `hash` (as `list`
        // and `show` print it); `clean` drops the key before comparing.
        let read_hash = rec.hash.clone().or_else(|| {
            rec.extra
                .get("hash")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        });
        let hand_edit = read_hash.is_none() && is_hand_edit(&rec);
        let rec = clean(rec);
        let id = match validate_record(&rec, scrubber.as_ref()) {
            Ok(id) if rec.id.is_none() => derived_id(&st, &planned, &rec, id),
            Ok(id) => id,
            Err(reason) => {
                errors.push(IndexError::input(source, line, reason));
                continue;
            }
        };
        if let Err(e) = id::safe_join(dir, &id, ".md") {
            errors.push(IndexError::input(source, line, e.to_string()));
            continue;
        }
        if let Some(b) = st.get_broken(&id) {
            errors.push(IndexError::input(
                source,
                line,
                format!(
                    "{id}: the existing {} does not parse and is left unchanged ({})",
                    b.path.display(),
                    b.error
                ),
            ));
            continue;
        }
        if let Some(want) = &opts.if_match {
            match st.get(&id) {
                Some(t) if &t.hash == want => {}
                Some(t) => {
                    errors.push(IndexError::input(
                        source,
                        line,
                        format!(
                            "{id}: --if-match {want}: the file changed since it was read (hash now {})",
                            t.hash
                        ),
                    ));
                    continue;
                }
                None => {
                    errors.push(IndexError::input(
                        source,
                        line,
                        format!("{id}: --if-match {want}: no such topic file"),
                    ));
                    continue;
                }
            }
        }
        // An edit with a `hash` from another version of the file is
        // refused: a stale snapshot never reverts a newer change.
        if let Some(h) = &read_hash {
            match st.get(&id) {
                Some(t) if &t.hash == h => {}
                Some(t) => {
                    errors.push(IndexError::input(
                        source,
                        line,
                        format!(
                            "{id}: {}: the record edits the version with hash {h}, the file is now {} (list or show it again, then edit)",
                            t.path.display(),
                            t.hash
                        ),
                    ));
                    continue;
                }
                // not here: created as written (`list | write` into another
                // directory), unless the memory was retired from here
                None => {
                    let retired = dir.join(store::RETIRED_DIR).join(format!("{id}.md"));
                    if retired.exists() {
                        errors.push(IndexError::input(
                            source,
                            line,
                            format!(
                                "{id}: {}: the record edits the version with hash {h}, and the memory was retired (mem-index restore {id}, then edit)",
                                retired.display()
                            ),
                        ));
                        continue;
                    }
                }
            }
        }
        // Some(checked) for an edit: `hash` given and matched
        let edit = if read_hash.is_some() {
            Some(true)
        } else if hand_edit && st.get(&id).is_some() {
            Some(false)
        } else {
            None
        };
        match pending.get(&id) {
            // a later edit of the same memory is what it now is; a
            // candidate after an edit merges into the edited memory
            Some(&i) if edit.is_some() => planned[i] = (id, rec, edit),
            Some(&i) => {
                let merged = merge(&planned[i].1, &rec);
                planned[i].1 = merged;
            }
            None => {
                pending.insert(id.clone(), planned.len());
                planned.push((id, rec, edit));
            }
        }
    }
    let refuse = !errors.is_empty() && !opts.skip_invalid;

    // 2. Decide each record's op.
    enum Op {
        Create,
        Update,
        Unchanged,
        Duplicate,
    }
    struct Plan {
        id: String,
        op: Op,
        memory: Memory,
        dup_of: Option<String>,
    }
    let mut plans = Vec::new();
    let mut creates = 0usize;
    let (shape, _) = mem_core::shape::detect(&st);
    for (rid, rec, edit) in planned {
        if let Some(t) = st.get(&rid) {
            let next = match edit {
                Some(checked) => apply_edit(&t.memory, &rec, checked),
                None => merge(&t.memory, &rec),
            };
            let mut merged = with_provenance(next);
            merged.id = Some(rid.clone());
            let mut old = t.memory.clone();
            old.hash = None;
            let op = if same(&merged, &old) {
                Op::Unchanged
            } else {
                Op::Update
            };
            plans.push(Plan {
                id: rid,
                op,
                memory: merged,
                dup_of: None,
            });
            continue;
        }
        if let Some(k) = fact_key(&rec) {
            if let Some(owner) = fact_owner.get(&k).filter(|o| **o != rid) {
                plans.push(Plan {
                    id: rid,
                    op: Op::Duplicate,
                    memory: rec,
                    dup_of: Some(owner.clone()),
                });
                continue;
            }
            fact_owner.insert(k, rid.clone());
        }
        creates += 1;
        let mut m = with_provenance(rec);
        m.id = Some(rid.clone());
        // a new file in the shape the directory is written in
        m.layout.shape = Some(shape);
        plans.push(Plan {
            id: rid,
            op: Op::Create,
            memory: m,
            dup_of: None,
        });
    }

    // 3. The file limit.
    let mut evict_ids: Vec<(String, String)> = Vec::new();
    if opts.max_files > 0 && creates > 0 {
        let after = st.file_count() + creates;
        if after > opts.max_files {
            let need = after - opts.max_files;
            if !opts.evict {
                errors.push(IndexError::OverMaxFiles {
                    dir: dir.to_path_buf(),
                    creates,
                    after,
                    max_files: opts.max_files,
                });
                return Ok(WriteReport::refused(errors, warnings));
            }
            let touched: HashSet<&str> = plans.iter().map(|p| p.id.as_str()).collect();
            evict_ids = eviction_order(&st, opts.today, opts.include_foreign)
                .into_iter()
                .filter(|(id, _)| !touched.contains(id.as_str()))
                .take(need)
                .collect();
            if evict_ids.len() < need {
                errors.push(IndexError::NoRoom {
                    dir: dir.to_path_buf(),
                    creates,
                    max_files: opts.max_files,
                    include_foreign: opts.include_foreign,
                });
                return Ok(WriteReport::refused(errors, warnings));
            }
        }
    }
    if refuse {
        return Ok(WriteReport::refused(errors, warnings));
    }

    // 4. Write, marked as unfinished until the index is written (a killed
    // batch is rolled forward by the next writer: see mem_core::journal).
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    mem_core::journal::begin_write(dir)?;
    let mut evicted = Vec::new();
    for (eid, reason) in evict_ids {
        evicted.push(retire_in(&mut st, &eid, &reason, opts.today, false)?);
    }
    let mut results = Vec::new();
    let mut to_write: Vec<(String, PathBuf, Memory, String)> = Vec::new();
    for p in plans {
        let path = dir.join(format!("{}.md", p.id));
        let id = p.id;
        let rec = match p.op {
            Op::Duplicate => {
                let owner = p.dup_of.clone().unwrap_or_default();
                results.push(IndexOp::Duplicate {
                    id,
                    path: dir.join(format!("{owner}.md")).display().to_string(),
                    duplicate_of: owner,
                });
                continue;
            }
            Op::Unchanged => {
                results.push(IndexOp::Unchanged {
                    id,
                    path: path.display().to_string(),
                });
                continue;
            }
            Op::Create => IndexOp::Create {
                id: id.clone(),
                path: path.display().to_string(),
            },
            Op::Update => IndexOp::Update {
                id: id.clone(),
                path: path.display().to_string(),
            },
        };
        results.push(rec);
        let mut memory = p.memory;
        if memory.layout.shape == Some(Shape::Current) {
            // the name is written as the file's slug: the title is kept
            if !frontmatter::is_slug_name(&memory.name) {
                memory.extra.insert(
                    "title".into(),
                    serde_json::Value::String(memory.name.clone()),
                );
            }
            // Claude Code orders memories of its current shape by this stamp
            memory.extra.insert(
                "modified".into(),
                serde_json::Value::String(
                    mem_core::time::Clock::from_args(None, None)
                        .map_or_else(|_| chrono::Utc::now(), |c| c.now)
                        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
                        .to_string(),
                ),
            );
        }
        let text = frontmatter::render(&memory);
        to_write.push((id, path, memory, text));
    }
    write_files(dir, &to_write)?;
    let sorted_len = st.topics.len();
    for (id, path, memory, text) in to_write {
        put_topic(&mut st, sorted_len, &id, &path, memory, text.as_bytes());
    }
    st.topics.sort_by(|a, b| a.id.cmp(&b.id));
    mem_core::journal::crash_point();
    let index = Some(write_index(&st, opts.today)?);
    mem_core::journal::end_write(dir)?;
    Ok(WriteReport {
        results,
        errors,
        evicted,
        index,
        warnings,
    })
}

/// Replace or insert a topic in the in-memory store after writing it.
/// `st.topics[..sorted_len]` is sorted by id; new topics are pushed after it
/// (the caller sorts once at the end).
fn put_topic(
    st: &mut Store,
    sorted_len: usize,
    id: &str,
    path: &Path,
    mut memory: Memory,
    bytes: &[u8],
) {
    let hash = store::hash_bytes(bytes);
    memory.id = Some(id.to_string());
    memory.hash = Some(hash.clone());
    let t = Topic {
        id: id.to_string(),
        path: path.to_path_buf(),
        mtime: std::fs::metadata(path)
            .and_then(|m| m.modified())
            .unwrap_or_else(|_| SystemTime::now()),
        size: bytes.len() as u64,
        hash,
        memory,
    };
    match st.topics[..sorted_len].binary_search_by(|x| x.id.as_str().cmp(id)) {
        Ok(i) => st.topics[i] = t,
        Err(_) => st.topics.push(t),
    }
}

/// Threads used to write the files of one batch (each write waits on fsync).
const WRITERS: usize = 16;

/// Write the files of a batch atomically, several at a time (each file is
/// atomic; the batch is not). Errors: the first write error.
fn write_files(dir: &Path, files: &[(String, PathBuf, Memory, String)]) -> Result<()> {
    if files.len() < 4 {
        for (_, path, _, text) in files {
            mem_core::journal::crash_point();
            confine::write_if_changed(dir, path, text.as_bytes())?;
        }
        return Ok(());
    }
    let chunk = files.len().div_ceil(WRITERS);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || -> Result<()> {
                    for (_, path, _, text) in part {
                        mem_core::journal::crash_point();
                        confine::write_if_changed(dir, path, text.as_bytes())?;
                    }
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join().map_err(|_| IndexError::WriterPanicked)??;
        }
        Ok(())
    })
}

/// Ids in the order `--evict` retires them: expired first (oldest expiry
/// first), then the lowest in index order. Broken files are never evicted,
/// nor memories mem did not write ([`Memory::written_by_mem`]) unless
/// `include_foreign`.
pub fn eviction_order(
    st: &Store,
    today: NaiveDate,
    include_foreign: bool,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let candidates: Vec<&Topic> = st
        .topics
        .iter()
        .filter(|t| include_foreign || t.memory.written_by_mem())
        .collect();
    let mut expired: Vec<&Topic> = candidates
        .iter()
        .copied()
        .filter(|t| t.memory.is_expired(today))
        .collect();
    expired.sort_by(|a, b| {
        a.memory
            .expires
            .cmp(&b.memory.expires)
            .then(a.id.cmp(&b.id))
    });
    for t in &expired {
        out.push((
            t.id.clone(),
            format!(
                "evicted: expired {}",
                t.memory.expires.map(|e| e.to_string()).unwrap_or_default()
            ),
        ));
    }
    let mut entries: Vec<_> = candidates
        .iter()
        .map(|t| index_md::IndexEntry::from_topic(t))
        .collect();
    index_md::sort_entries(&mut entries, today);
    for e in entries.into_iter().rev() {
        if !out.iter().any(|(id, _)| *id == e.id) {
            out.push((
                e.id,
                "evicted: over --max-files (lowest in index order)".into(),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_memory_learned_again_in_another_session_is_surer() {
        let mut a = Memory::new("n", "d", mem_core::records::MemoryType::Feedback);
        a.confidence = Some(0.7);
        a.evidence = vec!["transcript:aaaaaaaaaaaa#3".into()];
        let mut b = a.clone();
        assert_eq!(
            merge(&a, &b).confidence,
            Some(0.7),
            "a rerun changes nothing"
        );
        b.evidence = vec!["transcript:bbbbbbbbbbbb#9".into()];
        let m = merge(&a, &b);
        assert_eq!(m.confidence, Some(0.8));
        assert_eq!(
            merge(&m, &b).confidence,
            Some(0.8),
            "the same second session again"
        );
    }

    use super::merge;
    use mem_core::{Memory, MemoryType};

    fn rec(desc: &str, day: &str, evidence: &[&str]) -> Memory {
        let mut m = Memory::new("Run gen before verify", desc, MemoryType::Feedback);
        m.verified_at = mem_core::time::parse_day(day);
        m.evidence = evidence.iter().map(|s| s.to_string()).collect();
        m
    }

    /// Two sessions give the same lesson on the same day: merging them in
    /// either order, then again, settles on one result (the write path is
    /// idempotent).
    #[test]
    fn same_day_merges_settle() {
        let a = rec("from session a", "2026-07-11", &["transcript:aaa#3"]);
        let b = rec("from session b", "2026-07-11", &["transcript:bbb#3"]);
        let ab = merge(&a, &b);
        assert_eq!(ab.description, "from session b");
        assert_eq!(ab.evidence, ["transcript:aaa#3", "transcript:bbb#3"]);
        // replaying a and b again changes nothing
        assert_eq!(merge(&ab, &a), ab);
        assert_eq!(merge(&merge(&ab, &a), &b), ab);
        // newer wins field by field, older never does
        let c = rec("newer", "2026-07-12", &[]);
        assert_eq!(merge(&ab, &c).description, "newer");
        assert_eq!(merge(&c, &a).description, "newer");
        // a hand edit without dates or evidence replaces the text
        let h1 = rec("old text", "", &[]);
        let h2 = rec("new text", "", &[]);
        assert_eq!(merge(&h1, &h2).description, "new text");
    }
}
