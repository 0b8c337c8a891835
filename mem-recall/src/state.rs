//! The hook's own files (the recall cache, a session's lists and state,
//! in the cache folder; see docs/memory-dir.md "The hook's time budget"):
//! written atomically, and the temp files of writers ended mid-write swept.

use std::path::Path;
use std::time::Duration;

/// How long a temp file (`.mem-*.tmp`) may stand in one of the hook's
/// folders before a later write there removes it: far longer than any
/// write takes, so only the temp files of a process ended mid-write (the
/// budget's `_exit`, a kill by the agent) go.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(60);

/// Write one of the hook's own files (the recall cache, a session's lists)
/// atomically — fsync'ed when `sync` ([`mem_core::atomic::write_atomic`]),
/// else [`mem_core::atomic::write_unsynced`] — then remove the temp files
/// older than [`STALE_TEMP_AGE`] that processes ended mid-write (by the
/// hook's time budget, mem-hook's `budget`) left in the same folder.
///
/// Errors: the write's ([`mem_core::Error::Io`] naming `path`); the sweep
/// ignores its own.
pub fn write(path: &Path, bytes: &[u8], sync: bool) -> mem_core::Result<()> {
    if sync {
        mem_core::atomic::write_atomic(path, bytes)?;
    } else {
        mem_core::atomic::write_unsynced(path, bytes)?;
    }
    if let Some(dir) = path.parent() {
        mem_core::atomic::sweep_temp_files(dir, STALE_TEMP_AGE);
    }
    Ok(())
}

/// Remove the temp files processes ended mid-write left in the hook's
/// folders of the memory directory `memory_dir`: its cache folder and, with
/// `session`, that session's folder ([`mem_core::atomic::sweep_temp_files`]:
/// a dead writer's at once, any other after [`STALE_TEMP_AGE`]). Run at the
/// start of every hook that reads them, so a hook that writes nothing
/// still clears what an earlier one cut off by its budget left. Returns how
/// many files were removed.
pub fn sweep(memory_dir: &Path, session: Option<&str>) -> usize {
    let Ok(cache) = mem_core::memdir::cache_dir_for(memory_dir) else {
        return 0;
    };
    let mut n = mem_core::atomic::sweep_temp_files(&cache, STALE_TEMP_AGE);
    if let Some(sid) = session
        && let Ok(d) = mem_core::memdir::session_state_dir(memory_dir, sid)
    {
        n += mem_core::atomic::sweep_temp_files(&d, STALE_TEMP_AGE);
    }
    n
}
