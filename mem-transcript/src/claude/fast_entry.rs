//! The fast entry parser: [`Entry`] read by the fast scanner when it gives
//! exactly what serde_json would, else `None` (the caller falls back).

use super::entry::{Block, Content, Entry, Message};
use super::head::{opt_bool, opt_str_in};
use std::borrow::Cow;

/// A `content` value at `i` of `s` (a line the fast scanner accepted in
/// pass 1): `null` is `None`; the index after the value. `None` when the
/// value is not of the common shapes (serde_json then reads the line).
pub(super) fn fast_content(s: &str, i: usize) -> Option<(Option<Content<'_>>, usize)> {
    let b = s.as_bytes();
    match *b.get(i)? {
        b'n' => b[i..].starts_with(b"null").then_some((None, i + 4)),
        b'"' => {
            let (e, t) = fast_str(s, i)?;
            Some((Some(Content::Text(t)), e))
        }
        b'[' => {
            let mut blocks = Vec::new();
            let mut j = mem_core::scan::ws(b, i + 1);
            if b.get(j) == Some(&b']') {
                return Some((Some(Content::Blocks(blocks)), j + 1));
            }
            loop {
                match *b.get(j)? {
                    b'{' => {
                        let (blk, e) = fast_block(s, j)?;
                        blocks.push(blk);
                        j = e;
                    }
                    b'"' => {
                        let (e, t) = fast_str(s, j)?;
                        blocks.push(Block {
                            ty: Some(Cow::Borrowed("text")),
                            text: Some(t),
                            ..Block::default()
                        });
                        j = e;
                    }
                    _ => j = mem_core::scan::value(b, j, 3)?,
                }
                j = mem_core::scan::ws(b, j);
                match *b.get(j)? {
                    b',' => j = mem_core::scan::ws(b, j + 1),
                    b']' => return Some((Some(Content::Blocks(blocks)), j + 1)),
                    _ => return None,
                }
            }
        }
        _ => {
            let e = mem_core::scan::value(b, i, 2)?;
            Some((Some(Content::Other), e))
        }
    }
}

/// The string token at `i` of `s`: the index after it and its text
/// (borrowed when it has no escapes, else decoded by serde_json).
pub(super) fn fast_str(s: &str, i: usize) -> Option<(usize, Cow<'_, str>)> {
    let (e, esc) = mem_core::scan::string(s.as_bytes(), i + 1)?;
    let t = if esc {
        Cow::Owned(serde_json::from_str::<String>(&s[i..e]).ok()?)
    } else {
        Cow::Borrowed(&s[i + 1..e - 1])
    };
    Some((e, t))
}

/// A content block object at `i` of `s`, read as [`Block`]'s derive
/// would; `None` when unsure (another type where a string is expected, a
/// duplicated key). The index after the object.
pub(super) fn fast_block(s: &str, i: usize) -> Option<(Block<'_>, usize)> {
    let b = s.as_bytes();
    let mut o = mem_core::scan::Obj::open(b, i, 3)?;
    let mut blk = Block::default();
    let field = |k: &[u8]| match k {
        b"type" => Some(0),
        b"text" => Some(1),
        b"thinking" => Some(2),
        b"id" => Some(3),
        b"name" => Some(4),
        b"input" => Some(5),
        b"tool_use_id" => Some(6),
        b"content" => Some(7),
        b"is_error" => Some(8),
        _ => None,
    };
    while let Some(bit) = o.next_field(field)? {
        let at = o.pos();
        let v = o.skip_value()?;
        let tok = &s[at..at + v.len()];
        let null = v == b"null";
        // strings (type and the lenient string fields); null is None
        let text = || -> Option<Option<Cow<'_, str>>> {
            if null {
                return Some(None);
            }
            (v.first() == Some(&b'"'))
                .then(|| fast_str(s, at).map(|(_, t)| t))?
                .map(Some)
        };
        match bit {
            0 => blk.ty = text()?,
            1 => blk.text = text()?,
            2 => blk.thinking = text()?,
            3 => blk.id = text()?,
            4 => blk.name = text()?,
            5 => blk.input = (!null).then_some(tok),
            6 => blk.tool_use_id = text()?,
            7 => blk.content = (!null).then_some(tok),
            _ => {
                blk.is_error = match v {
                    b"true" => Some(true),
                    b"false" => Some(false),
                    b"null" => None,
                    _ => return None,
                }
            }
        }
    }
    Some((blk, o.pos()))
}

/// `message.id` as `lenient_str` reads it, from the value's text.
pub(super) fn fast_lenient_str(v: &str) -> Option<Option<Cow<'_, str>>> {
    let b = v.as_bytes();
    if b.len() >= 2 && b[0] == b'"' && memchr::memchr(b'\\', b).is_none() {
        return Some(Some(Cow::Borrowed(&v[1..v.len() - 1])));
    }
    match serde_json::from_str::<Content>(v).ok()? {
        Content::Text(t) => Some(Some(t)),
        _ => Some(None),
    }
}

/// The `message` object at `i` of `s`; the index after it.
pub(super) fn fast_message(s: &str, i: usize) -> Option<(Message<'_>, usize)> {
    let b = s.as_bytes();
    let mut o = mem_core::scan::Obj::open(b, i, 1)?;
    let mut m = Message::default();
    let field = |k: &[u8]| match k {
        b"id" => Some(0),
        b"content" => Some(1),
        _ => None,
    };
    while let Some(bit) = o.next_field(field)? {
        if bit == 0 {
            let st = o.pos();
            o.skip_value()?;
            m.id = fast_lenient_str(&s[st..o.pos()])?;
        } else {
            let (c, e) = fast_content(s, o.pos())?;
            m.content = c;
            o.set_pos(e);
        }
    }
    Some((m, o.pos()))
}

/// [`Entry`] by the fast scanner, for a line that passed it in pass 1 and is
/// valid UTF-8: `Some` only with the value serde_json would give.
pub(super) fn fast_entry(s: &str) -> Option<Entry<'_>> {
    let b = s.as_bytes();
    let mut o = mem_core::scan::Obj::open(b, 0, 0)?;
    let mut e = Entry {
        ty: None,
        uuid: None,
        parent: None,
        logical: None,
        session: None,
        timestamp: None,
        cwd: None,
        sidechain: None,
        meta: None,
        compact_summary: None,
        subtype: None,
        content: None,
        message: None,
    };
    let field = |k: &[u8]| match k {
        b"type" => Some(0),
        b"uuid" => Some(1),
        b"parentUuid" => Some(2),
        b"logicalParentUuid" => Some(3),
        b"sessionId" => Some(4),
        b"timestamp" => Some(5),
        b"cwd" => Some(6),
        b"isSidechain" => Some(7),
        b"isMeta" => Some(8),
        b"isCompactSummary" => Some(9),
        b"subtype" => Some(10),
        b"content" => Some(11),
        b"message" => Some(12),
        _ => None,
    };
    while let Some(bit) = o.next_field(field)? {
        match bit {
            11 => {
                let (c, end) = fast_content(s, o.pos())?;
                e.content = c;
                o.set_pos(end);
                continue;
            }
            12 => {
                let i = o.pos();
                if b[i..].starts_with(b"null") {
                    o.set_pos(i + 4);
                } else {
                    let (m, end) = fast_message(s, i)?;
                    e.message = Some(m);
                    o.set_pos(end);
                }
                continue;
            }
            _ => {}
        }
        let at = o.pos();
        let v = o.skip_value()?;
        match bit {
            0 => e.ty = opt_str_in(s, at, v)?,
            1 => e.uuid = opt_str_in(s, at, v)?,
            2 => e.parent = opt_str_in(s, at, v)?,
            3 => e.logical = opt_str_in(s, at, v)?,
            4 => e.session = opt_str_in(s, at, v)?,
            5 => e.timestamp = opt_str_in(s, at, v)?,
            6 => e.cwd = opt_str_in(s, at, v)?,
            7 => e.sidechain = opt_bool(v)?,
            8 => e.meta = opt_bool(v)?,
            9 => e.compact_summary = opt_bool(v)?,
            _ => e.subtype = opt_str_in(s, at, v)?,
        }
    }
    mem_core::scan::at_end(b, o.pos()).then_some(e)
}

#[cfg(test)]
mod tests {
    use super::super::entry::tool_text;
    use super::*;
    use crate::event::Text;

    /// Tool output: a string stays its JSON token, blocks are joined, other
    /// values are empty; each reads as the text the blocks decode to.
    #[test]
    fn tool_text_keeps_strings_and_joins_blocks() {
        let s = r#""a\nb \u00e9""#;
        assert!(matches!(tool_text(Some(s)), Text::Json(_)));
        assert_eq!(tool_text(Some(s)).decoded(), "a\nb é");
        let b = r#"[{"type":"text","text":"x\"y"},{"type":"image"},"z"]"#;
        assert_eq!(tool_text(Some(b)).decoded(), "x\"y\n[image]\nz");
        assert_eq!(tool_text(Some(r#"{"k":1}"#)).decoded(), "");
        assert_eq!(tool_text(None).decoded(), "");
    }

    /// The scanner's reading of `content` is serde_json's, value for value,
    /// whenever it answers; it leaves the unusual shapes to serde_json.
    #[test]
    fn fast_content_reads_as_serde_json_does() {
        let cases = [
            r#""plain""#,
            r#""esc\n\"q\" \u00e9 \/""#,
            r#"[]"#,
            r#"[ "bare" , {"type":"text","text":"t"} ]"#,
            r#"[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls \"x\""},"extra":[1,{"a":null}]}]"#,
            r#"[{"type":"tool_result","tool_use_id":"t1","content":"out\nput","is_error":true}]"#,
            r#"[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"}],"is_error":null}]"#,
            r#"[{"type":"tool_result","content":null,"input":null}]"#,
            r#"[{"type":"thinking","thinking":"hm","signature":"x"}]"#,
            r#"[{"type":"image","source":{"type":"base64","data":"AAA="}}]"#,
            r#"[1, true, null, [2], {"type":null,"text":null}]"#,
            r#"{"type":"text"}"#,
            r#"42"#,
            r#"true"#,
            // unusual shapes: the scanner must defer, never differ
            r#"[{"type":"text","text":["a","b"]}]"#,
            r#"[{"type":"text","text":"a","text":"b"}]"#,
            r#"[{"type":3}]"#,
            r#"[{"type":"tool_result","is_error":"true"}]"#,
            r#"[{"type":"tool_result","is_error":1}]"#,
        ];
        let mut answered = 0;
        for c in cases {
            let serde = serde_json::from_str::<Content>(c);
            match fast_content(c, 0) {
                Some((fast, end)) => {
                    answered += 1;
                    assert_eq!(end, c.len(), "{c}");
                    let serde =
                        serde.unwrap_or_else(|e| panic!("{c}: serde fails ({e}), fast read it"));
                    assert_eq!(format!("{:?}", fast), format!("{:?}", Some(serde)), "{c}");
                }
                None => assert!(
                    c.contains("[\"a\"")
                        || c.contains("\"text\":\"b\"")
                        || c.contains(":3")
                        || c.contains("is_error\":\"")
                        || c.contains("is_error\":1"),
                    "the scanner deferred a common shape: {c}"
                ),
            }
        }
        assert_eq!(answered, 14);
    }
}
