//! The cross-project guard (docs/recall.md "Other projects"; case B23).
//!
//! Claude Code's project-folder name is lossy (`/x/test-project` and
//! `/x/test/project` share `-x-test-project`), so one folder, and the memory
//! directory in it, can hold sessions of several projects. The guard reads
//! the `cwd` each session in the folder was recorded in (its first entry
//! that has one); when any lies outside the current project's worktrees, the
//! folder is shared: recall warns and keeps only memories of the current
//! project (`project` equal to its id, `scope: all-repos`, or `type: user`
//! without a project stamp).
//!
//! The recorded cwd of a session file never changes, so it is cached by file
//! name next to the recall cache.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use mem_core::session::HEAD_BYTES;

/// What the guard found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shared {
    /// The current project's id.
    pub project: String,
    /// The folder(s) examined.
    pub folders: Vec<PathBuf>,
    /// Recorded cwds that lie outside the current project.
    pub foreign: Vec<String>,
}

/// The first recorded `cwd` of a session file (Claude entries' `cwd`, or a
/// Codex `session_meta` payload's), read from its first [`HEAD_BYTES`]
/// ([`mem_core::session::head`]).
pub fn session_cwd(path: &Path) -> Option<String> {
    mem_core::session::head(path).cwd
}

/// The guard's cache file, in the memory dir's cache folder.
pub const CACHE_FILE: &str = "sessions.json";

/// Check the transcript folders of `cwd` (the folder named by the slug of
/// the project root `root` — `memdir::project_root(cwd, per_worktree)` —
/// and of `cwd` itself, under `projects`). Returns `Some` when a session was
/// recorded outside the project; `cache` remembers each file's cwd.
pub fn check(cwd: &Path, root: &Path, per_worktree: bool, cache: Option<&Path>) -> Option<Shared> {
    let projects = mem_core::memdir::projects_dir().ok()?;
    let mut folders: Vec<PathBuf> = [mem_core::memdir::slug(root), mem_core::memdir::slug(cwd)]
        .into_iter()
        .map(|s| projects.join(s))
        .collect();
    folders.dedup();
    folders.retain(|f| f.is_dir());
    if folders.is_empty() {
        return None;
    }
    let root = root.to_path_buf();
    let mut roots = if per_worktree {
        vec![root.clone()]
    } else {
        mem_core::memdir::project_worktrees(cwd)
    };
    if !roots.contains(&root) {
        roots.push(root.clone());
    }
    let mut known: BTreeMap<String, String> = cache
        .and_then(|c| std::fs::read(c).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut changed = false;
    let mut foreign = Vec::new();
    for folder in &folders {
        let Ok(rd) = std::fs::read_dir(folder) else {
            continue;
        };
        for ent in rd.flatten() {
            let path = ent.path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let key = path.to_string_lossy().into_owned();
            let rec = match known.get(&key) {
                Some(c) => Some(c.clone()),
                None => {
                    let c = session_cwd(&path);
                    if let Some(c) = &c {
                        known.insert(key, c.clone());
                        changed = true;
                    }
                    c
                }
            };
            if let Some(c) = rec
                && !mem_core::memdir::cwd_in_roots(&c, &roots)
                && !foreign.contains(&c)
            {
                foreign.push(c);
            }
        }
    }
    if changed && let (Some(c), Ok(bytes)) = (cache, serde_json::to_vec(&known)) {
        let _ = crate::state::write(c, &bytes, true);
    }
    foreign.sort();
    (!foreign.is_empty()).then(|| Shared {
        project: mem_core::memdir::project_id(&root),
        folders,
        foreign,
    })
}
