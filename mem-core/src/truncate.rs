//! Truncation at a byte budget that never cuts inside a character
//! (docs/conventions.md "Truncation"; case B05), and the token estimate.

/// The longest prefix of `s` of at most `n` bytes that ends on a character
/// boundary. Units: UTF-8 bytes.
///
/// `floor_to_bytes("ab🔥cd", 3) == "ab"`: the 4-byte emoji does not fit.
pub fn floor_to_bytes(s: &str, n: usize) -> &str {
    if n >= s.len() {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `s` cut to at most `n` bytes at a character boundary, followed by
/// `\n[truncated N bytes]` (N = bytes removed) when anything was cut.
/// The marker is outside the budget. Returns `s` unchanged when it fits.
pub fn truncate_marked(s: &str, n: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= n {
        return std::borrow::Cow::Borrowed(s);
    }
    let head = floor_to_bytes(s, n);
    let cut = s.len() - head.len();
    std::borrow::Cow::Owned(format!("{head}\n[truncated {cut} bytes]"))
}

/// The one token estimator used everywhere: `ceil(UTF-8 bytes / 4)`.
/// Returns tokens (an estimate), not bytes.
pub fn estimate_tokens(s: &str) -> usize {
    s.len().div_ceil(4)
}

/// The longest prefix of `s` of at most `n` characters (Unicode scalar
/// values), for limits counted in characters (index lines, hook output).
pub fn floor_to_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// B05's truncation table (`cases/B05/truncation_cases.tsv`).
    #[test]
    fn b05_table() {
        assert_eq!(floor_to_bytes("Status: 🟢 green", 8), "Status: ");
        assert_eq!(floor_to_bytes("Status: 🟢 green", 9), "Status: ");
        assert_eq!(floor_to_bytes("Status: 🟢 green", 12), "Status: 🟢");
        assert_eq!(floor_to_bytes("ab🔥cd", 3), "ab");
        assert_eq!(floor_to_bytes("ab", 0), "");
        assert_eq!(floor_to_bytes("ab", 10), "ab");
    }

    #[test]
    fn marked_truncation_names_the_cut() {
        assert_eq!(truncate_marked("ab🔥cd", 3), "ab\n[truncated 6 bytes]");
        assert_eq!(truncate_marked("short", 10), "short");
    }

    #[test]
    fn tokens_round_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abc"), 1);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("🔥"), 1);
    }

    #[test]
    fn chars_prefix() {
        assert_eq!(floor_to_chars("a🔥b", 2), "a🔥");
        assert_eq!(floor_to_chars("ab", 5), "ab");
    }

    proptest! {
        #[test]
        fn floor_is_a_valid_prefix(s in "\\PC{0,40}", n in 0usize..200) {
            let p = floor_to_bytes(&s, n);
            prop_assert!(p.len() <= n);
            prop_assert!(s.starts_with(p));
            // maximal: adding the next char would exceed n
            if let Some(c) = s[p.len()..].chars().next() {
                prop_assert!(p.len() + c.len_utf8() > n);
            }
        }
    }
}
