//! The merge policy: how two copies of one memory combine, wherever mem
//! meets the same fact twice — a near-duplicate within one extraction
//! (mem-extract), a record written over an existing topic file
//! (`mem-index write`, "merge over create"), duplicates found by a
//! consolidation (mem-dream).
//!
//! - list fields (`triggers`, `paths`, `evidence`, `supersedes`) are united:
//!   the kept copy's entries in their order, then the other's new ones
//!   ([`unite`]);
//! - the same memory learned again is surer: its confidence rises by
//!   [`CONFIRM_RAISE`], at most [`MAX_CONFIRMED`] ([`confirmed_confidence`]).
//!
//! Which copy is kept, and which of its single-valued fields win, is each
//! caller's (they know what the copies are); the git merge driver of the
//! team tier merges three versions, not two, and has its own rules.

use std::collections::HashSet;

/// The confidence a memory without one counts as when confirmed.
pub const DEFAULT_CONFIDENCE: f64 = 0.7;
/// How much a confirmation raises the confidence.
pub const CONFIRM_RAISE: f64 = 0.1;
/// The highest confidence a confirmation gives.
pub const MAX_CONFIRMED: f64 = 0.95;

/// Append to `dst` every entry of `src` that `dst` does not hold yet, in
/// `src`'s order and each once; `dst`'s own entries stay as they are.
pub fn unite(dst: &mut Vec<String>, src: &[String]) {
    if src.is_empty() {
        return;
    }
    let mut seen: HashSet<String> = dst.iter().cloned().collect();
    for s in src {
        if seen.insert(s.clone()) {
            dst.push(s.clone());
        }
    }
}

/// The confidence of a memory confirmed by a second copy whose confidences
/// are `a` and `b` (absent: [`DEFAULT_CONFIDENCE`]): the higher of the two
/// plus [`CONFIRM_RAISE`], at most [`MAX_CONFIRMED`], rounded to two
/// decimals.
pub fn confirmed_confidence(a: Option<f64>, b: Option<f64>) -> f64 {
    let c = a
        .unwrap_or(DEFAULT_CONFIDENCE)
        .max(b.unwrap_or(DEFAULT_CONFIDENCE));
    (((c + CONFIRM_RAISE) * 100.0).round() / 100.0).min(MAX_CONFIRMED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn unite_keeps_order_and_adds_each_new_entry_once() {
        let mut d = v(&["b", "a"]);
        unite(&mut d, &v(&["a", "c", "b", "c", "d"]));
        assert_eq!(d, v(&["b", "a", "c", "d"]));
        let mut e = Vec::new();
        unite(&mut e, &v(&["x", "x"]));
        assert_eq!(e, v(&["x"]));
    }

    #[test]
    fn a_confirmation_raises_the_higher_confidence_up_to_the_cap() {
        assert_eq!(confirmed_confidence(None, None), 0.8);
        assert_eq!(confirmed_confidence(Some(0.3), None), 0.8);
        assert_eq!(confirmed_confidence(Some(0.75), Some(0.5)), 0.85);
        assert_eq!(confirmed_confidence(Some(0.9), None), 0.95);
        assert_eq!(confirmed_confidence(Some(0.95), Some(0.99)), 0.95);
    }
}
