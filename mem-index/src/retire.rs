//! `retire` and `restore`: move a topic file to `retired/` (or delete it)
//! and back, marked in the journal until the index is rewritten.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::error::{IndexError, Result};
use mem_core::index_md::Rendered;
use mem_core::records::IndexOp;
use mem_core::store::{self, IndexGuard, Store};
use mem_core::{confine, frontmatter, id};

use crate::index_file::write_index;

/// A free path for the retired copy of `id` ([`store::retired_rel`]).
fn retired_path(dir: &Path, id: &str, today: NaiveDate) -> PathBuf {
    dir.join(store::retired_rel(id, today, |rel| dir.join(rel).exists()))
}

/// Retire one topic of the in-memory store (no index rebuild).
pub(crate) fn retire_in(
    st: &mut Store,
    id: &str,
    reason: &str,
    today: NaiveDate,
    purge: bool,
) -> Result<IndexOp> {
    let dir = st.dir.clone();
    let src = id::safe_join(&dir, id, ".md")?;
    if purge {
        mem_core::journal::crash_point();
        confine::remove_file(&dir, &src)?;
        st.topics.retain(|t| t.id != id);
        st.broken.retain(|b| b.id != id);
        return Ok(IndexOp::Purge {
            id: id.into(),
            path: src.display().to_string(),
            reason: reason.into(),
        });
    }
    let dest = retired_path(&dir, id, today);
    // `retired/` may be a symlink (or hold one) leading out of the memory
    // dir: refused, never followed.
    if let Some(rdir) = dest.parent() {
        confine::create_dirs(&dir, rdir)?;
    }
    confine::check_below(&dir, &dest)?;
    id::contained(&dir, &dest)?;
    if let Some(i) = st.topics.iter().position(|t| t.id == id) {
        let mut m = st.topics[i].memory.clone();
        m.hash = None;
        m.retired_at = Some(today);
        m.retired_reason = Some(reason.to_string());
        mem_core::journal::crash_point();
        confine::write_atomic(&dir, &dest, frontmatter::render(&m).as_bytes())?;
        mem_core::journal::crash_point();
        confine::remove_file(&dir, &src)?;
        st.topics.remove(i);
    } else if st.broken.iter().any(|b| b.id == id) {
        // Unparsable: moved as it is, byte for byte.
        mem_core::journal::crash_point();
        confine::rename(&dir, &src, &dest)?;
        st.broken.retain(|b| b.id != id);
    } else {
        return Err(IndexError::NoSuchTopic(src));
    }
    Ok(IndexOp::Retire {
        id: id.into(),
        path: dest.display().to_string(),
        reason: reason.into(),
    })
}

/// Retire topic `id` of `dir`: move it to `retired/` with `retired_at` =
/// `today` and `retired_reason` in its frontmatter (an unparsable file is
/// moved unchanged), or delete it with `purge`; then rebuild the index.
///
/// Errors: a bad id; [`IndexError::NoSuchTopic`]; an I/O error naming the
/// file.
pub fn retire(
    _lock: &IndexGuard,
    dir: &Path,
    id: &str,
    reason: &str,
    today: NaiveDate,
    purge: bool,
) -> Result<(IndexOp, Rendered)> {
    id::validate_id(id)?;
    let mut st = store::load(dir)?;
    if st.get(id).is_none() && st.get_broken(id).is_none() {
        let src = id::safe_join(dir, id, ".md")?;
        return Err(IndexError::NoSuchTopic(src));
    }
    // Marked unfinished until the index is written: a killed retire is
    // rolled forward by the next writer (mem_core::journal::begin_move).
    let from = format!("{id}.md");
    if purge {
        mem_core::journal::begin_write(dir)?;
    } else {
        let dest = retired_path(dir, id, today);
        let to = dest
            .strip_prefix(dir)
            .map_or_else(|_| from.clone(), |p| p.to_string_lossy().into_owned());
        mem_core::journal::begin_move(dir, &from, &to)?;
    }
    let r = retire_in(&mut st, id, reason, today, purge)?;
    mem_core::journal::crash_point();
    let idx = write_index(&st, today)?;
    mem_core::journal::end_write(dir)?;
    Ok((r, idx))
}

/// Bring `retired/<id>.md` back as a topic (without `retired_at` /
/// `retired_reason`), then rebuild the index.
///
/// Errors: [`IndexError::NotRetired`], [`IndexError::TopicExists`]; an
/// I/O error naming the file.
pub fn restore(
    _lock: &IndexGuard,
    dir: &Path,
    id: &str,
    today: NaiveDate,
) -> Result<(PathBuf, Rendered)> {
    id::validate_id(id)?;
    let rdir = dir.join(store::RETIRED_DIR);
    let src = id::safe_join(&rdir, id, ".md")?;
    let dest = id::safe_join(dir, id, ".md")?;
    if !src.exists() {
        return Err(IndexError::NotRetired(src));
    }
    if dest.exists() {
        return Err(IndexError::TopicExists(dest));
    }
    let text =
        mem_core::confine::read_text_capped(&src, mem_core::confine::MAX_TOPIC_BYTES, false)?;
    let label = format!("{}/{id}.md", store::RETIRED_DIR);
    // Marked unfinished until the index is written (see `retire`).
    mem_core::journal::begin_move(dir, &label, &format!("{id}.md"))?;
    match frontmatter::parse(&label, &text) {
        Ok(mut m) => {
            m.retired_at = None;
            m.retired_reason = None;
            mem_core::journal::crash_point();
            confine::write_atomic(dir, &dest, frontmatter::render(&m).as_bytes())?;
            mem_core::journal::crash_point();
            confine::remove_file(dir, &src)?;
        }
        Err(_) => {
            mem_core::journal::crash_point();
            confine::rename(dir, &src, &dest)?;
        }
    }
    mem_core::journal::crash_point();
    let st = store::load(dir)?;
    let idx = write_index(&st, today)?;
    mem_core::journal::end_write(dir)?;
    Ok((dest, idx))
}

#[cfg(test)]
mod tests {
    /// Regression: `retired/` a symlink to a folder outside the memory dir
    /// made `retire` move the topic out of it. Now refused, nothing moved.
    #[test]
    fn retire_never_follows_a_symlinked_retired_dir_out() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("memory");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(
            dir.join("a.md"),
            "---\nname: \"A\"\ndescription: \"a\"\ntype: user\n---\nFact: a.\n",
        )
        .unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("retired")).unwrap();
        let lock = mem_core::store::lock_index(&dir).unwrap();
        let today = mem_core::time::parse_day("2026-07-13").unwrap();
        let err = super::retire(&lock, &dir, "a", "test", today, false).unwrap_err();
        assert!(err.to_string().contains("retired"), "{err}");
        assert!(dir.join("a.md").is_file());
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }
}
