//! Which shape of topic file a memory directory is written in, and the one
//! directory of Claude Code's that mem never writes into
//! (docs/memory-dir.md "Claude Code's two shapes", "Claude Code's team
//! memory").
//!
//! Claude Code 2.1.3xx writes `name:` as a short kebab-case slug, the type
//! under `metadata:` and index lines `- [Title](file.md) — hook`; earlier
//! versions (and mem until now) a top-level `type:`. A new memory is written
//! in the shape of the directory's newest topic file; in a directory
//! without one, in the shape of the Claude Code version that wrote the
//! project's newest session (`"version"` of its transcript lines, next to
//! the memory directory); else in the legacy shape. `MEM_MEMORY_SHAPE=
//! current|legacy` chooses.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::records::Shape;
use crate::store::Store;

/// The environment variable that chooses the shape of new topic files.
pub const SHAPE_ENV: &str = "MEM_MEMORY_SHAPE";

/// The first Claude Code version that writes the current shape.
pub const FIRST_CURRENT: (u64, u64, u64) = (2, 1, 300);

/// Most bytes read from the end of a transcript to find its version.
const TAIL_BYTES: u64 = 256 * 1024;

/// The shape new topic files of `st`'s directory are written in, and why.
pub fn detect(st: &Store) -> (Shape, String) {
    if let Ok(v) = std::env::var(SHAPE_ENV)
        && let Some(s) = Shape::parse(v.trim())
    {
        return (s, format!("{SHAPE_ENV}={v}"));
    }
    if let Some(t) = st
        .topics
        .iter()
        .filter(|t| t.memory.layout.shape.is_some())
        .max_by(|a, b| a.mtime.cmp(&b.mtime).then(b.id.cmp(&a.id)))
    {
        let s = t.memory.layout.shape.unwrap_or_default();
        return (s, format!("the newest topic file, {}.md", t.id));
    }
    if let Some(parent) = st.dir.parent()
        && let Some((file, v)) = newest_transcript_version(parent)
    {
        let s = if version_is_current(&v) {
            Shape::Current
        } else {
            Shape::Legacy
        };
        return (s, format!("Claude Code {v} in {}", file.display()));
    }
    (Shape::Legacy, "no topic file and no session to tell".into())
}

/// True for a Claude Code version at or after [`FIRST_CURRENT`]
/// (`2.1.300`, `2.1.314`, `2.2.0`); false for `2.1.39`, `2.0.55` and what
/// does not parse.
pub fn version_is_current(v: &str) -> bool {
    let mut parts = v.trim().split(['.', '-', '+']).map(|p| p.parse::<u64>());
    match (parts.next(), parts.next(), parts.next()) {
        (Some(Ok(a)), Some(Ok(b)), Some(Ok(c))) => (a, b, c) >= FIRST_CURRENT,
        _ => false,
    }
}

/// The `"version"` of the last line that has one in the newest `*.jsonl`
/// of `dir` (a Claude Code project folder: its sessions sit beside the
/// memory directory), with that file.
pub fn newest_transcript_version(dir: &Path) -> Option<(PathBuf, String)> {
    let newest = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| {
            let md = std::fs::symlink_metadata(e.path()).ok()?;
            md.is_file().then(|| (md.modified().ok(), e.path()))
        })
        .max()?
        .1;
    let mut f = crate::confine::open_regular(&newest, false).ok()?;
    let size = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(size.saturating_sub(TAIL_BYTES)))
        .ok()?;
    let mut bytes = Vec::new();
    f.take(TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let key = "\"version\":\"";
    let at = text.rfind(key)?;
    let rest = &text[at + key.len()..];
    let v: String = rest.chars().take_while(|&c| c != '"').take(32).collect();
    (!v.is_empty()).then_some((newest, v))
}

/// Claude Code's own team memory directory that `dir` is, or is inside:
/// `…/memory/team` (`~/.claude/projects/<project>/memory/team/`, synced
/// with Claude Code's server at every session start). `None` otherwise.
pub fn claude_team_dir(dir: &Path) -> Option<PathBuf> {
    let check = |p: &Path| -> Option<PathBuf> {
        let comps: Vec<Component> = p.components().collect();
        (1..comps.len()).find_map(|i| {
            let memory = comps[i - 1].as_os_str() == "memory";
            let team = comps[i].as_os_str() == "team";
            (memory && team).then(|| comps[..=i].iter().collect())
        })
    };
    check(dir).or_else(|| check(&dir.canonicalize().ok()?))
}

/// Refuse to write into Claude Code's own team memory directory.
///
/// Errors: [`Error::Env`] naming the directory.
pub fn refuse_claude_team_dir(dir: &Path) -> Result<()> {
    match claude_team_dir(dir) {
        Some(t) => Err(Error::Env(format!(
            "{}: Claude Code's own team memory directory (synced with its server at session start); mem never writes there: use the memory directory above it, or `mem-index promote` for the repository's team tier",
            t.display()
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_2_1_300_write_the_current_shape() {
        for v in ["2.1.300", "2.1.314", "2.2.0", "3.0.0", "2.1.301-beta"] {
            assert!(version_is_current(v), "{v}");
        }
        for v in ["2.1.39", "2.1.114", "2.0.55", "1.0.98", "", "x.y.z", "2.1"] {
            assert!(!version_is_current(v), "{v}");
        }
    }

    #[test]
    fn the_team_directory_is_named() {
        let t = claude_team_dir(Path::new("/h/.claude/projects/-h-p/memory/team"));
        assert_eq!(
            t.as_deref(),
            Some(Path::new("/h/.claude/projects/-h-p/memory/team"))
        );
        let t = claude_team_dir(Path::new("/h/.claude/projects/-h-p/memory/team/sub"));
        assert_eq!(
            t.as_deref(),
            Some(Path::new("/h/.claude/projects/-h-p/memory/team"))
        );
        assert_eq!(
            claude_team_dir(Path::new("/h/.claude/projects/-h-p/memory")),
            None
        );
        assert_eq!(
            claude_team_dir(Path::new("/src/p/.claude/team-memory")),
            None
        );
        let err = refuse_claude_team_dir(Path::new("/x/memory/team"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("/x/memory/team: Claude Code's own team memory directory"),
            "{err}"
        );
    }

    #[test]
    fn the_newest_session_tells_the_version() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.jsonl"), "{\"version\":\"2.1.39\"}\n").unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(d.path().join("a.jsonl"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(newest_transcript_version(d.path()).unwrap().1, "2.1.39");
        std::fs::write(
            d.path().join("b.jsonl"),
            "{\"type\":\"user\",\"version\":\"2.1.300\"}\n{\"type\":\"assistant\",\"version\":\"2.1.314\"}\n{\"type\":\"summary\"}\n",
        )
        .unwrap();
        let (f, v) = newest_transcript_version(d.path()).unwrap();
        assert_eq!(
            (f.file_name().unwrap().to_str().unwrap(), v.as_str()),
            ("b.jsonl", "2.1.314")
        );
        assert!(newest_transcript_version(&d.path().join("none")).is_none());
    }
}
