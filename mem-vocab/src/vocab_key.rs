//! The lookup key of a vocabulary term: the first two characters of its
//! first word. Shared by the crate ([`crate::vocab`]) and its build script,
//! which indexes the built-in vocabulary by these keys at compile time
//! (`vocab_index.rs` in `OUT_DIR`), so the two always agree. Plain `std`
//! only.

use std::borrow::Cow;

/// The [`key`] of a term's first word (lowercased), as the task's words are
/// split (runs of letters and digits); `None` for a term without a letter
/// or digit.
pub fn term_key(term: &str) -> Option<Cow<'_, str>> {
    let first = term
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())?;
    let k = key(first);
    Some(if k.chars().any(char::is_uppercase) {
        Cow::Owned(k.chars().flat_map(char::to_lowercase).take(2).collect())
    } else {
        Cow::Borrowed(k)
    })
}

/// The lookup key of a word: its first two characters (stemming only
/// changes the end of a word, so a word and its stem share them).
pub fn key(word: &str) -> &str {
    match word.char_indices().nth(2) {
        Some((i, _)) => &word[..i],
        None => word,
    }
}
