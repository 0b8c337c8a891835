//! Applying a plan's file changes with an undo journal, undoing the last run,
//! and the unified diff of `--diff`.
//!
//! Journal layout (`.mem/journal/<UTC stamp>-<pid>/` in the memory dir):
//! - `manifest.jsonl`: one `{"rel", "before", "after"}` line per change
//!   (`before`: the file's text before the run — `{"hex": …}` when it is not
//!   UTF-8 — or null when the file did not exist; `after`: the 16-hex hash of
//!   the bytes written, or null when the file was removed). One file, so the
//!   journal costs one fsync however many files change;
//! - `plan.jsonl`: the plan as applied;
//! - `meta.json`: `{"started", "lock_mtime"}` (the lock's mtime before the
//!   run, RFC 3339, or null when there was no lock);
//! - `done` once every change is written; `undone` once undone.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use mem_core::atomic::write_atomic;
use mem_core::records::PlanOp;
use mem_core::store;
use mem_core::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::consolidate::Change;

/// The journal folder, relative to the memory directory.
pub const JOURNAL_DIR: &str = ".mem/journal";
/// Journals kept; older ones are removed after a successful run.
pub const KEEP_JOURNALS: usize = 10;

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    rel: String,
    before: Option<Saved>,
    after: Option<String>,
}

/// Saved bytes: text, or hex for bytes that are not UTF-8.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Saved {
    Text(String),
    Hex { hex: String },
}

impl Saved {
    fn of(b: &[u8]) -> Saved {
        match std::str::from_utf8(b) {
            Ok(t) => Saved::Text(t.to_string()),
            Err(_) => Saved::Hex {
                hex: b.iter().map(|x| format!("{x:02x}")).collect(),
            },
        }
    }
    fn bytes(&self) -> Vec<u8> {
        match self {
            Saved::Text(t) => t.as_bytes().to_vec(),
            Saved::Hex { hex } => (0..hex.len() / 2)
                .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
                .collect(),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    started: String,
    lock_mtime: Option<String>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// `dir/rel` for a relative path of plain components, its parent folder
/// created, checked to stay inside `dir` (symlinks included).
fn target(dir: &Path, rel: &str) -> Result<PathBuf> {
    let r = Path::new(rel);
    if r.components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(mem_core::IdError::Escapes(dir.join(rel)).into());
    }
    let p = dir.join(r);
    // No link below the memory directory, the file itself included.
    if let Some(parent) = p.parent() {
        mem_core::confine::create_dirs(dir, parent)?;
    }
    mem_core::confine::check_below(dir, &p)?;
    mem_core::id::contained(dir, &p)?;
    Ok(p)
}

/// Apply `changes` in `dir` (the caller holds the index lock), journaling
/// each one first. When `stop` is set between two files, or a write fails,
/// the changes made so far are restored and the error returned.
///
/// Returns the journal folder. Errors: [`Error::Io`]; [`Error::Msg`] when a
/// file changed since it was read (another writer), or on interruption.
pub fn apply(
    dir: &Path,
    changes: &[Change],
    ops: &[PlanOp],
    lock_mtime: Option<SystemTime>,
    stop: &AtomicBool,
) -> Result<PathBuf> {
    // Nothing changed since orient?
    for c in changes {
        let p = target(dir, &c.rel)?;
        let now = match std::fs::read(&p) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(&p, e)),
        };
        if now != c.before {
            return Err(Error::Msg(format!(
                "{}: changed while consolidating; nothing written",
                p.display()
            )));
        }
    }
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ").to_string();
    let jdir = dir
        .join(JOURNAL_DIR)
        .join(format!("{stamp}-{}", std::process::id()));
    mem_core::confine::create_dirs(dir, &jdir)?;
    let meta = Meta {
        started: stamp,
        lock_mtime: lock_mtime.map(|t| mem_core::time::fmt_ts(t.into())),
    };
    write_atomic(
        &jdir.join("meta.json"),
        serde_json::to_string(&meta).unwrap_or_default().as_bytes(),
    )?;
    let mut manifest = String::new();
    for c in changes {
        let e = Entry {
            rel: c.rel.clone(),
            before: c.before.as_deref().map(Saved::of),
            after: c.after.as_deref().map(store::hash_bytes),
        };
        manifest.push_str(&serde_json::to_string(&e).unwrap_or_default());
        manifest.push('\n');
    }
    write_atomic(&jdir.join("manifest.jsonl"), manifest.as_bytes())?;
    let mut plan = String::new();
    for o in ops {
        plan.push_str(&serde_json::to_string(o).unwrap_or_default());
        plan.push('\n');
    }
    write_atomic(&jdir.join("plan.jsonl"), plan.as_bytes())?;

    let mut done = 0;
    let mut result = Ok(());
    for c in changes {
        if stop.load(Ordering::SeqCst) {
            result = Err(Error::Msg("interrupted".into()));
            break;
        }
        let r = (|| -> Result<()> {
            let p = target(dir, &c.rel)?;
            match &c.after {
                Some(b) => write_atomic(&p, b),
                None => match std::fs::remove_file(&p) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&p, e)),
                    _ => Ok(()),
                },
            }
        })();
        if let Err(e) = r {
            result = Err(e);
            break;
        }
        done += 1;
    }
    if let Err(e) = result {
        // Put back what was changed, newest first; the journal goes.
        for c in changes[..done].iter().rev() {
            if let Ok(p) = target(dir, &c.rel) {
                let _ = match &c.before {
                    Some(b) => write_atomic(&p, b),
                    None => std::fs::remove_file(&p).map_err(|e| Error::io(&p, e)),
                };
            }
        }
        let _ = std::fs::remove_dir_all(&jdir);
        return Err(e);
    }
    write_atomic(&jdir.join("done"), b"")?;
    prune_journals(dir);
    Ok(jdir)
}

fn journals(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join(JOURNAL_DIR))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn prune_journals(dir: &Path) {
    let v = journals(dir);
    if v.len() > KEEP_JOURNALS {
        for p in &v[..v.len() - KEEP_JOURNALS] {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// What [`undo`] restored.
#[derive(Debug)]
pub struct Undone {
    /// The journal used.
    pub journal: PathBuf,
    /// Files restored (relative paths).
    pub files: Vec<String>,
    /// The lock's mtime before the undone run (restored when the lock is free).
    pub lock_mtime: Option<SystemTime>,
}

/// Restore the state before the last run (the newest journal that is done
/// and not undone). The caller holds the index lock. Every file must still
/// have the bytes the run wrote, unless `force`.
///
/// Errors: [`Error::Msg`] when there is nothing to undo or a file changed
/// since the run (nothing is restored then); [`Error::Io`].
pub fn undo(dir: &Path, force: bool) -> Result<Undone> {
    let Some(j) = journals(dir)
        .into_iter()
        .rev()
        .find(|j| j.join("done").exists() && !j.join("undone").exists())
    else {
        return Err(Error::Msg(format!(
            "{}: no consolidation to undo",
            dir.join(JOURNAL_DIR).display()
        )));
    };
    let mpath = j.join("manifest.jsonl");
    let text = std::fs::read_to_string(&mpath).map_err(io(&mpath))?;
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let e: Entry = serde_json::from_str(line)
            .map_err(|e| Error::input(mpath.display().to_string(), n + 1, e.to_string()))?;
        entries.push(e);
    }
    let mut changed = Vec::new();
    for e in &entries {
        let p = target(dir, &e.rel)?;
        let now = std::fs::read(&p).ok().map(|b| store::hash_bytes(&b));
        if now != e.after {
            changed.push(e.rel.clone());
        }
    }
    if !changed.is_empty() && !force {
        return Err(Error::Msg(format!(
            "changed since the last consolidation (use --force to restore anyway): {}",
            changed.join(", ")
        )));
    }
    let mut files = Vec::new();
    for e in entries.iter().rev() {
        let p = target(dir, &e.rel)?;
        match &e.before {
            Some(b) => write_atomic(&p, &b.bytes())?,
            None => match std::fs::remove_file(&p) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(&p, err));
                }
                _ => {}
            },
        }
        files.push(e.rel.clone());
    }
    files.reverse();
    let meta: Option<Meta> = std::fs::read_to_string(j.join("meta.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    write_atomic(&j.join("undone"), b"")?;
    Ok(Undone {
        journal: j,
        files,
        lock_mtime: meta
            .and_then(|m| m.lock_mtime)
            .and_then(|t| mem_core::time::parse_ts(&t))
            .map(SystemTime::from),
    })
}

/// A unified diff of one change, with `# reason: …` before every hunk.
pub fn diff(c: &Change) -> String {
    let old = c
        .before
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    let new = c
        .after
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let mut out = String::new();
    out.push_str(&match c.before {
        Some(_) => format!("--- a/{}\n", c.rel),
        None => "--- /dev/null\n".into(),
    });
    out.push_str(&match c.after {
        Some(_) => format!("+++ b/{}\n", c.rel),
        None => "+++ /dev/null\n".into(),
    });
    let reason = c.reasons.join("; ");
    for h in hunks(&a, &b, 3) {
        out.push_str(&format!("# reason: {reason}\n"));
        out.push_str(&h);
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Del,
    Add,
}

/// Line edit script (LCS); a whole replacement when the files are too big
/// for the quadratic table.
fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > 4_000_000 {
        let mut v: Vec<_> = (0..n).map(|i| (Op::Del, i, 0)).collect();
        v.extend((0..m).map(|j| (Op::Add, n, j)));
        return v;
    }
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * (m + 1) + j] = if a[i] == b[j] {
                t[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut v = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            v.push((Op::Eq, i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1]) {
            v.push((Op::Del, i, j));
            i += 1;
        } else {
            v.push((Op::Add, i, j));
            j += 1;
        }
    }
    v
}

fn hunks(a: &[&str], b: &[&str], ctx: usize) -> Vec<String> {
    let s = script(a, b);
    let changed: Vec<usize> = (0..s.len()).filter(|&k| s[k].0 != Op::Eq).collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(ctx);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * ctx + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + ctx + 1).min(s.len());
        let seg = &s[start..end];
        let a0 = seg.first().map_or(0, |x| x.1);
        let b0 = seg.first().map_or(0, |x| x.2);
        let na = seg.iter().filter(|x| x.0 != Op::Add).count();
        let nb = seg.iter().filter(|x| x.0 != Op::Del).count();
        let mut h = format!(
            "@@ -{},{} +{},{} @@\n",
            if na == 0 { a0 } else { a0 + 1 },
            na,
            if nb == 0 { b0 } else { b0 + 1 },
            nb
        );
        for &(o, i, j) in seg {
            let (p, l) = match o {
                Op::Eq => (' ', a[i]),
                Op::Del => ('-', a[i]),
                Op::Add => ('+', b[j]),
            };
            h.push(p);
            h.push_str(l);
            if !l.ends_with('\n') {
                h.push_str("\n\\ No newline at end of file\n");
            }
        }
        out.push(h);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_has_reason_per_hunk() {
        let c = Change {
            rel: "x.md".into(),
            before: Some(b"a\nb\nc\n".to_vec()),
            after: Some(b"a\nB\nc\n".to_vec()),
            reasons: vec!["merge".into()],
        };
        let d = diff(&c);
        assert_eq!(
            d,
            "--- a/x.md\n+++ b/x.md\n# reason: merge\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
        let c = Change {
            rel: "y.md".into(),
            before: None,
            after: Some(b"new\n".to_vec()),
            reasons: vec!["create".into()],
        };
        assert!(
            diff(&c)
                .contains("--- /dev/null\n+++ b/y.md\n# reason: create\n@@ -0,0 +1,1 @@\n+new\n")
        );
    }
}
