//! `MEMORY.md` of a memory directory: read it whole for an update, update
//! it for the topic files (lines mem did not write kept), rebuild it.

use std::collections::HashSet;
use std::path::Path;

use chrono::NaiveDate;

use mem_core::confine;
use mem_core::error::Error;

use crate::error::{IndexError, Result};
use mem_core::index_md::{self, Rendered};
use mem_core::store::{self, IndexGuard, Store};

pub use mem_core::confine::INDEX_UPDATE_BYTES;

/// Warnings about a loaded directory: unparsable files (left unchanged)
/// and file names that are not valid ids.
pub fn store_warnings(st: &Store) -> Vec<String> {
    let mut w = Vec::new();
    for b in &st.broken {
        w.push(format!("{} (left unchanged)", b.error));
    }
    for b in &st.bad_names {
        w.push(format!(
            "{}: not a valid topic id, ignored ({})",
            b.path.display(),
            b.error
        ));
    }
    w
}

/// The file names (`x.md`) of a store's files whose names are not valid
/// ids: index lines pointing at them are kept.
pub fn other_files(st: &Store) -> HashSet<String> {
    st.bad_names
        .iter()
        .filter_map(|b| b.path.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

/// The whole `MEMORY.md` at `path` as text, `None` when there is none.
///
/// Errors: a file over [`INDEX_UPDATE_BYTES`] or not valid UTF-8
/// ([`IndexError::IndexTooLarge`], [`IndexError::IndexNotUtf8`]: it is
/// left unchanged), or what
/// [`confine::read_prefix`] refuses (not a regular file, a link).
pub fn read_index_for_update(path: &Path) -> Result<Option<String>> {
    let (bytes, more) = match confine::read_prefix(path, INDEX_UPDATE_BYTES, false) {
        Ok(r) => r,
        Err(Error::Io { err, .. }) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    if more {
        return Err(IndexError::IndexTooLarge(path.to_path_buf()));
    }
    match String::from_utf8(bytes) {
        Ok(t) => Ok(Some(t)),
        Err(e) => Err(IndexError::IndexNotUtf8 {
            path: path.to_path_buf(),
            valid_up_to: e.utf8_error().valid_up_to(),
        }),
    }
}

/// Update `MEMORY.md` for `st` ([`index_md::update`]: lines mem did not
/// write kept verbatim, mem's entries rewritten in place) and write it when
/// it changed. An index that would be empty is not created.
///
/// Errors: [`Error::Io`] when it cannot be read (other than missing) or
/// written.
pub fn write_index(st: &Store, today: NaiveDate) -> Result<Rendered> {
    let path = st.dir.join(store::INDEX_FILE);
    let old = read_index_for_update(&path)?;
    let entries = index_md::entries_for(st, old.as_deref());
    let r = index_md::update(old.as_deref(), &entries, &other_files(st), today);
    if old.is_none() && r.text.is_empty() {
        return Ok(r);
    }
    confine::write_if_changed(&st.dir, &path, r.text.as_bytes())?;
    Ok(r)
}

/// Rebuild `MEMORY.md` of `dir` from its topic files.
///
/// Errors: [`Error::Io`] when the directory cannot be read or the index
/// cannot be written.
pub fn reindex(_lock: &IndexGuard, dir: &Path, today: NaiveDate) -> Result<(Rendered, Store)> {
    let st = store::load(dir)?;
    if !dir.is_dir() {
        return Ok((index_md::render(&[], today), st));
    }
    let r = write_index(&st, today)?;
    Ok((r, st))
}
