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

/// The question tool's result: `User has answered your questions: "Q"="A", …`.
pub(super) const ANSWERED: &str = "User has answered your questions:";
/// A rejected tool call's result, and the phrase before the user's reason.
pub(super) const REJECTED: &str = "The user doesn't want to proceed with this tool use.";
pub(super) const REASON: &str = "The user provided the following reason for the rejection:";
/// The user text that marks an interrupt.
pub(super) const INTERRUPTED: &str = "[Request interrupted by user";
/// Bytes of a tool result decoded to see whether it starts with
/// [`ANSWERED`] or [`REJECTED`] (after leading whitespace).
pub(super) const MARKER_HEAD: usize = 256;

/// False when `text` can not start with [`ANSWERED`] or [`REJECTED`] after
/// leading whitespace, told from its first byte as written: a printable
/// ASCII character other than a backslash (an escape) stands for itself,
/// so the text starts with it, not with whitespace; when it is neither
/// marker's first letter, the text is neither (and is not decoded at all).
pub(crate) fn may_start_with_marker(text: &EventText<'_>) -> bool {
    let (EventText::Plain(s) | EventText::Escaped(s)) = text;
    match s.as_bytes().first() {
        Some(&b) if b.is_ascii_graphic() && b != b'\\' => {
            b == ANSWERED.as_bytes()[0] || b == REJECTED.as_bytes()[0]
        }
        _ => true,
    }
}
