//! Relative dates ("this Friday", "tomorrow", "next week", "yesterday",
//! "last Friday", "until 2026-03-03") resolved against a **base day**: the
//! local calendar day of the message's own timestamp (docs/conventions.md "Dates and times";
//! case B29), never the day of processing.
//!
//! Deterministic and offline. mem-dream uses [`find_dates`] / [`absolutize`]
//! for its `absolutize-date` plan op; mem-extract uses them for `expires` and
//! to write absolute dates into candidates.
//!
//! Conventions (English, lowercase-insensitive):
//! - `today` / `tonight` → the base day; `tomorrow` → +1; `yesterday` → −1;
//!   `the day after tomorrow` → +2; `in N days` → +N.
//! - a bare weekday, `this` / `on` / `coming` + weekday → the next such day on
//!   or after the base day; `next <weekday>` → that weekday in the next
//!   (Monday-based) week; `last <weekday>` → the latest such day before the base.
//! - `next week` → the Sunday ending next week (as a bound); `this week` /
//!   `end of (the) week` / `eow` → the Friday of this week (or the base day when
//!   later); `end of (the) month` → its last day; `next month` → the last day
//!   of next month; `last week` → the Monday of last week.
//! - `YYYY-MM-DD`, `March 3`, `3 March`, `Mar 3rd` (year of the base day; a
//!   month-day already past as a bound rolls to next year).
//! - A date preceded by `until` / `till` / `through` / `thru` / `by` /
//!   `before` / `no later than` is a **bound** ([`Tense::Bound`]): state that
//!   holds until that day (inclusive).

use chrono::{Datelike, Days, Months, NaiveDate, Weekday};
use regex::Regex;
use regex_syntax::hir::{Capture, Class, Hir, HirKind, Repetition};
use std::sync::OnceLock;

/// How a date mention relates to the base day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tense {
    /// `until` / `by` / `before` / `through` + a date: valid through that day.
    Bound,
    /// A day after the base day without a bound word ("tomorrow", "this Friday").
    Future,
    /// The base day itself ("today").
    Today,
    /// A day before the base day ("yesterday", "last Friday"): a fact, not state.
    Past,
}

/// One relative or absolute date found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateMention {
    /// Byte offset of the phrase (bound word included) in the text.
    pub start: usize,
    /// Byte offset one past the phrase.
    pub end: usize,
    /// The phrase as written (`until Friday`, `yesterday`).
    pub phrase: String,
    /// The day it means.
    pub date: NaiveDate,
    /// How it relates to the base day.
    pub tense: Tense,
}

impl DateMention {
    /// True when the mention bounds state in the future (a bound or a future
    /// day on or after the base day).
    pub fn is_future_bound(&self, base: NaiveDate) -> bool {
        matches!(self.tense, Tense::Bound | Tense::Future) && self.date >= base
    }
}

const WEEKDAYS: &str = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun";
const MONTHS: &str = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec";

/// The date regex's pattern, without its `(?i)` (see [`re`]).
fn pattern() -> String {
    let day = format!(
        r"(?:the day after tomorrow|tomorrow|today|tonight|yesterday|in (?P<n>\d{{1,3}}|one|two|three|four|five|six|seven|ten) days?|(?P<mod>this|next|last|on|coming|this coming) (?P<wd>{WEEKDAYS})|(?P<bare>{WEEKDAYS})|next week|this week|last week|next month|end of (?:the )?(?:week|month|day)|eow|eod|eom|(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})|(?P<mon1>{MONTHS})\.? (?P<d1>\d{{1,2}})(?:st|nd|rd|th)?|(?P<d2>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<mon2>{MONTHS}))"
    );
    format!(
        r"(?P<bound>(?:until|till|through|thru|by|before|no later than|up to)\s+(?:(?:the )?end of\s+)?)?{day}"
    )
}

fn re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!("(?i){}", pattern())).expect("date regex"))
}

/// How the words a date phrase can end with end: for each suffix literal
/// of the regex ([`mem_core::literals::suffixes`]) whose last word holds no
/// digit, the last (up to) three bytes of that word, lowercased. `None`
/// when the regex has no finite suffix set or one ends outside a word (the
/// text is then always searched).
///
/// Read off the pattern parsed as ASCII and without its `(?i)`: on an
/// ASCII text (the only kind [`may_hold_date`] filters) `\d` and `\s`
/// match the same bytes as in Unicode mode, and the case of a word is
/// ignored where the tails are compared. Each digit class is read as the
/// one digit `0` ([`digits_as_zero`]): a word with a digit passes whatever
/// the digit, and the numbers' spellings would be too many to list.
fn tails() -> Option<&'static [Vec<u8>]> {
    static TAILS: OnceLock<Option<Vec<Vec<u8>>>> = OnceLock::new();
    TAILS
        .get_or_init(|| {
            let hir = regex_syntax::ParserBuilder::new()
                .unicode(false)
                .build()
                .parse(&pattern())
                .ok()?;
            let mut tails = Vec::new();
            for lit in mem_core::literals::suffixes(&digits_as_zero(&hir))? {
                let start = lit
                    .iter()
                    .rposition(|b| !b.is_ascii_alphanumeric())
                    .map_or(0, |i| i + 1);
                let word = &lit[start..];
                if word.is_empty() {
                    return None;
                }
                if !word.iter().any(u8::is_ascii_digit) {
                    tails.push(word[word.len().saturating_sub(3)..].to_vec());
                }
            }
            tails.sort();
            tails.dedup();
            Some(tails)
        })
        .as_deref()
}

/// False when `text` cannot hold a date phrase that [`find_dates`] keeps.
///
/// A kept phrase ends at the end of a word (of ASCII letters and digits),
/// and its last token is a number or ends with one of the [`tails`] read
/// off the regex (`day`, `eek`, `row`: the ends of `day`, `week`,
/// `tomorrow`, a weekday or a month, …). So a text none of whose words has
/// a digit or ends with one of those holds none. Text that is not ASCII is
/// always searched (Unicode digits and case folding).
/// `h` with each class of digits only replaced by the literal `0`.
fn digits_as_zero(h: &Hir) -> Hir {
    let digits = |lo: u32, hi: u32| lo >= u32::from(b'0') && hi <= u32::from(b'9');
    match h.kind() {
        HirKind::Class(Class::Unicode(c))
            if c.ranges()
                .iter()
                .all(|r| digits(r.start().into(), r.end().into())) =>
        {
            Hir::literal(*b"0")
        }
        HirKind::Class(Class::Bytes(c))
            if c.ranges()
                .iter()
                .all(|r| digits(r.start().into(), r.end().into())) =>
        {
            Hir::literal(*b"0")
        }
        HirKind::Capture(c) => Hir::capture(Capture {
            index: c.index,
            name: c.name.clone(),
            sub: Box::new(digits_as_zero(&c.sub)),
        }),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            sub: Box::new(digits_as_zero(&r.sub)),
        }),
        HirKind::Concat(hs) => Hir::concat(hs.iter().map(digits_as_zero).collect()),
        HirKind::Alternation(hs) => Hir::alternation(hs.iter().map(digits_as_zero).collect()),
        _ => h.clone(),
    }
}

fn may_hold_date(text: &str) -> bool {
    if !text.is_ascii() {
        return true;
    }
    let Some(tails) = tails() else {
        return true;
    };
    text.as_bytes()
        .split(|b| !b.is_ascii_alphanumeric())
        .any(|w| {
            if w.iter().any(u8::is_ascii_digit) {
                return true;
            }
            tails
                .iter()
                .any(|t| w.len() >= t.len() && w[w.len() - t.len()..].eq_ignore_ascii_case(t))
        })
}

fn weekday(s: &str) -> Option<Weekday> {
    let s = s.to_ascii_lowercase();
    Some(match &s[..3.min(s.len())] {
        "mon" => Weekday::Mon,
        "tue" => Weekday::Tue,
        "wed" => Weekday::Wed,
        "thu" => Weekday::Thu,
        "fri" => Weekday::Fri,
        "sat" => Weekday::Sat,
        "sun" => Weekday::Sun,
        _ => return None,
    })
}

fn month(s: &str) -> Option<u32> {
    let s = s.to_ascii_lowercase();
    let i = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .iter()
    .position(|m| s.starts_with(m))?;
    Some(i as u32 + 1)
}

fn small_number(s: &str) -> Option<u64> {
    s.parse().ok().or(match s.to_ascii_lowercase().as_str() {
        "one" => Some(1),
        "two" => Some(2),
        "three" => Some(3),
        "four" => Some(4),
        "five" => Some(5),
        "six" => Some(6),
        "seven" => Some(7),
        "ten" => Some(10),
        _ => None,
    })
}

fn add(d: NaiveDate, n: i64) -> NaiveDate {
    if n >= 0 {
        d.checked_add_days(Days::new(n as u64)).unwrap_or(d)
    } else {
        d.checked_sub_days(Days::new((-n) as u64)).unwrap_or(d)
    }
}

/// The next `wd` on or after `base`.
fn on_or_after(base: NaiveDate, wd: Weekday) -> NaiveDate {
    let delta = (wd.num_days_from_monday() as i64 - base.weekday().num_days_from_monday() as i64)
        .rem_euclid(7);
    add(base, delta)
}

fn monday_of(d: NaiveDate) -> NaiveDate {
    add(d, -(d.weekday().num_days_from_monday() as i64))
}

fn last_of_month(d: NaiveDate) -> NaiveDate {
    let first = NaiveDate::from_ymd_opt(d.year(), d.month(), 1).unwrap_or(d);
    first
        .checked_add_months(Months::new(1))
        .map(|n| add(n, -1))
        .unwrap_or(d)
}

/// Every date phrase in `text`, resolved against `base` (the local day of the
/// text's own timestamp). Phrases that do not resolve are skipped. Byte
/// offsets refer to `text`.
pub fn find_dates(text: &str, base: NaiveDate) -> Vec<DateMention> {
    if !may_hold_date(text) {
        return Vec::new();
    }
    find_dates_in(text, base)
}

/// [`find_dates`] without the prefilter.
fn find_dates_in(text: &str, base: NaiveDate) -> Vec<DateMention> {
    let mut out = Vec::new();
    if text.is_empty() {
        return out;
    }
    for c in re().captures_iter(text) {
        let all = c.get(0).expect("match");
        // word boundaries (ASCII): not glued to letters or digits
        let b = text.as_bytes();
        if all.start() > 0 && b[all.start() - 1].is_ascii_alphanumeric() {
            continue;
        }
        if all.end() < b.len() && b[all.end()].is_ascii_alphanumeric() {
            continue;
        }
        let bound = c.name("bound").is_some();
        let body = &text[c.name("bound").map_or(all.start(), |m| m.end())..all.end()];
        let lower = body.to_ascii_lowercase();
        let Some((date, mut tense)) = resolve_body(&lower, &c, base) else {
            continue;
        };
        if bound {
            tense = Tense::Bound;
        } else if tense == Tense::Future && date == base {
            tense = Tense::Today;
        }
        out.push(DateMention {
            start: all.start(),
            end: all.end(),
            phrase: all.as_str().to_string(),
            date,
            tense,
        });
    }
    out
}

fn resolve_body(
    lower: &str,
    c: &regex::Captures<'_>,
    base: NaiveDate,
) -> Option<(NaiveDate, Tense)> {
    use Tense::*;
    if let Some(n) = c.name("n") {
        return Some((add(base, small_number(n.as_str())? as i64), Future));
    }
    if let Some(wd) = c.name("wd") {
        let wd = weekday(wd.as_str())?;
        let m = c
            .name("mod")
            .map_or("", |m| m.as_str())
            .to_ascii_lowercase();
        return Some(match m.as_str() {
            "last" => {
                let d = on_or_after(add(base, -7), wd);
                (if d >= base { add(d, -7) } else { d }, Past)
            }
            "next" => (
                add(monday_of(base), 7 + wd.num_days_from_monday() as i64),
                Future,
            ),
            _ => (on_or_after(base, wd), Future),
        });
    }
    if let Some(wd) = c.name("bare") {
        // a bare three-letter form ("sat", "sun", "wed") is too ambiguous
        if wd.as_str().len() < 5 && !lower.ends_with("day") {
            return None;
        }
        return Some((on_or_after(base, weekday(wd.as_str())?), Future));
    }
    if let Some(iso) = c.name("iso") {
        let d = crate::dates::parse_iso(iso.as_str())?;
        return Some((d, if d < base { Past } else { Future }));
    }
    if let (Some(m), Some(d)) = (
        c.name("mon1").or(c.name("mon2")),
        c.name("d1").or(c.name("d2")),
    ) {
        let mut date =
            NaiveDate::from_ymd_opt(base.year(), month(m.as_str())?, d.as_str().parse().ok()?)?;
        if date < base && c.name("bound").is_some() {
            date = NaiveDate::from_ymd_opt(base.year() + 1, date.month(), date.day())?;
        }
        return Some((date, if date < base { Past } else { Future }));
    }
    Some(match lower {
        "today" | "tonight" | "end of day" | "end of the day" | "eod" => (base, Today),
        "tomorrow" => (add(base, 1), Future),
        "the day after tomorrow" => (add(base, 2), Future),
        "yesterday" => (add(base, -1), Past),
        "next week" => (add(monday_of(base), 13), Future),
        "this week" | "end of week" | "end of the week" | "eow" => {
            (on_or_after(base, Weekday::Fri).max(base), Future)
        }
        "last week" => (add(monday_of(base), -7), Past),
        "next month" => (
            last_of_month(base.checked_add_months(Months::new(1))?),
            Future,
        ),
        "end of month" | "end of the month" | "eom" => (last_of_month(base), Future),
        _ => return None,
    })
}

/// Parse `YYYY-MM-DD`.
pub fn parse_iso(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// Resolve one phrase ("last Friday", "until tomorrow") against `base`;
/// `None` when it is not a date phrase.
pub fn resolve(phrase: &str, base: NaiveDate) -> Option<NaiveDate> {
    find_dates(phrase.trim(), base)
        .into_iter()
        .find(|m| m.start == 0 && m.end == phrase.trim().len())
        .map(|m| m.date)
}

/// The first future bound in `text` (`until Friday`, `tomorrow`, `by
/// 2026-03-03`): the day a one-time state expires on.
pub fn future_bound(text: &str, base: NaiveDate) -> Option<DateMention> {
    let all = find_dates(text, base);
    all.iter()
        .find(|m| m.tense == Tense::Bound && m.date >= base)
        .or_else(|| all.iter().find(|m| m.is_future_bound(base)))
        .cloned()
}

/// `text` with every relative phrase followed by its absolute day in
/// parentheses (`yesterday` → `yesterday (2026-01-13)`); ISO dates are left
/// as they are. Returns the new text and the mentions found.
pub fn absolutize(text: &str, base: NaiveDate) -> (String, Vec<DateMention>) {
    let found = find_dates(text, base);
    let mut out = String::with_capacity(text.len() + found.len() * 13);
    let mut pos = 0;
    for m in &found {
        out.push_str(&text[pos..m.end]);
        let iso = m.date.to_string();
        if !m.phrase.contains(&iso) && !text[m.end..].trim_start().starts_with(&format!("({iso}")) {
            out.push_str(&format!(" ({iso})"));
        }
        pos = m.end;
    }
    out.push_str(&text[pos..]);
    (out, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        parse_iso(s).unwrap()
    }

    /// B29: base day 2026-01-14 (a Wednesday; the local day in Los Angeles of
    /// 2026-01-15T07:30Z).
    #[test]
    fn b29_relative_days() {
        let base = d("2026-01-14");
        assert_eq!(resolve("yesterday", base), Some(d("2026-01-13")));
        assert_eq!(resolve("today", base), Some(d("2026-01-14")));
        assert_eq!(resolve("Last Friday", base), Some(d("2026-01-09")));
        assert_ne!(resolve("yesterday", base), Some(d("2026-01-14")));
    }

    #[test]
    fn weekdays_and_weeks() {
        let wed = d("2026-07-08");
        assert_eq!(resolve("until Friday", wed), Some(d("2026-07-10")));
        assert_eq!(resolve("this Friday", wed), Some(d("2026-07-10")));
        assert_eq!(resolve("Wednesday", wed), Some(d("2026-07-08")));
        assert_eq!(resolve("last Wednesday", wed), Some(d("2026-07-01")));
        assert_eq!(resolve("next Friday", wed), Some(d("2026-07-17")));
        assert_eq!(resolve("next week", wed), Some(d("2026-07-19")));
        assert_eq!(resolve("tomorrow", wed), Some(d("2026-07-09")));
        assert_eq!(resolve("in 3 days", wed), Some(d("2026-07-11")));
        assert_eq!(resolve("end of month", wed), Some(d("2026-07-31")));
        assert_eq!(resolve("by March 3", wed), Some(d("2027-03-03")));
        assert_eq!(resolve("3rd of August", wed), Some(d("2026-08-03")));
        assert_eq!(resolve("until 2026-07-20", wed), Some(d("2026-07-20")));
        assert_eq!(resolve("saturation", wed), None);
        assert_eq!(resolve("FRIDAY", wed), Some(d("2026-07-10")));
        assert!(find_dates("nothing to see here", wed).is_empty());
    }

    /// The word ends are read off the regex, and they filter: the ends of
    /// its last words, none of a word it cannot end with.
    #[test]
    fn tails_are_read_off_the_regex() {
        let t = tails().expect("a finite suffix set");
        for end in [
            &b"day"[..],
            b"ays",
            b"eek",
            b"nth",
            b"row",
            b"ght",
            b"eow",
            b"may",
            b"sep",
            b"ept",
        ] {
            assert!(
                t.iter().any(|x| x == end),
                "{:?} not in {t:?}",
                String::from_utf8_lossy(end)
            );
        }
        assert!(t.iter().all(|x| !x.is_empty() && x.len() <= 3), "{t:?}");
        assert!(!t.iter().any(|x| x == b"ter" || x == b"ugh"), "{t:?}");
    }

    /// The prefilter never hides a phrase the regex finds and keeps.
    #[test]
    fn prefilter_keeps_every_phrase() {
        let base = d("2026-07-08");
        let phrases = [
            "today",
            "Tonight",
            "tomorrow",
            "the day after tomorrow",
            "yesterday",
            "in 3 days",
            "in two day",
            "this Friday",
            "next TUESDAY",
            "last wed",
            "on thurs",
            "coming sun",
            "this coming monday",
            "saturday",
            "next week",
            "this week",
            "last week",
            "next month",
            "end of the week",
            "end of month",
            "end of day",
            "EOW",
            "eod",
            "eom",
            "2026-07-20",
            "March 3",
            "mar. 3rd",
            "3 March",
            "3rd of august",
            "Sept 9",
            "until Friday",
            "by end of the month",
            "no later than june 1",
            "up to 12 dec",
            "through thu",
            "till 4th of july",
            "before May 5",
            "thru oct 31st",
        ];
        let mut found = 0;
        for p in phrases {
            for t in [p.to_string(), format!("x {p}."), format!("({p}), then")] {
                if !find_dates_in(&t, base).is_empty() {
                    found += 1;
                    assert!(may_hold_date(&t), "{t}");
                }
            }
        }
        assert!(found >= 100, "{found}");
        for t in ["through the router", "common mistakes", "ok, thanks"] {
            assert!(find_dates_in(t, base).is_empty(), "{t}");
        }
        assert!(!may_hold_date("through the router, ok"));
        // word salad from the phrases' own words: the prefilter never hides one
        let words = [
            "the",
            "day",
            "after",
            "tomorrow",
            "today",
            "tonight",
            "yesterday",
            "in",
            "3",
            "12th",
            "one",
            "days",
            "this",
            "next",
            "last",
            "on",
            "coming",
            "monday",
            "Tue",
            "wednesday",
            "thurs",
            "fri",
            "SAT",
            "sun",
            "week",
            "month",
            "end",
            "of",
            "eow",
            "eod",
            "eom",
            "2026-07-20",
            "march",
            "Sept",
            "may",
            "until",
            "till",
            "through",
            "by",
            "before",
            "no",
            "later",
            "than",
            "up",
            "to",
            "x",
            "through",
            "common",
        ];
        let seps = [" ", ", ", ". ", "-", "", "("];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..20_000 {
            let mut t = String::new();
            for _ in 0..1 + next(5) {
                t.push_str(words[next(words.len())]);
                t.push_str(seps[next(seps.len())]);
            }
            if !find_dates_in(&t, base).is_empty() {
                assert!(may_hold_date(&t), "{t}");
            }
        }
    }

    #[test]
    fn bounds_and_tenses() {
        let wed = d("2026-07-08");
        let b = future_bound("Staging is down until Friday, so wait", wed).unwrap();
        assert_eq!((b.date, b.tense), (d("2026-07-10"), Tense::Bound));
        assert!(future_bound("Yesterday we switched CI", wed).is_none());
        assert!(future_bound("generated by the seed script", wed).is_none());
        let b = future_bound("The demo is tomorrow", wed).unwrap();
        assert_eq!(b.tense, Tense::Future);
        let all = find_dates("today and last friday", wed);
        assert_eq!(all[0].tense, Tense::Today);
        assert_eq!(all[1].tense, Tense::Past);
    }

    #[test]
    fn absolutize_appends_days() {
        let (t, m) = absolutize(
            "Yesterday we switched; freeze until 2026-01-20.",
            d("2026-01-14"),
        );
        assert_eq!(
            t,
            "Yesterday (2026-01-13) we switched; freeze until 2026-01-20."
        );
        assert_eq!(m.len(), 2);
        let (again, _) = absolutize(&t, d("2026-01-14"));
        assert_eq!(again, t);
    }
}
