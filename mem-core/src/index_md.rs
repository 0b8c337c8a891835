//! The `MEMORY.md` policy (docs/memory-dir.md "MEMORY.md"; cases B14, B16).
//!
//! `MEMORY.md` is shared with Claude Code and the person: mem owns only its
//! own entry lines `- [Title](file.md) - description` (Claude Code writes
//! ` — `; both are read), each under [`MAX_LINE_CHARS`] characters.
//! [`update`] rewrites an existing index in place:
//! - every line mem did not write (headings, prose, blank lines, links
//!   elsewhere, a second line for the same file, and the line of a
//!   *foreign* memory — one [`crate::Memory::written_by_mem`] says mem did
//!   not write — unless the line has the exact shape mem writes,
//!   `- [<name>](<file>) - …`) is kept verbatim and in order;
//! - the first line of each other memory is rewritten in place;
//! - a line whose bare `<name>.md` target is no longer in the directory is
//!   removed, and so is mem's previous WARNING line;
//! - memories without a line are added, in policy order (type user,
//!   feedback, project, reference, then unparsable files; then newer
//!   `verified_at`, newer mtime in whole seconds, id; superseded and
//!   expired last), right
//!   after the last entry line of a memory of the directory, else at the end.
//!
//! No lint text is written (problems are `mem-index check`'s). Limits:
//! [`MAX_LINES`] lines and [`MAX_BYTES`] bytes for the whole file, foreign
//! lines included; when over, mem's own entries are cut (lowest in policy
//! order first; a foreign line never is) and a final `WARNING` line says how
//! many were left out and names as many as fit. Foreign lines alone over a
//! limit: every entry of mem's is cut and the file stays as long as they make it.
//!
//! [`render`] is the index of a directory without one; readers [`load`] any
//! `MEMORY.md`, hand-made ones over a limit included, and get it cut the
//! same way.

use std::collections::{HashMap, HashSet};
use std::time::SystemTime;

use chrono::NaiveDate;

use crate::records::{Expires, Memory, MemoryType};
use crate::store::{Broken, Store, Topic};
use crate::truncate::floor_to_chars;

// A reader takes four times the byte limit (enough to cut the index and
// name what was cut): the read cap of confined reads follows this limit.
const _: () = assert!(crate::confine::INDEX_READ_BYTES == 4 * MAX_BYTES as u64);

/// Most lines in `MEMORY.md`, the WARNING line included.
pub const MAX_LINES: usize = 200;
/// Most bytes in `MEMORY.md` (UTF-8, newlines included), the WARNING line included.
pub const MAX_BYTES: usize = 25_000;
/// Every line is shorter than this many characters (Unicode scalar values,
/// newline not counted).
pub const MAX_LINE_CHARS: usize = 150;
/// Most bytes of the WARNING line (within what the limits leave).
pub const MAX_WARNING_BYTES: usize = 2_000;
/// The first word of the line that reports a cut.
pub const WARNING_PREFIX: &str = "WARNING:";

/// What one index line is made from.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// The topic id (file stem).
    pub id: String,
    /// The link target, `<id>.md`.
    pub file: String,
    /// The link text (the memory's `name`; the id for a broken file).
    pub title: String,
    /// The text after the separator (the memory's `description`).
    pub description: String,
    /// The memory's type; `None` for a broken file (sorted after reference).
    pub mem_type: Option<MemoryType>,
    /// The memory's `verified_at`.
    pub verified_at: Option<NaiveDate>,
    /// The file's mtime.
    pub mtime: SystemTime,
    /// The memory's `expires`.
    pub expires: Option<Expires>,
    /// The id that supersedes this one (its own `superseded_by`, another
    /// memory's `supersedes`, or "supersedes `<id>`" in another's text).
    pub superseded_by: Option<String>,
    /// For a file whose frontmatter does not parse: what is wrong
    /// (e.g. `frontmatter does not parse (line 3)`); never written into the
    /// index (`mem-index check` reports it).
    pub broken: Option<String>,
    /// True for a memory mem did not write (and for an unparsable file):
    /// its existing index line is kept as written.
    pub foreign: bool,
    /// True when the line separates the description with ` — ` (Claude
    /// Code 2.1.3xx's index lines, for a topic file of its current shape)
    /// rather than ` - `.
    pub em_dash: bool,
}

impl IndexEntry {
    /// The entry of a parsed topic file (not yet marked superseded).
    pub fn from_topic(t: &Topic) -> IndexEntry {
        let m = &t.memory;
        let title = if crate::id::is_slug_name(&m.name) && m.name == t.id {
            // Claude Code's current shape: the name is the file's slug; the
            // title is mem's `title:` key when it wrote one
            match m.extra.get("title").and_then(serde_json::Value::as_str) {
                Some(x) if !x.trim().is_empty() => x.to_string(),
                _ => humanize(&m.name),
            }
        } else {
            m.name.clone()
        };
        let description = added_description(&title, m);
        IndexEntry {
            id: t.id.clone(),
            file: format!("{}.md", t.id),
            title,
            description,
            mem_type: Some(m.mem_type),
            verified_at: m.verified_at,
            mtime: t.mtime,
            expires: m.expires,
            superseded_by: m.superseded_by.clone(),
            broken: None,
            foreign: !m.written_by_mem(),
            em_dash: m.layout.shape == Some(crate::records::Shape::Current),
        }
    }

    /// The flagged entry of a file whose frontmatter does not parse (B16):
    /// title from the file name; `old_description` is what the previous
    /// index said about it, if anything.
    pub fn from_broken(b: &Broken, old_description: Option<&str>) -> IndexEntry {
        let flag = match b.line() {
            Some(l) => format!("frontmatter does not parse (line {l})"),
            None => "unreadable".to_string(),
        };
        IndexEntry {
            id: b.id.clone(),
            file: format!("{}.md", b.id),
            title: b.id.clone(),
            description: old_description.unwrap_or_default().to_string(),
            mem_type: None,
            verified_at: None,
            mtime: b.mtime,
            expires: None,
            superseded_by: None,
            broken: Some(flag),
            foreign: true,
            em_dash: false,
        }
    }

    /// True when the entry sorts into the last group on `today`.
    pub fn is_demoted(&self, today: NaiveDate) -> bool {
        self.superseded_by.is_some() || self.expires.is_some_and(|e| e.is_expired(today))
    }

    /// The index line (no newline), under [`MAX_LINE_CHARS`] characters.
    pub fn line(&self, today: NaiveDate) -> String {
        let mut desc = String::new();
        if let Some(by) = &self.superseded_by {
            desc.push_str(&format!("[superseded by {by}] "));
        }
        if let Some(Expires::On(d)) = self.expires
            && d < today
        {
            desc.push_str(&format!("[expired {d}] "));
        }
        // Claude Code loads this file verbatim: no line may carry markup
        desc.push_str(&placeholders(&neutralize(&one_line(&self.description))));
        let title = escape_title(&placeholders(&neutralize(&one_line(&self.title))));
        let desc = desc.trim_end();
        // The link is never cut: a long title or description is cut (at a
        // character boundary, ending in `…`) so that the line stays under
        // the limit with its `(file.md)` whole.
        let sep = if self.em_dash { " — " } else { " - " };
        let fixed = "- []() - ".chars().count() + self.file.chars().count();
        let room = (MAX_LINE_CHARS - 1).saturating_sub(fixed);
        let (tl, dl) = (title.chars().count(), desc.chars().count());
        if desc.is_empty() {
            // no separator without a description; the link is never cut
            let room = (MAX_LINE_CHARS - 1)
                .saturating_sub("- []()".chars().count() + self.file.chars().count());
            if title.chars().count() <= room || room < 2 {
                return cut_line(&format!("- [{title}]({})", self.file));
            }
            return format!("- [{}]({})", cut_to(&title, room, true), self.file);
        }
        if tl + dl <= room || room < 2 {
            let line = format!("- [{title}]({}){sep}{desc}", self.file);
            return cut_line(&line);
        }
        // The title keeps at least half the room, more when the
        // description is short.
        let t_budget = tl.min(room.saturating_sub(dl.min(room / 2))).max(1);
        let title = cut_to(&title, t_budget, true);
        let desc = cut_to(desc, room - title.chars().count(), false);
        format!("- [{title}]({}){sep}{desc}", self.file)
    }
}

/// A slug name read as a title: dashes and underscores as spaces, the
/// first letter upper case (`run-setup-first` → `Run setup first`).
pub fn humanize(slug: &str) -> String {
    let words = slug.replace(['-', '_'], " ");
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut c = words.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Text compared for sameness: lower case, words only.
fn words_of(s: &str) -> String {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The text of `m`'s index line after its `title`: a description that adds
/// to the title. One that says the title again (equal to it, word for word,
/// or starting with it) gives way to what follows the title in it, else to
/// the memory's `Why:` or `Fact:` when that says something else, else to
/// nothing.
pub fn added_description(title: &str, m: &Memory) -> String {
    let t = words_of(title);
    let d = words_of(&m.description);
    // a one-word title ("A", "Testing") starting the description is no
    // repeat of it: only an equal one is
    let prefix = t.contains(' ') && d.starts_with(&format!("{t} "));
    if t.is_empty() || !(d == t || prefix) {
        return m.description.clone();
    }
    // what follows the title's words in the description, as written
    let n = t.split(' ').count();
    let desc = m.description.as_str();
    let mut seen = 0;
    let mut end = desc.len();
    let mut in_word = false;
    for (i, c) in desc.char_indices() {
        let w = c.is_alphanumeric();
        if in_word && !w && seen == n {
            end = i;
            break;
        }
        if w && !in_word {
            seen += 1;
        }
        in_word = w;
    }
    // (the closing mark of the title's last word goes too: "… with `act`")
    let rest = desc[end..].trim_start_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ':' | ';' | ',' | '.' | '-' | '—' | '–' | '`' | '"' | '\'' | ')' | ']' | '*'
            )
    });
    if !rest.trim().is_empty() {
        return rest.trim().to_string();
    }
    for alt in [&m.why, &m.fact].into_iter().flatten() {
        let a = words_of(alt);
        if !a.is_empty() && a != t && !a.starts_with(&format!("{t} ")) && a != d {
            return alt.clone();
        }
    }
    String::new()
}

/// `s` cut to at most `n` characters, ending in `…` when cut; for an
/// escaped title, a backslash left alone at the end (which would escape the
/// closing `]`) goes too.
fn cut_to(s: &str, n: usize, escaped: bool) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    if n == 0 {
        return String::new();
    }
    let mut head = floor_to_chars(s, n - 1).trim_end().to_string();
    if escaped {
        let run = head.chars().rev().take_while(|&c| c == '\\').count();
        if run % 2 == 1 {
            head.pop();
        }
    }
    head.push('…');
    head
}

/// Cut `line` to under [`MAX_LINE_CHARS`] characters at a character
/// boundary, ending in `…` when cut.
pub fn cut_line(line: &str) -> String {
    if line.chars().count() < MAX_LINE_CHARS {
        return line.to_string();
    }
    let head = floor_to_chars(line, MAX_LINE_CHARS - 2);
    format!("{}…", head.trim_end())
}

/// A placeholder [`neutralize`] opened with `‹` is closed with `›`: `Run
/// bd show ‹id>` reads `Run bd show ‹id›` (a word of letters, digits, `_`
/// or `-`, at most 32 bytes, then `>`).
fn placeholders(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('‹') {
        let after = &rest[i + '‹'.len_utf8()..];
        out.push_str(&rest[..i + '‹'.len_utf8()]);
        let word = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(after.len());
        if (1..=32).contains(&word) && after[word..].starts_with('>') {
            out.push_str(&after[..word]);
            out.push('›');
            rest = &after[word + 1..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` with every tag-like `<` (`<name`, `</name`, `<!`, `<?`, `<|`) written
/// as `‹`, so no memory text can close the hook's context block, open a
/// `<system>` block or a chat-template turn (`<|im_start|>`). Tag-like: the
/// `<` is followed by white space (Unicode), an optional `/`, white space,
/// then an ASCII letter, `!`, `?` or `|` (the regex `<\s*/?\s*[A-Za-z!?|]`).
pub fn neutralize(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        match c {
            // direction overrides and invisible characters: dropped (they
            // can show a reader other text than the agent reads)
            '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}' => {}
            // `<` and its full-width form, when a tag starts there
            '<' | '\u{ff1c}' if tag_like(&text[i + c.len_utf8()..]) => out.push('‹'),
            c => out.push(c),
        }
    }
    out
}

/// True when `rest` (the text after a `<`) starts as a tag does (see
/// [`neutralize`]).
fn tag_like(rest: &str) -> bool {
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix('/')
        .or_else(|| rest.strip_prefix('\u{ff0f}'))
        .map_or(rest, str::trim_start);
    rest.starts_with(|c: char| {
        c.is_ascii_alphabetic()
            || matches!(c, '!' | '?' | '|')
            // full-width letters: `＜ｓｙｓｔｅｍ＞`
            || ('\u{ff21}'..='\u{ff3a}').contains(&c)
            || ('\u{ff41}'..='\u{ff5a}').contains(&c)
    })
}

fn escape_title(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

fn unescape_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(n) = it.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The index entries of a store: one per parsed topic and one flagged entry
/// per broken file (its description from `old_index`, the previous
/// `MEMORY.md` text, when it had a line for that file). Superseded entries
/// are marked from `superseded_by`, other memories' `supersedes`, and the
/// text "supersedes `<id>`" in another memory's description or body.
pub fn entries_for(store: &Store, old_index: Option<&str>) -> Vec<IndexEntry> {
    let ids: HashSet<&str> = store.topics.iter().map(|t| t.id.as_str()).collect();
    let mut by: HashMap<String, String> = HashMap::new();
    for t in &store.topics {
        for old in supersedes_of(&t.id, &t.memory) {
            if ids.contains(old.as_str()) {
                by.entry(old).or_insert_with(|| t.id.clone());
            }
        }
    }
    let old_parsed: Vec<ParsedLine> = old_index.map(|t| load(t).entries).unwrap_or_default();
    let old_titles: HashMap<&str, &str> = old_parsed
        .iter()
        .rev()
        .map(|p| (p.file.as_str(), p.title.as_str()))
        .collect();
    let old_lines: HashMap<String, String> = old_parsed
        .iter()
        .map(|p| (p.file.clone(), p.description.clone()))
        .collect();
    let mut out = Vec::with_capacity(store.topics.len() + store.broken.len());
    for t in &store.topics {
        if crate::lesson::believed_trust(&t.memory) == crate::records::Trust::Low {
            // Quarantined: Claude Code loads MEMORY.md every session, so a
            // low-trust memory has no line there (`mem-index show` reads it).
            continue;
        }
        let mut e = IndexEntry::from_topic(t);
        // a slug name (Claude Code's current shape) without mem's `title:`
        // has its title in the index only: the line's title stays (unless
        // it was cut)
        if crate::id::is_slug_name(&t.memory.name)
            && t.memory.name == t.id
            && !t.memory.extra.contains_key("title")
            && let Some(title) = old_titles
                .get(e.file.as_str())
                .filter(|x| !x.trim().is_empty() && !x.ends_with('…'))
        {
            e.title = title.to_string();
            e.description = added_description(&e.title, &t.memory);
        }
        if e.superseded_by.is_none() {
            e.superseded_by = by.get(&t.id).cloned();
        }
        out.push(e);
    }
    for b in &store.broken {
        if !matches!(b.error, crate::error::Error::Frontmatter { .. }) {
            // Not a file Claude Code can read either (a FIFO, a device, a
            // link, over the size cap): no line points it at one.
            continue;
        }
        let file = format!("{}.md", b.id);
        let old = old_lines.get(&file).map(|d| strip_flags(d));
        out.push(IndexEntry::from_broken(b, old.as_deref()));
    }
    out
}

/// Remove the flags [`IndexEntry::line`] puts before a description
/// (`[frontmatter does not parse (line N)]`, `[unreadable]`, `[superseded
/// by ID]`, `[expired DATE]`), also the last one of a line with no
/// description; a description of its own that starts with `[` stays.
fn strip_flags(d: &str) -> String {
    const FLAGS: [&str; 4] = [
        "[frontmatter does not parse (line ",
        "[unreadable]",
        "[superseded by ",
        "[expired ",
    ];
    let mut s = d.trim_start();
    while FLAGS.iter().any(|f| s.starts_with(f)) {
        match s.find(']') {
            Some(i) => s = s[i + 1..].trim_start(),
            None => break,
        }
    }
    s.to_string()
}

/// The ids named after "supersedes" in `text` (case-insensitive).
pub fn supersedes_in_text(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = lower[from..].find("supersedes") {
        let start = from + i + "supersedes".len();
        from = start;
        let rest = &text[start..];
        let rest = rest.trim_start_matches([' ', ':']);
        let id: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            .collect();
        let id = id.trim_end_matches(['.', '-', '_']);
        if !id.is_empty() {
            out.push(id.to_string());
        }
    }
    out
}

/// The ids `m` (whose id is `id`) supersedes: its `supersedes` field and
/// every "supersedes `<id>`" ([`supersedes_in_text`]) in its description,
/// body, fact, why and how; without `id` itself, sorted, each once. The one
/// rule the index, recall, the tiers and `mem-index check` read.
pub fn supersedes_of(id: &str, m: &Memory) -> Vec<String> {
    let mut out = m.supersedes.clone();
    out.extend(supersedes_in_text(&m.description));
    for t in [&m.body, &m.fact, &m.why, &m.how].into_iter().flatten() {
        out.extend(supersedes_in_text(t));
    }
    out.retain(|s| s != id);
    out.sort();
    out.dedup();
    out
}

/// The policy order of two entries on `today` (see module docs).
fn policy_cmp(a: &IndexEntry, b: &IndexEntry, today: NaiveDate) -> std::cmp::Ordering {
    fn rank(t: Option<MemoryType>) -> u8 {
        match t {
            Some(MemoryType::User) => 0,
            Some(MemoryType::Feedback) => 1,
            Some(MemoryType::Project) => 2,
            Some(MemoryType::Reference) => 3,
            None => 4,
        }
    }
    a.is_demoted(today)
        .cmp(&b.is_demoted(today))
        .then(rank(a.mem_type).cmp(&rank(b.mem_type)))
        .then(b.verified_at.cmp(&a.verified_at))
        .then(whole_seconds(b.mtime).cmp(&whole_seconds(a.mtime)))
        .then(a.id.cmp(&b.id))
}

/// `t` in whole seconds since the epoch: files one write wrote in the same
/// second tie (and go by id), whatever order the file system stamped them in.
fn whole_seconds(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Sort entries by the policy (see module docs) on `today`.
pub fn sort_entries(entries: &mut [IndexEntry], today: NaiveDate) {
    entries.sort_by(|a, b| policy_cmp(a, b, today));
}

/// A rendered `MEMORY.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The file's text (each line ends with `\n`, or `\r\n` in a file that
    /// used it; a kept last line without a line end stays without).
    pub text: String,
    /// Number of lines, the WARNING line included.
    pub lines: usize,
    /// Size in bytes.
    pub bytes: usize,
    /// Ids left out, in policy order (empty when nothing was cut).
    pub omitted: Vec<String>,
    /// The WARNING line (without `\n`), when something was cut.
    pub warning: Option<String>,
}

/// Render the index of a directory that has none: `entries` in policy
/// order on `today`, within [`MAX_LINES`] and [`MAX_BYTES`] (see module
/// docs). The same as [`update`] without an old index.
pub fn render(entries: &[IndexEntry], today: NaiveDate) -> Rendered {
    update(None, entries, &HashSet::new(), today)
}

/// True for the WARNING line mem writes when it cuts the index (a line of
/// the person's own that starts with `WARNING:` is not one).
pub fn is_mem_warning(line: &str) -> bool {
    line.starts_with(WARNING_PREFIX) && line.contains(" left out to stay within ")
}

/// True when a link target is a bare `<name>.md` of the memory directory
/// itself (no folder, scheme, anchor or query; not `MEMORY.md`).
pub fn bare_md(target: &str) -> bool {
    target.len() > 3
        && target.ends_with(".md")
        && !target.contains(['/', '\\', ':', '#', '?', ' '])
        && target != crate::store::INDEX_FILE
}

/// True for a line an older mem wrote with lint text in it.
fn has_lint(line: &str) -> bool {
    line.contains("[frontmatter does not parse (line ") || line.contains("[unreadable]")
}

/// True when `line` has the exact shape mem writes for `e`:
/// `- [<title>](<file>)`, alone or followed by ` - `.
fn in_mem_format(line: &str, e: &IndexEntry) -> bool {
    let head = format!(
        "- [{}]({})",
        escape_title(&placeholders(&neutralize(&one_line(&e.title)))),
        e.file
    );
    line.strip_prefix(&head)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(" - "))
}

/// One line of the index being built.
enum Slot<'a> {
    /// A line kept as written: its text and its line end (`""` for a last
    /// line without one).
    Keep(&'a str, &'a str),
    /// The line of `entries[i]`, rendered, with its line end.
    Mem(usize, &'a str),
}

/// Update an existing `MEMORY.md` (`old`; `None` when there is none) for
/// `entries`, the memories of the directory, on `today` — the rules are in
/// the module docs. `others` holds the file names (`x.md`) of other files
/// of the directory a line may point to (files whose name is not a valid
/// id): their lines are kept.
pub fn update(
    old: Option<&str>,
    entries: &[IndexEntry],
    others: &HashSet<String>,
    today: NaiveDate,
) -> Rendered {
    let (bom, old) = match old {
        Some(t) => match t.strip_prefix('\u{feff}') {
            Some(rest) => ("\u{feff}", rest),
            None => ("", t),
        },
        None => ("", ""),
    };
    let eol = if old.split('\n').next().is_some_and(|l| l.ends_with('\r')) && old.contains('\n') {
        "\r\n"
    } else {
        "\n"
    };
    let by_file: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.file.as_str(), i))
        .collect();
    let mut seen = vec![false; entries.len()];
    let mut slots: Vec<Slot> = Vec::new();
    // Slot index after which new entries go (after the last entry line of a
    // memory of the directory).
    let mut anchor: Option<usize> = None;
    for piece in old.split_inclusive('\n') {
        let (line, end) = match piece.strip_suffix("\r\n") {
            Some(l) => (l, "\r\n"),
            None => match piece.strip_suffix('\n') {
                Some(l) => (l, "\n"),
                None => (piece, ""),
            },
        };
        if is_mem_warning(line) {
            continue;
        }
        let Some(p) = parse_line(0, line) else {
            slots.push(Slot::Keep(line, end));
            continue;
        };
        match by_file.get(p.file.as_str()) {
            Some(&i) if !seen[i] => {
                seen[i] = true;
                let e = &entries[i];
                let rewrite = !e.foreign || in_mem_format(line, e) || has_lint(line);
                slots.push(if rewrite {
                    Slot::Mem(i, end)
                } else {
                    Slot::Keep(line, end)
                });
                anchor = Some(slots.len());
            }
            Some(_) => {
                slots.push(Slot::Keep(line, end));
                anchor = Some(slots.len());
            }
            None if bare_md(&p.file) && !others.contains(&p.file) => {}
            None => slots.push(Slot::Keep(line, end)),
        }
    }
    let mut new: Vec<usize> = (0..entries.len()).filter(|&i| !seen[i]).collect();
    new.sort_by(|&a, &b| policy_cmp(&entries[a], &entries[b], today));
    let at = anchor.unwrap_or(slots.len());
    let tail = slots.split_off(at);
    slots.extend(new.iter().map(|&i| Slot::Mem(i, eol)));
    slots.extend(tail);

    // The limits: foreign lines stay, mem's entries are cut from the bottom
    // of the policy order.
    let eol_len = eol.len();
    let rendered: HashMap<usize, String> = slots
        .iter()
        .filter_map(|s| match s {
            Slot::Mem(i, _) => Some((*i, entries[*i].line(today))),
            Slot::Keep(..) => None,
        })
        .collect();
    let fixed_lines = slots.iter().filter(|s| matches!(s, Slot::Keep(..))).count();
    // a kept last line without a line end gets one when anything follows
    let fixed_bytes: usize = bom.len()
        + slots
            .iter()
            .map(|s| match s {
                Slot::Keep(l, e) => l.len() + e.len().max(eol_len),
                Slot::Mem(..) => 0,
            })
            .sum::<usize>();
    let mut mine: Vec<usize> = rendered.keys().copied().collect();
    mine.sort_by(|&a, &b| policy_cmp(&entries[a], &entries[b], today));
    let mine_bytes: usize = mine.iter().map(|i| rendered[i].len() + eol_len).sum();
    let mut keep: HashSet<usize> = mine.iter().copied().collect();
    let mut warning = None;
    let mut omitted = Vec::new();
    if fixed_lines + mine.len() > MAX_LINES || fixed_bytes + mine_bytes > MAX_BYTES {
        let n = mine.len();
        let bare = |k: usize| warning_line(n - k, n, "entries", &[], usize::MAX).len() + eol_len;
        let mut k = n.min((MAX_LINES - 1).saturating_sub(fixed_lines));
        let mut prefix: usize = mine[..k].iter().map(|i| rendered[i].len() + eol_len).sum();
        while k > 0 && fixed_bytes + prefix + bare(k) > MAX_BYTES {
            k -= 1;
            prefix -= rendered[&mine[k]].len() + eol_len;
        }
        omitted = mine[k..].iter().map(|&i| entries[i].id.clone()).collect();
        keep = mine[..k].iter().copied().collect();
        let room = MAX_BYTES
            .saturating_sub(fixed_bytes + prefix + eol_len)
            .min(MAX_WARNING_BYTES)
            .max(bare(k));
        warning = Some(warning_line(n - k, n, "entries", &omitted, room));
    }
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(slots.len() + 1);
    for s in &slots {
        match s {
            Slot::Keep(l, e) => out.push((l, e)),
            Slot::Mem(i, e) if keep.contains(i) => out.push((rendered[i].as_str(), e)),
            Slot::Mem(..) => {}
        }
    }
    if let Some(w) = &warning {
        out.push((w.as_str(), eol));
    }
    let mut text = String::from(bom);
    let last = out.len().saturating_sub(1);
    for (k, (l, e)) in out.iter().enumerate() {
        text.push_str(l);
        text.push_str(if e.is_empty() && k != last { eol } else { e });
    }
    Rendered {
        bytes: text.len(),
        lines: out.len(),
        text,
        omitted,
        warning,
    }
}

/// Keep `lines` (names `names`) within the limits, adding a WARNING line
/// when anything is cut.
fn fit(lines: &[String], names: &[String], what: &str) -> Rendered {
    let total: usize = lines.iter().map(|l| l.len() + 1).sum();
    if lines.len() <= MAX_LINES && total <= MAX_BYTES {
        let mut text = String::with_capacity(total);
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        return Rendered {
            text,
            lines: lines.len(),
            bytes: total,
            omitted: Vec::new(),
            warning: None,
        };
    }
    let n = lines.len();
    // Largest k with k <= MAX_LINES - 1 and prefix(k) + bare warning <= MAX_BYTES.
    let mut k = n.min(MAX_LINES - 1);
    let mut prefix: usize = lines[..k].iter().map(|l| l.len() + 1).sum();
    while k > 0 && prefix + warning_line(n - k, n, what, &[], usize::MAX).len() + 1 > MAX_BYTES {
        k -= 1;
        prefix -= lines[k].len() + 1;
    }
    let omitted: Vec<String> = names[k..].to_vec();
    let room = (MAX_BYTES - prefix - 1).min(MAX_WARNING_BYTES);
    let warning = warning_line(n - k, n, what, &omitted, room);
    let mut text = String::with_capacity(prefix + warning.len() + 1);
    for l in &lines[..k] {
        text.push_str(l);
        text.push('\n');
    }
    text.push_str(&warning);
    text.push('\n');
    Rendered {
        bytes: text.len(),
        text,
        lines: k + 1,
        omitted,
        warning: Some(warning),
    }
}

/// The WARNING line: how many of how many were left out, then as many of
/// `names` as fit in `room` bytes.
fn warning_line(left: usize, of: usize, what: &str, names: &[String], room: usize) -> String {
    let head = format!(
        "{WARNING_PREFIX} {left} of {of} {what} left out to stay within {MAX_LINES} lines and {MAX_BYTES} bytes (`mem-index list` shows all): "
    );
    let mut s = head.clone();
    let mut shown = 0;
    for (i, n) in names.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let more = names.len() - i - 1;
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        if s.len() + sep.len() + n.len() + tail.len() > room {
            break;
        }
        s.push_str(sep);
        s.push_str(n);
        shown += 1;
    }
    if shown < names.len() {
        let more = names.len() - shown;
        if shown == 0 {
            s.push_str(&format!("{more} not named"));
        } else {
            s.push_str(&format!(" and {more} more"));
        }
    } else if names.is_empty() {
        s.truncate(s.trim_end().len());
    }
    s
}

/// One entry line of a `MEMORY.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedLine {
    /// 1-based line number in the file.
    pub no: usize,
    /// The line as written (without `\n` / `\r`).
    pub raw: String,
    /// The link text.
    pub title: String,
    /// The link target (`file.md`).
    pub file: String,
    /// The text after ` - ` / ` — ` (empty when none).
    pub description: String,
}

impl ParsedLine {
    /// The topic id the line points to: the link target's stem.
    pub fn id(&self) -> &str {
        self.file.strip_suffix(".md").unwrap_or(&self.file)
    }
}

/// A `MEMORY.md` as a reader sees it (within the limits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The text to use: the file's text when within the limits, else cut the
    /// way [`render`] cuts, with a WARNING line added.
    pub text: String,
    /// The WARNING line (the file's own last line, or the one added).
    pub warning: Option<String>,
    /// The entry lines kept, in order.
    pub entries: Vec<ParsedLine>,
    /// Lines kept that are neither entries nor blank nor the WARNING line.
    pub other: Vec<(usize, String)>,
    /// True when the file was over a limit and was cut here.
    pub cut: bool,
    /// Lines in the file as given.
    pub file_lines: usize,
    /// Bytes in the file as given.
    pub file_bytes: usize,
}

/// Parse one index line: `- [Title](file.md) - description` (also ` — `,
/// ` – `, `: `, or no description; `*` bullets). `None` for anything else.
pub fn parse_line(no: usize, line: &str) -> Option<ParsedLine> {
    let s = line.trim_end_matches('\r');
    let t = s.trim_start();
    let t = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "))?;
    let t = t.trim_start().strip_prefix('[')?;
    // title up to the first unescaped ']' followed by '('
    let mut end = None;
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b']' if b.get(i + 1) == Some(&b'(') => {
                end = Some(i);
                break;
            }
            _ => i += 1,
        }
    }
    let end = end?;
    let title = unescape_title(&t[..end]);
    let rest = &t[end + 2..];
    let close = rest.find(')')?;
    let file = rest[..close].trim().to_string();
    if file.is_empty() {
        return None;
    }
    let after = rest[close + 1..].trim_start();
    let description = ["- ", "— ", "– ", ": ", "-", "—", "–", ":"]
        .iter()
        .find_map(|sep| after.strip_prefix(sep))
        .unwrap_or(after)
        .trim()
        .to_string();
    Some(ParsedLine {
        no,
        raw: s.to_string(),
        title,
        file,
        description,
    })
}

/// Read a `MEMORY.md` the way every reader does: parse its entries and, when
/// it is over [`MAX_LINES`] or [`MAX_BYTES`], cut it like [`render`] (the
/// first lines kept, a WARNING line naming what was left out).
pub fn load(text: &str) -> Loaded {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let raw_lines: Vec<&str> = text
        .split_inclusive('\n')
        .map(|l| l.trim_end_matches('\n').trim_end_matches('\r'))
        .collect();
    let file_lines = raw_lines.len();
    let file_bytes = text.len();
    let over = file_lines > MAX_LINES || file_bytes > MAX_BYTES;
    let (kept_text, warning, cut) = if over {
        let lines: Vec<String> = raw_lines.iter().map(|l| l.to_string()).collect();
        let names: Vec<String> = raw_lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                parse_line(i + 1, l)
                    .map_or_else(|| format!("line {}", i + 1), |p| p.id().to_string())
            })
            .collect();
        let r = fit(&lines, &names, "lines");
        (r.text, r.warning, true)
    } else {
        let w = raw_lines
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .filter(|l| l.starts_with(WARNING_PREFIX))
            .map(|l| l.to_string());
        (text.to_string(), w, false)
    };
    let mut entries = Vec::new();
    let mut other = Vec::new();
    for (i, l) in kept_text.lines().enumerate() {
        let l = l.trim_end_matches('\r');
        if l.trim().is_empty() || l.starts_with(WARNING_PREFIX) {
            continue;
        }
        match parse_line(i + 1, l) {
            Some(p) => entries.push(p),
            None => other.push((i + 1, l.to_string())),
        }
    }
    Loaded {
        text: kept_text,
        warning,
        entries,
        other,
        cut,
        file_lines,
        file_bytes,
    }
}

#[cfg(test)]
mod neutralize_tests {
    use super::neutralize;

    #[test]
    fn full_width_tags_and_direction_overrides_are_neutralised() {
        assert_eq!(neutralize("a ＜system＞ b"), "a ‹system＞ b");
        assert_eq!(neutralize("＜／ｓｙｓｔｅｍ＞"), "‹／ｓｙｓｔｅｍ＞");
        assert_eq!(neutralize("x\u{202e}kcab\u{202c} y"), "xkcab y");
        assert_eq!(neutralize("1 < 2 and 3 ＜ 4"), "1 < 2 and 3 ＜ 4");
    }

    /// An index line's placeholder reads as one: both of its marks change.
    #[test]
    fn a_placeholder_keeps_matching_marks() {
        let p = |s: &str| super::placeholders(&neutralize(s));
        assert_eq!(
            p("Run bd show <id> on <branch-name>"),
            "Run bd show ‹id› on ‹branch-name›"
        );
        assert_eq!(p("<system>hi</system>"), "‹system›hi‹/system>");
        assert_eq!(p("<a href=x>"), "‹a href=x>");
        assert_eq!(p("a <b c> d > e"), "a ‹b c> d > e");
        assert_eq!(p("<id>>"), "‹id›>");
        assert_eq!(p("‹"), "‹");
        assert_eq!(p("1 < 2 > 0"), "1 < 2 > 0");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn day(s: &str) -> NaiveDate {
        crate::time::parse_day(s).unwrap()
    }

    fn entry(id: &str, t: MemoryType, v: &str, mtime: u64) -> IndexEntry {
        IndexEntry {
            id: id.into(),
            file: format!("{id}.md"),
            title: id.into(),
            description: format!("About {id}"),
            mem_type: Some(t),
            verified_at: crate::time::parse_day(v),
            mtime: SystemTime::UNIX_EPOCH + Duration::from_secs(mtime),
            expires: None,
            superseded_by: None,
            broken: None,
            foreign: false,
            em_dash: false,
        }
    }

    /// A description that says the title again gives way to what it adds:
    /// the rest after the title, else the why, else nothing.
    #[test]
    fn a_description_adds_to_the_title() {
        let title = "Run scripts/setup.sh before the integration tests";
        let mut m = Memory::new(title, title, MemoryType::Feedback);
        m.why = Some("data/fixture.json is generated and git-ignored".into());
        assert_eq!(
            added_description(title, &m),
            "data/fixture.json is generated and git-ignored"
        );
        m.description = format!("{title}: the fixture only setup writes");
        assert_eq!(
            added_description(title, &m),
            "the fixture only setup writes"
        );
        m.description = "run scripts setup sh before the integration tests.".into();
        m.why = None;
        m.fact = Some(title.into());
        assert_eq!(added_description(title, &m), "");
        m.description = "Fresh clones lack data/fixture.json".into();
        assert_eq!(
            added_description(title, &m),
            "Fresh clones lack data/fixture.json"
        );
        // a title that merely starts the same words is no repeat
        m.description = "Run scripts/setup.sh before the integration testsuite".into();
        assert_eq!(added_description(title, &m), m.description);
        assert_eq!(humanize("run-setup_first"), "Run setup first");
        let a = Memory::new("A", "a fact", MemoryType::Project);
        assert_eq!(added_description("A", &a), "a fact");
        // the title's last word in code or quotes: its closing mark is the
        // title's, never the start of what the description adds
        let mut c = Memory::new("Test the action with `act`", "", MemoryType::Feedback);
        for (desc, want) in [
            ("Test the action with `act`", ""),
            (
                "Test the action with `act` before pushing",
                "before pushing",
            ),
            ("Test the action with \"act\": CI is slow", "CI is slow"),
        ] {
            c.description = desc.into();
            c.fact = Some("Test the action with `act`".into());
            assert_eq!(added_description(&c.name, &c), want, "{desc}");
        }
    }

    /// Lines of Claude Code's current shape use ` — `, as it writes them.
    #[test]
    fn current_shape_lines_use_the_em_dash() {
        let today = day("2026-08-01");
        let mut e = entry("run-setup-first", MemoryType::Feedback, "2026-07-01", 1);
        e.title = "Run setup before build-token".into();
        e.description = "the fixture is generated".into();
        assert_eq!(
            e.line(today),
            "- [Run setup before build-token](run-setup-first.md) - the fixture is generated"
        );
        e.em_dash = true;
        assert_eq!(
            e.line(today),
            "- [Run setup before build-token](run-setup-first.md) — the fixture is generated"
        );
        let long = IndexEntry {
            description: "x".repeat(300),
            ..e.clone()
        };
        let l = long.line(today);
        assert!(
            l.chars().count() < MAX_LINE_CHARS && l.contains(" — "),
            "{l}"
        );
    }

    /// Files one write stamped within the same second go by id, whatever
    /// order their sub-second mtimes say; a later second still goes first.
    #[test]
    fn mtimes_within_one_second_tie_and_go_by_id() {
        let today = day("2026-08-01");
        let mut b = entry("b-later-ns", MemoryType::Feedback, "2026-07-01", 100);
        b.mtime += Duration::from_nanos(900);
        let a = entry("a-earlier-ns", MemoryType::Feedback, "2026-07-01", 100);
        let c = entry("c-next-second", MemoryType::Feedback, "2026-07-01", 101);
        let mut entries = vec![b, a, c];
        sort_entries(&mut entries, today);
        let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["c-next-second", "a-earlier-ns", "b-later-ns"]);
    }

    #[test]
    fn long_titles_and_descriptions_never_cut_the_link() {
        let today = day("2026-07-13");
        for (title, desc) in [
            ("[é] ".repeat(2500), "d ".repeat(3000)),
            ("[".repeat(300), String::new()),
            ("t".into(), "ü".repeat(10_000)),
            ("a\\[".repeat(100), "x".into()),
        ] {
            let mut e = entry("long-one", MemoryType::Project, "2026-07-01", 5);
            e.title = title.clone();
            e.description = desc.clone();
            let l = e.line(today);
            assert!(l.chars().count() < MAX_LINE_CHARS, "{l}");
            let p = parse_line(1, &l).unwrap_or_else(|| panic!("not an entry: {l}"));
            assert_eq!(p.file, "long-one.md", "{l}");
            if title.len() > 100 {
                assert!(p.title.ends_with('…'), "{l}");
            } else {
                assert_eq!(p.title, title, "{l}");
            }
        }
    }

    #[test]
    fn order_follows_the_policy() {
        let today = day("2026-07-13");
        let mut old = entry("old", MemoryType::User, "2026-01-01", 5);
        old.superseded_by = Some("new".into());
        let mut exp = entry("exp", MemoryType::User, "2026-07-01", 5);
        exp.expires = Some(Expires::On(day("2026-07-12")));
        let es = vec![
            entry("ref", MemoryType::Reference, "2026-07-10", 1),
            entry("p-old", MemoryType::Project, "2026-07-01", 9),
            entry("p-new", MemoryType::Project, "2026-07-02", 1),
            entry("p-b", MemoryType::Project, "2026-07-02", 1),
            entry("fb", MemoryType::Feedback, "2026-01-01", 1),
            old,
            exp,
            entry("u", MemoryType::User, "2026-01-01", 1),
        ];
        let r = render(&es, today);
        let ids: Vec<_> = load(&r.text)
            .entries
            .iter()
            .map(|p| p.id().to_string())
            .collect();
        assert_eq!(
            ids,
            ["u", "fb", "p-b", "p-new", "p-old", "ref", "exp", "old"]
        );
        assert!(r.text.contains("[superseded by new]"));
        assert!(r.text.contains("[expired 2026-07-12]"));
        assert!(r.warning.is_none());
    }

    #[test]
    fn lines_are_cut_under_150_chars_at_a_char_boundary() {
        let mut e = entry("x", MemoryType::User, "2026-01-01", 1);
        e.description = "🔥".repeat(300);
        let l = e.line(day("2026-01-01"));
        assert!(l.chars().count() < MAX_LINE_CHARS, "{}", l.chars().count());
        assert!(l.ends_with('…'));
        let p = parse_line(1, &l).unwrap();
        assert_eq!(p.file, "x.md");
    }

    #[test]
    fn titles_with_brackets_round_trip() {
        let mut e = entry("x", MemoryType::User, "2026-01-01", 1);
        e.title = "a [b] c".into();
        let p = parse_line(1, &e.line(day("2026-01-01"))).unwrap();
        assert_eq!(p.title, "a [b] c");
        assert_eq!(p.description, "About x");
        let p = parse_line(3, "- [T](feedback_testing.md) — real DB only").unwrap();
        assert_eq!(
            (p.file.as_str(), p.description.as_str()),
            ("feedback_testing.md", "real DB only")
        );
        assert!(parse_line(1, "# Heading").is_none());
    }

    /// B14's shape: 205 entries → 199 entries + WARNING naming 6.
    #[test]
    fn over_200_lines_keeps_199_and_a_warning() {
        let es: Vec<_> = (1..=205)
            .map(|i| entry(&format!("t{i:03}"), MemoryType::Project, "2026-01-10", i))
            .collect();
        let r = render(&es, day("2026-01-11"));
        assert_eq!(r.lines, 200);
        assert_eq!(r.text.lines().count(), 200);
        assert_eq!(r.omitted, ["t006", "t005", "t004", "t003", "t002", "t001"]);
        let w = r.warning.unwrap();
        assert!(w.starts_with("WARNING: 6 of 205"), "{w}");
        for id in &r.omitted {
            assert!(w.contains(id.as_str()), "{w}");
        }
        assert!(r.text.lines().last().unwrap().starts_with("WARNING"));
    }

    #[test]
    fn over_25000_bytes_is_cut_with_the_warning_inside_the_budget() {
        let es: Vec<_> = (0..190)
            .map(|i| {
                let mut e = entry(&format!("e{i:03}"), MemoryType::Project, "2026-01-10", i);
                e.description = "é".repeat(140);
                e
            })
            .collect();
        let r = render(&es, day("2026-01-11"));
        assert!(r.bytes <= MAX_BYTES, "{}", r.bytes);
        assert_eq!(r.bytes, r.text.len());
        assert!(!r.omitted.is_empty());
        assert!(r.lines < 200);
        // exactly at the limit: 200 short entries fit without a warning
        let es: Vec<_> = (0..200)
            .map(|i| entry(&format!("e{i:03}"), MemoryType::Project, "2026-01-10", i))
            .collect();
        let r = render(&es, day("2026-01-11"));
        assert_eq!((r.lines, r.warning.is_none()), (200, true));
    }

    #[test]
    fn many_omitted_names_are_summarised() {
        let es: Vec<_> = (0..10_000)
            .map(|i| entry(&format!("e{i:05}"), MemoryType::Project, "2026-01-10", i))
            .collect();
        let r = render(&es, day("2026-01-11"));
        assert_eq!(r.lines, 200);
        assert!(r.bytes <= MAX_BYTES);
        assert_eq!(r.omitted.len(), 10_000 - 199);
        assert!(r.warning.unwrap().contains("more"));
    }

    #[test]
    fn hand_made_index_over_the_limit_is_cut_when_loading() {
        let text: String = (1..=230)
            .map(|i| format!("- [t{i}](t{i}.md) — fact {i}\n"))
            .collect();
        let l = load(&text);
        assert!(l.cut);
        assert_eq!(l.entries.len(), 199);
        assert_eq!(l.text.lines().count(), 200);
        let w = l.warning.unwrap();
        assert!(w.starts_with("WARNING: 31 of 230"), "{w}");
        assert!(w.contains("t200") && w.contains("t230"), "{w}");
        let small = load("- [a](a.md) - x\n\nnot an entry\n");
        assert!(!small.cut);
        assert_eq!(small.entries.len(), 1);
        assert_eq!(small.other, vec![(3, "not an entry".to_string())]);
    }

    /// Lines mem did not write stay verbatim and in order; mem's entry is
    /// rewritten in place, a foreign memory's line is kept as written, a
    /// line whose file is gone is removed, a new entry goes after the last
    /// entry line, and the old WARNING line goes.
    #[test]
    fn update_keeps_foreign_lines_verbatim() {
        let today = day("2026-07-13");
        let old = "# Project memory\r\n\
            \r\n\
            Notes the person wrote — keep them.\r\n\
            - [Claude fact](claude.md) — written by Claude\r\n\
            - [Mine](mine.md) - stale description\r\n\
            - [Gone](gone.md) - its file was retired\r\n\
            - [Elsewhere](../other/x.md) - not ours\r\n\
            - [Mine again](mine.md) - a second line for the same file\r\n\
            \r\n\
            ## Later\r\n\
            WARNING: written by the person\r\n\
            WARNING: 1 of 3 entries left out to stay within 200 lines and 25000 bytes (`mem-index list` shows all): x\r\n\
            closing words";
        let mut claude = entry("claude", MemoryType::User, "", 1);
        claude.foreign = true;
        let mine = entry("mine", MemoryType::Feedback, "2026-07-01", 1);
        let fresh = entry("fresh", MemoryType::Project, "2026-07-02", 1);
        let r = update(Some(old), &[claude, mine, fresh], &HashSet::new(), today);
        assert_eq!(
            r.text,
            "# Project memory\r\n\
            \r\n\
            Notes the person wrote — keep them.\r\n\
            - [Claude fact](claude.md) — written by Claude\r\n\
            - [mine](mine.md) - About mine\r\n\
            - [Elsewhere](../other/x.md) - not ours\r\n\
            - [Mine again](mine.md) - a second line for the same file\r\n\
            - [fresh](fresh.md) - About fresh\r\n\
            \r\n\
            ## Later\r\n\
            WARNING: written by the person\r\n\
            closing words"
        );
        assert!(r.warning.is_none());
        // a second update changes nothing
        let again = update(
            Some(&r.text),
            &[
                {
                    let mut c = entry("claude", MemoryType::User, "", 1);
                    c.foreign = true;
                    c
                },
                entry("mine", MemoryType::Feedback, "2026-07-01", 1),
                entry("fresh", MemoryType::Project, "2026-07-02", 1),
            ],
            &HashSet::new(),
            today,
        );
        assert_eq!(again.text, r.text);
    }

    /// A byte-order mark and a last line without a line end are kept; a
    /// new entry after such a line gets the line end it needs; an index
    /// that would be empty stays empty.
    #[test]
    fn update_keeps_bom_and_missing_final_newline() {
        let today = day("2026-07-13");
        let old = "\u{feff}# Notes\n- [a](a.md) - About a";
        let es = vec![
            entry("a", MemoryType::User, "2026-01-01", 1),
            entry("b", MemoryType::User, "2026-01-01", 1),
        ];
        let r = update(Some(old), &es[..1], &HashSet::new(), today);
        assert_eq!(r.text, old);
        let r = update(Some(old), &es, &HashSet::new(), today);
        assert_eq!(
            r.text,
            "\u{feff}# Notes\n- [a](a.md) - About a\n- [b](b.md) - About b\n"
        );
        let r = update(Some("# Notes"), &[], &HashSet::new(), today);
        assert_eq!(r.text, "# Notes");
        assert_eq!(render(&[], today).text, "");
    }

    /// Foreign lines count toward the limits and are never cut: mem's own
    /// entries are, lowest first, with the WARNING line at the end.
    #[test]
    fn update_cuts_only_mem_entries_to_fit() {
        let today = day("2026-07-13");
        let old: String = (0..150).map(|i| format!("note {i}\n")).collect();
        let es: Vec<_> = (0..80)
            .map(|i| entry(&format!("m{i:02}"), MemoryType::Project, "2026-01-10", i))
            .collect();
        let r = update(Some(&old), &es, &HashSet::new(), today);
        assert_eq!(r.lines, MAX_LINES);
        assert_eq!(r.omitted.len(), 31);
        assert!(r.text.starts_with(&old), "every note kept");
        // the oldest (lowest in policy order) were cut
        assert_eq!(r.omitted.first().map(String::as_str), Some("m30"));
        assert_eq!(r.omitted.last().map(String::as_str), Some("m00"));
        let last = r.text.lines().last().unwrap();
        assert!(is_mem_warning(last), "{last}");
        // no lint text for an unparsable file; no separator without a description
        let mut b = entry("wip", MemoryType::User, "", 1);
        b.mem_type = None;
        b.description = String::new();
        b.broken = Some("frontmatter does not parse (line 1)".into());
        b.foreign = true;
        let r = update(None, &[b.clone()], &HashSet::new(), today);
        assert_eq!(r.text, "- [wip](wip.md)\n");
        // an older mem's flagged line is rewritten without the flag
        let r = update(
            Some("- [wip](wip.md) - [frontmatter does not parse (line 1)]\n"),
            &[b],
            &HashSet::new(),
            today,
        );
        assert_eq!(r.text, "- [wip](wip.md)\n");
    }

    #[test]
    fn supersedes_is_found_in_text() {
        assert_eq!(
            supersedes_in_text("Package manager switched to pnpm (supersedes t010)"),
            ["t010"]
        );
        assert_eq!(supersedes_in_text("Supersedes: use-npm."), ["use-npm"]);
        assert!(supersedes_in_text("nothing here").is_empty());
        // byte offsets stay right after a letter whose lowercase is longer
        assert_eq!(supersedes_in_text("İ supersedes old-one"), ["old-one"]);
    }

    #[test]
    fn supersedes_reads_the_field_and_the_text() {
        let mut m = Memory::new(
            "Use pnpm",
            "Package manager is pnpm (supersedes use-npm)",
            MemoryType::Project,
        );
        m.supersedes = vec!["old-yarn".into(), "use-pnpm".into(), "old-yarn".into()];
        m.how = Some("Supersedes: lockfile-v1.".into());
        assert_eq!(
            supersedes_of("use-pnpm", &m),
            ["lockfile-v1", "old-yarn", "use-npm"]
        );
    }
}
