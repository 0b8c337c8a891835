//! The fields pass 1 reads of each line ([`Head`]), by the fast scanner
//! when it can, else by serde_json; and the small value readers the fast
//! entry parser shares.

use std::borrow::Cow;

use serde::Deserialize;

#[derive(Deserialize, Default)]
pub(super) struct Head<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow, default)]
    pub(super) parent: Option<Cow<'a, str>>,
    #[serde(rename = "logicalParentUuid", borrow, default)]
    pub(super) logical: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    pub(super) sidechain: Option<bool>,
    #[serde(borrow, default)]
    pub(super) timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) subtype: Option<Cow<'a, str>>,
    #[serde(rename = "isCompactSummary", default)]
    pub(super) compact_summary: Option<bool>,
    #[serde(rename = "isMeta", default)]
    pub(super) meta: Option<bool>,
    #[serde(rename = "sessionId", borrow, default)]
    pub(super) session: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) cwd: Option<Cow<'a, str>>,
    #[serde(rename = "leafUuid", borrow, default)]
    pub(super) leaf: Option<Cow<'a, str>>,
}

/// A string field's value: `null` is `None`; `None` when unsure (the
/// caller then falls back to serde_json, which gives the same value or error).
pub(super) fn opt_str(v: &[u8]) -> Option<Option<Cow<'_, str>>> {
    if v == b"null" {
        return Some(None);
    }
    if v.len() >= 2 && v[0] == b'"' {
        let inner = &v[1..v.len() - 1];
        if memchr::memchr(b'\\', inner).is_none() {
            return std::str::from_utf8(inner)
                .ok()
                .map(|s| Some(Cow::Borrowed(s)));
        }
    }
    serde_json::from_slice::<Option<String>>(v)
        .ok()
        .map(|o| o.map(Cow::Owned))
}

/// [`opt_str`] of the value `v` found at byte `at` of the text `s`: a
/// string without escapes is sliced from `s`, not validated again.
pub(super) fn opt_str_in<'a>(s: &'a str, at: usize, v: &'a [u8]) -> Option<Option<Cow<'a, str>>> {
    if v.len() >= 2 && v[0] == b'"' && memchr::memchr(b'\\', &v[1..v.len() - 1]).is_none() {
        return s
            .get(at + 1..at + v.len() - 1)
            .map(|t| Some(Cow::Borrowed(t)));
    }
    opt_str(v)
}

/// A bool field's value: `null` is `None`; `None` when not a bool.
pub(super) fn opt_bool(v: &[u8]) -> Option<Option<bool>> {
    match v {
        b"null" => Some(None),
        b"true" => Some(Some(true)),
        b"false" => Some(Some(false)),
        _ => None,
    }
}

/// [`Head`] by the fast scanner: `Some` only when serde_json would parse
/// the whole line to the same value.
pub(super) fn fast_head(line: &[u8]) -> Option<Head<'_>> {
    let mut o = mem_core::scan::Obj::open(line, 0, 0)?;
    let mut h = Head::default();
    let field = |k: &[u8]| match k {
        b"type" => Some(0),
        b"uuid" => Some(1),
        b"parentUuid" => Some(2),
        b"logicalParentUuid" => Some(3),
        b"isSidechain" => Some(4),
        b"timestamp" => Some(5),
        b"subtype" => Some(6),
        b"isCompactSummary" => Some(7),
        b"isMeta" => Some(8),
        b"sessionId" => Some(9),
        b"cwd" => Some(10),
        b"leafUuid" => Some(11),
        _ => None,
    };
    while let Some(bit) = o.next_field(field)? {
        let v = o.skip_value()?;
        match bit {
            0 => h.ty = opt_str(v)?,
            1 => h.uuid = opt_str(v)?,
            2 => h.parent = opt_str(v)?,
            3 => h.logical = opt_str(v)?,
            4 => h.sidechain = opt_bool(v)?,
            5 => h.timestamp = opt_str(v)?,
            6 => h.subtype = opt_str(v)?,
            7 => h.compact_summary = opt_bool(v)?,
            8 => h.meta = opt_bool(v)?,
            9 => h.session = opt_str(v)?,
            10 => h.cwd = opt_str(v)?,
            _ => h.leaf = opt_str(v)?,
        }
    }
    mem_core::scan::at_end(line, o.pos()).then_some(h)
}
