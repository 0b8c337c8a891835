//! Agent-memory snapshots shared through git (`snapshot save|sync`):
//! `<root>/.claude/agent-memory-snapshot/<agent>/` with `snapshot.json`
//! (`{"updatedAt": …}`).

use std::path::{Path, PathBuf};

use serde_json::json;

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
/// Errors: [`Error::Msg`] when `scope_dir` is not a project-scope agent
/// folder; [`Error::Io`].
pub fn snapshot_save(scope_dir: &Path, now: &str) -> Result<(PathBuf, usize)> {
    let snap = snapshot_dir(scope_dir)
        .ok_or_else(|| IndexError::NotAgentMemoryFolder(scope_dir.to_path_buf()))?;
    std::fs::create_dir_all(&snap).map_err(|e| Error::io(&snap, e))?;
    let n = copy_dir(scope_dir, &snap, true)?;
    let meta = json!({ "updatedAt": now });
    confine::write_atomic(
        &snap,
        &snap.join("snapshot.json"),
        format!("{}\n", serde_json::to_string_pretty(&meta).expect("json")).as_bytes(),
    )?;
    Ok((snap, n))
}

/// The `updatedAt` of a snapshot folder, if any.
pub fn snapshot_updated_at(snap: &Path) -> Option<String> {
    let text = std::fs::read_to_string(snap.join("snapshot.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("updatedAt")?.as_str().map(String::from)
}

/// Where a local scope remembers the snapshot it last took.
pub fn synced_marker(local: &Path) -> PathBuf {
    local.join(store::STATE_DIR).join("snapshot-synced.json")
}
