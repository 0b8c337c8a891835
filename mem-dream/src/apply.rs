//! Applying a plan's file changes with an undo journal, undoing the last run,
//! and the unified diff of `--diff`.
//!
//! The journal (its layout, order and recovery rule) lives in
//! [`mem_core::journal`], so that every writer can recover a run that was
//! killed.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::SystemTime;

use mem_core::Result;
use mem_core::journal::{self, FileChange};
use mem_core::records::PlanOp;

use crate::consolidate::Change;

pub use mem_core::journal::{JOURNAL_DIR, KEEP_JOURNALS, Undone};

/// Apply `changes` in `dir` (the caller holds the index lock) with the
/// durable journal of [`mem_core::journal`]: journal first, then new and
/// retired copies, then deletions, one flush, `MEMORY.md` last, `done`.
/// When `stop` is set between two files, or a write fails, the changes made
/// so far are rolled back and the error returned.
///
/// Returns the journal folder. Errors: [`mem_core::Error::Io`];
/// [`mem_core::Error::ChangedWhileConsolidating`] when a file changed since
/// it was read (another writer); [`mem_core::Error::Interrupted`].
pub fn apply(
    dir: &Path,
    changes: &[Change],
    ops: &[PlanOp],
    lock_mtime: Option<SystemTime>,
    stop: &AtomicBool,
) -> Result<PathBuf> {
    let mut plan = String::new();
    for o in ops {
        plan.push_str(&serde_json::to_string(o).unwrap_or_default());
        plan.push('\n');
    }
    let fc: Vec<FileChange> = changes
        .iter()
        .map(|c| FileChange {
            rel: &c.rel,
            before: c.before.as_deref(),
            after: c.after.as_deref(),
        })
        .collect();
    journal::apply(dir, &fc, &plan, lock_mtime, stop)
}

/// Restore the state before the last complete run; see
/// [`mem_core::journal::undo`].
///
/// Errors: as [`mem_core::journal::undo`].
pub fn undo(dir: &Path, force: bool) -> Result<Undone> {
    journal::undo(dir, force)
}

/// A unified diff of one change, with `# reason: …` before every hunk;
/// secrets on either side are shown as `[REDACTED]`.
pub fn diff(change: &Change) -> String {
    // A redaction's old text holds the secret: the diff shows both sides
    // with secrets already replaced, so it never prints one.
    static SCRUBBER: std::sync::OnceLock<mem_core::scrub::Scrubber> = std::sync::OnceLock::new();
    let scrubber = SCRUBBER.get_or_init(|| mem_core::scrub::Scrubber::new(None));
    let text = |b: &Option<Vec<u8>>| {
        b.as_deref()
            .map(|b| scrubber.redact_secrets(&String::from_utf8_lossy(b)))
            .unwrap_or_default()
    };
    let old = text(&change.before);
    let new = text(&change.after);
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let mut out = String::new();
    out.push_str(&match change.before {
        Some(_) => format!("--- a/{}\n", change.rel),
        None => "--- /dev/null\n".into(),
    });
    out.push_str(&match change.after {
        Some(_) => format!("+++ b/{}\n", change.rel),
        None => "+++ /dev/null\n".into(),
    });
    let reason = change.reasons.join("; ");
    let hs = mem_core::diff::hunks(&a, &b, 3);
    if hs.is_empty() && change.before != change.after {
        // Only a secret differed: say so without showing it.
        out.push_str(&format!(
            "# reason: {reason}\n# (only redacted text changed; the old text is not shown)\n"
        ));
    }
    for h in hs {
        out.push_str(&format!("# reason: {reason}\n"));
        out.push_str(&h);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_of_a_redaction_never_prints_the_secret() {
        let token = format!("ghp_{}", "a1B2c3D4e5F6".repeat(3));
        let c = Change {
            rel: "deploy-notes.md".into(),
            before: Some(format!("Fact: deploy with token {token}\n").into_bytes()),
            after: Some(b"Fact: deploy with token [REDACTED]\n".to_vec()),
            reasons: vec!["redact: secret".into()],
        };
        let d = diff(&c);
        assert!(!d.contains(&token), "{d}");
        assert!(d.contains("# reason: redact: secret"), "{d}");
    }

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
