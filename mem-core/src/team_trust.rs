//! Which files of a checkout's team tier the user has reviewed and trusts
//! (docs/team-memory.md "Trust", docs/security.md).
//!
//! A repository's `.claude/team-memory/` is written by whoever can push to
//! it, or by the author of a repository just cloned. Nothing of it is
//! injected until the user trusts it: `mem-index team trust` records the
//! BLAKE3 digest of every file it trusts, per file, in the user's own
//! state outside the repository:
//!
//! ```text
//! $XDG_STATE_HOME/mem/team-trust/<16 hex of BLAKE3 of the checkout's real root>/
//!     trusted.json        {"version":1,"root":"/abs/root","files":{"a.md":"<blake3>",…}}
//!     blobs/<blake3>      the trusted bytes, to show a diff on review
//! ```
//!
//! (`~/.local/state/mem/…` without `XDG_STATE_HOME`.) A file is trusted when
//! its bytes, read now, have the digest recorded under its name: a file
//! added or changed by a later pull waits for review again, while the
//! trusted, unchanged ones still work. What a file says about itself
//! (`source:`, `trust:`) plays no part; the state lives where the
//! repository cannot write.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The version of `trusted.json`.
pub const VERSION: u32 = 1;

/// The file holding the trusted digests, in [`state_dir`].
pub const TRUSTED_FILE: &str = "trusted.json";

/// The folder of trusted copies, in [`state_dir`].
pub const BLOBS_DIR: &str = "blobs";

/// The command that shows what waits for review.
pub const REVIEW_COMMAND: &str = "mem-index team review";

/// The command that trusts what was reviewed.
pub const TRUST_COMMAND: &str = "mem-index team trust";

/// The digest recorded for a file's bytes: 64 hex digits of BLAKE3.
pub fn digest(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The base of mem's state: `$XDG_STATE_HOME/mem`, or `~/.local/state/mem`.
///
/// Errors: [`Error::Env`] when the home directory cannot be found.
pub fn state_base() -> Result<PathBuf> {
    use etcetera::BaseStrategy;
    let s = etcetera::choose_base_strategy()
        .map_err(|_| Error::Env("cannot find the home directory (set HOME)".into()))?;
    let base = s
        .state_dir()
        .unwrap_or_else(|| s.home_dir().join(".local/state"));
    Ok(base.join("mem"))
}

/// The trust state of the checkout whose root is `root`:
/// `<state_base>/team-trust/<16 hex of BLAKE3 of root's real path>/`.
/// Nothing is created.
///
/// Errors: as [`state_base`].
pub fn state_dir(root: &Path) -> Result<PathBuf> {
    let key = crate::memdir::real_path(root);
    let d = blake3::hash(key.to_string_lossy().as_bytes()).to_hex();
    Ok(state_base()?.join("team-trust").join(&d[..16]))
}

/// The trusted digests of one checkout's team tier.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trusted {
    /// [`VERSION`].
    pub version: u32,
    /// The checkout's root (real path), for people reading the file.
    pub root: String,
    /// File name in the team folder → BLAKE3 digest of its trusted bytes.
    pub files: BTreeMap<String, String>,
}

impl Trusted {
    /// True when `name`'s `bytes` are what the user trusted.
    pub fn trusts(&self, name: &str, bytes: &[u8]) -> bool {
        self.files.get(name).is_some_and(|h| *h == digest(bytes))
    }

    /// True when nothing is trusted.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// The trusted digests of the checkout at `root` (empty when the user has
/// trusted nothing there). A state file that does not parse, or of another
/// version, trusts nothing (said in the error).
///
/// Errors: [`Error::Env`] (no home, or a state file that does not parse
/// or is of another version), [`Error::Io`] (unreadable state).
pub fn load(root: &Path) -> Result<Trusted> {
    let p = state_dir(root)?.join(TRUSTED_FILE);
    let bytes = match std::fs::read(&p) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Trusted::default()),
        Err(e) => return Err(Error::io(&p, e)),
    };
    match serde_json::from_slice::<Trusted>(&bytes) {
        Ok(t) if t.version == VERSION => Ok(t),
        Ok(t) => Err(Error::Env(format!(
            "{}: version {} (this mem reads {VERSION}); nothing is trusted until `{TRUST_COMMAND}`",
            p.display(),
            t.version
        ))),
        Err(e) => Err(Error::Env(format!(
            "{}: {e}; nothing is trusted until `{TRUST_COMMAND}`",
            p.display()
        ))),
    }
}

/// The trusted copy of the bytes of digest `hash`, when kept.
pub fn trusted_bytes(root: &Path, hash: &str) -> Option<Vec<u8>> {
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    std::fs::read(state_dir(root).ok()?.join(BLOBS_DIR).join(hash)).ok()
}

/// Record `trusted` for the checkout at `root`, with the trusted copies of
/// `blobs` (bytes by digest); copies no file names any more are removed.
///
/// Errors: [`Error::Io`] when the state cannot be written.
pub fn save(root: &Path, trusted: &Trusted, blobs: &[&[u8]]) -> Result<()> {
    let dir = state_dir(root)?;
    let bdir = dir.join(BLOBS_DIR);
    for b in blobs {
        let p = bdir.join(digest(b));
        if !p.exists() {
            crate::atomic::write_atomic(&p, b)?;
        }
    }
    let mut t = trusted.clone();
    t.version = VERSION;
    t.root = crate::memdir::real_path(root).display().to_string();
    let mut json = serde_json::to_string_pretty(&t).map_err(|e| Error::Env(e.to_string()))?;
    json.push('\n');
    crate::atomic::write_atomic(&dir.join(TRUSTED_FILE), json.as_bytes())?;
    if let Ok(rd) = std::fs::read_dir(&bdir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !t.files.values().any(|h| *h == name) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    Ok(())
}

/// Forget every trusted file of the checkout at `root`. Returns true when
/// something was trusted.
///
/// Errors: [`Error::Io`] when the state cannot be removed.
pub fn forget(root: &Path) -> Result<bool> {
    let dir = state_dir(root)?;
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(&dir, e)),
    }
}

/// Where a file of the team folder stands against what the user trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Its bytes are the trusted ones.
    Trusted,
    /// Never trusted (added since, or never reviewed).
    New,
    /// Trusted once, changed since.
    Changed,
    /// Trusted once, gone from the folder.
    Removed,
}

impl State {
    /// `trusted`, `new`, `changed` or `removed`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Trusted => "trusted",
            State::New => "new",
            State::Changed => "changed",
            State::Removed => "removed",
        }
    }

    /// True for a file that waits for review (new or changed).
    pub fn pending(self) -> bool {
        matches!(self, State::New | State::Changed)
    }
}

/// One file of the team folder (or one trusted file now gone).
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its name in the team folder (`use-pnpm.md`, `MEMORY.md`).
    pub name: String,
    /// Where it stands.
    pub state: State,
    /// Its bytes now (`None` when removed, or when it cannot be read: a
    /// link, a FIFO, over 1 MiB; such a file is never trusted).
    pub bytes: Option<Vec<u8>>,
    /// Why it could not be read, when it could not.
    pub unreadable: Option<String>,
    /// The trusted digest, when it was trusted once.
    pub trusted_hash: Option<String>,
}

/// The files the trust covers: every entry named `*.md` directly in
/// `team_dir` that is not a directory (topic files and `MEMORY.md`),
/// sorted by name. A missing folder has none.
///
/// Errors: [`Error::Io`] when the folder exists but cannot be listed.
pub fn files(team_dir: &Path) -> Result<Vec<String>> {
    let rd = match std::fs::read_dir(team_dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(team_dir, e)),
    };
    let mut out = Vec::new();
    for e in rd {
        let e = e.map_err(|err| Error::io(team_dir, err))?;
        let Some(name) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !name.ends_with(".md") || e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        out.push(name);
    }
    out.sort();
    Ok(out)
}

/// Read one file of the team folder as trust reads it: a regular file, not
/// through a link, at most [`crate::confine::MAX_TOPIC_BYTES`].
///
/// Errors: as [`crate::confine::read_capped`].
pub fn read(team_dir: &Path, name: &str) -> Result<Vec<u8>> {
    crate::confine::read_capped(&team_dir.join(name), crate::confine::MAX_TOPIC_BYTES, false)
}

/// Every file of `team_dir` against `trusted`, sorted by name: each file
/// present ([`files`]) read and compared, then each trusted file now gone.
///
/// Errors: as [`files`].
pub fn scan(team_dir: &Path, trusted: &Trusted) -> Result<Vec<Entry>> {
    let names = files(team_dir)?;
    let mut out: Vec<Entry> = Vec::with_capacity(names.len());
    for name in &names {
        let was = trusted.files.get(name).cloned();
        let (bytes, unreadable) = match read(team_dir, name) {
            Ok(b) => (Some(b), None),
            Err(e) => (None, Some(e.to_string())),
        };
        let state = match (&bytes, &was) {
            (Some(b), Some(h)) if digest(b) == *h => State::Trusted,
            (_, Some(_)) => State::Changed,
            (_, None) => State::New,
        };
        out.push(Entry {
            name: name.clone(),
            state,
            bytes,
            unreadable,
            trusted_hash: was,
        });
    }
    for (name, h) in &trusted.files {
        if !names.contains(name) {
            out.push(Entry {
                name: name.clone(),
                state: State::Removed,
                bytes: None,
                unreadable: None,
                trusted_hash: Some(h.clone()),
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The line said on stderr (and with `--explain`) when `n` team memories
/// of the checkout at `root` wait for review: what is left out and the
/// command to review them. Worded for the person, never for the model.
pub fn waiting_line(n: usize, root: &Path) -> String {
    format!(
        "{n} team memor{} of {} waiting for review, not recalled: `{REVIEW_COMMAND}` shows them, `{TRUST_COMMAND}` accepts them",
        if n == 1 { "y" } else { "ies" },
        root.join(crate::memdir::TEAM_DIR).display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_trusted_by_its_bytes_and_its_name() {
        let tmp = tempfile::tempdir().unwrap();
        let team = tmp.path().join("team");
        std::fs::create_dir_all(team.join("sub.md")).unwrap();
        std::fs::write(team.join("a.md"), "A").unwrap();
        std::fs::write(team.join("b.md"), "B").unwrap();
        std::fs::write(team.join("notes.txt"), "x").unwrap();
        let mut t = Trusted::default();
        t.files.insert("a.md".into(), digest(b"A"));
        t.files.insert("b.md".into(), digest(b"old B"));
        t.files.insert("gone.md".into(), digest(b"G"));
        let got: Vec<(String, State)> = scan(&team, &t)
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.state))
            .collect();
        assert_eq!(
            got,
            [
                ("a.md".to_string(), State::Trusted),
                ("b.md".to_string(), State::Changed),
                ("gone.md".to_string(), State::Removed),
            ]
        );
        assert!(t.trusts("a.md", b"A"));
        // the same bytes under another name are not trusted
        assert!(!t.trusts("c.md", b"A"));
    }

    #[test]
    fn a_link_is_never_read_nor_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let team = tmp.path().join("team");
        std::fs::create_dir_all(&team).unwrap();
        std::fs::write(tmp.path().join("secret"), "S").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), team.join("x.md")).unwrap();
        let mut t = Trusted::default();
        t.files.insert("x.md".into(), digest(b"S"));
        let e = scan(&team, &t).unwrap();
        assert_eq!(e[0].state, State::Changed);
        assert!(e[0].bytes.is_none() && e[0].unreadable.is_some());
    }
}
