//! Relative dates (mem-extract `dates`): `find_dates`, `resolve`,
//! `future_bound`, `absolutize` against a base day taken from the input.
//!
//! Input: a first line giving the base day (`YYYY-MM-DD`, else any bytes
//! folded into a day between 0001-01-01 and 9999-12-31), then the text.
//!
//! Checks (from the module's docs): mentions are in order, disjoint, on char
//! boundaries, and `phrase` is the text they span; the tense agrees with the
//! day (past before the base, today on it, future after it); each phrase
//! alone resolves to the same day; `future_bound` is a found mention bounding
//! the future, and the first bound when there is one; `absolutize` returns
//! the mentions of `find_dates`, keeps the text around its insertions, names
//! every mention's day, and is idempotent.
#![no_main]

use chrono::{Days, NaiveDate};
use libfuzzer_sys::fuzz_target;
use mem_extract::dates::{Tense, absolutize, find_dates, future_bound, resolve};

fn base_of(line: &[u8]) -> NaiveDate {
    if let Ok(s) = std::str::from_utf8(line)
        && let Some(d) = mem_extract::dates::parse_iso(s.trim())
        && (1..=9999).contains(&chrono::Datelike::year(&d))
    {
        return d;
    }
    let first = NaiveDate::from_ymd_opt(1, 1, 1).unwrap();
    let last = NaiveDate::from_ymd_opt(9999, 12, 31).unwrap();
    let span = (last - first).num_days() as u64 + 1;
    let h = line
        .iter()
        .fold(0u64, |h, &b| h.wrapping_mul(131).wrapping_add(u64::from(b)));
    first + Days::new(h % span)
}

fuzz_target!(|data: &[u8]| {
    let (head, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let base = base_of(head);
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();

    let found = find_dates(text, base);
    let mut end = 0;
    for m in &found {
        assert!(
            m.start >= end && m.start < m.end && m.end <= text.len(),
            "{m:?}"
        );
        assert!(text.is_char_boundary(m.start) && text.is_char_boundary(m.end));
        assert_eq!(&text[m.start..m.end], m.phrase);
        end = m.end;
        match m.tense {
            Tense::Past => assert!(m.date < base, "past {m:?} not before {base}"),
            Tense::Today => assert_eq!(m.date, base, "today {m:?}"),
            Tense::Future => assert!(m.date > base, "future {m:?} not after {base}"),
            Tense::Bound => {}
        }
        assert_eq!(
            resolve(&m.phrase, base),
            Some(m.date),
            "phrase {:?} alone resolves differently",
            m.phrase
        );
    }

    let fb = future_bound(text, base);
    if let Some(b) = &fb {
        assert!(found.contains(b));
        assert!(b.is_future_bound(base));
    }
    if let Some(first_bound) = found
        .iter()
        .find(|m| m.tense == Tense::Bound && m.date >= base)
    {
        assert_eq!(fb.as_ref(), Some(first_bound));
    }

    let (abs, mentions) = absolutize(text, base);
    assert_eq!(mentions, found);
    // the text survives: each gap and phrase in order, insertions between
    let mut pos = 0;
    let mut at = 0;
    for m in &found {
        let keep = &text[pos..m.end];
        assert!(abs[at..].starts_with(keep), "absolutize lost text");
        at += keep.len();
        let iso = m.date.to_string();
        let ins = format!(" ({iso})");
        if abs[at..].starts_with(&ins) && !text[m.end..].starts_with(&ins) {
            at += ins.len();
        }
        assert!(abs.contains(&iso), "{iso} of {:?} missing", m.phrase);
        pos = m.end;
    }
    assert_eq!(&abs[at..], &text[pos..], "absolutize changed the tail");
    let (again, _) = absolutize(&abs, base);
    assert_eq!(again, abs, "absolutize is not idempotent");
});
