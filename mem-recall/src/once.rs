//! Once per session: what the prompt hook already injected into a session,
//! so that each memory enters an agent's context at most once per session
//! (docs/hooks.md "Once per session").
//!
//! State: `injected.json` in the session's hook-state folder
//! ([`mem_core::memdir::session_state_dir`]), shared by `SessionStart` and
//! `UserPromptSubmit`:
//!
//! ```json
//! {"version":1,"memories":{"<id>":"<16 hex of BLAKE3 of the injected text>"},
//!  "reset":{"source":"compact","at_ms":1764585600000}}
//! ```
//!
//! - A memory is injected again when its injected text changed (it was
//!   edited since: the new text is news to the agent), never when only the
//!   prompt changed.
//! - `SessionStart` with `source` `clear` or `compact` empties the list: the
//!   context that held the memories is gone. `startup` and `resume` keep it
//!   (a resumed session's context still holds what was injected). A second
//!   reset by the same source within [`RESET_WINDOW_MS`] is the same event
//!   run twice (duplicate hooks) and changes nothing.
//! - Concurrent hooks of one session take turns on `injected.lock` (an
//!   exclusive file lock held while the list is read, filtered and written);
//!   the list is replaced atomically (temp file + rename).
//! - A list that does not parse is reported on stderr and started afresh.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::NAME;
use crate::gate::{Action, Decision};
use crate::load::Item;

/// The state file's name in the session's hook-state folder.
pub const STATE_FILE: &str = "injected.json";

/// The lock file's name in the session's hook-state folder.
pub const LOCK_FILE: &str = "injected.lock";

/// Layout version of [`STATE_FILE`].
pub const STATE_VERSION: u32 = 1;

/// Two resets by the same `source` closer than this (milliseconds) are one
/// event delivered twice.
pub const RESET_WINDOW_MS: u64 = 10_000;

/// The last reset of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reset {
    /// The `SessionStart` source that reset it (`clear`, `compact`).
    pub source: String,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

/// The contents of [`STATE_FILE`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// [`STATE_VERSION`].
    #[serde(default)]
    pub version: u32,
    /// Memory id → digest of the text injected ([`digest`]).
    #[serde(default)]
    pub memories: BTreeMap<String, String>,
    /// The last reset, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<Reset>,
}

/// First 16 hex digits of BLAKE3 of the text a memory is injected as.
pub fn digest(text: &str) -> String {
    mem_core::store::hash_bytes(text.as_bytes())
}

/// True when a `SessionStart` of this `source` empties the list.
pub fn resets(source: Option<&str>) -> bool {
    matches!(source, Some("clear" | "compact"))
}

/// A session's list, locked for the life of the value.
pub struct Session {
    dir: PathBuf,
    state: State,
    changed: bool,
    // held until drop: other hooks of the session wait
    _lock: File,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl Session {
    /// Lock and read the list of session `session_id` of `memory_dir`;
    /// with `reset_by` (a `SessionStart` source that [`resets`]) it is
    /// emptied, unless the same source reset it within
    /// [`RESET_WINDOW_MS`].
    ///
    /// Errors: the state folder or lock cannot be created or locked.
    pub fn open(
        memory_dir: &Path,
        session_id: &str,
        reset_by: Option<&str>,
    ) -> crate::Result<Session> {
        let dir = mem_core::memdir::session_state_dir(memory_dir, session_id)?;
        Session::open_in(dir, reset_by)
    }

    /// [`Session::open`] on the state folder `dir` itself (created when
    /// missing).
    ///
    /// Errors: see [`Session::open`].
    pub fn open_in(dir: PathBuf, reset_by: Option<&str>) -> crate::Result<Session> {
        std::fs::create_dir_all(&dir).map_err(|err| crate::RecallError::Cannot {
            action: "create",
            path: dir.clone(),
            err,
        })?;
        let lock_path = dir.join(LOCK_FILE);
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|err| crate::RecallError::Cannot {
                action: "open",
                path: lock_path.clone(),
                err,
            })?;
        lock.lock().map_err(|err| crate::RecallError::Cannot {
            action: "lock",
            path: lock_path.clone(),
            err,
        })?;
        let path = dir.join(STATE_FILE);
        let state = match std::fs::read(&path) {
            Ok(b) => match serde_json::from_slice::<State>(&b) {
                Ok(s) if s.version == STATE_VERSION => s,
                Ok(s) => {
                    eprintln!(
                        "{NAME}: hook: {}: version {} is not {STATE_VERSION}; started afresh",
                        path.display(),
                        s.version
                    );
                    State::default()
                }
                Err(e) => {
                    eprintln!(
                        "{NAME}: hook: {}: line {}: {e}; started afresh",
                        path.display(),
                        e.line()
                    );
                    State::default()
                }
            },
            Err(_) => State::default(),
        };
        let mut s = Session {
            dir,
            state,
            changed: false,
            _lock: lock,
        };
        s.state.version = STATE_VERSION;
        if let Some(src) = reset_by.filter(|s| resets(Some(s))) {
            let now = now_ms();
            let repeat =
                s.state.reset.as_ref().is_some_and(|r| {
                    r.source == src && now.saturating_sub(r.at_ms) < RESET_WINDOW_MS
                });
            if !repeat {
                s.state.memories.clear();
                s.state.reset = Some(Reset {
                    source: src.to_string(),
                    at_ms: now,
                });
                s.changed = true;
            }
        }
        Ok(s)
    }

    /// True when memory `id` was injected with this `digest`.
    pub fn has(&self, id: &str, digest: &str) -> bool {
        self.state.memories.get(id).is_some_and(|d| d == digest)
    }

    /// Record that memory `id` was injected with this `digest`.
    pub fn mark(&mut self, id: &str, digest: &str) {
        if !self.has(id, digest) {
            self.state
                .memories
                .insert(id.to_string(), digest.to_string());
            self.changed = true;
        }
    }

    /// The state as it stands.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Write the list when it changed (atomically), then unlock.
    ///
    /// Errors: the write failed.
    pub fn commit(self) -> crate::Result<()> {
        if self.changed {
            let path = self.dir.join(STATE_FILE);
            let bytes = serde_json::to_vec(&self.state)?;
            mem_core::atomic::write_unsynced(&path, &bytes)?;
        }
        Ok(())
    }
}

/// What the hook injects for session `session_id` of `memory_dir`: the
/// list is opened (and reset by `reset_by`, see [`Session::open`]),
/// [`select`] picks within the hook's budget
/// ([`crate::hook::HOOK_MAX_ITEMS`], [`crate::hook::HOOK_MAX_TOKENS`]), and
/// the list is written back. Nothing recalled and no reset due → no state
/// is touched or created.
///
/// Errors: see [`Session::open`], [`Session::commit`].
pub fn memories(
    memory_dir: &Path,
    session_id: &str,
    reset_by: Option<&str>,
    items: &[Item],
    ds: &[Decision],
) -> crate::Result<Vec<crate::render::Recalled>> {
    let any = ds.iter().any(|d| d.action == Action::Recall);
    if !any {
        let dir = mem_core::memdir::session_state_dir(memory_dir, session_id)?;
        if !(resets(reset_by) && dir.join(STATE_FILE).exists()) {
            return Ok(Vec::new());
        }
    }
    let mut sess = Session::open(memory_dir, session_id, reset_by)?;
    let m = select(
        &mut sess,
        items,
        ds,
        crate::hook::HOOK_MAX_ITEMS,
        crate::hook::HOOK_MAX_TOKENS,
    );
    sess.commit()?;
    Ok(m)
}

/// The memories to inject for `ds` (decisions over `items`, ranked, made
/// without a budget): the recalled ones in rank order, less those `sess`
/// already injected with the same text, within `max_items` memories and
/// `max_tokens` tokens (the gate's count, ceil(bytes / 4)); each one taken
/// is marked in `sess`. A memory whose file cannot be read is reported on
/// stderr and left out.
pub fn select(
    sess: &mut Session,
    items: &[Item],
    ds: &[Decision],
    max_items: usize,
    max_tokens: usize,
) -> Vec<crate::render::Recalled> {
    let mut out = Vec::new();
    let mut tokens = 0usize;
    for d in ds.iter().filter(|d| d.action == Action::Recall) {
        if out.len() >= max_items {
            break;
        }
        let it = &items[d.doc];
        let id = it.doc.id.to_string();
        let m = match it.memory() {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{NAME}: {e} (not injected)");
                continue;
            }
        };
        let dg = digest(&crate::render::memory_md_in(&id, &m, it.tier));
        if sess.has(&id, &dg) {
            continue;
        }
        if tokens + it.doc.tokens > max_tokens {
            break;
        }
        tokens += it.doc.tokens;
        sess.mark(&id, &dg);
        out.push(crate::render::Recalled {
            id,
            memory: m,
            tier: it.tier,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_persist_and_resets_clear_them_once() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("sessions/s1");
        let open = |src: Option<&str>| Session::open_in(dir.clone(), src).unwrap();
        let mut s = open(None);
        assert!(!s.has("a", "d1"));
        s.mark("a", "d1");
        s.commit().unwrap();
        let s = open(Some("resume"));
        assert!(s.has("a", "d1"));
        assert!(!s.has("a", "d2"), "an edited memory is not the same");
        drop(s);
        let s = open(Some("compact"));
        assert!(!s.has("a", "d1"), "compaction empties the list");
        let mut s2 = s;
        s2.mark("a", "d1");
        s2.commit().unwrap();
        // the same compaction delivered twice: not emptied again
        let s = open(Some("compact"));
        assert!(s.has("a", "d1"));
        assert_eq!(s.state().reset.as_ref().unwrap().source, "compact");
    }
}
