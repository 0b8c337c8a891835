//! Agent-memory snapshots shared through git (`snapshot save|sync`):
//! `<root>/.claude/agent-memory-snapshot/<agent>/` with `snapshot.json`
//! (`{"updatedAt": …}`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use mem_core::error::Error;

use crate::error::{IndexError, Result};
use mem_core::{confine, store};

/// The snapshot folder of a project-scope agent directory
/// `<root>/.claude/agent-memory/<agent>` →
/// `<root>/.claude/agent-memory-snapshot/<agent>`.
pub fn snapshot_dir(project_scope_dir: &Path) -> Option<PathBuf> {
    let agent = project_scope_dir.file_name()?;
    let claude = project_scope_dir.parent()?.parent()?;
    Some(claude.join("agent-memory-snapshot").join(agent))
}

fn topic_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let (files, _) = store::list_files(dir)?;
    Ok(files.into_iter().map(|(_, p)| p).collect())
}

/// Copy the topic files and `MEMORY.md` of `from` into `to` (atomic writes,
/// unchanged files left alone), removing topic files of `to` that `from`
/// lacks when `mirror`. Returns the number of files written.
pub fn copy_dir(from: &Path, to: &Path, mirror: bool) -> Result<usize> {
    let mut n = 0;
    let mut names = Vec::new();
    for p in topic_files(from)? {
        let name = p.file_name().expect("file name").to_owned();
        let bytes = confine::read_capped(&p, confine::MAX_TOPIC_BYTES, false)?;
        if confine::write_if_changed(to, &to.join(&name), &bytes)? {
            n += 1;
        }
        names.push(name);
    }
    let idx = from.join(store::INDEX_FILE);
    if let Ok(bytes) = confine::read_capped(&idx, confine::MAX_TOPIC_BYTES, false)
        && confine::write_if_changed(to, &to.join(store::INDEX_FILE), &bytes)?
    {
        n += 1;
    }
    if mirror {
        for p in topic_files(to)? {
            if !names.iter().any(|n| Some(n.as_os_str()) == p.file_name()) {
                confine::remove_file(to, &p)?;
                n += 1;
            }
        }
    }
    Ok(n)
}

/// `snapshot save`: copy the project scope `scope_dir` into its snapshot
/// folder with `snapshot.json` (`{"updatedAt": now}`). Returns the snapshot
/// folder and the number of files written.
///
/// Errors: [`IndexError::NotAgentMemoryFolder`] when `scope_dir` is not a
/// project-scope agent folder; [`Error::Io`].
pub fn snapshot_save(scope_dir: &Path, now: &str) -> Result<(PathBuf, usize)> {
    let snap = snapshot_dir(scope_dir)
        .ok_or_else(|| IndexError::NotAgentMemoryFolder(scope_dir.to_path_buf()))?;
    std::fs::create_dir_all(&snap).map_err(|e| Error::io(&snap, e))?;
    let n = copy_dir(scope_dir, &snap, true)?;
    let meta = SnapshotMeta {
        updated_at: now.to_string(),
    };
    confine::write_atomic(
        &snap,
        &snap.join("snapshot.json"),
        format!("{}\n", serde_json::to_string_pretty(&meta).expect("json")).as_bytes(),
    )?;
    Ok((snap, n))
}

/// `snapshot.json` of a snapshot folder (written pretty), and the marker of
/// the snapshot a local scope last took ([`synced_marker`], one line):
/// `{"updatedAt": RFC 3339 UTC}`. Other keys are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotMeta {
    /// When the snapshot was saved.
    #[serde(rename = "updatedAt")]
    pub updated_at: String,
}

impl SnapshotMeta {
    /// The metadata in the file at `path`; `None` when it is missing or
    /// does not hold a string `updatedAt`.
    pub fn read(path: &Path) -> Option<SnapshotMeta> {
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// The `updatedAt` of a snapshot folder, if any.
pub fn snapshot_updated_at(snap: &Path) -> Option<String> {
    SnapshotMeta::read(&snap.join("snapshot.json")).map(|m| m.updated_at)
}

/// Where a local scope remembers the snapshot it last took.
pub fn synced_marker(local: &Path) -> PathBuf {
    local.join(store::STATE_DIR).join("snapshot-synced.json")
}
