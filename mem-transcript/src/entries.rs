//! Entries Claude Code writes beside the conversation, read (not only
//! counted): `file-history-snapshot` (which files a session changed and
//! where their pre-edit backups are), `attribution-snapshot` (how many
//! characters of each file Claude wrote), `content-replacement` (tool
//! results the model saw as a shorter stand-in) and the context-collapse
//! entries `marble-origami-commit` / `marble-origami-snapshot`.
//!
//! Shapes (Claude Code 2.1):
//!
//! - `{"type":"file-history-snapshot","messageId":M,"snapshot":{"messageId":U,
//!   "trackedFileBackups":{PATH:{"backupFileName":NAME|null,"version":N,
//!   "backupTime":T}},"timestamp":T},"isSnapshotUpdate":B}` — `M` is the
//!   entry the snapshot belongs to (the user message that opened the turn,
//!   or for an update the assistant message whose tool changed a file);
//!   each snapshot lists every file tracked so far. A backup is
//!   `<claude dir>/file-history/<sessionId>/<NAME>`; `null` means the file
//!   did not exist when the backup was due (the session created it).
//! - `{"type":"attribution-snapshot","messageId":M,"surface":S,
//!   "fileStates":{PATH:{"contentHash":H,"claudeContribution":CHARS,"mtime":MS}},…}`
//! - `{"type":"content-replacement","sessionId":S,"agentId"?:A,
//!   "replacements":[{"kind":"tool-result","toolUseId":ID,"replacement":TEXT}]}`
//! - `{"type":"marble-origami-commit","sessionId":S,"collapseId":C,
//!   "summaryUuid":U,"summaryContent":TEXT,"summary":TEXT,
//!   "firstArchivedUuid":A,"lastArchivedUuid":B}`; `marble-origami-snapshot`
//!   `{"staged":[…],"armed":B,"lastSpawnTokens":N}` (the last one wins).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use mem_core::jsonl::sanitize;
use mem_core::{Error, Exit};
use serde::Serialize;
use serde_json::Value;

use crate::claude::{Branch, Extra, ExtraKind, Index, WalkOpts};
use crate::input::{Input, Source, Window, clean_line, key};

/// Tool results replaced by a stand-in: `toolUseId` → the exact text the
/// model saw ([`replacements`]).
pub type Replacements = foldhash::HashMap<String, String>;

/// Read the entries `extras` (in the order given) as JSON; a line that no
/// longer parses is skipped (pass 1 warned about it).
///
/// Errors: [`Error::Io`] reading the file.
pub fn read<'e>(
    input: &Input,
    extras: impl IntoIterator<Item = &'e Extra>,
) -> Result<Vec<(Extra, Value)>, Error> {
    let mut win = Window::new(&input.file);
    let mut out = Vec::new();
    for e in extras {
        let b = win
            .get(e.offset, e.len)
            .map_err(|err| Error::io(&input.label, err))?;
        let clean = clean_line(b);
        if let Ok(v) = serde_json::from_slice::<Value>(&sanitize(&clean)) {
            out.push((*e, v));
        }
    }
    Ok(out)
}

/// The content replacements of a session: `toolUseId` → the exact text the
/// model saw instead of the tool's output (`kind: "tool-result"` records of
/// every `content-replacement` entry; a later record for the same id wins).
/// Tool-use ids are unique, so records of sub-agents (`agentId`) never
/// touch another thread's results.
///
/// Errors: [`Error::Io`] reading the file.
pub fn replacements(input: &Input, ix: &Index) -> Result<Replacements, Error> {
    let mut map = Replacements::default();
    let crs = ix
        .extras
        .iter()
        .filter(|e| e.kind == ExtraKind::ContentReplacement);
    for (_, v) in read(input, crs)? {
        for r in v["replacements"].as_array().into_iter().flatten() {
            if r["kind"].as_str().is_some_and(|k| k != "tool-result") {
                continue;
            }
            if let (Some(id), Some(text)) = (r["toolUseId"].as_str(), r["replacement"].as_str()) {
                map.insert(id.to_string(), text.to_string());
            }
        }
    }
    Ok(map)
}

/// The entries of [`Index::extras`] that `replay --raw` keeps with a branch,
/// in file order: snapshots (`file-history-snapshot`,
/// `attribution-snapshot`) whose `messageId` is an entry of the branch, and
/// the session-wide ones (content replacements, context collapse) written
/// after the branch's first entry. A line that is itself a node of the
/// branch is not repeated.
///
/// Errors: [`Error::Io`] reading the file.
pub fn raw_extras(input: &Input, ix: &Index, br: &Branch) -> Result<Vec<Extra>, Error> {
    if ix.extras.is_empty() || br.nodes.is_empty() {
        return Ok(Vec::new());
    }
    let on_branch: HashSet<u128> = br.nodes.iter().map(|&i| ix.keys[i as usize]).collect();
    let lines: HashSet<usize> = br
        .nodes
        .iter()
        .map(|&i| ix.nodes[i as usize].line as usize)
        .collect();
    let first = br
        .nodes
        .iter()
        .map(|&i| ix.nodes[i as usize].line as usize)
        .min()
        .unwrap_or(0);
    let anchored: Vec<&Extra> = ix.extras.iter().filter(|e| e.kind.anchored()).collect();
    let mut keep: HashSet<usize> = read(input, anchored)?
        .into_iter()
        .filter(|(_, v)| {
            v["messageId"]
                .as_str()
                .is_some_and(|m| on_branch.contains(&key(m)))
        })
        .map(|(e, _)| e.line)
        .collect();
    keep.extend(
        ix.extras
            .iter()
            .filter(|e| !e.kind.anchored() && e.line > first)
            .map(|e| e.line),
    );
    Ok(ix
        .extras
        .iter()
        .filter(|e| keep.contains(&e.line) && !lines.contains(&e.line))
        .copied()
        .collect())
}

/// The latest entry of `kind` at or before the end of the branch: the one
/// whose `messageId` is the furthest entry along `br` (file order breaking
/// ties), with its line.
fn latest_on_branch(
    input: &Input,
    ix: &Index,
    br: &Branch,
    kind: ExtraKind,
) -> Result<Option<(Extra, Value)>, Error> {
    let pos: foldhash::HashMap<u128, usize> = br
        .nodes
        .iter()
        .enumerate()
        .map(|(p, &i)| (ix.keys[i as usize], p))
        .collect();
    let of_kind = ix.extras.iter().filter(|e| e.kind == kind);
    let mut best: Option<(usize, Extra, Value)> = None;
    for (e, v) in read(input, of_kind)? {
        let Some(p) = v["messageId"].as_str().and_then(|m| pos.get(&key(m))) else {
            continue;
        };
        if best.as_ref().is_none_or(|(bp, _, _)| *p >= *bp) {
            best = Some((*p, e, v));
        }
    }
    Ok(best.map(|(_, e, v)| (e, v)))
}

/// One file a session touched, as of an entry.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TrackedFile {
    /// The path as the session recorded it (relative to its cwd when inside it).
    pub file: String,
    /// The absolute path (the recorded one joined to the session's cwd).
    pub path: PathBuf,
    /// The backup's version (1 for the first edit; `None` when only
    /// attribution names the file).
    pub version: Option<u64>,
    /// When the backup was taken (RFC 3339, as recorded).
    pub backup_time: Option<String>,
    /// The backup's file: `<claude dir>/file-history/<session>/<backupFileName>`;
    /// `None` when the file did not exist before the session wrote it.
    pub backup: Option<PathBuf>,
    /// The backup file is there now (Claude Code keeps the 100 latest
    /// checkpoints and sweeps old sessions).
    pub backup_exists: bool,
    /// False when the file did not exist before the session's first edit
    /// of it (`backupFileName: null`).
    pub existed: bool,
    /// Characters of the file Claude wrote, from the latest
    /// `attribution-snapshot` (`None` when there is none for it).
    pub claude_chars: Option<u64>,
}

/// The files a session touched as of one entry (`mem-transcript files`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FilesAt {
    /// The session id (the transcript's `sessionId`, else its file stem).
    pub session: String,
    /// The entry the state is taken at (uuid; the branch's leaf).
    pub at: Option<String>,
    /// Line of the `file-history-snapshot` read (`None`: no snapshot).
    pub snapshot_line: Option<usize>,
    /// Line of the `attribution-snapshot` read.
    pub attribution_line: Option<usize>,
    /// The files, in the order the session first touched them.
    pub files: Vec<TrackedFile>,
}

/// The files the branch `br` of a session touched as of its leaf: the
/// latest `file-history-snapshot` at or before the leaf on the branch (each
/// snapshot lists every file tracked so far, with its newest backup), plus
/// the characters Claude wrote from the latest `attribution-snapshot`.
/// `claude_dir` is where Claude Code keeps `file-history/`.
///
/// Errors: [`Error::Io`] reading the file.
pub fn files_at(
    input: &Input,
    ix: &Index,
    br: &Branch,
    claude_dir: &Path,
) -> Result<FilesAt, Error> {
    let session = ix.session.clone().unwrap_or_else(|| {
        Path::new(&input.label)
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    });
    let at = br.leaf.and_then(|l| crate::report::uuid_of(input, ix, l));
    let cwd = ix.cwd.as_deref().map(PathBuf::from);
    let abs = |f: &str| match &cwd {
        Some(c) if Path::new(f).is_relative() => c.join(f),
        _ => PathBuf::from(f),
    };
    let backups = claude_dir.join("file-history").join(&session);
    let mut files: Vec<TrackedFile> = Vec::new();
    let snap = latest_on_branch(input, ix, br, ExtraKind::FileHistory)?;
    if let Some((_, v)) = &snap
        && let Some(tracked) = v["snapshot"]["trackedFileBackups"].as_object()
    {
        for (f, b) in tracked {
            let name = b["backupFileName"].as_str().filter(|n| safe_name(n));
            let backup = name.map(|n| backups.join(n));
            files.push(TrackedFile {
                file: f.clone(),
                path: abs(f),
                version: b["version"].as_u64(),
                backup_time: b["backupTime"].as_str().map(str::to_string),
                backup_exists: backup.as_deref().is_some_and(Path::is_file),
                backup,
                existed: !b["backupFileName"].is_null(),
                claude_chars: None,
            });
        }
    }
    let attr = latest_on_branch(input, ix, br, ExtraKind::Attribution)?;
    if let Some((_, v)) = &attr
        && let Some(states) = v["fileStates"].as_object()
    {
        for (f, st) in states {
            let chars = st["claudeContribution"].as_u64();
            let p = abs(f);
            match files.iter_mut().find(|t| t.path == p) {
                Some(t) => t.claude_chars = chars,
                None => files.push(TrackedFile {
                    file: f.clone(),
                    path: p,
                    version: None,
                    backup_time: None,
                    backup: None,
                    backup_exists: false,
                    existed: true,
                    claude_chars: chars,
                }),
            }
        }
    }
    Ok(FilesAt {
        session,
        at,
        snapshot_line: snap.map(|(e, _)| e.line),
        attribution_line: attr.map(|(e, _)| e.line),
        files,
    })
}

/// A backup name is one path component (never `..` or a path).
fn safe_name(n: &str) -> bool {
    !n.is_empty() && n != "." && n != ".." && !n.contains(['/', '\\', '\0'])
}

/// The transcript a `SESSION` argument names: an existing file, else a
/// session id looked up as `<claude dir>/projects/*/<id>.jsonl`.
///
/// Errors: [`Error::Input`] when neither exists.
pub fn session_file(arg: &Path, claude_dir: &Path) -> Result<PathBuf, Error> {
    if arg.exists() || arg.as_os_str() == "-" {
        return Ok(arg.to_path_buf());
    }
    let id = arg.to_string_lossy();
    let looks_like_id = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if looks_like_id && let Ok(rd) = std::fs::read_dir(claude_dir.join("projects")) {
        let mut found: Vec<PathBuf> = rd
            .flatten()
            .map(|d| d.path().join(format!("{id}.jsonl")))
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        if let Some(p) = found.into_iter().next() {
            return Ok(p);
        }
    }
    Err(Error::input(
        arg.display().to_string(),
        0,
        format!(
            "no such transcript, and no session {id:?} under {}",
            claude_dir.join("projects").display()
        ),
    ))
}

/// `mem-transcript files SESSION [--at UUID]`: the files the session
/// touched as of the entry (default: the end of the branch resume would
/// continue) and where each backup is; a table, or one JSON record per file.
///
/// Errors: [`Error::Input`] (not a Claude Code transcript, an unknown
/// `--at`), [`Error::Io`].
pub fn files(
    a: &crate::FilesCmdArgs,
    g: &crate::Global,
    text: bool,
    out: &mut dyn Write,
) -> Result<Exit, Error> {
    let claude_dir = mem_core::memdir::claude_dir()?;
    let path = session_file(&a.session, &claude_dir)?;
    let inp = Input::open(&path)?;
    if inp.size == 0 {
        crate::note(&format!("{}: empty session (0 bytes): no files", inp.label));
        return Ok(Exit::Success);
    }
    if crate::source_of(&inp, crate::FromArg::Auto)? != Source::Claude {
        return Err(Error::input(
            path.display().to_string(),
            0,
            "a Codex rollout records no file history (only Claude Code transcripts do)",
        ));
    }
    let ix = crate::claude::index_with(&inp, g.threads())?;
    crate::report_warnings(&ix.warnings, g.strict)?;
    if let Some(u) = &a.at
        && ix.find(u).is_none()
    {
        return Err(Error::input(
            &inp.label,
            0,
            format!("--at {u}: no entry with this uuid"),
        ));
    }
    let br = ix.walk(&WalkOpts {
        resume: false,
        leaf: a.at.clone(),
    })?;
    let state = files_at(&inp, &ix, &br, &claude_dir)?;
    let check = a.check || a.restore;
    let mut statuses: Vec<Option<FileStatus>> = state
        .files
        .iter()
        .map(|f| check.then(|| file_status(f)))
        .collect();
    if a.restore {
        let cwd = ix.cwd.as_deref().map(PathBuf::from);
        for (f, st) in state.files.iter().zip(statuses.iter_mut()) {
            if let Some(s) = st {
                *s = restore_one(f, *s, cwd.as_deref());
            }
        }
    }
    let io = |e| Error::io("<stdout>", e);
    if text {
        write_table(&state, &statuses, out).map_err(io)?;
    } else {
        for (f, st) in state.files.iter().zip(&statuses) {
            let mut v = serde_json::to_value(f).map_err(|e| io(e.into()))?;
            if let Value::Object(m) = &mut v {
                m.insert("session".into(), Value::String(state.session.clone()));
                m.insert(
                    "at".into(),
                    state.at.clone().map_or(Value::Null, Value::String),
                );
                m.insert("snapshot_line".into(), state.snapshot_line.into());
                if let Some(st) = st {
                    m.insert("status".into(), st.as_str().into());
                }
            }
            serde_json::to_writer(&mut *out, &v).map_err(|e| io(e.into()))?;
            out.write_all(b"\n").map_err(io)?;
        }
    }
    if state.snapshot_line.is_none() && state.attribution_line.is_none() {
        crate::note(&format!(
            "{}: no file-history snapshot on the branch{}: no files",
            inp.label,
            a.at.as_deref()
                .map(|u| format!(" up to {u}"))
                .unwrap_or_default()
        ));
    }
    Ok(Exit::Success)
}

/// How a tracked file on disk compares with its backup (`files --check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    /// The file holds the backup's bytes.
    Unchanged,
    /// The file differs from its backup.
    Changed,
    /// The file is not on disk (or not a regular file).
    Missing,
    /// The session created the file (no earlier content) and it is there.
    Created,
    /// The backup is gone (or the file was never backed up): nothing to
    /// compare with.
    NoBackup,
    /// `--restore` wrote the backup back.
    Restored,
    /// `--restore` left it alone: outside the session's working
    /// directory, a link, or the write failed (said on stderr).
    Refused,
}

impl FileStatus {
    /// The status as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Unchanged => "unchanged",
            FileStatus::Changed => "changed",
            FileStatus::Missing => "missing",
            FileStatus::Created => "created",
            FileStatus::NoBackup => "no-backup",
            FileStatus::Restored => "restored",
            FileStatus::Refused => "refused",
        }
    }
}

/// Most bytes of a file or backup compared.
pub const MAX_COMPARE: u64 = 64 << 20;

/// Compare `f` on disk with its backup (regular files only, never through
/// a link, at most [`MAX_COMPARE`] bytes each).
pub fn file_status(f: &TrackedFile) -> FileStatus {
    let read = |p: &Path| mem_core::confine::read_capped(p, MAX_COMPARE, false).ok();
    let disk = read(&f.path);
    match (&f.backup, f.existed) {
        (None, false) => {
            if disk.is_some() {
                FileStatus::Created
            } else {
                FileStatus::Missing
            }
        }
        (None, true) => FileStatus::NoBackup,
        (Some(b), _) => match (read(b), disk) {
            (None, _) => FileStatus::NoBackup,
            (Some(_), None) => FileStatus::Missing,
            (Some(b), Some(d)) if b == d => FileStatus::Unchanged,
            _ => FileStatus::Changed,
        },
    }
}

/// Write `f`'s backup back when it is `changed` or `missing` (see
/// [`crate::FilesCmdArgs::restore`]); the new status.
fn restore_one(f: &TrackedFile, st: FileStatus, cwd: Option<&Path>) -> FileStatus {
    if !matches!(st, FileStatus::Changed | FileStatus::Missing) {
        return st;
    }
    let Some(b) = &f.backup else { return st };
    let inside = cwd.is_some_and(|c| {
        f.path.starts_with(c)
            && !f
                .path
                .components()
                .any(|x| x == std::path::Component::ParentDir)
    });
    if !inside {
        crate::note(&format!(
            "{}: not restored: outside the session's working directory",
            f.path.display()
        ));
        return FileStatus::Refused;
    }
    // no component below the working directory may be a link
    let c = cwd.expect("inside");
    let mut p = c.to_path_buf();
    for comp in f.path.strip_prefix(c).unwrap_or(Path::new("")).components() {
        p.push(comp);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
            crate::note(&format!(
                "{}: not restored: {} is a symbolic link",
                f.path.display(),
                p.display()
            ));
            return FileStatus::Refused;
        }
    }
    let bytes = match mem_core::confine::read_capped(b, MAX_COMPARE, false) {
        Ok(b) => b,
        Err(e) => {
            crate::note(&format!("{}: not restored: {e}", f.path.display()));
            return FileStatus::Refused;
        }
    };
    let made = f
        .path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(|e| e.to_string());
    match made
        .and_then(|()| mem_core::atomic::write_atomic(&f.path, &bytes).map_err(|e| e.to_string()))
    {
        Ok(()) => FileStatus::Restored,
        Err(e) => {
            crate::note(&format!("{}: not restored: {e}", f.path.display()));
            FileStatus::Refused
        }
    }
}

fn write_table(
    s: &FilesAt,
    statuses: &[Option<FileStatus>],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "session {}  at {}  {} file(s){}",
        s.session,
        s.at.as_deref().unwrap_or("-"),
        s.files.len(),
        s.snapshot_line
            .map(|l| format!("  (snapshot at line {l})"))
            .unwrap_or_default()
    )?;
    if s.files.is_empty() {
        return Ok(());
    }
    let w = s
        .files
        .iter()
        .map(|f| f.file.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let check = statuses.iter().any(Option::is_some);
    writeln!(
        out,
        "{:<w$}  {:>7}  {:>11}  {}BACKUP",
        "FILE",
        "VERSION",
        "CLAUDE",
        if check { "STATUS     " } else { "" }
    )?;
    for (f, st) in s.files.iter().zip(statuses) {
        let backup = match (&f.backup, f.existed) {
            (Some(b), _) => format!(
                "{}{}",
                b.display(),
                if f.backup_exists { "" } else { "  (gone)" }
            ),
            (None, false) => "- (new file: no earlier content)".to_string(),
            (None, true) => "-".to_string(),
        };
        writeln!(
            out,
            "{:<w$}  {:>7}  {:>11}  {}{}",
            f.file,
            f.version.map_or("-".to_string(), |v| format!("v{v}")),
            f.claude_chars
                .map_or("-".to_string(), |c| format!("{c} chars")),
            st.map(|s| format!("{:<11}", s.as_str()))
                .unwrap_or_default(),
            backup
        )?;
    }
    Ok(())
}

/// A committed context collapse on a branch: the entries
/// `nodes[start..=end]` of the branch are what the model saw as `summary`.
#[derive(Debug, Clone, PartialEq)]
pub struct Collapse {
    /// First archived entry (index into the branch's nodes).
    pub start: usize,
    /// Last archived entry (index into the branch's nodes).
    pub end: usize,
    /// Line of the `marble-origami-commit` entry.
    pub line: usize,
    /// The placeholder's uuid (`summaryUuid`).
    pub uuid: Option<String>,
    /// The placeholder text (`summaryContent`, `<collapsed id="…">…</collapsed>`;
    /// `summary` when that is missing).
    pub text: String,
}

/// The committed context collapses of a branch, in branch order: each
/// `marble-origami-commit` whose `firstArchivedUuid` and
/// `lastArchivedUuid` are both on `br` in that order; a span that overlaps
/// an earlier one is left out (the earlier commit already archived it).
///
/// Errors: [`Error::Io`] reading the file.
pub fn collapses(input: &Input, ix: &Index, br: &Branch) -> Result<Vec<Collapse>, Error> {
    let commits = ix
        .extras
        .iter()
        .filter(|e| e.kind == ExtraKind::CollapseCommit);
    let mut out: Vec<Collapse> = Vec::new();
    let mut pos: Option<foldhash::HashMap<u128, usize>> = None;
    for (e, v) in read(input, commits)? {
        let pos = pos.get_or_insert_with(|| {
            br.nodes
                .iter()
                .enumerate()
                .map(|(p, &i)| (ix.keys[i as usize], p))
                .collect()
        });
        let at = |f: &str| v[f].as_str().and_then(|u| pos.get(&key(u)).copied());
        let (Some(start), Some(end)) = (at("firstArchivedUuid"), at("lastArchivedUuid")) else {
            continue;
        };
        let Some(text) = v["summaryContent"]
            .as_str()
            .or_else(|| v["summary"].as_str())
            .filter(|t| !t.trim().is_empty())
        else {
            continue;
        };
        if start > end || out.iter().any(|c| start <= c.end && c.start <= end) {
            continue;
        }
        out.push(Collapse {
            start,
            end,
            line: e.line,
            uuid: v["summaryUuid"].as_str().map(str::to_string),
            text: text.to_string(),
        });
    }
    out.sort_by_key(|c| c.start);
    Ok(out)
}
