//! Rewrite a JSON file keeping its formatting: only the values that
//! changed are written anew, in the file's own indentation; every other
//! byte (other keys, their spacing, key order, the end of the file) stays
//! as it was. `mem-hook install` and `uninstall` change one part of a user's
//! `settings.json` or `hooks.json`, and the rest of the file reads the same
//! afterwards.

use serde_json::{Map, Value};

/// A value's place in the text: `start..end` in bytes.
#[derive(Debug)]
enum Node {
    /// An object: its members, each with where its key starts.
    Object {
        start: usize,
        end: usize,
        members: Vec<(String, usize, Node)>,
    },
    /// An array and its items.
    Array {
        start: usize,
        end: usize,
        items: Vec<Node>,
    },
    /// A string, number, `true`, `false` or `null`.
    Scalar { start: usize, end: usize },
}

impl Node {
    fn span(&self) -> (usize, usize) {
        match self {
            Node::Object { start, end, .. }
            | Node::Array { start, end, .. }
            | Node::Scalar { start, end } => (*start, *end),
        }
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn string_end(&mut self) -> Option<usize> {
        // at the opening quote
        let mut j = self.i + 1;
        while j < self.b.len() {
            match self.b[j] {
                b'\\' => j += 2,
                b'"' => return Some(j + 1),
                _ => j += 1,
            }
        }
        None
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > 128 {
            return None;
        }
        self.ws();
        let start = self.i;
        match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Some(Node::Object {
                        start,
                        end: self.i,
                        members,
                    });
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return None;
                    }
                    let k0 = self.i;
                    let k1 = self.string_end()?;
                    let key: String = serde_json::from_str(&self.s[k0..k1]).ok()?;
                    self.i = k1;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return None;
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    members.push((key, k0, v));
                    self.ws();
                    match self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(Node::Object {
                                start,
                                end: self.i,
                                members,
                            });
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Some(Node::Array {
                        start,
                        end: self.i,
                        items,
                    });
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(Node::Array {
                                start,
                                end: self.i,
                                items,
                            });
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => {
                self.i = self.string_end()?;
                Some(Node::Scalar { start, end: self.i })
            }
            _ => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.i += 1;
                }
                (self.i > start).then_some(Node::Scalar { start, end: self.i })
            }
        }
    }
}

/// The indentation of one level in `text`: the leading whitespace of its
/// first indented line (two spaces when none is).
fn unit(text: &str) -> String {
    text.lines()
        .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
        .find(|w| !w.is_empty())
        .unwrap_or("  ")
        .to_string()
}

/// The leading whitespace of the line holding byte `at`.
fn indent_at(text: &str, at: usize) -> &str {
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest = &text[line..at];
    &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
}

/// `v` as pretty JSON indented by `unit`, its inner lines starting at
/// `indent`.
fn render(v: &Value, indent: &str, unit: &str) -> String {
    use serde::Serialize as _;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    if v.serialize(&mut ser).is_err() {
        return v.to_string();
    }
    String::from_utf8_lossy(&buf).replace('\n', &format!("\n{indent}"))
}

/// How the children of a container are laid out: the text after the
/// opening bracket, between two children, and before the closing one.
fn layout(
    text: &str,
    start: usize,
    end: usize,
    children: &[usize],
    ends: &[usize],
) -> (String, String, String) {
    let indent = indent_at(text, start).to_string();
    let u = unit(text);
    let multi = (
        format!("\n{indent}{u}"),
        format!(",\n{indent}{u}"),
        format!("\n{indent}"),
    );
    match children {
        [] => multi,
        [first, rest @ ..] => {
            let open = text[start + 1..*first].to_string();
            let close = text[ends[ends.len() - 1]..end - 1].to_string();
            let sep = match rest.first() {
                Some(second) => text[ends[0]..*second].to_string(),
                None => format!(",{open}"),
            };
            (open, sep, close)
        }
    }
}

fn patch(text: &str, node: &Node, old: &Value, new: &Value, u: &str) -> String {
    let (start, end) = node.span();
    if old == new {
        return text[start..end].to_string();
    }
    let child_indent = || format!("{}{u}", indent_at(text, start));
    match (node, old, new) {
        (Node::Object { members, .. }, Value::Object(om), Value::Object(nm)) => {
            let kept: Vec<&String> = members
                .iter()
                .map(|(k, ..)| k)
                .filter(|k| nm.contains_key(*k))
                .collect();
            let order: Vec<&String> = nm.keys().filter(|k| om.contains_key(*k)).collect();
            if kept != order {
                return render(new, indent_at(text, start), u);
            }
            let starts: Vec<usize> = members.iter().map(|(_, k0, _)| *k0).collect();
            let ends: Vec<usize> = members.iter().map(|(.., v)| v.span().1).collect();
            let (open, sep, close) = layout(text, start, end, &starts, &ends);
            let mut parts = Vec::new();
            for (k, k0, v) in members {
                let Some(nv) = nm.get(k) else { continue };
                let (v0, _) = v.span();
                let ov = om.get(k).unwrap_or(&Value::Null);
                parts.push(format!("{}{}", &text[*k0..v0], patch(text, v, ov, nv, u)));
            }
            let ci = child_indent();
            for (k, nv) in nm.iter().filter(|(k, _)| !om.contains_key(*k)) {
                let key = serde_json::to_string(k).unwrap_or_default();
                parts.push(format!("{key}: {}", render(nv, &ci, u)));
            }
            if parts.is_empty() {
                return "{}".into();
            }
            format!("{{{open}{}{close}}}", parts.join(&sep))
        }
        (Node::Array { items, .. }, Value::Array(oa), Value::Array(na)) => {
            let starts: Vec<usize> = items.iter().map(|n| n.span().0).collect();
            let ends: Vec<usize> = items.iter().map(|n| n.span().1).collect();
            let (open, sep, close) = layout(text, start, end, &starts, &ends);
            let ci = child_indent();
            let mut parts = Vec::new();
            for (i, nv) in na.iter().enumerate() {
                match (items.get(i), oa.get(i)) {
                    (Some(n), Some(ov)) => parts.push(patch(text, n, ov, nv, u)),
                    _ => parts.push(render(nv, &ci, u)),
                }
            }
            if parts.is_empty() {
                return "[]".into();
            }
            format!("[{open}{}{close}]", parts.join(&sep))
        }
        _ => render(new, indent_at(text, start), u),
    }
}

/// `old_text` (a JSON object) changed to `new`, keeping every byte of the
/// parts that did not change. `None` when the text does not scan as one
/// JSON value (the caller writes the whole file then).
pub fn rewrite(old_text: &str, new: &Map<String, Value>) -> Option<String> {
    let old: Value = serde_json::from_str(old_text).ok()?;
    let mut sc = Scanner {
        b: old_text.as_bytes(),
        s: old_text,
        i: 0,
    };
    let root = sc.value(0)?;
    sc.ws();
    if sc.i != old_text.len() {
        return None;
    }
    let (start, end) = root.span();
    let u = unit(old_text);
    let body = patch(old_text, &root, &old, &Value::Object(new.clone()), &u);
    let out = format!("{}{body}{}", &old_text[..start], &old_text[end..]);
    // never write what does not read back as the new settings
    (serde_json::from_str::<Value>(&out).ok()? == Value::Object(new.clone())).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn only_the_changed_part_is_written() {
        let old = "{\n    \"theme\":   \"dark\",\n    \"env\": {\"A\": 1},\n    \"hooks\": {\n        \"Stop\": [ {\"hooks\": []} ]\n    }\n}\n";
        let new = map(json!({
            "theme": "dark",
            "env": {"A": 1},
            "hooks": {"Stop": [{"hooks": []}], "SessionStart": [{"hooks": [{"type": "command", "command": "x"}]}]}
        }));
        let out = rewrite(old, &new).unwrap();
        assert!(out.starts_with("{\n    \"theme\":   \"dark\",\n    \"env\": {\"A\": 1},\n    \"hooks\": {\n        \"Stop\": [ {\"hooks\": []} ],\n        \"SessionStart\": [\n"), "{out}");
        assert!(
            out.contains("\n                        \"command\": \"x\"\n"),
            "{out}"
        );
        assert!(out.ends_with("    }\n}\n"), "{out}");
        // a key removed, the rest kept as written
        let back = map(json!({"theme": "dark", "env": {"A": 1}}));
        let out2 = rewrite(&out, &back).unwrap();
        assert_eq!(
            out2,
            "{\n    \"theme\":   \"dark\",\n    \"env\": {\"A\": 1}\n}\n"
        );
        // a key added to a file without hooks, one line JSON
        let one = "{\"theme\":\"dark\"}";
        let out3 = rewrite(one, &map(json!({"theme": "dark", "hooks": {}}))).unwrap();
        assert_eq!(out3, "{\"theme\":\"dark\",\"hooks\": {}}");
    }
}
