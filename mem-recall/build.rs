//! Indexes the built-in vocabulary (`data/synonyms.txt`, `data/zh-en.txt`)
//! at compile time: `$OUT_DIR/vocab_index.rs` holds its group lines and, per
//! term key ([`vocab_key::term_key`]), the lines with a term of that key, so
//! a recall looks up the few groups its task can meet instead of reading
//! every line (see `src/vocab.rs`, `Vocabulary::for_task`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

#[path = "src/vocab_key.rs"]
#[allow(dead_code)]
mod vocab_key;

fn main() {
    let mut lines: Vec<String> = Vec::new();
    for file in ["data/synonyms.txt", "data/zh-en.txt"] {
        println!("cargo::rerun-if-changed={file}");
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        lines.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string),
        );
    }
    println!("cargo::rerun-if-changed=src/vocab_key.rs");
    assert!(
        lines.len() <= usize::from(u16::MAX),
        "too many vocabulary lines"
    );
    let mut by_key: BTreeMap<String, Vec<u16>> = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        for t in line.split(',') {
            if let Some(k) = vocab_key::term_key(t.trim()) {
                let v = by_key.entry(k.into_owned()).or_default();
                if v.last() != Some(&(i as u16)) {
                    v.push(i as u16);
                }
            }
        }
    }
    let mut out = String::new();
    out.push_str("/// The built-in vocabulary's group lines, trimmed, without blank and comment lines: `data/synonyms.txt`'s, then `data/zh-en.txt`'s.\n");
    out.push_str("pub static LINES: &[&str] = &[\n");
    for l in &lines {
        let _ = writeln!(out, "    {l:?},");
    }
    out.push_str("];\n\n");
    out.push_str("/// Per term key (`vocab_key::term_key`), sorted by key: the indexes into [`LINES`] (ascending) of the lines with a term of that key.\n");
    out.push_str("pub static BY_KEY: &[(&str, &[u16])] = &[\n");
    for (k, v) in &by_key {
        let _ = writeln!(out, "    ({k:?}, &{v:?}),");
    }
    out.push_str("];\n");
    let dir = std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo");
    let path = std::path::Path::new(&dir).join("vocab_index.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
