//! Indexes the built-in vocabulary (`data/synonyms.txt`, `data/zh-en.txt`)
//! at compile time: `$OUT_DIR/vocab_index.rs` holds its group lines and, per
//! term key ([`vocab_key::term_key`]), the lines with a term of that key, so
//! a recall looks up the few groups its task can meet instead of reading
//! every line (see `src/vocab.rs`, `Vocabulary::for_task`). The tables are
//! one string per kind plus integer offsets, never tables of `&str`: a
//! pointer in a static is a relocation the loader applies at every start of
//! the (position-independent) program.
//!
//! The stems of the built-in terms are computed here too, with the very
//! tokenizer and stemmer recall runs (the `mem-text` crate, which is
//! `mem_core::text`), so a recall stems only the words of its task and of
//! a user's vocabulary: per term its text, the stems of its words and of
//! its content words, and the key of its first word; and a table word →
//! stem of every word of the built-in terms and every stop word, which a
//! task's words are looked up in before they are stemmed (`src/vocab.rs`,
//! `stem`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

#[path = "src/vocab_key.rs"]
#[allow(dead_code)]
mod vocab_key;

use mem_text as text;

/// Appends `items` to `out` as a `&str` constant `name` (one after the
/// other) and a static of their end offsets `ends`, with docs `doc`.
fn text_table(out: &mut String, name: &str, ends: &str, doc: &str, items: &[String]) {
    let _ = writeln!(
        out,
        "/// {doc}, one after the other; item `i` ends at `{ends}[i]`."
    );
    let _ = writeln!(out, "pub const {name}: &str = {:?};", items.concat());
    let mut at = 0usize;
    let offsets: Vec<u32> = items
        .iter()
        .map(|s| {
            at += s.len();
            u32::try_from(at).expect("tables under 4 GiB")
        })
        .collect();
    let _ = writeln!(out, "/// Where each item of `{name}` ends (bytes).");
    let _ = writeln!(
        out,
        "pub static {ends}: [u32; {}] = {offsets:?};",
        offsets.len()
    );
}

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
    terms(&lines, &mut out);
    let dir = std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo");
    let path = std::path::Path::new(&dir).join("vocab_index.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The term tables: per line where its terms end; per term (in line
/// order, a term of several lines once per line) its text, stems, content
/// stems and key; and the word → stem table.
fn terms(lines: &[String], out: &mut String) {
    let stems = text::Stems::default();
    let (mut texts, mut all, mut content, mut keys) = (vec![], vec![], vec![], vec![]);
    let mut pick_keys: Vec<String> = Vec::new();
    let mut line_ends: Vec<u16> = Vec::with_capacity(lines.len());
    let mut stem_of: BTreeMap<String, String> = BTreeMap::new();
    for line in lines {
        for t in line.split(',') {
            // as `Vocabulary::for_task` picks a line: by the `term_key` of
            // the term as written, a Chinese term never
            let t = t.trim();
            pick_keys.push(if t.chars().any(text::is_cjk) {
                String::new()
            } else {
                vocab_key::term_key(t)
                    .expect("a term with a word")
                    .into_owned()
            });
            // as `Vocabulary::add` reads a term
            let t = t.to_lowercase();
            let ws = text::words(&t);
            assert!(!ws.is_empty(), "an empty term in {line:?}");
            let ss: Vec<String> = ws.iter().map(|w| stems.stem(w)).collect();
            assert!(
                ss.iter().all(|s| !s.is_empty() && !s.contains(' ')),
                "a stem with a space or empty: {t:?}"
            );
            content.push(
                ws.iter()
                    .zip(&ss)
                    .filter(|(w, _)| !text::is_stop_word(w))
                    .map(|(_, s)| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            all.push(ss.join(" "));
            keys.push(vocab_key::key(&ws[0]).to_string());
            for (w, s) in ws.into_iter().zip(ss) {
                stem_of.insert(w, s);
            }
            texts.push(t);
        }
        assert!(
            line.split(',').count() >= 2,
            "a group of one term: {line:?}"
        );
        line_ends.push(u16::try_from(texts.len()).expect("under 65,536 terms"));
    }
    for w in text::STOP_WORDS {
        stem_of.insert(w.to_string(), stems.stem(w));
    }
    out.push_str("/// Per line, where its terms end in the term tables (`TERMS_TEXT`, …): line `i`'s terms are `LINE_TERM_ENDS[i - 1]..LINE_TERM_ENDS[i]`.\n");
    let _ = writeln!(
        out,
        "pub static LINE_TERM_ENDS: [u16; {}] = {line_ends:?};",
        line_ends.len()
    );
    text_table(
        out,
        "TERMS_TEXT",
        "TERM_ENDS",
        "Each line's terms (trimmed, lowercased), line after line",
        &texts,
    );
    text_table(
        out,
        "TERM_STEMS_TEXT",
        "TERM_STEM_ENDS",
        "Per term, the stems of its words (`Stems::stem` of `words`) joined by spaces",
        &all,
    );
    text_table(
        out,
        "TERM_CONTENT_TEXT",
        "TERM_CONTENT_ENDS",
        "Per term, the stems of its words that are not stop words, joined by spaces",
        &content,
    );
    text_table(
        out,
        "TERM_KEYS_TEXT",
        "TERM_KEY_ENDS",
        "Per term, the key (`vocab_key::key`) of its first word",
        &keys,
    );
    text_table(
        out,
        "TERM_PICK_KEYS_TEXT",
        "TERM_PICK_KEY_ENDS",
        "Per term, the `vocab_key::term_key` of the term as written (trimmed), empty for a term with a Chinese character",
        &pick_keys,
    );
    let (words, word_stems): (Vec<String>, Vec<String>) = stem_of.into_iter().unzip();
    text_table(
        out,
        "WORDS_TEXT",
        "WORD_ENDS",
        "The words of the built-in terms and the stop words, sorted",
        &words,
    );
    text_table(
        out,
        "WORD_STEMS_TEXT",
        "WORD_STEM_ENDS",
        "The stem of each word of `WORDS_TEXT`",
        &word_stems,
    );
}
