//! The entry model of pass 2: a conversation entry's fields (`message`,
//! `content` as a string or blocks, tool blocks), read leniently, and the
//! event text of a content value.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use crate::event::Text;

/// A message `content`: a string or a list of blocks.
#[derive(Debug, Default)]
pub enum Content<'a> {
    /// A plain string.
    Text(Cow<'a, str>),
    /// Content blocks.
    Blocks(Vec<Block<'a>>),
    /// Anything else (ignored).
    #[default]
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a list of blocks")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut v = Vec::new();
                while let Some(b) = seq.next_element::<MaybeBlock>()? {
                    if let MaybeBlock::Block(b) = b {
                        v.push(b);
                    }
                }
                Ok(Content::Blocks(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A block of a list that is not an object (a bare string) is skipped.
pub(super) enum MaybeBlock<'a> {
    Block(Block<'a>),
    Skip,
}

impl<'de: 'a, 'a> Deserialize<'de> for MaybeBlock<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let c = d.deserialize_any(BlockOrText(std::marker::PhantomData))?;
        Ok(c)
    }
}

pub(super) struct BlockOrText<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> serde::de::Visitor<'de> for BlockOrText<'a> {
    type Value = MaybeBlock<'a>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a content block")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
        Block::deserialize(serde::de::value::MapAccessDeserializer::new(m)).map(MaybeBlock::Block)
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(MaybeBlock::Block(Block {
            ty: Some(Cow::Borrowed("text")),
            text: Some(Cow::Borrowed(v)),
            ..Block::default()
        }))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(MaybeBlock::Block(Block {
            ty: Some(Cow::Borrowed("text")),
            text: Some(Cow::Owned(v.to_string())),
            ..Block::default()
        }))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(MaybeBlock::Skip)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(MaybeBlock::Skip)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(MaybeBlock::Skip)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(MaybeBlock::Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(MaybeBlock::Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(MaybeBlock::Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(MaybeBlock::Skip)
    }
}

/// One content block; only the fields mem reads.
#[derive(Debug, Default, Deserialize)]
pub struct Block<'a> {
    /// `text`, `thinking`, `tool_use`, `tool_result`, `image`, …
    #[serde(rename = "type", borrow, default)]
    pub ty: Option<Cow<'a, str>>,
    /// Text of a `text` block.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub text: Option<Cow<'a, str>>,
    /// Text of a `thinking` block.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub thinking: Option<Cow<'a, str>>,
    /// Tool call id of a `tool_use` block.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub id: Option<Cow<'a, str>>,
    /// Tool name of a `tool_use` block.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub name: Option<Cow<'a, str>>,
    /// Tool input, raw JSON text.
    #[serde(borrow, default, deserialize_with = "raw_json")]
    pub input: Option<&'a str>,
    /// Tool call id a `tool_result` answers.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub tool_use_id: Option<Cow<'a, str>>,
    /// Output of a `tool_result`: a string or blocks, raw JSON text (read
    /// by [`tool_text`]; a string is copied to the event as it is).
    #[serde(borrow, default, deserialize_with = "raw_json")]
    pub content: Option<&'a str>,
    /// Whether the tool reported an error.
    #[serde(default, deserialize_with = "lenient_bool")]
    pub is_error: Option<bool>,
}

/// A value's JSON text as it is in the line; `null` is `None`.
pub(super) fn raw_json<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<&'a str>, D::Error> {
    Ok(Option::<&'a RawValue>::deserialize(d)?.map(RawValue::get))
}

/// A string field, or `None` when the value is of another type.
pub(super) fn lenient_str<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    match Content::deserialize(d)? {
        Content::Text(t) => Ok(Some(t)),
        _ => Ok(None),
    }
}

/// A bool field; anything else (`null`, `"true"`) reads as its best guess.
pub(super) fn lenient_bool<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<bool>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(match v {
        serde_json::Value::Bool(b) => Some(b),
        serde_json::Value::String(s) => Some(s == "true"),
        _ => None,
    })
}

/// `message` of a user or assistant entry.
#[derive(Debug, Default, Deserialize)]
pub struct Message<'a> {
    /// API response id (assistant).
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub id: Option<Cow<'a, str>>,
    /// The content.
    #[serde(borrow, default)]
    pub content: Option<Content<'a>>,
}

/// An entry, with the fields replay reads.
#[derive(Debug, Deserialize)]
pub struct Entry<'a> {
    /// Entry type.
    #[serde(rename = "type", borrow, default)]
    pub ty: Option<Cow<'a, str>>,
    /// uuid.
    #[serde(borrow, default)]
    pub uuid: Option<Cow<'a, str>>,
    /// parentUuid.
    #[serde(rename = "parentUuid", borrow, default)]
    pub parent: Option<Cow<'a, str>>,
    /// logicalParentUuid.
    #[serde(rename = "logicalParentUuid", borrow, default)]
    pub logical: Option<Cow<'a, str>>,
    /// sessionId.
    #[serde(rename = "sessionId", borrow, default)]
    pub session: Option<Cow<'a, str>>,
    /// timestamp.
    #[serde(borrow, default)]
    pub timestamp: Option<Cow<'a, str>>,
    /// cwd.
    #[serde(borrow, default)]
    pub cwd: Option<Cow<'a, str>>,
    /// isSidechain.
    #[serde(rename = "isSidechain", default)]
    pub sidechain: Option<bool>,
    /// isMeta.
    #[serde(rename = "isMeta", default)]
    pub meta: Option<bool>,
    /// isCompactSummary.
    #[serde(rename = "isCompactSummary", default)]
    pub compact_summary: Option<bool>,
    /// subtype (system entries).
    #[serde(borrow, default)]
    pub subtype: Option<Cow<'a, str>>,
    /// Top-level content (system entries).
    #[serde(borrow, default)]
    pub content: Option<Content<'a>>,
    /// The message (user and assistant entries).
    #[serde(borrow, default)]
    pub message: Option<Message<'a>>,
}

/// Text of a tool result's content: strings and text blocks joined by `\n`,
/// images as `[image]`.
pub fn content_text<'a>(content: &Content<'a>) -> Option<Cow<'a, str>> {
    match content {
        Content::Text(t) => Some(t.clone()),
        Content::Blocks(bs) => {
            if bs.len() == 1
                && let Some(t) = &bs[0].text
            {
                return Some(t.clone());
            }
            let mut s = String::new();
            for b in bs {
                let part = match (b.ty.as_deref(), &b.text) {
                    (_, Some(t)) => t.as_ref(),
                    (Some("image"), None) => "[image]",
                    _ => continue,
                };
                if !s.is_empty() {
                    s.push('\n');
                }
                s.push_str(part);
            }
            Some(Cow::Owned(s))
        }
        Content::Other => None,
    }
}

/// The event text of a tool result's raw `content`: a JSON string token as
/// it is (no unescaping and escaping again), blocks as [`content_text`]
/// gives them, anything else (or blocks that do not read) empty.
pub fn tool_text(raw: Option<&str>) -> Text<'_> {
    match raw {
        Some(r) if r.starts_with('"') => Text::Json(r),
        Some(r) => Text::Str(
            serde_json::from_str::<Content>(r)
                .ok()
                .as_ref()
                .and_then(content_text)
                .unwrap_or_default(),
        ),
        None => Text::Str(Cow::Borrowed("")),
    }
}
