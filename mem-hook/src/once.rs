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
//!  "files":{"<id>":"<fingerprint of the topic file injected>"},
//!  "reset":{"source":"compact","at_ms":1764585600000}}
//! ```
//!
//! - A memory is injected again when its injected text changed (it was
//!   edited since: the new text is news to the agent), never when only the
//!   prompt changed.
//! - `files` spares the re-reading: a memory whose topic file still has the
//!   fingerprint ([`fingerprint`]) it had when it was injected is known
//!   unchanged without reading and parsing the file again. A file without
//!   one (changed within [`mem_recall::load::RACY_SECS`] of its injection, or
//!   from an older list) is read and its text's digest compared, as
//!   before.
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

use mem_recall::NAME;
use mem_recall::gate::{Action, Decision};
use mem_recall::load::Item;

/// Most memories one hook answer injects.
pub const HOOK_MAX_ITEMS: usize = 20;

/// Most tokens (ceil(bytes / 4)) of memories one hook answer injects.
pub const HOOK_MAX_TOKENS: usize = 2000;

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
    /// Memory id → [`fingerprint`] of its topic file when it was injected
    /// (ids in [`State::memories`] only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
    /// The last reset, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<Reset>,
}

/// First 16 hex digits of BLAKE3 of what the text a memory is injected as
/// says: its evidence pointers (`transcript:<digest>#<line>`, which a
/// writer moves to the newest sighting without changing what the memory
/// says) are left out, so a memory whose only change is where it was last
/// seen is not injected again. The frontmatter's `evidence`,
/// `verified_at`, `confidence` and `hash` are not part of the injected text
/// at all.
pub fn digest(text: &str) -> String {
    mem_core::store::hash_bytes(without_pointers(text).as_bytes())
}

/// `text` with each evidence pointer `transcript:<digest>#<line>` cut to
/// `transcript:#`.
fn without_pointers(text: &str) -> std::borrow::Cow<'_, str> {
    const P: &str = "transcript:";
    if !text.contains(P) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(P) {
        let (head, tail) = rest.split_at(at + P.len());
        out.push_str(head);
        let id = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tail.len());
        let after = &tail[id..];
        match after.strip_prefix('#') {
            Some(num) if id > 0 => {
                let n = num.find(|c: char| !c.is_ascii_digit()).unwrap_or(num.len());
                out.push('#');
                rest = &num[n..];
            }
            _ => rest = tail,
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// The fingerprint of a topic file of `tier`, as `files` of [`State`] keeps
/// it (16 hex digits): a digest of the release, the tier, and the file's
/// mtime (nanoseconds), size, inode and change time (ctime), the key the
/// recall cache trusts ([`mem_recall::load`]); `None` when the file cannot be
/// stat'ed (a link is never followed) or changed within
/// [`mem_recall::load::RACY_SECS`] of `now` (a file changed twice within one
/// clock tick keeps its mtime).
pub fn fingerprint(path: &Path, tier: mem_core::tier::Tier, now: SystemTime) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mtime = meta.modified().ok()?;
    let settled = now.checked_sub(std::time::Duration::from_secs(mem_recall::load::RACY_SECS))?;
    if mtime >= settled {
        return None;
    }
    let ns = mtime.duration_since(UNIX_EPOCH).ok()?.as_nanos();
    let mut h = digest_start();
    for part in [
        env!("CARGO_PKG_VERSION").as_bytes(),
        tier.as_str().as_bytes(),
    ] {
        h = mix(h, part.len() as u64);
        for b in part {
            h = mix(h, u64::from(*b));
        }
    }
    h = mix(h, ns as u64);
    h = mix(h, (ns >> 64) as u64);
    h = mix(h, meta.len());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        h = mix(h, meta.ino());
        h = mix(h, meta.ctime() as u64);
        h = mix(h, meta.ctime_nsec() as u64);
    }
    Some(format!("{h:016x}"))
}

/// The start of [`fingerprint`]'s digest.
fn digest_start() -> u64 {
    0x6a09_e667_f3bc_c908
}

/// One step of [`fingerprint`]'s digest (a SplitMix64 round over the
/// state and `v`).
fn mix(h: u64, v: u64) -> u64 {
    let mut z = (h ^ v).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// True when a `SessionStart` of this `source` empties the list.
pub fn resets(source: Option<&str>) -> bool {
    matches!(source, Some("clear" | "compact"))
}

/// The memories injected into one session (its list), locked for the life
/// of the value.
pub struct InjectedList {
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

impl InjectedList {
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
    ) -> crate::error::Result<InjectedList> {
        let dir = mem_core::memdir::session_state_dir(memory_dir, session_id)?;
        InjectedList::open_in(dir, reset_by)
    }

    /// [`InjectedList::open`] on the state folder `dir` itself (created when
    /// missing).
    ///
    /// Errors: see [`InjectedList::open`].
    pub fn open_in(dir: PathBuf, reset_by: Option<&str>) -> crate::error::Result<InjectedList> {
        std::fs::create_dir_all(&dir).map_err(|err| mem_recall::RecallError::Cannot {
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
            .map_err(|err| mem_recall::RecallError::Cannot {
                action: "open",
                path: lock_path.clone(),
                err,
            })?;
        lock.lock().map_err(|err| mem_recall::RecallError::Cannot {
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
        let mut s = InjectedList {
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
                s.state.files.clear();
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

    /// True when memory `id` was injected from a topic file of this
    /// `fingerprint` ([`fingerprint`]): the same file, so the same text.
    pub fn has_file(&self, id: &str, fingerprint: &str) -> bool {
        self.state.memories.contains_key(id)
            && self.state.files.get(id).is_some_and(|f| f == fingerprint)
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

    /// Record that memory `id`, injected with the digest [`InjectedList::mark`]
    /// recorded, came from a topic file of this `fingerprint` (`None`: none
    /// to trust; the file is read next time).
    pub fn mark_file(&mut self, id: &str, fingerprint: Option<&str>) {
        match fingerprint {
            Some(f) if self.state.files.get(id).is_none_or(|old| old != f) => {
                self.state.files.insert(id.to_string(), f.to_string());
                self.changed = true;
            }
            None if self.state.files.remove(id).is_some() => self.changed = true,
            _ => {}
        }
    }

    /// The state as it stands.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Write the list when it changed (atomically), then unlock.
    ///
    /// Errors: the write failed.
    pub fn commit(self) -> crate::error::Result<()> {
        if self.changed {
            let path = self.dir.join(STATE_FILE);
            let bytes = serde_json::to_vec(&self.state)?;
            mem_recall::state::write(&path, &bytes, false)?;
        }
        Ok(())
    }
}

/// What the hook injects for session `session_id` of `memory_dir`: the
/// list is opened (and reset by `reset_by`, see [`InjectedList::open`]),
/// [`select`] picks within the hook's budget
/// ([`HOOK_MAX_ITEMS`], [`HOOK_MAX_TOKENS`]), and
/// the list is written back. Nothing recalled and no reset due → no state
/// is touched or created.
///
/// Errors: see [`InjectedList::open`], [`InjectedList::commit`].
pub fn memories(
    memory_dir: &Path,
    session_id: &str,
    reset_by: Option<&str>,
    items: &[Item],
    ds: &[Decision],
) -> crate::error::Result<Vec<mem_recall::render::Rendered>> {
    let any = ds.iter().any(|d| d.action == Action::Recall);
    if !any {
        let dir = mem_core::memdir::session_state_dir(memory_dir, session_id)?;
        if !(resets(reset_by) && dir.join(STATE_FILE).exists()) {
            return Ok(Vec::new());
        }
    }
    let mut sess = InjectedList::open(memory_dir, session_id, reset_by)?;
    let m = select(&mut sess, items, ds, HOOK_MAX_ITEMS, HOOK_MAX_TOKENS);
    sess.commit()?;
    Ok(m)
}

/// The memories to inject for `ds` (decisions over `items`, ranked, made
/// without a budget): the recalled ones in rank order, less those `sess`
/// already injected with the same text, within `max_items` memories and
/// `max_tokens` tokens (the gate's count, ceil(bytes / 4)); each one taken
/// is marked in `sess`. A memory whose file cannot be read is reported on
/// stderr and left out.
///
/// A topic file is not read again when `sess` holds its unchanged
/// [`fingerprint`] (injected already, so with the same text). Each memory
/// is rendered once: its Markdown is returned as injected.
pub fn select(
    sess: &mut InjectedList,
    items: &[Item],
    ds: &[Decision],
    max_items: usize,
    max_tokens: usize,
) -> Vec<mem_recall::render::Rendered> {
    let mut out = Vec::new();
    let mut tokens = 0usize;
    let now = SystemTime::now();
    for d in ds.iter().filter(|d| d.action == Action::Recall) {
        if out.len() >= max_items {
            break;
        }
        let it = &items[d.doc];
        let id = &*it.doc.id;
        // the fingerprint is of use only for a memory injected already
        let known = sess.state.memories.contains_key(id);
        let fp = if known {
            it.path().and_then(|p| fingerprint(&p, it.tier, now))
        } else {
            None
        };
        if fp.as_deref().is_some_and(|f| sess.has_file(id, f)) {
            continue;
        }
        let md = match it.injected_md() {
            Ok(md) => md,
            Err(e) => {
                eprintln!("{NAME}: {e} (not injected)");
                continue;
            }
        };
        let dg = digest(&md);
        if sess.has(id, &dg) {
            sess.mark_file(id, fp.as_deref());
            continue;
        }
        if tokens + it.doc.tokens > max_tokens {
            break;
        }
        tokens += it.doc.tokens;
        sess.mark(id, &dg);
        let fp = if known {
            fp
        } else {
            it.path().and_then(|p| fingerprint(&p, it.tier, now))
        };
        sess.mark_file(id, fp.as_deref());
        out.push(mem_recall::render::Rendered { tier: it.tier, md });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mem_core::tier::Tier;

    #[test]
    fn fingerprint_holds_for_a_settled_unchanged_file_only() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("m.md");
        std::fs::write(&p, "one").unwrap();
        let now = SystemTime::now();
        // just written: within RACY_SECS, no fingerprint
        assert_eq!(fingerprint(&p, Tier::Personal, now), None);
        let old = filetime::FileTime::from_unix_time(1_700_000_000, 5);
        filetime::set_file_mtime(&p, old).unwrap();
        let a = fingerprint(&p, Tier::Personal, now).unwrap();
        assert_eq!(a.len(), 16);
        assert_eq!(fingerprint(&p, Tier::Personal, now), Some(a.clone()));
        assert_ne!(fingerprint(&p, Tier::Team, now), Some(a.clone()));
        // the same size and mtime put back: the change time still differs
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&p, "two").unwrap();
        filetime::set_file_mtime(&p, old).unwrap();
        assert_ne!(fingerprint(&p, Tier::Personal, now), Some(a));
        // a link is never followed; a missing file has none
        let l = t.path().join("l.md");
        std::os::unix::fs::symlink(&p, &l).unwrap();
        assert_eq!(fingerprint(&l, Tier::Personal, now), None);
        assert_eq!(
            fingerprint(&t.path().join("none.md"), Tier::Personal, now),
            None
        );
    }

    #[test]
    fn a_file_fingerprint_counts_only_with_its_memory_and_resets_with_it() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("sessions/s1");
        let mut s = InjectedList::open_in(dir.clone(), None).unwrap();
        s.mark_file("a", Some("f1"));
        assert!(!s.has_file("a", "f1"), "no digest marked");
        s.mark("a", "d1");
        s.mark_file("a", Some("f1"));
        assert!(s.has_file("a", "f1"));
        assert!(!s.has_file("a", "f2"));
        s.commit().unwrap();
        let text = std::fs::read_to_string(dir.join(STATE_FILE)).unwrap();
        assert_eq!(
            text,
            r#"{"version":1,"memories":{"a":"d1"},"files":{"a":"f1"}}"#
        );
        let mut s = InjectedList::open_in(dir.clone(), None).unwrap();
        assert!(s.has_file("a", "f1"));
        s.mark_file("a", None);
        assert!(!s.has_file("a", "f1"));
        s.mark_file("a", Some("f1"));
        s.commit().unwrap();
        let s = InjectedList::open_in(dir.clone(), Some("clear")).unwrap();
        assert!(!s.has_file("a", "f1"));
        assert!(s.state().files.is_empty());
    }

    #[test]
    fn a_moved_evidence_pointer_is_not_news() {
        let a = "Why: `x` failed (output: transcript:ef12e6d95161#13).\nHow to use: run `y`.";
        let b = "Why: `x` failed (output: transcript:ce808017fec2#16).\nHow to use: run `y`.";
        assert_eq!(
            without_pointers(a),
            "Why: `x` failed (output: transcript:#).\nHow to use: run `y`."
        );
        assert_eq!(digest(a), digest(b));
        assert_ne!(digest(a), digest(&b.replace("run `y`", "run `z`")));
        assert_eq!(
            without_pointers("transcript: a#1 transcript:#2"),
            "transcript: a#1 transcript:#2"
        );
        assert_eq!(
            digest("no pointer"),
            mem_core::store::hash_bytes(b"no pointer")
        );
    }

    #[test]
    fn marks_persist_and_resets_clear_them_once() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("sessions/s1");
        let open = |src: Option<&str>| InjectedList::open_in(dir.clone(), src).unwrap();
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
