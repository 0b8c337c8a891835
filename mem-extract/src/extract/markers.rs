//! The marks of the user's words inside tool results and user text: the
//! question tool's answers, a rejection and its reason, an interrupt.

use crate::text::EventText;

/// A tool call whose result may carry the user's words.
pub(super) struct Pending {
    pub(super) ask: bool,
    pub(super) cmd: Option<String>,
    /// The options the question tool offered (empty for other calls).
    pub(super) choices: Vec<super::view::Choice>,
}

/// The question tool's result, as Claude Code has written it: `User has
/// answered your questions: "Q"="A", …` (quotes inside written `\"`), and
/// since 2.1.3xx `Your questions have been answered: "Q"="A", …` or, when
/// an answer is the user's own words, `The user answered: "Q"="A", …`
/// (quotes inside as they are).
pub(super) const ANSWERED_ALL: [&str; 3] = [
    "User has answered your questions:",
    "Your questions have been answered:",
    "The user answered:",
];
/// The longest of [`ANSWERED_ALL`].
pub(super) const ANSWERED_LEN: usize = 34;

/// The answer marker `t` starts with, and the text after it.
pub(crate) fn after_answered(t: &str) -> Option<&str> {
    ANSWERED_ALL.iter().find_map(|m| t.strip_prefix(m))
}
/// A rejected tool call's result, and the phrase before the user's reason.
pub(crate) const REJECTED: &str = "The user doesn't want to proceed with this tool use.";
/// The phrases before the user's reason, as Claude Code has written them
/// (the second since 2.1.3xx).
pub(super) const REASONS: [&str; 2] = [
    "The user provided the following reason for the rejection:",
    "To tell you how to proceed, the user said:",
];

/// The user's reason in a rejection's text after [`REJECTED`], if any.
pub(crate) fn reason_in(rest: &str) -> Option<&str> {
    REASONS
        .iter()
        .find_map(|r| rest.find(r).map(|i| rest[i + r.len()..].trim()))
        .filter(|r| !r.is_empty())
}
/// The user text that marks an interrupt.
pub(super) const INTERRUPTED: &str = "[Request interrupted by user";
/// Bytes of a tool result decoded to see whether it starts with
/// [`ANSWERED_ALL`] or [`REJECTED`] (after leading whitespace).
pub(super) const MARKER_HEAD: usize = 256;

/// False when `text` can not start with [`ANSWERED_ALL`] or [`REJECTED`] after
/// leading whitespace, told from its first byte as written: a printable
/// ASCII character other than a backslash (an escape) stands for itself,
/// so the text starts with it, not with whitespace; when it is neither
/// marker's first letter, the text is neither (and is not decoded at all).
pub(crate) fn may_start_with_marker(text: &EventText<'_>) -> bool {
    let (EventText::Plain(s) | EventText::Escaped(s)) = text;
    match s.as_bytes().first() {
        Some(&b) if b.is_ascii_graphic() && b != b'\\' => {
            ANSWERED_ALL.iter().any(|m| m.as_bytes()[0] == b) || b == REJECTED.as_bytes()[0]
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_longest_answer_marker_is_answered_len() {
        assert_eq!(
            super::ANSWERED_ALL.iter().map(|m| m.len()).max(),
            Some(super::ANSWERED_LEN)
        );
    }
}
