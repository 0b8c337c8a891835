//! Where a candidate comes from: an entry's line, session and time.

use std::rc::Rc;

use chrono::{DateTime, NaiveDate, Utc};

use mem_core::records::{Expires, Kind, Memory, MemoryType};
use mem_core::time::{local_day, parse_ts};

use super::options::ExtractOptions;
use super::view::EventView;

/// Where a candidate comes from: the entry's line, its session's digest and
/// its timestamp.
#[derive(Debug, Clone)]
pub(super) struct At {
    pub(super) line: u64,
    pub(super) digest: Rc<str>,
    pub(super) ts: Option<DateTime<Utc>>,
}

impl At {
    pub(super) fn evidence(&self) -> String {
        format!("transcript:{}#{}", self.digest, self.line)
    }

    pub(super) fn day(&self) -> Option<NaiveDate> {
        self.ts.map(local_day)
    }
}

pub(super) fn base_memory(
    name: String,
    description: String,
    t: MemoryType,
    kind: Kind,
    at: &At,
    opts: &ExtractOptions,
) -> Memory {
    let mut m = Memory::new(name, description, t);
    m.kind = Some(kind);
    m.project = opts.project_id.clone();
    m.verified_at = at.day();
    m.expires = Some(Expires::Never);
    m.evidence = vec![at.evidence()];
    m
}

/// The origin of an event; `digest` caches the last session's digest.
pub(super) fn at_of(digest: &mut Option<(String, Rc<str>)>, ev: &EventView<'_>) -> At {
    let d = match digest {
        Some((s, d)) if *s == ev.session => d.clone(),
        _ => {
            let d: Rc<str> = mem_core::session::digest(&ev.session).into();
            *digest = Some((ev.session.to_string(), d.clone()));
            d
        }
    };
    At {
        line: ev.line,
        digest: d,
        ts: ev.ts.as_deref().and_then(parse_ts),
    }
}
