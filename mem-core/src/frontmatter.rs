//! Topic files: YAML frontmatter between `---` lines, then a Markdown body
//! (docs/records.md "Frontmatter key order", "Reading hand-written memories"; cases B16, B17).
//!
//! Reading: a BOM and CRLF read like LF; `metadata: {type: …}` is read as
//! `type`; unknown keys are kept in order; a body in the Fact / Why / How to
//! use form (or Claude Code's `**Why:**` / `**How to apply:**`) also fills
//! `fact`, `why`, `how`. Frontmatter that does not parse is an
//! [`Error::Frontmatter`] with the file's line; callers never rewrite such a
//! file.
//!
//! Writing: keys in the documented order, strings double-quoted (escaped so
//! that colons, quotes, `#`, line breaks and any Unicode read back
//! identical), lists in flow style, dates bare; `id` is the file stem, never
//! a key. A record without `body` gets the Fact / Why / How to use form.

use serde_json::Value;

use crate::error::{Error, Result};
pub use crate::id::is_slug_name;
use crate::records::{Expires, Kind, Memory, MemoryType, Scope, Shape, Source, Trust};

/// Keys mem writes, in order; unknown keys follow in their original order.
pub const KEY_ORDER: &[&str] = &[
    "name",
    "description",
    "type",
    "kind",
    "scope",
    "project",
    "source",
    "trust",
    "triggers",
    "paths",
    "verified_at",
    "expires",
    "supersedes",
    "superseded_by",
    "retired_at",
    "retired_reason",
    "evidence",
    "confidence",
];

/// The parts of a topic file: the YAML text, the body, and the 1-based file
/// line where the YAML starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts<'a> {
    /// The YAML between the `---` lines (LF line ends).
    pub yaml: &'a str,
    /// Everything after the closing `---` line.
    pub body: &'a str,
    /// 1-based line of the file where `yaml` starts.
    pub yaml_line: usize,
}

/// Normalise a topic file's text for reading: drop a BOM; the carriage
/// returns that end a line go (CRLF, and CRCRLF from a file converted
/// twice), so normalising twice changes nothing more. A `\r` inside a line
/// stays.
pub fn normalize(text: &str) -> std::borrow::Cow<'_, str> {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !t.contains("\r\n") {
        return std::borrow::Cow::Borrowed(t);
    }
    let mut out = String::with_capacity(t.len());
    for piece in t.split_inclusive('\n') {
        match piece.strip_suffix('\n') {
            Some(line) => {
                out.push_str(line.trim_end_matches('\r'));
                out.push('\n');
            }
            None => out.push_str(piece),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Split normalised text into frontmatter and body. `None` when the text
/// does not start with a `---` line or the block is not closed.
pub fn split(text: &str) -> Option<Parts<'_>> {
    let rest = text.strip_prefix("---\n")?;
    if let Some(body) = rest.strip_prefix("---\n") {
        return Some(Parts {
            yaml: "",
            body,
            yaml_line: 2,
        });
    }
    if rest == "---" {
        return Some(Parts {
            yaml: "",
            body: "",
            yaml_line: 2,
        });
    }
    let mut pos = 0;
    loop {
        let nl = rest[pos..].find('\n')? + pos;
        let after = &rest[nl + 1..];
        if let Some(body) = after.strip_prefix("---\n") {
            return Some(Parts {
                yaml: &rest[..nl + 1],
                body,
                yaml_line: 2,
            });
        }
        if after == "---" || after.starts_with("---\n") {
            return Some(Parts {
                yaml: &rest[..nl + 1],
                body: "",
                yaml_line: 2,
            });
        }
        pos = nl + 1;
    }
}

/// Parse a topic file into a [`Memory`] (without `id`: the caller sets the
/// file stem). `label` names the file in errors.
///
/// Errors: [`Error::Frontmatter`] with the file line when the frontmatter is
/// missing, is not YAML, is not a mapping, lacks `type`, or holds a value of
/// the wrong shape for a known key.
pub fn parse(label: &str, text: &str) -> Result<Memory> {
    let text = normalize(text);
    let parts = split(&text).ok_or_else(|| Error::Frontmatter {
        file: label.into(),
        line: 1,
        reason: "no frontmatter (the file must start with a `---` line and close it with another)"
            .into(),
    })?;
    let yaml_err = |line: usize, reason: String| Error::Frontmatter {
        file: label.into(),
        line,
        reason,
    };
    if let Some(line) = too_deep(parts.yaml) {
        return Err(yaml_err(
            line + parts.yaml_line - 1,
            format!("flow collections nested deeper than {MAX_FLOW_DEPTH} levels"),
        ));
    }
    if let Err(why) = within_budget(parts.yaml) {
        return Err(yaml_err(parts.yaml_line, why));
    }
    let value: serde_norway::Value = serde_norway::from_str(parts.yaml).map_err(|e| {
        let line = e
            .location()
            .map_or(parts.yaml_line, |l| l.line() + parts.yaml_line - 1);
        let msg = e.to_string();
        let msg = match msg.find(" at line ") {
            Some(i) => msg[..i].to_string(),
            None => msg,
        };
        yaml_err(line, msg)
    })?;
    let map = match value {
        serde_norway::Value::Mapping(m) => m,
        serde_norway::Value::Null => serde_norway::Mapping::new(),
        _ => {
            return Err(yaml_err(
                parts.yaml_line,
                "frontmatter is not a mapping of keys".into(),
            ));
        }
    };
    let line_of = |key: &str| -> usize {
        parts
            .yaml
            .lines()
            .position(|l| {
                l.strip_prefix(key)
                    .is_some_and(|r| r.trim_start().starts_with(':'))
            })
            .map_or(parts.yaml_line, |i| i + parts.yaml_line)
    };
    let bad = |key: &str, why: &str| yaml_err(line_of(key), format!("`{key}`: {why}"));

    let mut fields = serde_json::Map::new();
    for (k, v) in map {
        let key = match k {
            serde_norway::Value::String(s) => s,
            other => yaml_scalar_string(&other)
                .ok_or_else(|| yaml_err(parts.yaml_line, "a key is not a string".into()))?,
        };
        let json = yaml_to_json(v).map_err(|why| bad(&key, &why))?;
        fields.insert(key, json);
    }

    let take_str =
        |fields: &mut serde_json::Map<String, Value>, key: &str| -> Result<Option<String>> {
            match fields.shift_remove(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(Value::Number(n)) => Ok(Some(n.to_string())),
                Some(Value::Bool(b)) => Ok(Some(b.to_string())),
                Some(_) => Err(bad(key, "expected a string")),
            }
        };
    let take_list =
        |fields: &mut serde_json::Map<String, Value>, key: &str| -> Result<Vec<String>> {
            match fields.shift_remove(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::String(s)) => Ok(vec![s]),
                Some(Value::Array(a)) => a
                    .into_iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s),
                        Value::Number(n) => Ok(n.to_string()),
                        Value::Bool(b) => Ok(b.to_string()),
                        _ => Err(bad(key, "expected a list of strings")),
                    })
                    .collect(),
                Some(_) => Err(bad(key, "expected a list of strings")),
            }
        };

    // `metadata: {type: …}` counts as `type` when there is no top-level
    // type: Claude Code 2.1.3xx's shape.
    let mut type_str = take_str(&mut fields, "type")?;
    let mut shape = Shape::Legacy;
    if type_str.is_none()
        && let Some(Value::Object(meta)) = fields.get("metadata")
        && let Some(t) = meta.get("type").and_then(Value::as_str)
    {
        type_str = Some(t.to_string());
        shape = Shape::Current;
    }
    // Read leniently what people and Claude Code write (docs/records.md
    // "Reading hand-written memories"): an unknown kind or scope is kept as
    // written, a missing type is inferred ([`lenient_notes`] says so).
    let kind_str = take_str(&mut fields, "kind")?;
    let kind = kind_str.as_deref().and_then(Kind::parse);
    let mem_type = match type_str {
        None => infer_type(kind, parts.body),
        Some(t) => MemoryType::parse(&t).ok_or_else(|| {
            bad(
                "type",
                &format!("{t:?} is not user, feedback, project or reference"),
            )
        })?,
    };
    let name = take_str(&mut fields, "name")?.unwrap_or_default();
    let description = take_str(&mut fields, "description")?.unwrap_or_default();
    let mut m = Memory::new(name, description, mem_type);
    m.kind = kind;
    let mut unknown = Vec::new();
    if let (Some(k), None) = (kind_str, kind) {
        unknown.push(("kind", k));
    }
    if let Some(s) = take_str(&mut fields, "scope")? {
        match s.as_str() {
            "this-repo" => m.scope = Some(Scope::ThisRepo),
            "all-repos" => m.scope = Some(Scope::AllRepos),
            _ => unknown.push(("scope", s)),
        }
    }
    m.project = take_str(&mut fields, "project")?;
    if let Some(s) = take_str(&mut fields, "source")? {
        m.source = Some(Source::parse(&s).ok_or_else(|| {
            bad(
                "source",
                &format!("{s:?} is not user, assistant, tool, model or manual"),
            )
        })?);
    }
    if let Some(t) = take_str(&mut fields, "trust")? {
        m.trust = Some(
            Trust::parse(&t).ok_or_else(|| bad("trust", &format!("{t:?} is not normal or low")))?,
        );
    }
    let mut triggers = take_list(&mut fields, "triggers")?;
    triggers.extend(take_list(&mut fields, "trigger")?);
    m.triggers = triggers;
    m.paths = take_list(&mut fields, "paths")?;
    if let Some(d) = take_str(&mut fields, "verified_at")? {
        m.verified_at = Some(
            crate::time::parse_day(&d)
                .ok_or_else(|| bad("verified_at", &format!("{d:?} is not a date (YYYY-MM-DD)")))?,
        );
    }
    if let Some(e) = take_str(&mut fields, "expires")? {
        m.expires = Some(
            Expires::parse(&e)
                .ok_or_else(|| bad("expires", &format!("{e:?} is neither a date nor never")))?,
        );
    }
    m.supersedes = take_list(&mut fields, "supersedes")?;
    m.superseded_by = take_str(&mut fields, "superseded_by")?;
    if let Some(d) = take_str(&mut fields, "retired_at")? {
        m.retired_at = Some(
            crate::time::parse_day(&d)
                .ok_or_else(|| bad("retired_at", &format!("{d:?} is not a date (YYYY-MM-DD)")))?,
        );
    }
    m.retired_reason = take_str(&mut fields, "retired_reason")?;
    m.evidence = take_list(&mut fields, "evidence")?;
    match fields.shift_remove("confidence") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) => m.confidence = n.as_f64(),
        Some(Value::String(s)) => {
            m.confidence = Some(
                s.trim()
                    .parse()
                    .map_err(|_| bad("confidence", "expected a number"))?,
            );
        }
        Some(_) => return Err(bad("confidence", "expected a number")),
    }
    // `id` is the file stem, never a key: drop one that was written by hand.
    fields.shift_remove("id");
    for (k, v) in unknown {
        fields.insert(k.into(), Value::String(v));
    }
    m.layout.shape = Some(shape);
    m.layout.raw = raw_segments(parts.yaml)
        .into_iter()
        .filter(|(k, v, _)| match k.as_str() {
            "name" => v.as_str() == Some(m.name.as_str()),
            "description" => v.as_str() == Some(m.description.as_str()),
            _ => fields.get(k) == Some(v),
        })
        .collect();
    m.extra = fields;
    let (fact, why, how) = parse_body_sections(parts.body);
    m.fact = fact;
    m.why = why;
    m.how = how;
    if m.evidence.is_empty() {
        m.evidence = body_evidence(parts.body);
    }
    m.body = Some(parts.body.to_string());
    Ok(m)
}

/// The YAML text of each top-level key of `yaml` whose text reads back
/// alone as that one key with the same value: the key's line and the
/// indented (or blank, or comment) lines under it. Keys whose text does not
/// stand alone (an alias, a quoted key) are left out: they are written
/// from their value.
fn raw_segments(yaml: &str) -> Vec<(String, Value, String)> {
    let mut segs: Vec<(String, String)> = Vec::new();
    for line in yaml.split_inclusive('\n') {
        let starts_key = line
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && c != '#' && c != '-' && c != '"' && c != '\'');
        let key = if starts_key {
            line.find(':')
                .filter(|&i| line[i + 1..].starts_with([' ', '\n', '\t']) || line.len() == i + 1)
                .map(|i| line[..i].trim_end().to_string())
        } else {
            None
        };
        match (key, segs.last_mut()) {
            (Some(k), _) => segs.push((k, line.to_string())),
            (None, Some(last)) => last.1.push_str(line),
            (None, None) => {}
        }
    }
    segs.into_iter()
        .filter_map(|(k, text)| {
            let Ok(serde_norway::Value::Mapping(one)) = serde_norway::from_str(&text) else {
                return None;
            };
            if one.len() != 1 {
                return None;
            }
            let v = one.get(k.as_str())?.clone();
            Some((k, yaml_to_json(v).ok()?, text))
        })
        .collect()
}

/// The names a body links to with `[[name]]` (Claude Code's links between
/// memories), in order, each once. A link's name is trimmed; an empty one
/// or one spanning lines is no link.
pub fn links(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find("[[") {
        let after = &rest[i + 2..];
        let Some(j) = after.find("]]") else { break };
        let name = after[..j].trim();
        if !name.is_empty() && !name.contains(['\n', '[', ']']) && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
        rest = &after[j + 2..];
    }
    out
}

/// Keep the `[[name]]` links of every memory folded into `m`: a link its
/// body lacks is added on one last `Related:` line (Claude Code's links
/// between memories survive a merge).
pub fn keep_links<'a>(m: &mut Memory, from: impl IntoIterator<Item = &'a Memory>) {
    let body = body_text(m).into_owned();
    let have = links(&body);
    let mut missing: Vec<String> = Vec::new();
    for o in from {
        for l in links(&body_text(o)) {
            if !have.contains(&l) && !missing.contains(&l) {
                missing.push(l);
            }
        }
    }
    if missing.is_empty() {
        return;
    }
    let mut body = body;
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    let list: Vec<String> = missing.iter().map(|l| format!("[[{l}]]")).collect();
    body.push_str(&format!("Related: {}\n", list.join(", ")));
    m.body = Some(body);
}

/// Body labels of the fact, in English and Chinese (full-width or ASCII colon).
const FACT_LABELS: &[&str] = &["Fact:", "事实：", "事实:"];
/// Body labels of the reason.
const WHY_LABELS: &[&str] = &["Why:", "为什么：", "为什么:"];
/// Body labels of how to apply it.
const HOW_LABELS: &[&str] = &["How to use:", "How to apply:", "怎么用：", "怎么用:"];
/// Body labels of evidence pointers written by hand.
const EVIDENCE_LABELS: &[&str] = &["Evidence:", "证据指针：", "证据指针:"];

/// Evidence pointers written in the body (`证据指针：a, b` / `Evidence: a`),
/// split on commas (ASCII or full-width), `、` and white space.
fn body_evidence(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|l| {
            let l = l.trim();
            EVIDENCE_LABELS.iter().find_map(|p| l.strip_prefix(p))
        })
        .flat_map(|rest| {
            rest.split(|c: char| c == ',' || c == '，' || c == '、' || c.is_whitespace())
                .map(|t| t.trim_matches('`'))
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The type of a memory written without one: from its kind (a lesson or a
/// preference is feedback, a one-time state project, a reference
/// reference), else feedback when the body has the lesson labels, else
/// project.
pub fn infer_type(kind: Option<Kind>, body: &str) -> MemoryType {
    match kind {
        Some(Kind::DurableLesson | Kind::Preference) => MemoryType::Feedback,
        Some(Kind::OneTimeState) => MemoryType::Project,
        Some(Kind::Reference) => MemoryType::Reference,
        None => {
            let (f, w, h) = parse_body_sections(body);
            if f.is_some() && (w.is_some() || h.is_some()) {
                MemoryType::Feedback
            } else {
                MemoryType::Project
            }
        }
    }
}

/// What [`parse`] read leniently in a topic file's frontmatter, one note
/// each, for `mem-index check` warnings: a missing `type` (and what it was
/// read as), an unknown `kind` or `scope` value (kept as written). Empty
/// when the file is strict or does not parse.
pub fn lenient_notes(text: &str) -> Vec<String> {
    let Some(parts) = split(text) else {
        return Vec::new();
    };
    if too_deep(parts.yaml).is_some() || within_budget(parts.yaml).is_err() {
        return Vec::new();
    }
    let Ok(serde_norway::Value::Mapping(map)) =
        serde_norway::from_str::<serde_norway::Value>(parts.yaml)
    else {
        return Vec::new();
    };
    let get = |k: &str| map.get(k).and_then(serde_norway::Value::as_str);
    let has_meta_type = map
        .get("metadata")
        .and_then(|m| m.get("type"))
        .is_some_and(|t| t.as_str().is_some());
    let mut out = Vec::new();
    let kind = get("kind").and_then(Kind::parse);
    if let Some(k) = get("kind").filter(|_| kind.is_none()) {
        out.push(format!(
            "unknown kind {k:?}: kept as written, read with the type's default"
        ));
    }
    if let Some(s) = get("scope").filter(|s| !matches!(*s, "this-repo" | "all-repos")) {
        out.push(format!("unknown scope {s:?}: kept as written"));
    }
    if map.get("type").is_none() && !has_meta_type {
        let t = infer_type(kind, parts.body);
        out.push(format!(
            "missing `type`: read as {} (write it to make it explicit)",
            t.as_str()
        ));
    }
    out
}

/// Read `fact`, `why`, `how` from a body in the `Fact:` / `Why:` /
/// `How to use:` form, or Claude Code's form (first paragraph, then
/// `**Why:**` and `**How to apply:**`). Missing parts are `None`.
pub fn parse_body_sections(body: &str) -> (Option<String>, Option<String>, Option<String>) {
    let mut fact = None;
    let mut why = None;
    let mut how = None;
    let mut claude_style = false;
    for line in body.lines() {
        let l = line.trim();
        let take = |prefixes: &[&str], slot: &mut Option<String>| -> bool {
            for p in prefixes {
                if let Some(rest) = l.strip_prefix(p) {
                    let v = rest.trim();
                    if !v.is_empty() && slot.is_none() {
                        *slot = Some(v.to_string());
                    }
                    return true;
                }
            }
            false
        };
        if take(FACT_LABELS, &mut fact) {
            continue;
        }
        if take(WHY_LABELS, &mut why) {
            continue;
        }
        if take(HOW_LABELS, &mut how) {
            continue;
        }
        if take(&["**Why:**"], &mut why) || take(&["**How to apply:**"], &mut how) {
            claude_style = true;
        }
    }
    if claude_style && fact.is_none() {
        let first: Vec<&str> = body
            .trim_start()
            .lines()
            .take_while(|l| !l.trim().is_empty() && !l.trim_start().starts_with("**"))
            .collect();
        if !first.is_empty() {
            fact = Some(first.join(" ").trim().to_string());
        }
    }
    (fact, why, how)
}

/// The body mem writes for a record without `body`: `Fact:`, `Why:`,
/// `How to use:` lines for the parts that are set (empty when none is).
pub fn render_sections(m: &Memory) -> String {
    let mut s = String::new();
    for (label, v) in [("Fact", &m.fact), ("Why", &m.why), ("How to use", &m.how)] {
        if let Some(v) = v.as_deref().filter(|v| !v.trim().is_empty()) {
            s.push_str(label);
            s.push_str(": ");
            s.push_str(&v.replace('\n', " "));
            s.push('\n');
        }
    }
    s
}

/// The Markdown body of a memory as mem writes it: `body` when the memory
/// has one (even empty: a topic file's text after its frontmatter is kept
/// as it is), else its `Fact:` / `Why:` / `How to use:` lines
/// ([`render_sections`]). The one body every tool writes, compares and
/// injects.
pub fn body_text(m: &Memory) -> std::borrow::Cow<'_, str> {
    match &m.body {
        Some(b) => std::borrow::Cow::Borrowed(b.as_str()),
        None => std::borrow::Cow::Owned(render_sections(m)),
    }
}

/// True when `s` is a slug YAML reads back as that string when written
/// bare: starting with a letter, not a boolean or null word.
fn plain_slug(s: &str) -> bool {
    is_slug_name(s)
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
}

/// The `name:` of a memory written in [`Shape::Current`]: its name when
/// that is already a slug, else its id, else the id derived from its name.
pub fn slug_name(m: &Memory) -> String {
    if is_slug_name(&m.name) {
        return m.name.clone();
    }
    m.id.clone()
        .or_else(|| crate::id::derive_id(&m.name).ok())
        .unwrap_or_else(|| m.name.clone())
}

/// The `metadata:` block of a memory written in [`Shape::Current`]: the
/// file's own text while its value is unchanged, else `metadata:` with the
/// type first (or where it was) and the other keys it held.
fn metadata_block(m: &Memory) -> String {
    let mut meta = match m.extra.get("metadata") {
        Some(Value::Object(o)) => o.clone(),
        _ => serde_json::Map::new(),
    };
    let t = Value::String(m.mem_type.as_str().to_string());
    if meta.contains_key("type") {
        meta.insert("type".into(), t);
    } else {
        meta.shift_insert(0, "type".into(), t);
    }
    let meta = Value::Object(meta);
    if let Some(text) = raw_text(m, "metadata", &meta) {
        return text;
    }
    let mut y = String::from("metadata:\n");
    if let Value::Object(o) = &meta {
        for (k, v) in o {
            let key = if is_plain_key(k) { k.clone() } else { quote(k) };
            let v = match v {
                Value::String(s) if plain_slug(s) && k == "type" => s.clone(),
                v => json_flow(v),
            };
            y.push_str(&format!("  {key}: {v}\n"));
        }
    }
    y
}

/// The YAML text key `k` was read from, while its value is still `v`.
fn raw_text(m: &Memory, k: &str, v: &Value) -> Option<String> {
    m.layout
        .raw
        .iter()
        .find(|(rk, rv, _)| rk == k && rv == v)
        .map(|(_, _, text)| {
            let mut t = text.clone();
            if !t.ends_with('\n') {
                t.push('\n');
            }
            t
        })
}

/// Render a memory as a topic file (see module docs), in its shape
/// ([`Memory::layout`]; a memory not read from a file is written in
/// [`Shape::Legacy`] unless the writer chose otherwise): in
/// [`Shape::Current`] `name:` is a slug ([`slug_name`]) and the type is
/// under `metadata:`. Unknown keys are written as the file had them while
/// their value is unchanged.
pub fn render(m: &Memory) -> String {
    let shape = m.layout.shape.unwrap_or_default();
    let mut y = String::from("---\n");
    // name and description as the file wrote them while unchanged
    let name = match shape {
        Shape::Legacy => m.name.clone(),
        // a name the file itself has is kept (Claude Code's own, even one
        // that is no slug); any other is written as the slug
        Shape::Current if raw_text(m, "name", &Value::String(m.name.clone())).is_some() => {
            m.name.clone()
        }
        Shape::Current => slug_name(m),
    };
    let raw_or = |k: &str, v: &str| {
        raw_text(m, k, &Value::String(v.to_string()))
            .unwrap_or_else(|| format!("{k}: {}\n", quote(v)))
    };
    if shape == Shape::Current
        && plain_slug(&name)
        && raw_text(m, "name", &Value::String(name.clone())).is_none()
    {
        // as Claude Code writes it: a bare slug
        y.push_str(&format!("name: {name}\n"));
    } else {
        y.push_str(&raw_or("name", &name));
    }
    y.push_str(&raw_or("description", &m.description));
    if shape == Shape::Legacy {
        y.push_str(&format!("type: {}\n", m.mem_type.as_str()));
    }
    if shape == Shape::Current {
        y.push_str(&metadata_block(m));
    }
    let mut kv = |k: &str, v: String| {
        y.push_str(k);
        y.push_str(": ");
        y.push_str(&v);
        y.push('\n');
    };
    // an unknown kind or scope read leniently is written back as it was
    let kept = |k: &str| m.extra.get(k).and_then(Value::as_str).map(quote);
    if let Some(k) = m
        .kind
        .map(|k| k.as_str().to_string())
        .or_else(|| kept("kind"))
    {
        kv("kind", k);
    }
    if let Some(s) = m
        .scope
        .map(|s| s.as_str().to_string())
        .or_else(|| kept("scope"))
    {
        kv("scope", s);
    }
    if let Some(p) = &m.project {
        kv("project", quote(p));
    }
    if let Some(s) = m.source {
        kv("source", s.as_str().to_string());
    }
    if let Some(t) = m.trust {
        kv("trust", t.as_str().to_string());
    }
    if !m.triggers.is_empty() {
        kv("triggers", flow_list(&m.triggers));
    }
    if !m.paths.is_empty() {
        kv("paths", flow_list(&m.paths));
    }
    if let Some(d) = m.verified_at {
        kv("verified_at", d.to_string());
    }
    if let Some(e) = m.expires {
        kv("expires", e.to_string());
    }
    if !m.supersedes.is_empty() {
        kv("supersedes", flow_list(&m.supersedes));
    }
    if let Some(s) = &m.superseded_by {
        kv("superseded_by", quote(s));
    }
    if let Some(d) = m.retired_at {
        kv("retired_at", d.to_string());
    }
    if let Some(r) = &m.retired_reason {
        kv("retired_reason", quote(r));
    }
    if !m.evidence.is_empty() {
        kv("evidence", flow_list(&m.evidence));
    }
    if let Some(c) = m.confidence {
        kv("confidence", json_flow(&serde_json::json!(c)));
    }
    for (k, v) in &m.extra {
        if KEY_ORDER.contains(&k.as_str())
            || k == "id"
            || k == "hash"
            || k == "body"
            || k == "fact"
            || k == "why"
            || k == "how"
            || (shape == Shape::Current && k == "metadata")
        {
            continue;
        }
        if let Some(text) = raw_text(m, k, v) {
            y.push_str(&text);
            continue;
        }
        let key = if is_plain_key(k) { k.clone() } else { quote(k) };
        y.push_str(&format!("{key}: {}\n", json_flow(v)));
    }
    y.push_str("---\n");
    y.push_str(&body_text(m));
    y
}

fn is_plain_key(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !k.starts_with('-')
}

/// A YAML double-quoted scalar that reads back as exactly `s`: `"` and `\`
/// escaped, and every control character, DEL, C1 control, U+2028, U+2029 and
/// U+FEFF written as an escape.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            '\u{2028}' | '\u{2029}' | '\u{feff}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn flow_list(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| quote(s)).collect();
    format!("[{}]", items.join(", "))
}

/// A JSON value as a YAML flow value (strings via [`quote`]).
fn json_flow(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote(s),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(json_flow).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", quote(k), json_flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn yaml_scalar_string(v: &serde_norway::Value) -> Option<String> {
    match v {
        serde_norway::Value::Bool(b) => Some(b.to_string()),
        serde_norway::Value::Number(n) => Some(n.to_string()),
        serde_norway::Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Convert a YAML value to JSON. Errors on tagged values and non-string keys
/// inside nested mappings that cannot be named.
fn yaml_to_json(v: serde_norway::Value) -> std::result::Result<Value, String> {
    use serde_norway::Value as Y;
    Ok(match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or_else(|| Value::String(n.to_string()), Value::Number)
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(seq) => Value::Array(
            seq.into_iter()
                .map(yaml_to_json)
                .collect::<std::result::Result<_, _>>()?,
        ),
        Y::Mapping(m) => {
            let mut o = serde_json::Map::new();
            for (k, v) in m {
                let key = yaml_scalar_string(&k)
                    .ok_or_else(|| "a nested key is not a scalar".to_string())?;
                o.insert(key, yaml_to_json(v)?);
            }
            Value::Object(o)
        }
        Y::Tagged(t) => return Err(format!("YAML tags are not allowed ({})", t.tag)),
    })
}

/// Most values (scalars, lists, mappings, keys included) a frontmatter may
/// hold once its aliases are expanded. Memory frontmatter holds a few dozen;
/// a file whose aliases fan out (`b: &b [*a, *a, …]`, "billion laughs") would
/// otherwise take seconds and gigabytes to expand under the size cap.
pub const MAX_YAML_VALUES: usize = 20_000;

/// Most bytes of scalar text a frontmatter may hold once its aliases are
/// expanded (the topic file cap; see [`MAX_YAML_VALUES`]).
pub const MAX_YAML_SCALAR_BYTES: usize = 1024 * 1024;

/// Walk `yaml` once, counting every value and scalar byte the YAML
/// deserializer produces with its aliases expanded, and stop at the first
/// past [`MAX_YAML_VALUES`] or [`MAX_YAML_SCALAR_BYTES`]: the real parse
/// then never runs on such a file. Errors that are not the budget's (bad
/// YAML) are left to the real parse, which reports them with their line.
fn within_budget(yaml: &str) -> std::result::Result<(), String> {
    use serde::de::DeserializeSeed;
    let mut budget = Budget {
        values: 0,
        bytes: 0,
        over: None,
    };
    let de = serde_norway::Deserializer::from_str(yaml);
    let _ = (&mut budget).deserialize(de);
    match budget.over {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// The counter of [`within_budget`]: a serde visitor that keeps nothing.
struct Budget {
    values: usize,
    bytes: usize,
    over: Option<String>,
}

impl Budget {
    fn take<E: serde::de::Error>(&mut self, bytes: usize) -> std::result::Result<(), E> {
        self.values += 1;
        self.bytes = self.bytes.saturating_add(bytes);
        if self.values > MAX_YAML_VALUES {
            self.over = Some(format!(
                "more than {MAX_YAML_VALUES} values once YAML aliases are expanded (not read)"
            ));
        } else if self.bytes > MAX_YAML_SCALAR_BYTES {
            self.over = Some(format!(
                "more than {MAX_YAML_SCALAR_BYTES} bytes of text once YAML aliases are expanded (not read)"
            ));
        }
        match self.over {
            Some(_) => Err(E::custom("over budget")),
            None => Ok(()),
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for &mut Budget {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for &mut Budget {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<(), E> {
        self.take(0)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<(), E> {
        self.take(0)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<(), E> {
        self.take(0)
    }
    fn visit_i128<E: serde::de::Error>(self, _: i128) -> std::result::Result<(), E> {
        self.take(0)
    }
    fn visit_u128<E: serde::de::Error>(self, _: u128) -> std::result::Result<(), E> {
        self.take(0)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<(), E> {
        self.take(0)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<(), E> {
        self.take(v.len())
    }
    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> std::result::Result<(), E> {
        self.take(v.len())
    }
    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<(), E> {
        self.take(0)
    }
    fn visit_none<E: serde::de::Error>(self) -> std::result::Result<(), E> {
        self.take(0)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        self.take::<D::Error>(0)?;
        d.deserialize_any(self)
    }
    fn visit_newtype_struct<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<(), D::Error> {
        self.take::<D::Error>(0)?;
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut a: A,
    ) -> std::result::Result<(), A::Error> {
        self.take::<A::Error>(0)?;
        while a.next_element_seed(&mut *self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut a: A,
    ) -> std::result::Result<(), A::Error> {
        self.take::<A::Error>(0)?;
        while a.next_key_seed(&mut *self)?.is_some() {
            a.next_value_seed(&mut *self)?;
        }
        Ok(())
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, a: A) -> std::result::Result<(), A::Error> {
        // a tagged value (`!tag x`): its contents count as any other
        use serde::de::VariantAccess;
        self.take::<A::Error>(0)?;
        let (_, v) = a.variant_seed(std::marker::PhantomData::<serde::de::IgnoredAny>)?;
        v.newtype_variant_seed(&mut *self)
    }
}

/// Deepest `[`/`{` nesting the YAML parser is given: its scanner takes time
/// quadratic in the flow depth (100,000 `[` took minutes), and the
/// deserializer refuses more than 128 levels anyway.
const MAX_FLOW_DEPTH: usize = 128;

/// The 1-based line (within `yaml`) where flow nesting first exceeds
/// [`MAX_FLOW_DEPTH`], or `None`. A linear scan: quoted scalars and comments
/// are skipped; a `[`/`{` counts only where a flow node can start (after
/// `:`, `-`, `?`, `,`, `[`, `{`, or at the start of a line), so brackets
/// inside plain scalars (`a[b`) do not.
fn too_deep(yaml: &str) -> Option<usize> {
    let b = yaml.as_bytes();
    let mut depth = 0usize;
    let mut line = 1usize;
    let mut prev = b'\n'; // last significant byte outside a scalar
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                prev = b'\n';
            }
            b' ' | b'\t' | b'\r' => {}
            b'#' if matches!(prev, b'\n' | b',' | b'[' | b'{' | b':' | b'-')
                || b[i - 1] == b' ' =>
            {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' if matches!(prev, b'\n' | b':' | b'-' | b'?' | b',' | b'[' | b'{') => {
                i += 1;
                while i < b.len() {
                    match b[i] {
                        b'\\' if c == b'"' => i += 1,
                        b'\n' => line += 1,
                        q if q == c => {
                            if c == b'\'' && b.get(i + 1) == Some(&b'\'') {
                                i += 1;
                            } else {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                prev = b'a';
            }
            b'[' | b'{' if matches!(prev, b'\n' | b':' | b'-' | b'?' | b',' | b'[' | b'{') => {
                depth += 1;
                if depth > MAX_FLOW_DEPTH {
                    return Some(line);
                }
                prev = c;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                prev = c;
            }
            _ => prev = c,
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Aliases that fan out are refused before the parse; one that does not
    /// reads as before.
    #[test]
    fn alias_fan_out_is_refused_within_the_budget() {
        let mut y = String::from(
            "---\nname: \"B\"\ndescription: \"d\"\ntype: user\na: &a [x,x,x,x,x,x,x,x,x,x]\n",
        );
        for (i, c) in ('b'..='i').enumerate() {
            let p = (b'a' + i as u8) as char;
            y.push_str(&format!(
                "{c}: &{c} [{}]\n",
                vec![format!("*{p}"); 10].join(",")
            ));
        }
        y.push_str("---\nbody\n");
        let t = std::time::Instant::now();
        let err = parse("bomb.md", &y).unwrap_err().to_string();
        assert!(t.elapsed().as_secs() < 2, "took {:?}", t.elapsed());
        assert!(
            err.contains("bomb.md") && err.contains("YAML aliases"),
            "{err}"
        );
        assert!(lenient_notes(&y).is_empty());
        let ok = "---\nname: \"A\"\ndescription: \"d\"\ntype: user\ntriggers: &t [\"x\", \"y\"]\nalso: *t\n---\nbody\n";
        let m = parse("ok.md", ok).unwrap();
        assert_eq!(m.triggers, vec!["x", "y"]);
    }

    /// Regression: 100,000 nested `[` in a frontmatter value made the YAML
    /// scanner run for minutes (quadratic); now refused at once, with the line.
    #[test]
    fn deep_flow_nesting_is_refused_quickly() {
        for (open, close) in [("[", "]"), ("{a: ", "}")] {
            let deep = format!("{}{}", open.repeat(100_000), close.repeat(100_000));
            let text =
                format!("---\nname: \"D\"\ndescription: \"d\"\ntype: user\nx: {deep}\n---\nbody\n");
            let t = std::time::Instant::now();
            let err = parse("deep.md", &text).unwrap_err().to_string();
            assert!(t.elapsed().as_secs() < 5, "took {:?}", t.elapsed());
            assert!(
                err.contains("deep.md") && err.contains("nested deeper"),
                "{err}"
            );
            assert!(err.contains(":5"), "{err}");
        }
        // moderate nesting, brackets in plain and quoted scalars, comments: fine
        let ok = format!(
            "---\nname: \"a[b {{c\"\ndescription: don't [x\ntype: user\n# [[[[ {}\ntriggers: [\"[\", '[[']\nx: {}{}\n---\nbody\n",
            "[".repeat(200),
            "[".repeat(100),
            "]".repeat(100)
        );
        parse("ok.md", &ok).unwrap();
    }
    use proptest::prelude::*;

    const DESIGN_TOPIC: &str = "---\nname: \"Run setup before build-token\"\ndescription: \"build-token needs data/fixture.json, which only setup creates\"\ntype: feedback\nkind: durable-lesson\ntriggers: [\"build-token\", \"verify\", \"fixture\"]\nverified_at: 2026-07-11\nexpires: never\nevidence: [\"transcript:3f9a0c1d2e4b#17\"]\n---\nFact: Run setup before build-token.\nWhy: data/fixture.json is generated and git-ignored; a fresh clone lacks it.\nHow to use: Before any verification, run node src/setup.mjs.\n";

    #[test]
    fn source_and_trust_follow_project_and_read_back() {
        let text = "---\nname: \"n\"\ndescription: \"d\"\ntype: feedback\nscope: this-repo\nproject: \"3b1f0c9a2d4e\"\nsource: tool\ntrust: low\ntriggers: [\"pytest\"]\n---\nFact: f\n";
        let m = parse("t.md", text).unwrap();
        assert_eq!(m.source, Some(Source::Tool));
        assert_eq!(m.trust, Some(Trust::Low));
        assert!(m.extra.is_empty(), "{:?}", m.extra);
        assert_eq!(render(&m), text);
        let bad = text.replace("source: tool", "source: web");
        let err = parse("t.md", &bad).unwrap_err().to_string();
        assert!(err.contains("t.md:7") && err.contains("\"web\""), "{err}");
        let bad = text.replace("trust: low", "trust: high");
        let err = parse("t.md", &bad).unwrap_err().to_string();
        assert!(
            err.contains("t.md:8") && err.contains("normal or low"),
            "{err}"
        );
    }

    #[test]
    fn body_text_is_the_body_or_the_sections() {
        let mut m = Memory::new("n", "d", MemoryType::Feedback);
        m.fact = Some("Run setup\nfirst.".into());
        m.why = Some("  ".into());
        m.how = Some("Before tests.".into());
        assert_eq!(
            body_text(&m),
            "Fact: Run setup first.\nHow to use: Before tests.\n"
        );
        // a body, even an empty one, is written as it is
        m.body = Some(String::new());
        assert_eq!(body_text(&m), "");
        m.body = Some("Free text.\n".into());
        assert_eq!(body_text(&m), "Free text.\n");
        assert!(render(&m).ends_with("---\nFree text.\n"));
    }

    #[test]
    fn design_topic_file_round_trips_byte_for_byte() {
        let m = parse("t.md", DESIGN_TOPIC).unwrap();
        assert_eq!(m.fact.as_deref(), Some("Run setup before build-token."));
        assert_eq!(
            m.how.as_deref(),
            Some("Before any verification, run node src/setup.mjs.")
        );
        assert_eq!(m.expires, Some(Expires::Never));
        assert_eq!(m.verified_at.unwrap().to_string(), "2026-07-11");
        assert_eq!(render(&m), DESIGN_TOPIC);
        // without a body, the same sections are rendered
        let mut m2 = m.clone();
        m2.body = None;
        assert_eq!(render(&m2), DESIGN_TOPIC);
    }

    #[test]
    fn crlf_and_bom_read_like_lf() {
        let crlf = format!("\u{feff}{}", DESIGN_TOPIC.replace('\n', "\r\n"));
        assert_eq!(
            parse("t.md", &crlf).unwrap(),
            parse("t.md", DESIGN_TOPIC).unwrap()
        );
    }

    /// Fuzz find (frontmatter_roundtrip): a body line ending in CRCRLF lost
    /// one CR per read, so rendering what was read was not stable. Every CR
    /// that ends a line goes at once; a CR inside a line stays.
    #[test]
    fn carriage_return_runs_at_line_ends_go_at_once() {
        let text = "---\nname: a\ndescription: b\ntype: user\n---\n\nx\r\r\r\ny\rz\r\n";
        let m = parse("t.md", text).unwrap();
        let once = render(&m);
        assert!(!once.contains("\r\n"), "{once:?}");
        assert!(once.contains("y\rz\n"), "{once:?}");
        let back = parse("t.md", &once).unwrap();
        assert_eq!(back, m);
        assert_eq!(render(&back), once);
        assert_eq!(normalize("a\r\r\nb\r"), "a\nb\r");
        assert_eq!(normalize(&normalize("a\r\r\nb")), normalize("a\r\r\nb"));
    }

    #[test]
    fn claude_code_minimal_and_metadata_type() {
        let m = parse("f.md", "---\nname: testing\ndescription: how we test\ntype: feedback\n---\n\nUse real DBs.\n\n**Why:** mocks hid a bug.\n**How to apply:** integration tests.\n").unwrap();
        assert_eq!(m.mem_type, MemoryType::Feedback);
        assert_eq!(m.fact.as_deref(), Some("Use real DBs."));
        assert_eq!(m.why.as_deref(), Some("mocks hid a bug."));
        assert_eq!(m.how.as_deref(), Some("integration tests."));
        let m = parse(
            "f.md",
            "---\nname: x\ndescription: y\nmetadata:\n  type: user\n---\nbody\n",
        )
        .unwrap();
        assert_eq!(m.mem_type, MemoryType::User);
        assert_eq!(m.extra["metadata"]["type"], "user");
    }

    /// Claude Code 2.1.3xx's shape: a slug name, the type under
    /// `metadata:`, a `modified` stamp and `[[name]]` links; unknown keys
    /// (nested maps, block lists, comments) are written back byte for byte.
    #[test]
    fn current_shape_and_unknown_keys_round_trip_byte_for_byte() {
        let text = "---\nname: run-setup-first\ndescription: build-token needs the fixture setup writes\nmetadata:\n  type: feedback\n  origin: {session: abc, turn: 3}\nmodified: 2026-11-30T08:15:02.118Z\nx-owner:\n  team: build\n  people:\n    - ana\n    - bo   # on call\n---\nRun setup before build-token. See [[fixture-layout]] and [[ci-cache]].\n";
        let m = parse("run-setup-first.md", text).unwrap();
        assert_eq!(m.mem_type, MemoryType::Feedback);
        assert_eq!(m.layout.shape, Some(Shape::Current));
        assert_eq!(m.extra["x-owner"]["people"][1], "bo");
        assert_eq!(m.extra["metadata"]["origin"]["turn"], 3);
        assert_eq!(render(&m), text);
        assert_eq!(
            links(m.body.as_deref().unwrap()),
            ["fixture-layout", "ci-cache"]
        );
        // a changed type rewrites the block, the other keys stay
        let mut m2 = m.clone();
        m2.mem_type = MemoryType::Project;
        let out = render(&m2);
        assert!(
            out.contains("metadata:\n  type: project\n  origin: {\"session\": \"abc\", \"turn\": 3}\nmodified: 2026-11-30T08:15:02.118Z\nx-owner:\n  team: build\n"),
            "{out}"
        );
        assert_eq!(parse("r.md", &out).unwrap().extra, m.extra.clone().into_iter().map(|(k, v)| if k == "metadata" { (k, serde_json::json!({"type": "project", "origin": {"session": "abc", "turn": 3}})) } else { (k, v) }).collect());
        // a changed unknown value is written from its value
        let mut m3 = m.clone();
        m3.extra
            .insert("x-owner".into(), serde_json::json!({"team": "infra"}));
        assert!(render(&m3).contains("x-owner: {\"team\": \"infra\"}\n"));
        // the same unknown keys in the legacy shape are kept as well
        let legacy = "---\nname: \"Run setup first\"\ndescription: \"d\"\ntype: feedback\ncreated: 2026-01-10\nx-owner:\n  team: build\n---\nbody\n";
        let m = parse("l.md", legacy).unwrap();
        assert_eq!(m.layout.shape, Some(Shape::Legacy));
        assert_eq!(render(&m), legacy);
    }

    /// A record written into a directory of the current shape gets the
    /// slug name and the metadata block Claude Code writes.
    #[test]
    fn a_record_renders_in_the_current_shape() {
        let mut m = Memory::new(
            "Run setup before build-token: the fixture is generated",
            "data/fixture.json is git-ignored; a fresh clone lacks it",
            MemoryType::Feedback,
        );
        m.id = Some("run-setup-before-build-token".into());
        m.layout.shape = Some(Shape::Current);
        m.body = Some("Run setup first.\n".into());
        let out = render(&m);
        assert_eq!(
            out,
            "---\nname: run-setup-before-build-token\ndescription: \"data/fixture.json is git-ignored; a fresh clone lacks it\"\nmetadata:\n  type: feedback\n---\nRun setup first.\n"
        );
        let back = parse("x.md", &out).unwrap();
        assert_eq!(back.name, "run-setup-before-build-token");
        assert_eq!(back.mem_type, MemoryType::Feedback);
        assert_eq!(render(&back), out);
        assert_eq!(links("[[a]] [[ a ]] [[]] [[b\nc]] [[d]]"), ["a", "d"]);
    }

    /// A current-shape file whose name is no slug keeps it on a rewrite.
    #[test]
    fn a_current_shape_files_own_name_is_kept() {
        let text = "---\nname: Testing policy\ndescription: real DBs\nmetadata:\n  type: feedback\n---\nbody\n";
        let mut m = parse("testing.md", text).unwrap();
        m.id = Some("testing".into());
        assert_eq!(render(&m), text);
        m.name = "Integration tests use a real database".into();
        assert!(
            render(&m).starts_with("---\nname: testing\n"),
            "{}",
            render(&m)
        );
    }

    /// What the frontmatter fuzz target checks, on keys whose text is kept:
    /// rendering what was read is stable, and reads back the same.
    #[test]
    fn kept_key_text_renders_stably() {
        for text in [
            "---\nname: n\ndescription: d\ntype: user\nx: |+\n  keep\n\n---\nb\n",
            "---\nname: n\ndescription: d\ntype: user\na: &r [1, 2]\nb: *r\n# trailing\n---\n",
            "---\nname: n\ndescription: d\nmetadata:\n  type: user\nz:\n- 1\n- {a: b}\n---\n",
            "---\nname: >\n  folded\n  name\ndescription: d\ntype: user\n\"q k\": 1\n---\n",
            "---\nname: n\ndescription: d\nmetadata: {type: project, x: [1]}\n---\n",
        ] {
            let m = parse("t.md", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let once = render(&m);
            let back = parse("t.md", &once).unwrap_or_else(|e| panic!("{e}\n{once}"));
            assert_eq!(back, m, "{once}");
            assert_eq!(render(&back), once);
        }
    }

    /// The links of a memory folded in survive on a `Related:` line.
    #[test]
    fn keep_links_adds_the_missing_ones_once() {
        let mut m = Memory::new("a", "d", MemoryType::Feedback);
        m.body = Some("See [[x]].".into());
        let mut o = Memory::new("b", "d", MemoryType::Feedback);
        o.body = Some("See [[x]] and [[y]], [[z]] and [[y]].\n".into());
        keep_links(&mut m, [&o]);
        assert_eq!(
            m.body.as_deref(),
            Some("See [[x]].\nRelated: [[y]], [[z]]\n")
        );
        let before = m.clone();
        keep_links(&mut m, [&o]);
        assert_eq!(m.body, before.body);
    }

    /// B16: quotes that break YAML: error names line 3.
    #[test]
    fn b16_bad_quotes_report_line_3() {
        let text = "---\nname: quote-style\ndescription: \"Prefer \u{201c}smart\u{201d} quotes in docs but \"straight\" ones in code\"\ntype: feedback\nverified_at: 2026-01-10\n---\n\nDocs.\n";
        match parse("quote-style.md", text).unwrap_err() {
            Error::Frontmatter { file, line, .. } => {
                assert_eq!(file, "quote-style.md");
                assert_eq!(line, 3);
            }
            e => panic!("{e}"),
        }
    }

    /// B17: a handwritten unquoted `: ` is malformed; ours round-trips.
    #[test]
    fn b17_colons() {
        let err = parse("handwritten-colon.md", "---\nname: deploy\ndescription: Deploy: run the script, then tag\ntype: project\n---\n\nDeploy notes.\n").unwrap_err();
        assert!(matches!(err, Error::Frontmatter { line: 3, .. }), "{err}");
        let mut m = Memory::new(
            "Build: release profile",
            "Release builds: use --locked, then strip the binaries",
            MemoryType::Project,
        );
        m.triggers = vec!["release: build".into(), "#ship".into()];
        m.body = Some("Run `cargo build --release --locked`; strip afterwards.".into());
        let back = parse("b.md", &render(&m)).unwrap();
        assert_eq!(back.name, m.name);
        assert_eq!(back.description, m.description);
        assert_eq!(back.triggers, m.triggers);
        assert_eq!(back.body, m.body);
    }

    #[test]
    fn unknown_keys_are_kept_in_order_and_tags_refused() {
        let m = parse(
            "u.md",
            "---\nname: n\nzeta: 1\ndescription: d\nalpha: [a, b]\ntype: user\n---\n",
        )
        .unwrap();
        let keys: Vec<&String> = m.extra.keys().collect();
        assert_eq!(keys, ["zeta", "alpha"]);
        let out = render(&m);
        assert!(
            out.contains("type: user\nzeta: 1\nalpha: [a, b]\n---\n"),
            "{out}"
        );
        assert!(
            parse(
                "t.md",
                "---\nname: !py/object x\ndescription: d\ntype: user\n---\n"
            )
            .is_err()
        );
        assert!(matches!(
            parse("n.md", "no frontmatter\n"),
            Err(Error::Frontmatter { line: 1, .. })
        ));
        // a missing type is inferred, not refused
        let m = parse("n.md", "---\nname: n\ndescription: d\n---\n").unwrap();
        assert_eq!(m.mem_type, MemoryType::Project);
    }

    /// Regression: a file with an unknown `kind` was left out of recall.
    #[test]
    fn an_unknown_kind_is_kept_as_written_and_read_with_the_default() {
        let text = "---\nname: n\ndescription: d\ntype: feedback\nkind: habit\n---\nbody\n";
        let m = parse("k.md", text).unwrap();
        assert_eq!(m.kind, None);
        assert_eq!(m.effective_kind(), Kind::DurableLesson);
        assert_eq!(m.extra["kind"], "habit");
        assert!(render(&m).contains("kind: \"habit\"\n"), "{}", render(&m));
        assert_eq!(parse("k.md", &render(&m)).unwrap().extra["kind"], "habit");
        assert_eq!(
            lenient_notes(text),
            ["unknown kind \"habit\": kept as written, read with the type's default"]
        );
    }

    /// Regression: a file without `type` was left out of recall.
    #[test]
    fn a_missing_type_is_inferred_and_noted() {
        let lesson = "---\nname: n\ndescription: d\nkind: durable-lesson\n---\n";
        assert_eq!(
            parse("a.md", lesson).unwrap().mem_type,
            MemoryType::Feedback
        );
        assert_eq!(
            lenient_notes(lesson),
            ["missing `type`: read as feedback (write it to make it explicit)"]
        );
        let labelled = "---\nname: n\ndescription: d\n---\nFact: x\nWhy: y\n";
        assert_eq!(
            parse("b.md", labelled).unwrap().mem_type,
            MemoryType::Feedback
        );
        let plain = "---\nname: n\ndescription: d\n---\nsome notes\n";
        assert_eq!(parse("c.md", plain).unwrap().mem_type, MemoryType::Project);
        let reference = "---\nname: n\ndescription: d\nkind: reference\n---\n";
        assert_eq!(
            parse("d.md", reference).unwrap().mem_type,
            MemoryType::Reference
        );
        // written strictly: the type is there on the way out
        let m = parse("a.md", lesson).unwrap();
        assert!(render(&m).contains("type: feedback\n"));
        assert!(lenient_notes(&render(&m)).is_empty());
    }

    /// Regression: the lesson shape people write by hand was left out.
    #[test]
    fn the_hand_written_lesson_shape_is_read_into_the_fields_in_both_languages() {
        let zh = "---\nname: 先运行 setup\ndescription: build-token 需要 fixture\ntype: feedback\nscope: project\ntrigger: build-token\nexpires: \"never\"\n---\n事实：先运行 setup 再运行 build-token。\n为什么：data/fixture.json 由 setup 生成。\n怎么用：验证前运行 node src/setup.mjs。\n证据指针：transcript:3f9a0c1d2e4b#17、transcript:3f9a0c1d2e4b#20\n";
        let m = parse("zh.md", zh).unwrap();
        assert_eq!(m.triggers, ["build-token"]);
        assert_eq!(m.expires, Some(Expires::Never));
        assert_eq!(m.scope, None);
        assert_eq!(m.extra["scope"], "project");
        assert_eq!(m.fact.as_deref(), Some("先运行 setup 再运行 build-token。"));
        assert_eq!(m.why.as_deref(), Some("data/fixture.json 由 setup 生成。"));
        assert_eq!(m.how.as_deref(), Some("验证前运行 node src/setup.mjs。"));
        assert_eq!(
            m.evidence,
            ["transcript:3f9a0c1d2e4b#17", "transcript:3f9a0c1d2e4b#20"]
        );
        assert_eq!(
            lenient_notes(zh),
            ["unknown scope \"project\": kept as written"]
        );
        let en = "---\nname: n\ndescription: d\ntype: feedback\ntrigger: [deploy]\nexpires: never\n---\nFact: Deploy from main.\nWhy: CI only builds main.\nHow to apply: git switch main first.\n";
        let m = parse("en.md", en).unwrap();
        assert_eq!(m.triggers, ["deploy"]);
        assert_eq!(m.fact.as_deref(), Some("Deploy from main."));
        assert_eq!(m.why.as_deref(), Some("CI only builds main."));
        assert_eq!(m.how.as_deref(), Some("git switch main first."));
        let claude = "---\nname: n\ndescription: d\ntype: feedback\n---\nDeploy from main.\n\n**Why:** CI only builds main.\n**How to apply:** git switch main first.\n";
        let m = parse("c.md", claude).unwrap();
        assert_eq!(m.fact.as_deref(), Some("Deploy from main."));
        assert_eq!(m.why.as_deref(), Some("CI only builds main."));
        assert_eq!(m.how.as_deref(), Some("git switch main first."));
    }

    fn any_memory() -> impl Strategy<Value = Memory> {
        let s = "\\PC{0,24}";
        (
            s,
            s,
            prop_oneof![
                Just(MemoryType::User),
                Just(MemoryType::Feedback),
                Just(MemoryType::Project),
                Just(MemoryType::Reference)
            ],
            proptest::collection::vec(s, 0..4),
            proptest::option::of(s),
            proptest::option::of((2000i32..2100, 1u32..13, 1u32..29)),
            "[^\\x00]{0,60}",
        )
            .prop_map(|(name, desc, t, triggers, sup, date, body)| {
                let mut m = Memory::new(name, desc, t);
                m.triggers = triggers;
                m.superseded_by = sup;
                m.verified_at =
                    date.and_then(|(y, mo, d)| chrono::NaiveDate::from_ymd_opt(y, mo, d));
                m.body = Some(body.replace('\r', ""));
                m.extra
                    .insert("x-note".into(), Value::String("a: b # c".into()));
                m
            })
    }

    proptest! {
        /// Frontmatter round trip: whatever mem writes reads back identical.
        #[test]
        fn round_trip(m in any_memory()) {
            let text = render(&m);
            let mut back = parse("p.md", &text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            back.fact = None; back.why = None; back.how = None;
            let mut want = m.clone();
            want.fact = None; want.why = None; want.how = None;
            prop_assert_eq!(back, want);
        }

        #[test]
        fn quoted_strings_read_back(s in "\\PC*|[\\x00-\\x1f\\u{2028}\\u{feff}\"\\\\:#]*") {
            let y = format!("k: {}\n", quote(&s));
            let v: serde_norway::Value = serde_norway::from_str(&y).unwrap();
            prop_assert_eq!(v["k"].as_str(), Some(s.as_str()));
        }
    }
}
