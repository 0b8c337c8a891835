//! Rule-based extraction: events in, candidate memories out (DESIGN.md
//! "Extraction"). Deterministic and offline.
//!
//! Only the main agent's user text is read for intent (never side chains,
//! meta entries, tool output or the assistant's words); tool calls and their
//! results are read for lessons (a command fails, another runs, the first then
//! succeeds). Every candidate is classified into a lifecycle bucket
//! ([`Bucket`]); only cross-session buckets are emitted. Candidates are merged
//! when near-duplicate, scrubbed ([`mem_core::scrub`]), and dropped when they
//! would still carry a secret, session id or absolute path.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::OnceLock;

use chrono::{DateTime, NaiveDate, Utc};
use regex::Regex;

use mem_core::records::{Event, Expires, Kind, Memory, MemoryType};
use mem_core::scrub::Scrubber;
use mem_core::time::{local_day, parse_ts};
use mem_core::truncate::{floor_to_bytes, floor_to_chars, truncate_marked};

use crate::dates;
use crate::rules::Rules;

/// The five lifecycle buckets of the memory-layer discipline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// Only relevant to the conversation at hand (requests, questions, chatter).
    CurrentContext,
    /// Progress of the task in hand ("I'm halfway through…").
    TaskState,
    /// Instructions and facts that hold across sessions (kept).
    DurableInstruction,
    /// What the tool itself learns: lessons, references, dated state (kept).
    AutomaticMemory,
    /// Tool output and logs: evidence, never memory.
    RawEvidence,
}

impl Bucket {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::CurrentContext => "current-context",
            Bucket::TaskState => "task-state",
            Bucket::DurableInstruction => "durable-instruction",
            Bucket::AutomaticMemory => "automatic-memory",
            Bucket::RawEvidence => "raw-evidence",
        }
    }

    /// True for the buckets that outlive the session (emitted).
    pub fn is_cross_session(self) -> bool {
        matches!(self, Bucket::DurableInstruction | Bucket::AutomaticMemory)
    }
}

/// Why a candidate was kept or dropped (printed by `--explain`).
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// Kept (emitted) or dropped.
    pub kept: bool,
    /// The lifecycle bucket.
    pub bucket: Bucket,
    /// The rule (`feedback/negative-imperative`, `drop/task-state`, …).
    pub rule: String,
    /// The entry's line in its transcript (0 when unknown).
    pub line: u64,
    /// The text concerned (the sentence, or the candidate's name), cut to 120 chars.
    pub text: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} [{}] {} line {}: {}",
            if self.kept { "keep" } else { "drop" },
            self.bucket.as_str(),
            self.rule,
            self.line,
            self.text
        )
    }
}

/// Options of [`extract`].
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// The rules (default: [`Rules::default_rules`]).
    pub rules: Rules,
    /// The project root: absolute paths inside it become relative, others are dropped.
    pub project_root: Option<PathBuf>,
    /// The `project` field of every candidate (12 hex, `memdir::project_id`).
    pub project_id: Option<String>,
    /// Keep at most this many candidates (highest confidence first).
    pub max_candidates: Option<usize>,
    /// Byte budget of tool output quoted into a candidate (cut at a character
    /// boundary, `[truncated N bytes]` marker outside the budget).
    pub max_quote_bytes: usize,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            rules: Rules::default_rules(),
            project_root: None,
            project_id: None,
            max_candidates: None,
            max_quote_bytes: DEFAULT_MAX_QUOTE,
        }
    }
}

/// Most evidence pointers kept on one merged candidate.
pub const MAX_EVIDENCE: usize = 8;

/// Default byte budget of quoted tool output.
pub const DEFAULT_MAX_QUOTE: usize = 400;

/// The result of [`extract`]: the memories to emit and the notes (kept and
/// dropped candidates, sensitive drops) for `--explain` / stderr.
#[derive(Debug, Clone, Default)]
pub struct Extraction {
    /// Candidate memories, scrubbed, merged, in source order.
    pub memories: Vec<Memory>,
    /// One note per classified sentence or lesson, in source order.
    pub notes: Vec<Note>,
    /// Candidates dropped because they still carried something sensitive
    /// (always reported on stderr): `name: field (what)`.
    pub sensitive_drops: Vec<String>,
}

/// The evidence pointer of an event: `transcript:<12 hex BLAKE3 of the session id>#<line>`.
pub fn evidence_of(ev: &Event) -> String {
    format!(
        "transcript:{}#{}",
        &blake3::hash(ev.session.as_bytes()).to_hex()[..12],
        ev.line
    )
}

/// The local day of an event's timestamp (machine time zone).
pub fn day_of(ev: &Event) -> Option<NaiveDate> {
    ev.ts.as_deref().and_then(parse_ts).map(local_day)
}

/// The fields of one event that extraction reads, borrowed from a parsed
/// [`Event`] or from a JSONL line (see [`crate::stream`]).
///
/// `text` may be a prefix (a window) of the event's text: `text_len` is the
/// byte length of the whole text. A window always holds the whole text of a
/// message that is at most [`MAX_MESSAGE_BYTES`] long once leading whitespace
/// is trimmed, and at least the first [`min_text_window`] bytes otherwise.
#[derive(Debug, Clone, Default)]
pub struct EventView<'a> {
    /// Session id.
    pub session: Cow<'a, str>,
    /// 1-based line of the entry in its transcript.
    pub line: u64,
    /// The entry's uuid.
    pub uuid: Option<Cow<'a, str>>,
    /// Index of the block within its message.
    pub block: u32,
    /// UTC RFC 3339 timestamp.
    pub ts: Option<Cow<'a, str>>,
    /// `user` | `assistant` | `system` | `tool`.
    pub role: Cow<'a, str>,
    /// `text` | `tool_use` | `tool_result` | ….
    pub kind: Cow<'a, str>,
    /// Tool name, for `tool_use`.
    pub tool: Option<Cow<'a, str>>,
    /// Tool call id, for `tool_use` and `tool_result`.
    pub tool_id: Option<Cow<'a, str>>,
    /// The command line a tool call runs (see [`command_of`]).
    pub command: Option<String>,
    /// The file a tool call writes (`file_path`, `path` or `notebook_path` of its input).
    pub path: Option<Cow<'a, str>>,
    /// The text, whole or a window of it (see the type's docs).
    pub text: Option<Cow<'a, str>>,
    /// Byte length of the whole text (0 without text).
    pub text_len: usize,
    /// For `tool_result`: whether the tool reported an error.
    pub is_error: Option<bool>,
    /// True for side-chain entries.
    pub sidechain: bool,
    /// The recorded working directory.
    pub cwd: Option<Cow<'a, str>>,
}

/// User messages longer than this (bytes, leading whitespace trimmed) are
/// pasted material, never read for intent.
pub const MAX_MESSAGE_BYTES: usize = 8000;

/// The smallest text window extraction needs with a quote budget of
/// `max_quote_bytes` (failure detection reads 4 KiB, the error excerpt four
/// budgets plus 1 KiB).
pub fn min_text_window(max_quote_bytes: usize) -> usize {
    max_quote_bytes
        .saturating_mul(4)
        .saturating_add(1024)
        .max(4096)
}

impl<'a> EventView<'a> {
    /// The view of a parsed event (borrowed, the whole text).
    pub fn of(ev: &'a Event) -> Self {
        let input = ev.input.as_ref();
        EventView {
            session: Cow::Borrowed(&ev.session),
            line: ev.line,
            uuid: ev.uuid.as_deref().map(Cow::Borrowed),
            block: ev.block,
            ts: ev.ts.as_deref().map(Cow::Borrowed),
            role: Cow::Borrowed(&ev.role),
            kind: Cow::Borrowed(&ev.kind),
            tool: ev.tool.as_deref().map(Cow::Borrowed),
            tool_id: ev.tool_id.as_deref().map(Cow::Borrowed),
            command: command_of(ev),
            path: input
                .and_then(|i| write_path_of(|k| i.get(k)))
                .map(Cow::Borrowed),
            text: ev.text.as_deref().map(Cow::Borrowed),
            text_len: ev.text.as_ref().map_or(0, String::len),
            is_error: ev.is_error,
            sidechain: ev.sidechain,
            cwd: ev.cwd.as_deref().map(Cow::Borrowed),
        }
    }

    /// An owned copy (to keep past the line it was read from).
    pub fn into_owned(self) -> EventView<'static> {
        fn o(c: Cow<'_, str>) -> Cow<'static, str> {
            Cow::Owned(c.into_owned())
        }
        EventView {
            session: o(self.session),
            line: self.line,
            uuid: self.uuid.map(o),
            block: self.block,
            ts: self.ts.map(o),
            role: o(self.role),
            kind: o(self.kind),
            tool: self.tool.map(o),
            tool_id: self.tool_id.map(o),
            command: self.command,
            path: self.path.map(o),
            text: self.text.map(o),
            text_len: self.text_len,
            is_error: self.is_error,
            sidechain: self.sidechain,
            cwd: self.cwd.map(o),
        }
    }
}

/// The file a tool call writes: the first string among `file_path`, `path`,
/// `notebook_path` of its input (`get` looks a key up).
pub fn write_path_of<'v>(get: impl Fn(&str) -> Option<&'v serde_json::Value>) -> Option<&'v str> {
    ["file_path", "path", "notebook_path"]
        .iter()
        .find_map(|k| get(k).and_then(|v| v.as_str()))
}

/// Where a candidate comes from: the entry's line, its session's digest and
/// its timestamp.
#[derive(Debug, Clone)]
struct At {
    line: u64,
    digest: Rc<str>,
    ts: Option<DateTime<Utc>>,
}

impl At {
    fn evidence(&self) -> String {
        format!("transcript:{}#{}", self.digest, self.line)
    }

    fn day(&self) -> Option<NaiveDate> {
        self.ts.map(local_day)
    }
}

/// A candidate before merging.
struct Cand {
    mem: Memory,
    tokens: BTreeSet<String>,
    key: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cat {
    User,
    Feedback,
    Project,
    Dated,
}

enum Class {
    Drop(Bucket, String),
    Keep(Cat, String),
    Other,
}

fn url_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"https?://[^\s<>"'`)\]}]+"#).expect("url regex"))
}

fn filler_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:(?:please|pls|again|remember|right|ok|okay|so|and|also|heads[- ]up|fyi|note|btw|oh|but|hey|actually|important|note that|remember that|keep in mind that)(?:[:,!.]|\s+that)?\s+)+")
            .expect("filler regex")
    })
}

const STOP: &[&str] = &[
    "the",
    "and",
    "for",
    "not",
    "but",
    "you",
    "your",
    "our",
    "are",
    "was",
    "were",
    "this",
    "that",
    "these",
    "those",
    "with",
    "from",
    "into",
    "onto",
    "than",
    "then",
    "them",
    "they",
    "its",
    "it's",
    "have",
    "has",
    "had",
    "will",
    "would",
    "should",
    "could",
    "can",
    "must",
    "don't",
    "dont",
    "never",
    "always",
    "use",
    "using",
    "please",
    "instead",
    "prefer",
    "over",
    "here",
    "there",
    "again",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "how",
    "all",
    "any",
    "some",
    "just",
    "also",
    "only",
    "need",
    "needs",
    "make",
    "sure",
    "let",
    "let's",
    "because",
    "since",
    "via",
    "per",
    "out",
    "off",
    "about",
    "before",
    "after",
    "until",
    "avoid",
    "stop",
    "remember",
    "fyi",
    "heads",
    "keep",
    "mind",
    "one",
    "get",
    "got",
    "like",
    "want",
    "did",
    "does",
    "doing",
    "been",
    "being",
    "very",
    "more",
    "most",
    "much",
    "many",
    "same",
    "other",
    "each",
    "every",
    "such",
    "own",
    "too",
    "yet",
    "now",
    "way",
    "run",
    "i'm",
    "i've",
    "i'll",
    "we're",
    "we've",
    "we'll",
    "you're",
    "isn't",
    "aren't",
    "doesn't",
    "won't",
    "can't",
    "shouldn't",
    "mostly",
    "really",
    "thing",
    "things",
    "live",
    "lives",
];

/// Content words of a text (lowercase, stop words removed), for triggers and
/// near-duplicate detection.
fn content_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in text.split(|c: char| !(c.is_alphanumeric() || "-_.'".contains(c))) {
        let w = w.trim_matches(|c: char| ".-_'".contains(c)).to_lowercase();
        if w.chars().count() < 3 || w.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if STOP.contains(&w.as_str()) || w.contains("redacted") {
            continue;
        }
        out.push(w);
    }
    out
}

/// Programs that run other things: not distinctive as triggers.
const RUNNERS: &[&str] = &[
    "sh", "bash", "zsh", "env", "sudo", "node", "deno", "bun", "python", "python3", "ruby", "perl",
    "npm", "npx", "pnpm", "yarn", "run", "exec", "make", "cargo", "go", "uv", "poetry", "pip",
    "mix", "bundle", "java", "dotnet", "time",
];

/// The distinctive names in a command line: arguments that are not options
/// or runners, as base names without a script extension, lowercased (at most
/// two). `node src/build-token.mjs` → `["build-token"]`; `make verify` →
/// `["verify"]`.
pub fn command_keywords(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tok in cmd.split_whitespace() {
        if matches!(tok, "&&" | "||" | "|" | ";") {
            break;
        }
        if tok.starts_with('-') || tok.contains('=') {
            continue;
        }
        let base = tok.rsplit('/').next().unwrap_or(tok);
        let stem = [".sh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl"]
            .iter()
            .find_map(|e| base.strip_suffix(e))
            .unwrap_or(base)
            .to_lowercase();
        if stem.chars().count() < 3 || RUNNERS.contains(&stem.as_str()) || out.contains(&stem) {
            continue;
        }
        if !stem
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.')
        {
            continue;
        }
        out.push(stem);
        if out.len() == 2 {
            break;
        }
    }
    out
}

fn triggers_of(text: &str, n: usize) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    // backticked spans first
    for part in text.split('`').skip(1).step_by(2) {
        let p = part.trim().to_lowercase();
        if !p.is_empty() && p.len() <= 40 && seen.insert(p.clone()) {
            out.push(p);
        }
    }
    for w in content_words(text) {
        if out.len() >= n {
            break;
        }
        if w.contains('/') || !seen.insert(w.clone()) {
            continue;
        }
        out.push(w);
    }
    out.truncate(n);
    out
}

/// Split a message into sentences (byte slices of `text`): on newlines, on
/// `.`/`!`/`?` followed by whitespace, and after `。！？`. Fenced code blocks
/// and quoted lines (`>`) are skipped.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_fence = false;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let t = line.trim();
        if t.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || t.is_empty() || t.starts_with('>') {
            continue;
        }
        let mut s = start;
        let bytes = text.as_bytes();
        let end = start + line.len();
        let mut i = start;
        while i < end {
            let c = text[i..].chars().next().expect("char");
            let cl = c.len_utf8();
            let split_here = match c {
                '.' | '!' | '?' => i + 1 >= end || bytes[i + 1].is_ascii_whitespace(),
                '。' | '！' | '？' => true,
                _ => false,
            };
            if split_here {
                let piece = text[s..i + cl].trim();
                if !piece.is_empty() {
                    out.push(piece);
                }
                s = i + cl;
            }
            i += cl;
        }
        let piece = text[s..end].trim();
        if !piece.is_empty() {
            out.push(piece);
        }
    }
    out
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

fn classify(
    rules: &Rules,
    l: &str,
    base: Option<NaiveDate>,
) -> (Class, Option<dates::DateMention>) {
    // one pass for every rule's pattern, then only the matching ones' `unless`
    let m = rules.matching(l);
    if let Some(r) = rules.first_firing(&m, 0, l) {
        let b = match r.bucket.as_deref() {
            Some("task-state") => Bucket::TaskState,
            _ => Bucket::CurrentContext,
        };
        return (Class::Drop(b, format!("drop/{}", r.name)), None);
    }
    if let Some(r) = rules.first_firing(&m, 1, l) {
        return (Class::Keep(Cat::User, format!("user/{}", r.name)), None);
    }
    if let Some(base) = base
        && let Some(m) = dates::future_bound(l, base)
    {
        return (
            Class::Keep(Cat::Dated, "project/dated-state".into()),
            Some(m),
        );
    }
    if let Some(r) = rules.first_firing(&m, 2, l) {
        return (
            Class::Keep(Cat::Feedback, format!("feedback/{}", r.name)),
            None,
        );
    }
    if let Some(r) = rules.first_firing(&m, 3, l) {
        return (
            Class::Keep(Cat::Project, format!("project/{}", r.name)),
            None,
        );
    }
    if let Some(r) = rules.first_firing(&m, 4, l) {
        return (
            Class::Drop(Bucket::CurrentContext, format!("request/{}", r.name)),
            None,
        );
    }
    (Class::Other, None)
}

fn cut(s: &str, n: usize) -> String {
    floor_to_chars(s, n).to_string()
}

fn clean_sentence(s: &str) -> String {
    let s = filler_re().replace(s.trim(), "");
    let s = s.trim();
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// A short title from a sentence: at most 60 characters, cut at a word.
fn title_of(s: &str) -> String {
    let s = s
        .trim()
        .trim_end_matches(['.', '!', '。', '！', ';', ':', ',']);
    if s.chars().count() <= 60 {
        return s.to_string();
    }
    let head = floor_to_chars(s, 60);
    let head = match head.rfind(' ') {
        Some(i) if i > 20 => &head[..i],
        _ => head,
    };
    head.trim_end_matches([',', ';', ':', ' ']).to_string()
}

fn why_of(rules: &Rules, orig: &str, l: &str) -> Option<String> {
    for re in &rules.why {
        if let Some(c) = re.captures(l)
            && let Some(g) = c.get(1)
        {
            let w = orig[g.start()..g.end()].trim().trim_end_matches(['.', '!']);
            if !w.is_empty() {
                return Some(clean_sentence(w));
            }
        }
    }
    None
}

/// The colon tail of an instruction (`never npm: npm rewrites the lockfile`).
fn colon_why(rules: &Rules, orig: &str) -> Option<String> {
    let i = orig.find(": ")?;
    let (head, tail) = (&orig[..i], orig[i + 2..].trim());
    if head.chars().count() < 12 || tail.is_empty() {
        return None;
    }
    let lt = lower(tail);
    if rules.feedback.iter().any(|r| r.fires(&lt)) {
        return None;
    }
    Some(clean_sentence(tail.trim_end_matches(['.', '!'])))
}

/// The instruction inside a dated sentence (`…, so don't run X before then`).
fn instruction_clause(rules: &Rules, orig: &str) -> Option<String> {
    let mut parts = Vec::new();
    let mut s = 0;
    for (i, c) in orig.char_indices() {
        if matches!(c, ',' | ';' | ':' | '—') {
            parts.push(&orig[s..i]);
            s = i + c.len_utf8();
        }
    }
    parts.push(&orig[s..]);
    parts.into_iter().skip(1).find_map(|p| {
        let l = lower(p.trim());
        rules
            .feedback
            .iter()
            .any(|r| r.fires(&l))
            .then(|| clean_sentence(p.trim().trim_end_matches(['.', '!'])))
    })
}

struct Draft {
    cat: Cat,
    rule: String,
    fact: String,
    why: Option<String>,
    how: Vec<String>,
    date: Option<dates::DateMention>,
}

fn normalize_quotes(s: &str) -> String {
    s.replace(['\u{2019}', '\u{2018}'], "'")
        .replace(['\u{201c}', '\u{201d}'], "\"")
}

/// The notes of a run; not collected when nobody reads them.
#[derive(Default)]
struct Notes {
    off: bool,
    v: Vec<Note>,
}

fn note(notes: &mut Notes, kept: bool, bucket: Bucket, rule: &str, line: u64, text: &str) {
    if notes.off {
        return;
    }
    notes.v.push(Note {
        kept,
        bucket,
        rule: rule.to_string(),
        line,
        text: cut(text, 120),
    });
}

/// Is this URL one the user points to as a resource (dashboard, runbook,
/// tracker, doc)?
fn is_reference(rules: &Rules, url: &str, clause: &str) -> bool {
    let host = url
        .split("://")
        .nth(1)
        .unwrap_or("")
        .split(['/', ':', '?', '#'])
        .next()
        .unwrap_or("");
    if rules
        .reference_skip_hosts
        .iter()
        .any(|h| host.eq_ignore_ascii_case(h))
    {
        return false;
    }
    let hay = format!("{} {}", lower(clause), lower(url));
    let words: HashSet<&str> = hay
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    rules.reference_words.iter().any(|w| {
        if w.contains(' ') || !w.is_ascii() {
            hay.contains(w.as_str())
        } else {
            words.contains(w.as_str())
        }
    })
}

/// The title of a reference: the words that name it, then the address.
fn reference_title(desc: &str, url: &str, host_path: &str) -> String {
    let (before, after) = desc.split_once(url).unwrap_or((desc, ""));
    let link = [
        "is", "are", "at", "live", "lives", "here", "in", "on", "see", "the", "under", "via",
        "is:", "are:", "-", ":", "—", "to", "check", "use",
    ];
    let trim = |s: &str, from_end: bool| {
        let mut w: Vec<&str> = s.split_whitespace().collect();
        loop {
            let last = if from_end { w.last() } else { w.first() };
            match last {
                Some(x) if link.contains(&x.to_ascii_lowercase().as_str()) => {
                    if from_end {
                        w.pop();
                    } else {
                        w.remove(0);
                    }
                }
                _ => break,
            }
        }
        w.join(" ")
    };
    let mut label = trim(before, true);
    if label.is_empty() {
        label = trim(after, false);
    }
    let label = title_of(&clean_sentence(&label));
    let label = floor_to_chars(&label, 40).trim().to_string();
    let hp = floor_to_chars(host_path, 80);
    if label.is_empty() {
        hp.to_string()
    } else {
        format!("{label}: {hp}")
    }
}

/// The clause of `sentence` around byte range `[s, e)`: cut at `,`, `;`, ` and `.
fn clause_around(sentence: &str, s: usize, e: usize) -> &str {
    let before = &sentence[..s];
    let mut start = 0;
    for sep in [", ", "; ", " and ", " or "] {
        if let Some(i) = before.rfind(sep) {
            start = start.max(i + sep.len());
        }
    }
    let after = &sentence[e..];
    let mut end = sentence.len();
    for sep in [", ", "; ", " and ", " or "] {
        if let Some(i) = after.find(sep) {
            end = end.min(e + i);
        }
    }
    sentence[start..end].trim()
}

fn base_memory(
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

fn draft_to_cand(
    d: Draft,
    at: &At,
    base: Option<NaiveDate>,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
) -> Cand {
    let abs = |s: &str| {
        let s = scrubber.scrub(s).text;
        match base {
            Some(b) => dates::absolutize(&s, b).0,
            None => s,
        }
    };
    let fact = abs(&d.fact);
    let (t, kind, conf) = match d.cat {
        Cat::User => (MemoryType::User, Kind::Preference, 0.8),
        Cat::Feedback => (MemoryType::Feedback, Kind::Preference, 0.8),
        Cat::Project => (MemoryType::Project, Kind::DurableLesson, 0.7),
        Cat::Dated => (MemoryType::Project, Kind::OneTimeState, 0.8),
    };
    let mut m = base_memory(title_of(&fact), cut(&fact, 150), t, kind, at, opts);
    if let (Cat::Dated, Some(dm)) = (d.cat, &d.date) {
        m.expires = Some(Expires::On(dm.date));
    }
    m.triggers = triggers_of(&fact, 5);
    m.fact = Some(fact.clone());
    m.why = d.why.map(|w| abs(&w));
    if !d.how.is_empty() {
        m.how = Some(abs(&d.how.join(" ")));
    }
    m.confidence = Some(conf);
    m.extra.insert("rule".into(), d.rule.into());
    let tokens = content_words(&fact).into_iter().collect();
    Cand {
        mem: m,
        tokens,
        key: None,
    }
}

/// Extract from one user message.
fn from_message(
    at: &At,
    text: &str,
    text_len: usize,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
    out: &mut Vec<Cand>,
    notes: &mut Notes,
) {
    let rules = &opts.rules;
    let base = at.day();
    let t = text.trim_start();
    // `text` may be a window: the length that counts is the whole text's
    let trimmed_len = text_len - (text.len() - t.len());
    if t.starts_with('<') || trimmed_len > MAX_MESSAGE_BYTES {
        note(
            notes,
            false,
            Bucket::CurrentContext,
            "drop/wrapped-or-pasted",
            at.line,
            t,
        );
        return;
    }
    let norm = normalize_quotes(cut_pasted_output(text, at.line, notes));
    let mut current: Option<Draft> = None;
    let finish = |d: Option<Draft>, out: &mut Vec<Cand>| {
        if let Some(d) = d {
            out.push(draft_to_cand(d, at, base, opts, scrubber));
        }
    };
    for s in sentences(&norm) {
        if s.len() > 400 {
            note(
                notes,
                false,
                Bucket::CurrentContext,
                "drop/too-long",
                at.line,
                s,
            );
            continue;
        }
        let l = lower(s);
        // references: one per URL the user points to; the sentence is used up
        let urls: Vec<_> = url_re().find_iter(s).collect();
        if !urls.is_empty() {
            let mut any = false;
            for u in &urls {
                let url = u.as_str().trim_end_matches(['.', ',', ';', ':', '!', '?']);
                let clause = clause_around(s, u.start(), u.end());
                if !is_reference(rules, url, clause) {
                    continue;
                }
                any = true;
                let desc = clean_sentence(&scrubber.scrub(clause).text);
                let url = scrubber.scrub(url).text;
                let url = url.as_str();
                let host_path = url.split("://").nth(1).unwrap_or(url).trim_end_matches('/');
                let mut m = base_memory(
                    reference_title(&desc, url, host_path),
                    cut(&desc, 150),
                    MemoryType::Reference,
                    Kind::Reference,
                    at,
                    opts,
                );
                m.fact = Some(desc.clone());
                m.evidence.push(format!("url:{url}"));
                m.triggers = triggers_of(&desc.replace(url, ""), 4);
                m.confidence = Some(0.8);
                m.extra.insert("rule".into(), "reference/url".into());
                m.extra.insert("url".into(), url.into());
                note(
                    notes,
                    true,
                    Bucket::AutomaticMemory,
                    "reference/url",
                    at.line,
                    url,
                );
                out.push(Cand {
                    mem: m,
                    tokens: BTreeSet::new(),
                    key: Some(format!("url:{url}")),
                });
            }
            if any {
                continue;
            }
        }
        let (class, date) = classify(rules, &l, base);
        match class {
            Class::Drop(b, rule) => note(notes, false, b, &rule, at.line, s),
            Class::Other => match current.as_mut() {
                Some(d) if d.why.is_none() && d.cat != Cat::User => {
                    d.why = Some(clean_sentence(s.trim_end_matches(['.', '!'])));
                    note(
                        notes,
                        true,
                        Bucket::DurableInstruction,
                        "why/next-sentence",
                        at.line,
                        s,
                    );
                }
                _ => note(
                    notes,
                    false,
                    Bucket::CurrentContext,
                    "unclassified",
                    at.line,
                    s,
                ),
            },
            Class::Keep(cat, rule) => {
                let bucket = if cat == Cat::Dated {
                    Bucket::AutomaticMemory
                } else {
                    Bucket::DurableInstruction
                };
                note(notes, true, bucket, &rule, at.line, s);
                if let Some(d) = current.as_mut() {
                    let joins = d.cat == cat && cat != Cat::Dated
                        || d.cat == Cat::Dated && cat == Cat::Feedback;
                    if joins {
                        d.how.push(clean_sentence(s));
                        if d.why.is_none() {
                            d.why = why_of(rules, s, &l);
                        }
                        continue;
                    }
                }
                let mut why = why_of(rules, s, &l);
                if why.is_none() && cat == Cat::Feedback {
                    why = colon_why(rules, s);
                }
                let mut how = Vec::new();
                if cat == Cat::Dated {
                    how.extend(instruction_clause(rules, s));
                }
                finish(current.take(), out);
                current = Some(Draft {
                    cat,
                    rule,
                    fact: clean_sentence(s),
                    why,
                    how,
                    date,
                });
            }
        }
    }
    finish(current.take(), out);
}

/// A message with pasted output (three or more log-like lines: timestamps,
/// `fatal:`, `error`, tracebacks, prompts) keeps only the text before the
/// first such line: pasted output is raw evidence, not the user's words.
fn cut_pasted_output<'a>(text: &'a str, line: u64, notes: &mut Notes) -> &'a str {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^\s*(?:\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:\s|$)|\d{4}-\d{2}-\d{2}[t ]\d|\[\d|fatal:|error[:\[]|\w*error:|warning:|traceback|at \S+[(:]|npm err|\$ |>>> |e\s{2,}|file \x22)")
            .expect("log regex")
    });
    let mut first = None;
    let mut n = 0;
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        if re.is_match(line) {
            n += 1;
            first.get_or_insert(off);
        }
        off += line.len();
    }
    match first {
        Some(i) if n >= 3 => {
            note(
                notes,
                false,
                Bucket::RawEvidence,
                "drop/pasted-output",
                line,
                &text[i..],
            );
            &text[..i]
        }
        _ => text,
    }
}

/// The shell command of a tool call, when it runs one (Claude `Bash`, Codex
/// `shell` / `exec_command` / `local_shell`).
pub fn command_of(ev: &Event) -> Option<String> {
    let input = ev.input.as_ref()?;
    command_in(ev.tool.as_deref().unwrap_or(""), |k| input.get(k))
}

/// The shell command of a call of `tool` whose input has the keys `get`
/// looks up (see [`command_of`]).
pub fn command_in<'v>(
    tool: &str,
    get: impl Fn(&str) -> Option<&'v serde_json::Value>,
) -> Option<String> {
    if !matches!(
        tool,
        "Bash"
            | "bash"
            | "shell"
            | "exec_command"
            | "local_shell"
            | "shell_command"
            | "container.exec"
    ) {
        return None;
    }
    let v = get("command").or_else(|| get("cmd"))?;
    let s = match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) => {
            let parts: Vec<&str> = a.iter().filter_map(|x| x.as_str()).collect();
            match parts.as_slice() {
                [sh, flag, rest @ ..] if sh.ends_with("sh") && flag.starts_with('-') => {
                    rest.join(" ")
                }
                _ => parts.join(" "),
            }
        }
        _ => return None,
    };
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// A command as compared between runs: whitespace collapsed, a leading
/// `cd DIR &&` removed.
fn norm_cmd(c: &str) -> String {
    let mut s = c.split_whitespace().collect::<Vec<_>>().join(" ");
    while let Some(rest) = s.strip_prefix("cd ") {
        match rest.find("&& ") {
            Some(i) => s = rest[i + 3..].to_string(),
            None => break,
        }
    }
    s
}

/// Commands that only look around (never the fix in a lesson).
fn is_inspection(c: &str) -> bool {
    let first = c.split_whitespace().next().unwrap_or("");
    let first = first.rsplit('/').next().unwrap_or(first);
    matches!(
        first,
        "ls" | "cat"
            | "head"
            | "tail"
            | "grep"
            | "rg"
            | "find"
            | "echo"
            | "pwd"
            | "which"
            | "wc"
            | "less"
            | "more"
            | "file"
            | "stat"
            | "tree"
            | "du"
            | "df"
            | "env"
            | "printenv"
            | "type"
            | "whoami"
            | "date"
            | "sleep"
            | "true"
            | "diff"
            | "awk"
            | "sed"
            | "jq"
    ) || c.starts_with("git status")
        || c.starts_with("git diff")
        || c.starts_with("git log")
        || c.starts_with("git show")
}

/// Inline scripts and long one-offs are not steps a lesson can name.
fn is_script(c: &str) -> bool {
    c.contains('\n')
        || c.contains("<<")
        || c.contains(" -c ")
        || c.contains(" -e ")
        || c.len() > 160
}

fn looks_failed(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r#"(?i)exit(?:ed)?[ _]?(?:code|status)"?\s*[:=]?\s*"?[1-9]|process exited with code [1-9]"#)
            .expect("exit regex")
    });
    re.is_match(floor_to_bytes(text, 4096))
}

/// A short display form of a command: first line, without `2>&1` and a
/// trailing `| tail …` / `| head …` / `| grep …`, at most 80 bytes.
fn short_cmd(c: &str) -> String {
    let mut first = c.lines().next().unwrap_or("").trim().replace(" 2>&1", "");
    for pager in [
        "| tail", "| head", "| grep", "| less", "| cat", "|tail", "|head",
    ] {
        if let Some(i) = first.find(pager) {
            first.truncate(i);
        }
    }
    let first = first.trim();
    floor_to_bytes(first, 80).trim().to_string()
}

/// The error output quoted into a lesson: from its first line that names an
/// error (else from the start), scrubbed, cut at `budget` bytes on a character
/// boundary with `\n[truncated N bytes]` (N = bytes of the output left out).
/// `window` is a prefix of an output of `total` bytes: a 7 MB output is never
/// read in full.
fn error_excerpt(window: &str, total: usize, budget: usize, scrubber: &Scrubber) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    // ASCII case-insensitive, like lowercasing each line
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i-u)error|not found|fail|missing|cannot|no such|denied")
            .expect("error-line regex")
    });
    // from the start of the first line that names an error
    let start = re
        .find(window)
        .map_or(0, |m| window[..m.start()].rfind('\n').map_or(0, |i| i + 1));
    let rest = &window[start..];
    let rest_total = total - start;
    // scrub a little past the budget so a secret cut at the edge is still seen
    let scrubbed = scrubber.scrub(floor_to_bytes(rest, budget + 512)).text;
    if rest_total <= budget && scrubbed.len() <= budget {
        return scrubbed;
    }
    if rest_total == rest.len() && scrubbed.len() == rest.len() {
        return truncate_marked(&scrubbed, budget).into_owned();
    }
    let head = floor_to_bytes(&scrubbed, budget);
    format!(
        "{head}\n[truncated {} bytes]",
        rest_total.saturating_sub(head.len())
    )
}

/// Lessons from failure → other command → success, one event at a time.
///
/// Holds the open tool calls (command and origin), the failed commands not
/// yet fixed (with a window of their output) and the successful commands
/// since the oldest open failure; nothing else of the events.
#[derive(Default)]
struct Lessons {
    calls: HashMap<String, Call>,
    // successful commands since the oldest open failure, in order
    ok: Vec<(String, At)>,
    failed: Vec<(String, Fail)>,
    cands: Vec<Cand>,
    notes: Notes,
}

struct Call {
    cmd: String,
    at: At,
}

struct Fail {
    call: At,
    result: At,
    output: String,
    total: usize,
    since: usize,
}

impl Lessons {
    fn step(
        &mut self,
        ev: &EventView<'_>,
        at: impl FnOnce() -> At,
        opts: &ExtractOptions,
        scrubber: &Scrubber,
    ) {
        match &*ev.kind {
            "tool_use" => {
                if let (Some(id), Some(cmd)) = (ev.tool_id.as_deref(), ev.command.as_deref()) {
                    self.calls.insert(
                        id.to_string(),
                        Call {
                            cmd: norm_cmd(cmd),
                            at: at(),
                        },
                    );
                }
            }
            "tool_result" => {
                let Some(call) = ev.tool_id.as_deref().and_then(|id| self.calls.remove(id)) else {
                    return;
                };
                let text = ev.text.as_deref().unwrap_or("");
                let bad =
                    ev.is_error.unwrap_or(false) || (ev.is_error.is_none() && looks_failed(text));
                if bad {
                    if !self.failed.iter().any(|(c, _)| *c == call.cmd) {
                        self.failed.push((
                            call.cmd,
                            Fail {
                                call: call.at,
                                result: at(),
                                // only a window: a 7 MB output is never read in full
                                output: floor_to_bytes(text, opts.max_quote_bytes * 4 + 1024)
                                    .to_string(),
                                total: ev.text_len,
                                since: self.ok.len(),
                            },
                        ));
                    }
                    return;
                }
                if let Some(pos) = self.failed.iter().position(|(c, _)| *c == call.cmd) {
                    let (a, f) = self.failed.remove(pos);
                    self.fixed(&a, f, &call, &at(), opts, scrubber);
                }
                if self.failed.is_empty() {
                    // no open failure looks back at these
                    self.ok.clear();
                } else {
                    self.ok.push((call.cmd, call.at));
                }
            }
            _ => {}
        }
    }

    /// Command `a` failed (`f`), then succeeded (`call`, result at `ev`).
    fn fixed(
        &mut self,
        a: &str,
        f: Fail,
        call: &Call,
        ev: &At,
        opts: &ExtractOptions,
        scrubber: &Scrubber,
    ) {
        let between: Vec<&(String, At)> = self.ok[f.since..]
            .iter()
            .filter(|(c, _)| c != a && !is_inspection(c) && !is_script(c))
            .collect();
        let out_l = lower(floor_to_bytes(&f.output, 4096));
        let program = |c: &str| c.split_whitespace().next().unwrap_or("").to_string();
        // the fix the error names, else the last one of the same program
        let fix = between
            .iter()
            .rev()
            .find(|(c, _)| out_l.contains(&lower(&short_cmd(c))))
            .or_else(|| {
                between
                    .iter()
                    .rev()
                    .find(|(c, _)| program(c) == program(a) && !program(a).starts_with('('))
            })
            .copied();
        let Some((b, b_at)) = fix else {
            note(
                &mut self.notes,
                false,
                Bucket::RawEvidence,
                "lesson/no-command-between",
                ev.line,
                a,
            );
            return;
        };
        let (sa, sb) = (short_cmd(a), short_cmd(b));
        let why = error_excerpt(&f.output, f.total, opts.max_quote_bytes, scrubber);
        let newest = [f.call.ts, f.result.ts, b_at.ts, call.at.ts, ev.ts]
            .into_iter()
            .flatten()
            .max();
        let mut m = base_memory(
            title_of(&format!("Run {sb} before {sa}")),
            cut(
                &format!(
                    "{sa} failed until {sb} ran: {}",
                    why.lines().next().unwrap_or("")
                ),
                150,
            ),
            MemoryType::Feedback,
            Kind::DurableLesson,
            ev,
            opts,
        );
        m.verified_at = newest.map(local_day).or(m.verified_at);
        m.fact = Some(format!("Run `{sb}` before `{sa}`."));
        m.why = Some(why);
        m.how = Some(format!("Before running `{sa}`, run `{sb}`."));
        let mut trig = Vec::new();
        for c in [&sa, &sb] {
            let words: Vec<&str> = c.split_whitespace().take(2).collect();
            trig.push(words.join(" "));
        }
        // The failing command's own names (`node src/build-token.mjs` →
        // `build-token`) so a task that names it recalls the lesson.
        for k in command_keywords(&sa) {
            if !trig.contains(&k) {
                trig.push(k);
            }
        }
        trig.dedup();
        m.triggers = trig;
        m.evidence = vec![f.result.evidence(), b_at.evidence(), ev.evidence()];
        m.evidence.dedup();
        m.confidence = Some(0.7);
        m.extra
            .insert("rule".into(), "lesson/fail-fix-succeed".into());
        note(
            &mut self.notes,
            true,
            Bucket::AutomaticMemory,
            "lesson/fail-fix-succeed",
            ev.line,
            &format!("run {sb} before {sa}"),
        );
        self.cands.push(Cand {
            key: Some(format!(
                "lesson:{sb}\u{0}{}",
                sa.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
            )),
            mem: m,
            tokens: BTreeSet::new(),
        });
    }
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    a.intersection(b).count() as f64 / a.union(b).count() as f64
}

fn merge_into(into: &mut Memory, from: Memory) {
    let c = into
        .confidence
        .unwrap_or(0.7)
        .max(from.confidence.unwrap_or(0.7));
    into.confidence = Some(((c + 0.1) * 100.0).round().min(95.0) / 100.0);
    // pointers, not copies: at most MAX_EVIDENCE, the newest replacing the last
    for e in from.evidence {
        if into.evidence.contains(&e) {
            continue;
        }
        if into.evidence.len() < MAX_EVIDENCE {
            into.evidence.push(e);
        } else if let Some(last) = into.evidence.last_mut() {
            *last = e;
        }
    }
    for t in from.triggers {
        if !into.triggers.contains(&t) {
            into.triggers.push(t);
        }
    }
    into.verified_at = into.verified_at.max(from.verified_at);
    if into.why.is_none() {
        into.why = from.why;
    }
    if into.how.is_none() {
        into.how = from.how;
    }
}

/// Streaming extraction: feed events one at a time with [`Extractor::push`],
/// then [`Extractor::finish`]. Holds only what the rules need (candidates so
/// far, open tool calls, a window of each failed command's output), never
/// the events themselves.
pub struct Extractor {
    opts: ExtractOptions,
    scrubber: Scrubber,
    notes: Notes,
    cands: Vec<Cand>,
    skipped: usize,
    seen: HashSet<(String, String, u32)>,
    digest: Option<(String, Rc<str>)>,
    lessons: Lessons,
}

impl Extractor {
    /// A new extraction with `opts`.
    pub fn new(opts: ExtractOptions) -> Self {
        Extractor {
            scrubber: Scrubber::new(opts.project_root.as_deref()),
            opts,
            notes: Notes::default(),
            cands: Vec::new(),
            skipped: 0,
            seen: HashSet::new(),
            digest: None,
            lessons: Lessons::default(),
        }
    }

    fn at(&mut self, ev: &EventView<'_>) -> At {
        let digest = match &self.digest {
            Some((s, d)) if *s == ev.session => d.clone(),
            _ => {
                let d: Rc<str> = blake3::hash(ev.session.as_bytes()).to_hex()[..12].into();
                self.digest = Some((ev.session.to_string(), d.clone()));
                d
            }
        };
        At {
            line: ev.line,
            digest,
            ts: ev.ts.as_deref().and_then(parse_ts),
        }
    }

    /// Do not collect [`Extraction::notes`] (they cost time on long streams).
    pub fn without_notes(mut self) -> Self {
        self.notes.off = true;
        self.lessons.notes.off = true;
        self
    }

    /// Read one event (in stream order).
    pub fn push(&mut self, ev: &EventView<'_>) {
        if ev.sidechain {
            self.skipped += 1;
            return;
        }
        match &*ev.kind {
            "text" if ev.role == "user" => {
                let id = match &ev.uuid {
                    Some(u) => u.to_string(),
                    None => ev.line.to_string(),
                };
                if !self.seen.insert((ev.session.to_string(), id, ev.block)) {
                    return; // the same source entry is used once
                }
                if let Some(text) = ev.text.as_deref() {
                    let at = self.at(ev);
                    from_message(
                        &at,
                        text,
                        ev.text_len,
                        &self.opts,
                        &self.scrubber,
                        &mut self.cands,
                        &mut self.notes,
                    );
                }
            }
            "tool_use" | "tool_result" => {
                let at = self.at(ev);
                self.lessons.step(ev, || at, &self.opts, &self.scrubber);
            }
            _ => {}
        }
    }

    /// The candidates: merged, scrubbed, limited.
    pub fn finish(self) -> Extraction {
        let Extractor {
            opts,
            scrubber,
            notes: msg_notes,
            cands: msg_cands,
            skipped,
            lessons,
            ..
        } = self;
        let mut notes = Notes {
            off: msg_notes.off,
            v: Vec::new(),
        };
        if skipped > 0 {
            note(
                &mut notes,
                false,
                Bucket::CurrentContext,
                "drop/sidechain",
                0,
                &format!("{skipped} side-chain events"),
            );
        }
        notes.v.extend(msg_notes.v);
        notes.v.extend(lessons.notes.v);
        let mut cands = msg_cands;
        cands.extend(lessons.cands);
        finish_candidates(cands, notes, &opts, &scrubber)
    }
}

/// Extract candidate memories from the events of one (or more) sessions.
///
/// Never fails: input validation is the caller's job (records already
/// parsed). Side chains and meta events are ignored; see the module docs.
pub fn extract(events: &[Event], opts: &ExtractOptions) -> Extraction {
    let mut x = Extractor::new(opts.clone());
    for ev in events {
        x.push(&EventView::of(ev));
    }
    x.finish()
}

fn finish_candidates(
    cands: Vec<Cand>,
    mut notes: Notes,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
) -> Extraction {
    // merge near-duplicates (a repeated correction raises confidence)
    let mut merged: Vec<Cand> = Vec::new();
    for c in cands {
        let hit = merged.iter_mut().find(|m| {
            m.mem.mem_type == c.mem.mem_type
                && match (&m.key, &c.key) {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => jaccard(&m.tokens, &c.tokens) >= 0.6,
                    _ => false,
                }
        });
        match hit {
            Some(m) => {
                note(
                    &mut notes,
                    false,
                    Bucket::DurableInstruction,
                    "merge/near-duplicate",
                    0,
                    &c.mem.name,
                );
                merge_into(&mut m.mem, c.mem);
            }
            None => merged.push(c),
        }
    }

    let mut memories = Vec::new();
    let mut sensitive = Vec::new();
    for c in merged {
        let mut m = c.mem;
        let r = scrubber.scrub_memory(&mut m);
        if !r.remaining.is_empty() || m.name.trim().is_empty() {
            let what: Vec<String> = r
                .remaining
                .iter()
                .map(|f| format!("{} ({})", f.field, f.findings[0].kind))
                .collect();
            sensitive.push(format!("{}: {}", m.name, what.join(", ")));
            continue;
        }
        if m.description.trim().is_empty() {
            m.description = m.name.clone();
        }
        ensure_id(&mut m);
        memories.push(m);
    }
    if let Some(n) = opts.max_candidates
        && memories.len() > n
    {
        let mut idx: Vec<usize> = (0..memories.len()).collect();
        idx.sort_by(|&a, &b| {
            memories[b]
                .confidence
                .partial_cmp(&memories[a].confidence)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.cmp(&b))
        });
        let keep: HashSet<usize> = idx.into_iter().take(n).collect();
        let mut i = 0;
        memories.retain(|m| {
            let k = keep.contains(&i);
            if !k {
                note(
                    &mut notes,
                    false,
                    Bucket::AutomaticMemory,
                    "limit/max-candidates",
                    0,
                    &m.name,
                );
            }
            i += 1;
            k
        });
    }
    Extraction {
        memories,
        notes: notes.v,
        sensitive_drops: sensitive,
    }
}

/// Give a candidate an explicit `id` when its name cannot make one (a name
/// quoting a URL or a path holds `/`, which `mem-index write` refuses for a
/// derived id and would refuse the whole batch for): the id is derived from
/// the name with the refused characters turned into spaces, else from the
/// description, else `<type>-<8 hex of BLAKE3 of the name>` (a name with no
/// ASCII letters or digits, e.g. Chinese, slugs to nothing).
pub fn ensure_id(m: &mut Memory) {
    if m.id.is_some() || mem_core::id::derive_id(&m.name).is_ok() {
        return;
    }
    let clean = |s: &str| -> String {
        s.replace("..", " ")
            .chars()
            .map(|c| {
                if matches!(c, '/' | '\\' | '%' | '~') || c.is_control() {
                    ' '
                } else {
                    c
                }
            })
            .collect()
    };
    let hashed = || {
        let h = blake3::hash(m.name.as_bytes()).to_hex();
        format!("{}-{}", m.mem_type.as_str(), &h[..8])
    };
    m.id = Some(
        mem_core::id::derive_id(&clean(&m.name))
            .or_else(|_| mem_core::id::derive_id(&clean(&m.description)))
            .unwrap_or_else(|_| hashed()),
    );
}

#[cfg(test)]
mod tests {
    use super::command_keywords;

    #[test]
    fn names_with_urls_or_paths_get_a_safe_id() {
        use mem_core::{Memory, MemoryType};
        let mut m = Memory::new(
            "Never paste postgres://db.internal:5432/app into the chat logs",
            "d",
            MemoryType::Feedback,
        );
        super::ensure_id(&mut m);
        assert_eq!(
            m.id.as_deref(),
            Some("never-paste-postgres-db-internal-5432-app-into-the-chat-logs")
        );
        let mut ok = Memory::new("Use pnpm", "d", MemoryType::Feedback);
        super::ensure_id(&mut ok);
        assert_eq!(ok.id, None, "a name that makes an id is left alone");
        let mut zh = Memory::new(
            "不要直接修改数据库",
            "不要直接修改数据库",
            MemoryType::Feedback,
        );
        super::ensure_id(&mut zh);
        let id = zh.id.unwrap();
        assert!(id.starts_with("feedback-") && id.len() == 17, "{id}");
        assert!(mem_core::id::validate_id(&id).is_ok());
    }

    #[test]
    fn command_keywords_pick_the_distinctive_names() {
        assert_eq!(
            command_keywords("node src/build-token.mjs"),
            ["build-token"]
        );
        assert_eq!(command_keywords("sh build-token.sh"), ["build-token"]);
        assert_eq!(command_keywords("make verify"), ["verify"]);
        assert_eq!(
            command_keywords("cargo nextest run --workspace"),
            ["nextest"]
        );
        assert_eq!(command_keywords("FOO=1 npm run e2e && echo ok"), ["e2e"]);
    }
}
