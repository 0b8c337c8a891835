//! The secret values learnt from the session.

use mem_core::records::Memory;
use mem_core::scrub::Scrubber;

use super::options::FastSet;

/// Secret values seen in the source text, and the pieces of each that can
/// travel alone (a value split off its flag or label).
#[derive(Default)]
pub(super) struct SecretValues {
    pub(super) pieces: FastSet<String>,
}

impl SecretValues {
    /// Words that label a secret rather than hold it.
    pub(super) const LABELS: [&'static str; 12] = [
        "password",
        "passwd",
        "authorization",
        "basic",
        "bearer",
        "cookie",
        "token",
        "secret",
        "auth",
        "session",
        "apikey",
        "api_key",
    ];

    /// Remember the secret values of `text`.
    pub(super) fn learn(&mut self, scrubber: &Scrubber, text: &str) {
        for f in scrubber.find_secrets(text) {
            let span = &text[f.start..f.end];
            self.pieces.insert(span.to_string());
            for p in span.split(|c: char| c.is_whitespace() || "=:\"'`,;".contains(c)) {
                let p = p.trim_matches(|c: char| !c.is_alphanumeric());
                if p.len() >= 6
                    && !p.starts_with('-')
                    && !Self::LABELS.contains(&p.to_ascii_lowercase().as_str())
                {
                    self.pieces.insert(p.to_string());
                }
            }
        }
    }

    /// Clear `m` of every known value: `[REDACTED]` in its text fields, and
    /// triggers or paths that held one dropped (a trigger of `[REDACTED]`
    /// matches nothing useful).
    pub(super) fn clear(&self, m: &mut Memory) {
        if self.pieces.is_empty() {
            return;
        }
        let held = |t: &str| self.pieces.iter().any(|p| t.contains(p.as_str()));
        let redact = |t: &mut String| {
            if held(t) {
                let mut pieces: Vec<&String> = self.pieces.iter().collect();
                // the longest first, so a span goes whole before its pieces
                pieces.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
                for p in pieces {
                    *t = t.replace(p.as_str(), mem_core::scrub::REDACTED);
                }
            }
        };
        redact(&mut m.name);
        redact(&mut m.description);
        for f in [&mut m.fact, &mut m.why, &mut m.how, &mut m.body]
            .into_iter()
            .flatten()
        {
            redact(f);
        }
        // triggers and ids are folded to lower case: compare folded
        let lower: Vec<String> = self.pieces.iter().map(|p| p.to_lowercase()).collect();
        let held_folded = |t: &str| {
            let t = t.to_lowercase();
            lower.iter().any(|p| t.contains(p.as_str()))
        };
        m.triggers
            .retain(|t| !held_folded(t) && !t.contains(mem_core::scrub::REDACTED));
        m.paths.retain(|t| !held(t));
        if m.id.as_deref().is_some_and(held_folded) {
            m.id = None;
        }
    }
}
