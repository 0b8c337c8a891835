//! Compaction summaries: the user's messages they quote.

use std::sync::OnceLock;

use regex::Regex;

use mem_core::records::Source;

use super::extractor::Extractor;
use super::merge::Merged;
use super::message::from_message;
use super::sentence::quote_key;
use super::view::EventView;

/// The user's messages a compaction summary quotes: each `"…"` bullet of
/// its "All user messages" section (up to the next numbered heading), and
/// a quote right after `User said` / `User feedback` / `the user wrote`.
/// Unquoted bullets (`(Plan mode approval - implicit)`) are the
/// summary's own words and are left out.
pub fn summary_quotes(summary: &str) -> Vec<String> {
    static BULLET: OnceLock<Regex> = OnceLock::new();
    static SAID: OnceLock<Regex> = OnceLock::new();
    static HEAD: OnceLock<Regex> = OnceLock::new();
    let bullet = BULLET.get_or_init(|| {
        Regex::new(r#"^\s*(?:[-*•]|\d+[.)])\s+(?:\*\*[^*]*\*\*:?\s*)?["“]([^"”]{3,})["”]"#)
            .expect("bullet regex")
    });
    let said = SAID.get_or_init(|| {
        Regex::new(r#"(?i)\b(?:the )?user (?:said|says|wrote|feedback|asked|instructed|requested|stated|replied|answered)[^"“\n]{0,20}["“]([^"”\n]{3,})["”]"#)
            .expect("said regex")
    });
    let head = HEAD
        .get_or_init(|| Regex::new(r"^\s{0,3}(?:#+\s*)?\d+\.\s+\**[A-Z]").expect("heading regex"));
    let mut out: Vec<String> = Vec::new();
    let mut push = |q: &str| {
        let q = q.trim();
        if !q.is_empty() && !out.iter().any(|o| o == q) {
            out.push(q.to_string());
        }
    };
    let mut in_section = false;
    for line in summary.lines() {
        if line.to_lowercase().contains("all user messages") {
            in_section = true;
            continue;
        }
        if in_section && head.is_match(line) {
            in_section = false;
        }
        if in_section && let Some(c) = bullet.captures(line) {
            push(&c[1]);
            continue;
        }
        for c in said.captures_iter(line) {
            push(&c[1]);
        }
    }
    out
}

impl Extractor {
    /// A compaction summary (or a context collapse's summary) is the
    /// assistant's account of the session, never read as the user's words:
    /// only the user's messages it quotes (`"…"` bullets of its "All user
    /// messages" section, `User said: "…"`) go through the rules, and what
    /// they give is `source: assistant` (the summary chose and copied the
    /// words) with confidence lowered by 0.2. A quote of a message this
    /// extraction already read adds nothing.
    pub(super) fn read_summary(&mut self, ev: &EventView<'_>) {
        let Some(text) = ev.text.as_ref() else {
            return;
        };
        let text = text.whole();
        let quotes: Vec<String> = summary_quotes(&text)
            .into_iter()
            .filter(|q| !self.said.contains(&quote_key(q)))
            .collect();
        if quotes.is_empty() {
            return;
        }
        let at = self.at(ev);
        let mut got = Merged::default();
        got.notes.off = self.notes.off;
        for q in &quotes {
            self.secrets.learn(&self.scrubber, q);
            from_message(
                &at,
                q,
                q.len(),
                &super::judge::Context::default(),
                &self.opts,
                &self.scrubber,
                &mut got,
                &mut self.notes,
            );
            self.said.insert(quote_key(q));
        }
        for mut c in got.v {
            c.mem.source = Some(Source::Assistant);
            c.mem.confidence = c
                .mem
                .confidence
                .map(|x| ((x - 0.2) * 100.0).round() / 100.0);
            if let Some(serde_json::Value::String(r)) = c.mem.extra.get("rule").cloned() {
                c.mem
                    .extra
                    .insert("rule".into(), format!("summary/{r}").into());
            }
            if c.mem.why.is_none() {
                c.mem.why = Some("A compaction summary quotes the user saying so.".into());
            }
            self.cands.add(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::quote_key;

    #[test]
    fn quote_key_ignores_case_spacing_and_closing_punctuation() {
        let k = quote_key("use pnpm, not npm");
        assert_eq!(quote_key("  Use   PNPM,\tnot npm!! "), k);
        assert_eq!(quote_key("use pnpm, not npm..."), k);
        // the fast path (one space between words) and the byte loop agree
        assert_eq!(quote_key("Use pnpm,\nnot npm"), k);
        assert_eq!(quote_key("use  pnpm, not npm"), k);
        assert_ne!(quote_key("use npm, not pnpm"), k);
        // the non-ASCII path normalises the same way
        assert_eq!(quote_key("Café  NOW…"), quote_key("café now"));
        assert_ne!(quote_key("café now"), quote_key("cafe now"));
    }
}
