//! Time: the pinned clock (`--today` / `--now`, `MEM_TODAY` / `MEM_NOW`),
//! timestamp parsing, and the local calendar day of a timestamp.
//!
//! Stored dates are ISO 8601 days; timestamps are UTC RFC 3339 with `Z`.
//! Relative dates resolve against the **local day (TZ) of the source's own
//! timestamp**, never the time of processing (case B29).

use chrono::{DateTime, Local, NaiveDate, SecondsFormat, TimeZone, Utc};

use crate::error::{Error, Result};

/// The clock a tool runs with: "now" and "today", pinned or real.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// The current instant (UTC).
    pub now: DateTime<Utc>,
    /// Today's date: `--today`, else the local day of `now`.
    pub today: NaiveDate,
}

impl Clock {
    /// The clock from flags, then the environment (`MEM_NOW`, `MEM_TODAY`),
    /// then the system clock. `today` without `now` pins the day only.
    ///
    /// Errors: [`Error::Env`] when a value is not RFC 3339 / `YYYY-MM-DD`,
    /// naming the flag or variable.
    pub fn from_args(now: Option<&str>, today: Option<&str>) -> Result<Clock> {
        let env_now = std::env::var("MEM_NOW").ok().filter(|s| !s.is_empty());
        let env_today = std::env::var("MEM_TODAY").ok().filter(|s| !s.is_empty());
        let now = match (now, env_now.as_deref()) {
            (Some(s), _) => Some(parse_ts(s).ok_or_else(|| bad("--now", s))?),
            (None, Some(s)) => Some(parse_ts(s).ok_or_else(|| bad("MEM_NOW", s))?),
            _ => None,
        };
        let today = match (today, env_today.as_deref()) {
            (Some(s), _) => Some(parse_day(s).ok_or_else(|| bad("--today", s))?),
            (None, Some(s)) => Some(parse_day(s).ok_or_else(|| bad("MEM_TODAY", s))?),
            _ => None,
        };
        Ok(Clock::pinned(now, today))
    }

    /// A clock from optional pinned values; missing parts come from the
    /// system clock (`today` defaults to the local day of `now`).
    pub fn pinned(now: Option<DateTime<Utc>>, today: Option<NaiveDate>) -> Clock {
        let now = now.unwrap_or_else(Utc::now);
        let today = today.unwrap_or_else(|| local_day(now));
        Clock { now, today }
    }
}

fn bad(what: &str, value: &str) -> Error {
    Error::Env(format!(
        "{what}: {value:?} is not a valid {}",
        if what.contains("today") || what.contains("TODAY") {
            "date (YYYY-MM-DD)"
        } else {
            "timestamp (RFC 3339)"
        }
    ))
}

/// clap value parser of a day flag (`--today`, `--since`): the value as
/// given once it parses as `YYYY-MM-DD`, so a bad one is a usage error
/// (exit 2) naming the flag.
///
/// Errors: the message clap prints after "invalid value".
pub fn day_arg(s: &str) -> std::result::Result<String, String> {
    parse_day(s)
        .map(|_| s.to_string())
        .ok_or_else(|| "not a date (YYYY-MM-DD)".to_string())
}

/// clap value parser of a time flag (`--now`): the value as given once it
/// parses as RFC 3339 (a usage error, exit 2, otherwise).
///
/// Errors: the message clap prints after "invalid value".
pub fn ts_arg(s: &str) -> std::result::Result<String, String> {
    parse_ts(s)
        .map(|_| s.to_string())
        .ok_or_else(|| "not a timestamp (RFC 3339, e.g. 2026-07-11T10:00:00Z)".to_string())
}

/// clap value parser of a duration in hours or minutes given as a number
/// (`--min-hours 1.5`): finite and not negative, else a usage error (exit 2).
///
/// Errors: the message clap prints after "invalid value".
pub fn non_negative_arg(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("not a number of 0 or more".to_string()),
    }
}

/// Parse an ISO 8601 day (`YYYY-MM-DD`).
pub fn parse_day(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").ok()
}

/// Parse a timestamp into UTC: RFC 3339 with any offset (`Z`, `+02:00`), a
/// bare day (midnight UTC), or epoch seconds / milliseconds as a decimal
/// string (Codex writes both). Returns `None` when it is none of these.
pub fn parse_ts(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    if let Ok(n) = s.parse::<f64>() {
        return from_epoch(n);
    }
    parse_day(s).map(|d| d.and_hms_opt(0, 0, 0).expect("midnight").and_utc())
}

/// An epoch number (seconds, or milliseconds when above 10^11) as UTC.
pub fn from_epoch(n: f64) -> Option<DateTime<Utc>> {
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    let ms = if n > 1e11 { n } else { n * 1000.0 };
    if ms > 8.0e15 {
        return None;
    }
    Utc.timestamp_millis_opt(ms as i64).single()
}

/// Format as UTC RFC 3339 with `Z` (milliseconds only when non-zero).
pub fn fmt_ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// The local calendar day of `t` in the machine's time zone (`TZ`).
///
/// B29: `2026-01-15T07:30:00Z` in `America/Los_Angeles` is `2026-01-14`.
pub fn local_day(t: DateTime<Utc>) -> NaiveDate {
    t.with_timezone(&Local).date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_offsets_and_epochs_to_utc() {
        let t = parse_ts("2026-01-15T09:30:00+02:00").unwrap();
        assert_eq!(fmt_ts(t), "2026-01-15T07:30:00Z");
        let t = parse_ts("1768462200").unwrap();
        assert_eq!(fmt_ts(t), "2026-01-15T07:30:00Z");
        let t = parse_ts("1768462200123").unwrap();
        assert_eq!(fmt_ts(t), "2026-01-15T07:30:00.123Z");
        assert!(parse_ts("yesterday").is_none());
        assert_eq!(
            parse_day("2026-07-13"),
            NaiveDate::from_ymd_opt(2026, 7, 13)
        );
    }

    /// B29's basis: the local day of 2026-01-15T07:30Z in Los Angeles is the
    /// 14th. Runs itself again in a child process with `TZ` set, because the
    /// time zone is read from the environment.
    #[test]
    fn b29_local_day_follows_tz() {
        if std::env::var_os("MEM_TEST_CHILD_TZ").is_some() {
            let t = parse_ts("2026-01-15T07:30:00Z").unwrap();
            assert_eq!(local_day(t).to_string(), "2026-01-14");
            return;
        }
        for (tz, want_ok) in [("America/Los_Angeles", true), ("UTC", false)] {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "time::tests::b29_local_day_follows_tz",
                    "--nocapture",
                ])
                .env("MEM_TEST_CHILD_TZ", "1")
                .env("TZ", tz)
                .output()
                .unwrap();
            assert_eq!(out.status.success(), want_ok, "TZ={tz}: {out:?}");
        }
    }

    #[test]
    fn pinned_clock_uses_given_values() {
        let c = Clock::from_args(Some("2026-07-13T10:00:00Z"), Some("2026-07-12")).unwrap();
        assert_eq!(c.today.to_string(), "2026-07-12");
        assert_eq!(fmt_ts(c.now), "2026-07-13T10:00:00Z");
        let err = Clock::from_args(None, Some("13/07/2026")).unwrap_err();
        assert!(err.to_string().contains("--today"), "{err}");
    }
}
