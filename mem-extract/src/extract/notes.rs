//! The notes of a run (`--explain`), clear of the message's secrets.

use mem_core::scrub::Scrubber;

use super::sentence::cut;
use crate::note::{Bucket, Note};

/// The notes of a run; not collected when nobody reads them.
#[derive(Default)]
pub(super) struct Notes {
    pub(super) off: bool,
    pub(super) v: Vec<Note>,
    /// The secrets of the message being read, line by line: a note quotes
    /// one sentence, which may be one line of a secret (a private-key body)
    /// that the scrubber cannot recognise on its own.
    pub(super) secrets: Vec<String>,
}

impl Notes {
    /// Remember the secrets of `text` (the message whose sentences the next
    /// notes quote).
    pub(super) fn message(&mut self, scrubber: &Scrubber, text: &str) {
        if self.off {
            return;
        }
        self.secrets.clear();
        for f in scrubber.find(text) {
            if matches!(f.kind, mem_core::scrub::FindingKind::Secret { .. }) {
                self.secrets.extend(
                    text[f.start..f.end]
                        .lines()
                        .map(str::trim)
                        .filter(|l| l.len() >= 8)
                        .map(str::to_string),
                );
            }
        }
    }
}

pub(super) fn note(
    notes: &mut Notes,
    kept: bool,
    bucket: Bucket,
    rule: &str,
    line: u64,
    text: &str,
) {
    if notes.off {
        return;
    }
    let mut text = text.to_string();
    for sec in &notes.secrets {
        let t = text.trim();
        if t.len() >= 8 && sec.contains(t) {
            text = mem_core::scrub::REDACTED.to_string();
            break;
        }
        if text.contains(sec.as_str()) {
            text = text.replace(sec.as_str(), mem_core::scrub::REDACTED);
        }
    }
    notes.v.push(Note {
        kept,
        bucket,
        rule: rule.to_string(),
        line,
        text: cut(&text, 120),
    });
}
