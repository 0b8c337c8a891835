//! Indexes the built-in vocabulary (`data/synonyms.txt`, `data/zh-en.txt`)
//! at compile time: `$OUT_DIR/vocab_index.rs` holds its group lines and, per
//! term key ([`vocab_key::term_key`]), the lines with a term of that key, so
//! a recall looks up the few groups its task can meet instead of reading
//! every line (see `src/vocab.rs`, `Vocabulary::for_task`). The tables are
//! one string per kind plus integer offsets, never tables of `&str`: a
//! pointer in a static is a relocation the loader applies at every start of
//! the (position-independent) program.

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
    // Every table is text or integers: no pointer in a static, so the
    // tables need no relocation when the program starts.
    let mut out = String::new();
    out.push_str("/// The built-in vocabulary's group lines, trimmed, without blank and comment lines (`data/synonyms.txt`'s, then `data/zh-en.txt`'s), one after the other; line `i` ends at `LINE_ENDS[i]`.\n");
    let _ = writeln!(out, "pub const LINES_TEXT: &str = {:?};", lines.concat());
    let mut ends = Vec::with_capacity(lines.len());
    let mut at = 0usize;
    for l in &lines {
        at += l.len();
        ends.push(u32::try_from(at).expect("vocabulary under 4 GiB"));
    }
    out.push_str("/// Where each line of `LINES_TEXT` ends (bytes).\n");
    let _ = writeln!(
        out,
        "pub static LINE_ENDS: [u32; {}] = {ends:?};",
        ends.len()
    );
    out.push_str("/// The term keys (`vocab_key::term_key`), sorted, one after the other; key `k` ends at `KEY_ENDS[k]`.\n");
    let keys: Vec<&str> = by_key.keys().map(String::as_str).collect();
    let _ = writeln!(out, "pub const KEYS_TEXT: &str = {:?};", keys.concat());
    let mut kends = Vec::with_capacity(keys.len());
    let mut lends = Vec::with_capacity(keys.len());
    let mut klines: Vec<u16> = Vec::new();
    let mut at = 0usize;
    for (k, v) in &by_key {
        at += k.len();
        kends.push(u32::try_from(at).expect("keys under 4 GiB"));
        klines.extend(v);
        lends.push(u32::try_from(klines.len()).expect("under 4 G entries"));
    }
    out.push_str("/// Where each key of `KEYS_TEXT` ends (bytes).\n");
    let _ = writeln!(
        out,
        "pub static KEY_ENDS: [u32; {}] = {kends:?};",
        kends.len()
    );
    out.push_str("/// Per key, the indexes of the lines (ascending) with a term of that key, one list after the other; key `k`'s list ends at `KEY_LINE_ENDS[k]`.\n");
    let _ = writeln!(
        out,
        "pub static KEY_LINES: [u16; {}] = {klines:?};",
        klines.len()
    );
    out.push_str("/// Where each key's list of `KEY_LINES` ends.\n");
    let _ = writeln!(
        out,
        "pub static KEY_LINE_ENDS: [u32; {}] = {lends:?};",
        lends.len()
    );
    let dir = std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo");
    let path = std::path::Path::new(&dir).join("vocab_index.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
