//! Rule-based extraction: events in, candidate memories out (DESIGN.md
//! "Extraction"). Deterministic and offline.
//!
//! Only the main agent's user text is read for intent (never side chains,
//! meta entries, tool output or the assistant's words); tool calls and their
//! results are read for lessons (a command fails, another runs, the first then
//! succeeds): such a lesson names only the commands the agent ran and quotes
//! at most the error's first line, never one that reads as an instruction
//! ([`crate::instruction`]); when the fix was named by the failing output
//! itself the lesson is `source: tool`, `trust: low`. Every candidate is classified into a lifecycle bucket
//! ([`Bucket`]); only cross-session buckets are emitted. Candidates are merged
//! when near-duplicate, scrubbed ([`mem_core::scrub`]), and dropped when they
//! would still carry a secret, session id or absolute path.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::OnceLock;

use chrono::{DateTime, NaiveDate, Utc};
use regex::Regex;

use mem_core::records::{Event, Expires, Kind, Memory, MemoryType, Source, Trust};
use mem_core::scrub::Scrubber;
use mem_core::time::{local_day, parse_ts};
use mem_core::truncate::{floor_to_bytes, floor_to_chars};

use crate::dates;
use crate::rules::Rules;
pub use crate::text::EventText;

/// A small fast hasher (FxHash) for the per-event sets and maps, whose
/// iteration order is never used.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
        self.0 = h;
    }
}

type FxSet<T> = HashSet<T, BuildHasherDefault<Fx>>;
type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

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
    /// Byte budget of the one error line a lesson may quote from tool output
    /// (cut at a character boundary, `…` after a cut).
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
        mem_core::session::digest(&ev.session),
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
/// From a line, `text` is still JSON-escaped ([`EventText::Escaped`]) and
/// decoded only as far as extraction reads it: a user message whole, a tool
/// output's first [`min_text_window`] bytes when it is read at all.
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
    /// The text (see the type's docs).
    pub text: Option<EventText<'a>>,
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
            text: ev
                .text
                .as_deref()
                .map(|t| EventText::Plain(Cow::Borrowed(t))),
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
            text: self.text.map(EventText::into_owned),
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

/// A sentence's class, with the label of the rule that decided it.
enum Class<'r> {
    Drop(Bucket, &'r str),
    Keep(Cat, &'r str),
    Other,
}

fn url_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"https?://[^\s<>"'`)\]}]+"#).expect("url regex"))
}

fn filler_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:(?:please|pls|again|remember|right|ok|okay|so|and|also|heads[- ]up|fyi|note|btw|oh|but|hey|actually|important|note that|remember that|keep in mind that|from now on|going forward|moving forward|henceforth|from here on(?: out)?)(?:[:,!.]|\s+that)?\s+)+")
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
    // generic verbs and adjectives: a trigger names the subject, never these
    "add",
    "adds",
    "added",
    "new",
    "main",
    "first",
    "create",
    "creates",
    "created",
    "makes",
    "made",
    "work",
    "works",
    "worked",
    "done",
    "real",
    "actually",
    "love",
    "i'd",
    "find",
    "finds",
    "found",
    "hard",
    "easy",
    "someone",
    "somebody",
    "writes",
    "write",
    "wrote",
    "through",
    "reporting",
    "finishing",
    "kept",
    "saved",
    "existing",
    "good",
    "bad",
    "fine",
    "lot",
    "little",
    "bit",
    "try",
    "tried",
    "seems",
    "look",
    "looks",
    "think",
    "know",
    "going",
    "come",
    "still",
    "even",
    "well",
    "back",
    "put",
    "set",
    "part",
    "change",
    "changes",
    "changed",
    "update",
    "updated",
    "fix",
    "fixed",
    "help",
    "start",
    "end",
    "last",
    "next",
    "right",
    "show",
    "give",
    "take",
    "able",
    "everything",
    "something",
    "nothing",
    "anything",
    "maybe",
    "probably",
    "already",
    "ever",
    "rather",
    "whole",
    "thanks",
    "thank",
    "okay",
    "yes",
    "wait",
    "sec",
    "else",
    "both",
    "either",
    "needed",
    "wants",
    "wanted",
    "asked",
    "ask",
    "tell",
    "said",
    "says",
    "say",
    "call",
    "called",
    "getting",
    "went",
    "goes",
    "gets",
];

/// True for a stop word ([`STOP`]).
fn is_stop(w: &str) -> bool {
    static SET: OnceLock<FxSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP.iter().copied().collect())
        .contains(w)
}

/// Content words of a text (lowercase, stop words removed), for triggers and
/// near-duplicate detection.
fn content_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    // one buffer for the lowercase word; a word is copied only when kept
    let mut buf = String::new();
    let mut word = |w: &str| {
        let w = w.trim_matches(|c: char| matches!(c, '.' | '-' | '_' | '\''));
        if w.len() < 3 {
            // fewer than 3 bytes: fewer than 3 characters, lowercase too
            return;
        }
        buf.clear();
        if w.is_ascii() {
            buf.push_str(w);
            buf.make_ascii_lowercase();
            if buf.bytes().all(|b| b.is_ascii_digit()) {
                return;
            }
        } else {
            buf.push_str(&w.to_lowercase());
            if buf.chars().count() < 3 || buf.chars().all(|c| c.is_ascii_digit()) {
                return;
            }
        }
        if is_stop(&buf) || (buf.len() >= 8 && buf.contains("redacted")) {
            return;
        }
        out.push(buf.clone());
    };
    if text.is_ascii() {
        // the same split, by bytes
        for w in text
            .as_bytes()
            .split(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'\'')))
        {
            word(std::str::from_utf8(w).expect("ASCII"));
        }
    } else {
        for w in text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '\'')))
        {
            word(w);
        }
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
    triggers_with(text, content_words(text), n)
}

/// [`triggers_of`] with the content words of `text` already known.
fn triggers_with(text: &str, words: Vec<String>, n: usize) -> Vec<String> {
    let mut seen = FxSet::default();
    let mut out = Vec::new();
    // backticked spans first
    for part in text.split('`').skip(1).step_by(2) {
        let p = part.trim().to_lowercase();
        if !p.is_empty() && p.len() <= 40 && seen.insert(p.clone()) {
            out.push(p);
        }
    }
    // names first (`session_nav.html`, `pre-commit`, `ty`), then the other
    // words in order: a trigger says what the memory is about
    let named = |w: &String| w.contains(['.', '_', '-']) || w.bytes().any(|b| b.is_ascii_digit());
    let (names, plain): (Vec<String>, Vec<String>) = words.into_iter().partition(named);
    for w in names.into_iter().chain(plain) {
        if out.len() >= n {
            break;
        }
        if w.contains('/') || w.ends_with('.') || !seen.insert(w.clone()) {
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
        let mut cut = |at: usize, cl: usize, s: &mut usize| {
            let piece = text[*s..at + cl].trim();
            if !piece.is_empty() {
                out.push(piece);
            }
            *s = at + cl;
        };
        if bytes[start..end].is_ascii() {
            // only `.` `!` `?` can end a sentence: jump between them
            for p in memchr::memchr3_iter(b'.', b'!', b'?', &bytes[start..end]) {
                let i = start + p;
                if i + 1 >= end || bytes[i + 1].is_ascii_whitespace() {
                    cut(i, 1, &mut s);
                }
            }
        } else {
            let mut i = start;
            // bytes, not chars: the enders are ASCII or start with E3 / EF,
            // which never occur inside a character
            while i < end {
                let (split_here, cl) = match bytes[i] {
                    b'.' | b'!' | b'?' => (i + 1 >= end || bytes[i + 1].is_ascii_whitespace(), 1),
                    // 。
                    0xE3 if bytes.get(i + 1..i + 3) == Some(&[0x80, 0x82]) => (true, 3),
                    // ！ ？
                    0xEF if matches!(bytes.get(i + 1..i + 3), Some([0xBC, 0x81 | 0x9F])) => {
                        (true, 3)
                    }
                    _ => (false, 1),
                };
                if split_here {
                    cut(i, cl, &mut s);
                }
                i += cl;
            }
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

fn classify<'r>(
    rules: &'r Rules,
    l: &str,
    base: Option<NaiveDate>,
) -> (Class<'r>, Option<dates::DateMention>) {
    // one pass for every rule's pattern, then only the matching ones' `unless`
    let m = rules.matching(l);
    if let Some(r) = rules.first_firing(&m, 0, l) {
        let b = match r.bucket.as_deref() {
            Some("task-state") => Bucket::TaskState,
            _ => Bucket::CurrentContext,
        };
        return (Class::Drop(b, r.label()), None);
    }
    if let Some(r) = rules.first_firing(&m, 1, l) {
        return (Class::Keep(Cat::User, r.label()), None);
    }
    if let Some(base) = base
        && let Some(m) = dates::future_bound(l, base)
    {
        return (Class::Keep(Cat::Dated, "project/dated-state"), Some(m));
    }
    if let Some(r) = rules.first_firing(&m, 2, l) {
        return (Class::Keep(Cat::Feedback, r.label()), None);
    }
    if let Some(r) = rules.first_firing(&m, 3, l) {
        return (Class::Keep(Cat::Project, r.label()), None);
    }
    if let Some(r) = rules.first_firing(&m, 4, l) {
        return (Class::Drop(Bucket::CurrentContext, r.label()), None);
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

/// A short title from a sentence: the sentence itself up to 72
/// characters (a name a little long beats one cut mid-phrase), else at
/// most 60, cut at a phrase boundary. A longer sentence ends where a new
/// clause starts (`, but`,
/// `, which`, `, use`, `;`, ` — `, ` (`) when that leaves at least 20
/// characters; else at a word, without the words a phrase cannot end on
/// (`instead of`, `which is`, `the`, `and`) and without a half-quoted
/// `` `command ``.
fn title_of(s: &str) -> String {
    let s = s
        .trim()
        .trim_end_matches(['.', '!', '。', '！', ';', ':', ',']);
    if s.chars().count() <= 72 {
        return s.to_string();
    }
    let head = floor_to_chars(s, 60);
    if let Some(i) = clause_end(head)
        && i >= 20
    {
        return head[..i].trim_end_matches([',', ';', ':', ' ']).to_string();
    }
    // the next character starts a new word: `head` ends at a whole word
    let whole = s[head.len()..].starts_with(char::is_whitespace);
    let mut t = match head.rfind(' ') {
        Some(i) if i > 20 && !whole => &head[..i],
        _ => head,
    };
    loop {
        let before = t;
        t = t.trim_end_matches([',', ';', ':', ' ', '-', '(', '—']);
        if t.matches('`').count() % 2 == 1
            && let Some(i) = t.rfind('`')
            && i > 20
        {
            t = &t[..i];
            continue;
        }
        if let Some(i) = t.rfind(' ')
            && i > 20
            && DANGLING.contains(&lower(&t[i + 1..]).as_str())
        {
            t = &t[..i];
        }
        if t == before {
            break;
        }
    }
    t.to_string()
}

/// Words a title cannot end on: they need what follows them.
const DANGLING: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "nor", "of", "to", "for", "with", "without", "by",
    "from", "in", "into", "on", "onto", "at", "as", "than", "instead", "rather", "which", "that",
    "who", "whose", "where", "when", "while", "because", "since", "so", "if", "unless", "is",
    "are", "was", "were", "be", "been", "it", "its", "this", "these", "those", "my", "your", "our",
    "their", "we", "i", "you", "they", "not", "no", "both", "either", "neither", "using", "via",
    "per", "about", "after", "before", "then", "also", "just", "very", "more", "most", "make",
    "can", "could", "should", "would", "will", "must", "do", "does", "don't",
];

/// Where the last clause of `head` that a new one follows ends: before
/// `;`, ` — `, ` - `, ` (`, or a comma followed by a word that opens a
/// clause (`but`, `which`, `the`, `use`, …).
fn clause_end(head: &str) -> Option<usize> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)(?:;\s| [—–-] | \(|, (?:but|and|so|or|which|because|since|though|although|while|whereas|the|this|that|use|don't|do|please|not|instead|otherwise|then) )")
            .expect("clause regex")
    });
    re.find_iter(head).map(|m| m.start()).last()
}

fn why_of(rules: &Rules, orig: &str, l: &str) -> Option<String> {
    for re in &rules.why {
        // a quick test first: `captures` sets up capture slots every time
        if !re.is_match(l) {
            continue;
        }
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

struct Draft<'r> {
    cat: Cat,
    rule: &'r str,
    fact: String,
    why: Option<String>,
    how: Vec<String>,
    date: Option<dates::DateMention>,
}

fn normalize_quotes(s: &str) -> Cow<'_, str> {
    // U+2018, U+2019, U+201C, U+201D all start with the byte E2
    if memchr::memchr(0xE2, s.as_bytes()).is_none() {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.replace(['\u{2019}', '\u{2018}'], "'")
            .replace(['\u{201c}', '\u{201d}'], "\""),
    )
}

/// The notes of a run; not collected when nobody reads them.
#[derive(Default)]
struct Notes {
    off: bool,
    v: Vec<Note>,
    /// The secrets of the message being read, line by line: a note quotes
    /// one sentence, which may be one line of a secret (a private-key body)
    /// that the scrubber cannot recognise on its own.
    secrets: Vec<String>,
}

impl Notes {
    /// Remember the secrets of `text` (the message whose sentences the next
    /// notes quote).
    fn message(&mut self, scrubber: &Scrubber, text: &str) {
        if self.off {
            return;
        }
        self.secrets.clear();
        for f in scrubber.find(text) {
            if matches!(f.kind, mem_core::scrub::FindingKind::Secret { .. }) {
                self.secrets.extend(
                    text[f.start..f.end]
                        .lines()
                        .map(str::trim)
                        .filter(|l| l.len() >= 8)
                        .map(str::to_string),
                );
            }
        }
    }
}

fn note(notes: &mut Notes, kept: bool, bucket: Bucket, rule: &str, line: u64, text: &str) {
    if notes.off {
        return;
    }
    let mut text = text.to_string();
    for sec in &notes.secrets {
        let t = text.trim();
        if t.len() >= 8 && sec.contains(t) {
            text = mem_core::scrub::REDACTED.to_string();
            break;
        }
        if text.contains(sec.as_str()) {
            text = text.replace(sec.as_str(), mem_core::scrub::REDACTED);
        }
    }
    notes.v.push(Note {
        kept,
        bucket,
        rule: rule.to_string(),
        line,
        text: cut(&text, 120),
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
    // a phrase (or non-ASCII word) anywhere, or a word among the words
    rules.reference_phrases().any(|w| hay.contains(w))
        || hay
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .any(|w| !w.is_empty() && rules.is_reference_word(w))
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

/// A draft as a candidate, added to `out`: merged into a near-duplicate
/// (its why and how then made only when the kept one lacks them), else kept.
fn draft_into(
    d: Draft,
    at: &At,
    base: Option<NaiveDate>,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
    out: &mut Merged,
) {
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
    let words = content_words(&fact);
    let tokens: BTreeSet<String> = words.iter().cloned().collect();
    let why = || d.why.as_deref().map(abs);
    let how = || (!d.how.is_empty()).then(|| abs(&d.how.join(" ")));
    if let Some(i) = out.hit(t, None, &tokens) {
        out.note_merge(|| title_of(&fact));
        let triggers = triggers_with(&fact, words, 5);
        merge_parts(
            &mut out.v[i].mem,
            Parts {
                confidence: Some(conf),
                evidence: vec![at.evidence()],
                triggers,
                verified_at: at.day(),
            },
            why,
            how,
        );
        return;
    }
    let mut m = base_memory(title_of(&fact), cut(&fact, 150), t, kind, at, opts);
    if let (Cat::Dated, Some(dm)) = (d.cat, &d.date) {
        m.expires = Some(Expires::On(dm.date));
    }
    m.triggers = triggers_with(&fact, words, 5);
    m.why = why();
    m.how = how();
    m.fact = Some(fact);
    m.source = Some(Source::User);
    m.trust = Some(Trust::Normal);
    m.confidence = Some(conf);
    m.extra.insert("rule".into(), d.rule.into());
    out.v.push(Cand {
        mem: m,
        tokens,
        key: None,
    });
}

/// Extract from one user message.
fn from_message(
    at: &At,
    text: &str,
    text_len: usize,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
    out: &mut Merged,
    notes: &mut Notes,
) {
    let rules = &opts.rules;
    let base = at.day();
    notes.message(scrubber, text);
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
    let finish = |d: Option<Draft>, out: &mut Merged| {
        if let Some(d) = d {
            draft_into(d, at, base, opts, scrubber, out);
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
                m.source = Some(Source::User);
                m.trust = Some(Trust::Normal);
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
                out.add(Cand {
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
            Class::Drop(b, rule) => note(notes, false, b, rule, at.line, s),
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
                note(notes, true, bucket, rule, at.line, s);
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
                let fact = match rule {
                    "feedback/correction-question" => {
                        rule_of_question(s).unwrap_or_else(|| clean_sentence(s))
                    }
                    _ => clean_sentence(s),
                };
                finish(current.take(), out);
                current = Some(Draft {
                    cat,
                    rule,
                    fact,
                    why,
                    how,
                    date,
                });
            }
        }
    }
    finish(current.take(), out);
}

/// The rule a correction asked as a question stands for: "shouldn't this
/// live in utils?" → "This should live in utils", "why not reuse the client?"
/// → "Reuse the client", "did you run the linter?" → "Run the linter before
/// finishing", "I don't think we need to X" → "Don't X". `None`
/// when the question has none of those shapes.
pub fn rule_of_question(s: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?i)(?:^|[^a-z'])(?:(?P<sn>shouldn't|should not) (?P<subj>this|that|it|these|those|we|you|the [\w-]+) (?P<pred>.+)|why (?:not|don't (?:we|you)|aren't (?:we|you)|didn't you) (?P<why>.+)|(?:wouldn't|won't) it be (?:better|simpler|cleaner|easier|nicer) (?:to )?(?P<better>.+)|(?:could|can|couldn't|can't) (?:we|you) (?:just |simply )?(?P<could>(?:reuse|re-use|keep|share) .+)|(?:did|have) you (?P<did>.+)|(?:i think|maybe|perhaps) (?:we|you) should (?P<should>.+)|i don't think (?:we|you) (?:need|should|want)(?: to)? (?P<dont>.+))$",
        )
        .expect("question regex")
    });
    let c = re.captures(s.trim())?;
    let tail = |name: &str| {
        c.name(name).map(|m| {
            m.as_str()
                .trim()
                .trim_end_matches(['?', '.', '!', ' '])
                .trim_end_matches(" then")
                .to_string()
        })
    };
    let out = if let Some(p) = tail("pred") {
        format!("{} should {p}", c.name("subj").map_or("", |m| m.as_str()))
    } else if let Some(p) = tail("did") {
        format!("{p} before finishing")
    } else if let Some(p) = tail("dont") {
        format!("Don't {p}")
    } else {
        ["why", "better", "could", "should"]
            .iter()
            .find_map(|n| tail(n))?
    };
    (!out.trim().is_empty()).then(|| clean_sentence(&out))
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
    let first = c.lines().next().unwrap_or("").trim();
    // (the searches below only when their first byte occurs)
    let mut first = if first.contains('>') {
        first.replace(" 2>&1", "")
    } else {
        first.to_string()
    };
    if first.contains('|') {
        for pager in [
            "| tail", "| head", "| grep", "| less", "| cat", "|tail", "|head",
        ] {
            if let Some(i) = first.find(pager) {
                first.truncate(i);
            }
        }
    }
    let first = first.trim();
    floor_to_bytes(first, 80).trim().to_string()
}

/// The error's first line as a lesson may quote it: the first line of
/// `window` (a prefix of the failing output) that names an error, else its
/// first non-blank line; trimmed, scrubbed; cut at `budget` bytes on a
/// character boundary with `…` after the cut. `Ok(None)` when the output is
/// blank.
///
/// Errors: the name of the [`crate::instruction::PATTERNS`] entry the line
/// matches when it reads as an instruction to the agent; it is then not
/// quoted at all (tool output is never a memory's voice).
fn error_line(
    window: &str,
    budget: usize,
    scrubber: &Scrubber,
) -> Result<Option<String>, &'static str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    // ASCII case-insensitive, like lowercasing each line
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i-u)error|not found|fail|missing|cannot|no such|denied")
            .expect("error-line regex")
    });
    let line = window
        .lines()
        .find(|l| re.is_match(l))
        .or_else(|| window.lines().find(|l| !l.trim().is_empty()))
        .map(str::trim);
    let Some(line) = line.filter(|l| !l.is_empty()) else {
        return Ok(None);
    };
    if let Some(pattern) = crate::instruction::instruction_shaped(line) {
        return Err(pattern);
    }
    // scrub a little past the budget so a secret cut at the edge is still seen
    let scrubbed = scrubber.scrub(floor_to_bytes(line, budget + 512)).text;
    let scrubbed = scrubbed.trim();
    if scrubbed.len() <= budget && line.len() <= budget + 512 {
        return Ok(Some(scrubbed.to_string()));
    }
    Ok(Some(format!("{}…", floor_to_bytes(scrubbed, budget))))
}

/// True when the failing output (`out_l`, lowercased) names command `cmd`
/// as a command: its short form at word boundaries, and for a one-word
/// command without `/` or `.` only after `run`, `try`, `execute`, `$ ` or a
/// backtick (so `make: *** Error 2` does not name `make`).
fn named_in_output(out_l: &str, cmd: &str) -> bool {
    let c = lower(&short_cmd(cmd));
    if c.is_empty() {
        return false;
    }
    let one_word = !c.contains([' ', '/', '.']);
    let word = |b: Option<char>| b.is_none_or(|b| !(b.is_alphanumeric() || b == '_' || b == '-'));
    out_l.match_indices(&c).any(|(i, _)| {
        let before = out_l[..i].chars().next_back();
        let after = out_l[i + c.len()..].chars().next();
        if !(word(before) && word(after)) {
            return false;
        }
        if !one_word {
            return true;
        }
        let head = out_l[..i].trim_end_matches([' ', ':']);
        head.ends_with('`')
            || head.ends_with('$')
            || ["run", "try", "execute", "please"]
                .iter()
                .any(|w| head.ends_with(w))
    })
}

/// Lessons from failure → other command → success, one event at a time.
///
/// Holds the open tool calls (command and origin), the failed commands not
/// yet fixed (with a window of their output) and the successful commands
/// since the oldest open failure; nothing else of the events.
#[derive(Default)]
struct Lessons {
    calls: FxMap<String, Call>,
    /// File edits (write tools) so far.
    edits: u64,
    // successful commands since the oldest open failure, in order
    ok: Vec<(String, At)>,
    failed: Vec<(String, Fail)>,
    cands: Merged,
    notes: Notes,
}

struct Call {
    cmd: String,
    /// The command as run (a leading `cd DIR &&` kept), display form.
    raw: String,
    at: At,
}

struct Fail {
    call: At,
    result: At,
    output: String,
    since: usize,
    /// The command as run, display form.
    raw: String,
    /// Files edited before this failure (a change after it, not a command,
    /// may be what fixed it).
    edits: u64,
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
                            raw: short_cmd(cmd),
                            at: at(),
                        },
                    );
                } else if ev.path.is_some() && !self.failed.is_empty() {
                    self.edits += 1;
                }
            }
            "tool_result" => {
                let Some(call) = ev.tool_id.as_deref().and_then(|id| self.calls.remove(id)) else {
                    return;
                };
                // the output is decoded only when read, and only its first
                // `min_text_window` bytes: a 7 MB output is never read in full
                let decode = || match &ev.text {
                    Some(t) => t.prefix(min_text_window(opts.max_quote_bytes)),
                    None => Cow::Borrowed(""),
                };
                let mut window = None;
                let bad = match ev.is_error {
                    Some(b) => b,
                    None => looks_failed(window.insert(decode())),
                };
                if bad {
                    let window = window.unwrap_or_else(decode);
                    let keep = opts.max_quote_bytes * 4 + 1024;
                    let fail = Fail {
                        call: call.at,
                        result: at(),
                        output: floor_to_bytes(&window, keep).to_string(),
                        since: self.ok.len(),
                        raw: call.raw,
                        edits: self.edits,
                    };
                    match self.failed.iter_mut().find(|(c, _)| *c == call.cmd) {
                        // failed again: what ran before did not fix it
                        Some((_, f)) => *f = fail,
                        None => self.failed.push((call.cmd, fail)),
                    }
                    return;
                }
                if let Some(pos) = self.failed.iter().position(|(c, _)| *c == call.cmd) {
                    let (a, f) = self.failed.remove(pos);
                    self.fixed(&a, f, &call, &at(), opts, scrubber);
                } else if let Some(pos) = self.failed.iter().rposition(|(_, f)| {
                    // a retry comes soon after the failure
                    self.ok.len() - f.since <= MAX_RETRY_GAP
                        && retry_of(&f.raw, &call.raw).is_some()
                }) {
                    let (_, f) = self.failed.remove(pos);
                    self.retried(f, &call, &at(), opts);
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
            // else the last command between that changes something (reads
            // and listings were left out above), when no file was edited:
            // an edit after the failure is the likelier fix
            .or_else(|| between.last().filter(|_| self.edits == f.edits))
            .copied();
        if fix.is_some() && self.edits != f.edits {
            note(
                &mut self.notes,
                false,
                Bucket::RawEvidence,
                "lesson/edited-between",
                ev.line,
                a,
            );
            return;
        }
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
        let (sa, sb) = (general_cmd(&short_cmd(a)), general_cmd(&short_cmd(b)));
        // The error told the agent to run the fix: whoever wrote that output
        // chose the command, so the lesson is the tool's, and suspect.
        let suggested = named_in_output(&out_l, b);
        let newest = [f.call.ts, f.result.ts, b_at.ts, call.at.ts, ev.ts]
            .into_iter()
            .flatten()
            .max();
        let mut trig = Vec::new();
        let fixes: &[&String] = if suggested { &[&sa] } else { &[&sa, &sb] };
        for c in fixes {
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
        trig.retain(|t| !is_stop(t) && t != "git");
        let output_at = f.result.evidence();
        let mut evidence = vec![output_at.clone(), b_at.evidence(), ev.evidence()];
        evidence.dedup();
        let rule = if suggested {
            "lesson/fix-named-by-output"
        } else {
            "lesson/fail-fix-succeed"
        };
        note(
            &mut self.notes,
            true,
            Bucket::AutomaticMemory,
            rule,
            ev.line,
            &format!("run {sb} before {sa}"),
        );
        let key = format!(
            "{rule}:{sb}\u{0}{}",
            sa.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
        );
        let verified_at = newest.map(local_day).or(ev.day());
        let quote = || error_line(&f.output, opts.max_quote_bytes, scrubber);
        let why = |quote: Result<Option<String>, &'static str>| {
            if suggested {
                return format!(
                    "`{sa}` failed and its own output named `{sb}`; that ran, then `{sa}` passed. \
                     The fix came from the tool's output (output: {output_at})."
                );
            }
            match quote {
                Ok(Some(line)) => {
                    format!("`{sa}` failed with \"{line}\" (output: {output_at}).")
                }
                Ok(None) => format!("`{sa}` failed (output: {output_at})."),
                Err(pattern) => {
                    format!("`{sa}` failed (output: {output_at}; not quoted: {pattern}).")
                }
            }
        };
        let how = || format!("Before running `{sa}`, run `{sb}`.");
        let name = || {
            if suggested {
                title_of(&format!("Fix for {sa} named by its own output"))
            } else {
                title_of(&format!("Run {sb} before {sa}"))
            }
        };
        let empty = BTreeSet::new();
        if let Some(i) = self.cands.hit(MemoryType::Feedback, Some(&key), &empty) {
            // a repeated lesson: its quote is made only when the kept one lacks one
            self.cands.note_merge(name);
            merge_parts(
                &mut self.cands.v[i].mem,
                Parts {
                    confidence: Some(0.7),
                    evidence,
                    triggers: trig,
                    verified_at,
                },
                || Some(why(quote())),
                || (!suggested).then(how),
            );
            return;
        }
        let quoted = if suggested { Ok(None) } else { quote() };
        if let Err(pattern) = quoted {
            note(
                &mut self.notes,
                false,
                Bucket::RawEvidence,
                "lesson/quote-instruction-shaped",
                f.result.line,
                pattern,
            );
        }
        let description = if suggested {
            format!("{sa} failed until a command its own output named ran (low trust)")
        } else {
            format!("{sa} failed until {sb} ran")
        };
        let mut m = base_memory(
            name(),
            cut(&description, 150),
            MemoryType::Feedback,
            Kind::DurableLesson,
            ev,
            opts,
        );
        m.verified_at = verified_at;
        m.why = Some(why(quoted));
        if suggested {
            m.source = Some(Source::Tool);
            m.trust = Some(Trust::Low);
        } else {
            m.source = Some(Source::Assistant);
            m.trust = Some(Trust::Normal);
            m.fact = Some(format!("Run `{sb}` before `{sa}`."));
            m.how = Some(how());
        }
        m.triggers = trig;
        m.evidence = evidence;
        m.confidence = Some(if suggested { 0.3 } else { 0.7 });
        m.extra.insert("rule".into(), rule.into());
        self.cands.v.push(Cand {
            key: Some(key),
            mem: m,
            tokens: empty,
        });
    }
}

impl Lessons {
    /// Command `f.raw` failed, then a modified form of it (`call`) passed:
    /// "use X′ instead of X", written for the general case.
    fn retried(&mut self, f: Fail, call: &Call, ev: &At, opts: &ExtractOptions) {
        let Some(how) = retry_of(&f.raw, &call.raw) else {
            return;
        };
        // the lesson names the retried command only (what ran after it on
        // the same line is not part of it), the failing one by its head
        let (sa, sb) = (
            general_cmd(&lesson_form(&f.raw)),
            general_cmd(&lesson_form(&call.raw)),
        );
        if sa == sb || sa.is_empty() || sb.is_empty() {
            return;
        }
        let ha = head_of(&sa);
        let name = title_of(&format!("Use `{sb}` instead of `{ha}`"));
        note(
            &mut self.notes,
            true,
            Bucket::AutomaticMemory,
            "lesson/modified-retry",
            ev.line,
            &name,
        );
        // triggers: the command family (`git push`, `pytest`), the programs
        // and the names the commands carry, never `cd`/`git` alone
        let mut trig: Vec<String> = Vec::new();
        let mut add = |t: String| {
            if t.len() >= 2 && !t.starts_with('<') && !is_stop(&t) && !trig.contains(&t) {
                trig.push(t);
            }
        };
        for c in [&sb, &sa] {
            let segs = segments(c);
            let Some(core) = core_of(&segs) else {
                continue;
            };
            let words: Vec<&str> = core
                .iter()
                .copied()
                .filter(|w| !w.starts_with(['-', '<']))
                .collect();
            add(words.iter().take(2).copied().collect::<Vec<_>>().join(" "));
            for w in words.iter().take(2) {
                if !matches!(*w, "git" | "sh" | "bash" | "env" | "sudo" | "run" | "exec")
                    && !w.contains('/')
                {
                    add(w.to_string());
                }
            }
            for s in &segs {
                if matches!(s[0], "source" | ".") {
                    add("activate".into());
                }
            }
            for k in command_keywords(&core.join(" ")) {
                if !matches!(k.as_str(), "git" | "sudo") {
                    add(k);
                }
            }
        }
        trig.truncate(6);
        let evidence = vec![f.result.evidence(), ev.evidence()];
        let key = format!("retry:{sb}\u{0}{ha}");
        let verified_at = [f.result.ts, call.at.ts, ev.ts]
            .into_iter()
            .flatten()
            .max()
            .map(local_day)
            .or(ev.day());
        let empty = BTreeSet::new();
        if let Some(i) = self.cands.hit(MemoryType::Feedback, Some(&key), &empty) {
            self.cands.note_merge(|| name.clone());
            merge_parts(
                &mut self.cands.v[i].mem,
                Parts {
                    confidence: Some(0.7),
                    evidence,
                    triggers: trig,
                    verified_at,
                },
                || None,
                || None,
            );
            return;
        }
        let mut m = base_memory(
            name,
            cut(&format!("`{sa}` fails here; `{sb}` ({how}) works"), 150),
            MemoryType::Feedback,
            Kind::DurableLesson,
            ev,
            opts,
        );
        m.verified_at = verified_at;
        m.fact = Some(format!("Run `{sb}`, not `{sa}`."));
        m.why = Some(format!("`{sa}` failed and passed when run again {how}."));
        m.how = Some(format!("Where you would run `{sa}`, run `{sb}`."));
        // The failing output told the agent how to run it: whoever wrote
        // that output chose the command, so the lesson is the tool's, and
        // suspect (the same rule as a fix named by the output).
        let suggested = named_in_output(&lower(floor_to_bytes(&f.output, 4096)), &call.raw);
        m.source = Some(if suggested {
            Source::Tool
        } else {
            Source::Assistant
        });
        m.trust = Some(if suggested { Trust::Low } else { Trust::Normal });
        m.triggers = trig;
        m.evidence = evidence;
        m.confidence = Some(if suggested { 0.3 } else { 0.7 });
        m.extra
            .insert("rule".into(), "lesson/modified-retry".into());
        self.cands.v.push(Cand {
            key: Some(key),
            mem: m,
            tokens: empty,
        });
    }
}

/// A command line up to its core command (see [`core_of`]): the `cd`,
/// `source` and env segments before it kept, the segments after it dropped.
fn lesson_form(c: &str) -> String {
    let segs = segments(c);
    let mut out = Vec::new();
    for s in &segs {
        out.push(s.join(" "));
        let i = s
            .iter()
            .position(|w| !w.contains('=') || w.starts_with('-'));
        if i.is_some_and(|i| !matches!(s[i], "cd" | "source" | "." | "export" | "set" | "pushd")) {
            break;
        }
    }
    out.join(" && ")
}

/// The program and subcommand of a general command (`git push`, `pytest`,
/// `node assets/build.js`): the words before the first flag or placeholder,
/// at most three.
fn head_of(c: &str) -> String {
    c.split_whitespace()
        .take_while(|w| !w.starts_with(['-', '<']) && *w != "&&")
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Successful commands at most between a failure and its modified retry.
const MAX_RETRY_GAP: usize = 8;

/// The simple commands of a command line: split on `&&`, `||`, `;` and `|`,
/// parentheses and a leading `time`/`exec` dropped.
fn segments(c: &str) -> Vec<Vec<&str>> {
    let mut out = vec![Vec::new()];
    for w in c.split_whitespace() {
        let w = w.trim_matches(|ch| ch == '(' || ch == ')');
        if matches!(w, "&&" | "||" | ";" | "|") {
            out.push(Vec::new());
            continue;
        }
        if w.is_empty() {
            continue;
        }
        let cur = out.last_mut().expect("one");
        if cur.is_empty() && matches!(w, "time" | "exec" | "command") {
            continue;
        }
        cur.push(w);
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The command a line runs for its effect: the first segment that is not a
/// `cd`, `source`/`.`, `export` or env assignment (leading `VAR=x` words
/// dropped from it).
fn core_of<'a>(segs: &'a [Vec<&'a str>]) -> Option<&'a [&'a str]> {
    segs.iter().find_map(|s| {
        let i = s
            .iter()
            .position(|w| !w.contains('=') || w.starts_with('-'))?;
        let s = &s[i..];
        (!matches!(s[0], "cd" | "source" | "." | "export" | "set" | "pushd")).then_some(s)
    })
}

/// How `b` (which passed) is a modified retry of `a` (which failed), in
/// words, or `None`: the same command wrapped (`poetry run pytest`), with an
/// activated environment or an env prefix, with flags added (`git push
/// --set-upstream …`), from another directory (`cd assets && node build.js`,
/// `make -C backend test`), or with a versioned program (`python3`).
pub fn retry_of(a: &str, b: &str) -> Option<&'static str> {
    if a == b || is_script(a) || is_script(b) || is_inspection(a) {
        return None;
    }
    let (sa, sb) = (segments(a), segments(b));
    let (ca, cb) = (core_of(&sa)?, core_of(&sb)?);
    let flags = |c: &[&str]| c.iter().filter(|w| w.starts_with('-')).count();
    let plain = |c: &[&str]| -> Vec<String> {
        c.iter()
            .filter(|w| !w.starts_with('-'))
            .map(|w| w.rsplit('/').next().unwrap_or(w).to_string())
            .collect()
    };
    let has = |segs: &[Vec<&str>], first: &[&str]| {
        segs.iter()
            .any(|s| s.first().is_some_and(|w| first.contains(w)))
    };
    // wrapped: a's whole core appears inside b's, after a runner
    if cb.len() > ca.len() && cb.windows(ca.len()).skip(1).any(|w| w == ca) {
        return Some("through a wrapper");
    }
    if ca == cb {
        if has(&sb, &["source", "."]) && !has(&sa, &["source", "."]) {
            return Some("with the environment activated");
        }
        if has(&sb, &["cd", "pushd"]) && !has(&sa, &["cd", "pushd"]) {
            return Some("from another directory");
        }
        let env = |segs: &[Vec<&str>]| {
            segs.iter()
                .flatten()
                .filter(|w| w.contains('=') && !w.starts_with('-'))
                .count()
        };
        if env(&sb) > env(&sa) {
            return Some("with an environment variable set");
        }
        return None;
    }
    let (pa, pb) = (ca[0].rsplit('/').next()?, cb[0].rsplit('/').next()?);
    // a versioned program: python → python3, pip → pip3
    if pb != pa
        && pb.starts_with(pa)
        && pb[pa.len()..]
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.')
        && ca[1..] == cb[1..]
    {
        return Some("with the versioned program");
    }
    if pa != pb {
        return None;
    }
    // another directory: `node assets/build.js` → `cd assets && node build.js`
    if has(&sb, &["cd", "pushd"]) && plain(ca).len() == plain(cb).len() && plain(ca) == plain(cb) {
        return Some("from another directory");
    }
    if cb
        .iter()
        .any(|w| *w == "-C" || *w == "--directory" || w.starts_with("--manifest-path"))
    {
        return Some("from another directory");
    }
    // flags added to the same program and subcommand (not ones that only
    // print help or change nothing)
    let sub = |c: &[&str]| {
        c.get(1)
            .filter(|w| !w.starts_with('-'))
            .map(|w| w.to_string())
    };
    let idle = [
        "--help",
        "-h",
        "--version",
        "-V",
        "--dry-run",
        "-n",
        "--check",
        "--list",
    ];
    if cb.iter().any(|w| idle.contains(w)) && !ca.iter().any(|w| idle.contains(w)) {
        return None;
    }
    if sub(ca) == sub(cb) && flags(cb) > flags(ca) {
        return Some("with a flag added");
    }
    None
}

/// A command written for the general case: commit messages, branch names,
/// ticket-like ids and file lists become placeholders; a `cd` into an
/// absolute directory keeps the directory's last name.
pub fn general_cmd(c: &str) -> String {
    static ID: OnceLock<Regex> = OnceLock::new();
    let id = ID.get_or_init(|| {
        Regex::new(r"^(?:[A-Za-z]+-\d+|[a-z]+-[a-z0-9]{2,4}(?:\.\d+)+)$").expect("id regex")
    });
    let mut out: Vec<String> = Vec::new();
    for seg in segments(c) {
        if !out.is_empty() {
            out.push("&&".into());
        }
        let prog = seg[0].rsplit('/').next().unwrap_or(seg[0]);
        let sub = seg.get(1).copied().unwrap_or("");
        let branchy = prog == "git"
            && matches!(
                sub,
                "push" | "pull" | "checkout" | "switch" | "merge" | "rebase" | "branch"
            );
        let fileish = prog == "git" && matches!(sub, "add" | "rm" | "restore" | "stage");
        let mut files = 0;
        let mut prev = "";
        for (i, w) in seg.iter().enumerate() {
            if matches!(*w, "-m" | "--message" | "-F") {
                // a lesson never needs the message: the flag and it go
                prev = w;
                continue;
            }
            let word = if matches!(prev, "-m" | "--message" | "-F") {
                prev = "";
                if w.starts_with('"') && !w.ends_with('"') {
                    break;
                }
                continue;
            } else if i == 1 && prog == "cd" && w.starts_with('/') {
                w.rsplit('/').next().unwrap_or(w).to_string()
            } else if id.is_match(w.trim_matches(['"', '\''])) {
                "<id>".to_string()
            } else if branchy && i >= 2 && !w.starts_with('-') && prev != "--set-upstream-to" {
                if matches!(*w, "origin" | "upstream") {
                    w.to_string()
                } else {
                    "<branch>".to_string()
                }
            } else if fileish && i >= 2 && !w.starts_with('-') {
                files += 1;
                if files > 1 {
                    prev = w;
                    continue;
                }
                w.to_string()
            } else {
                w.to_string()
            };
            if word.starts_with('"') && !word.ends_with('"') {
                // a quoted message cut at the first line
                out.push("<message>".into());
                break;
            }
            out.push(word);
            prev = w;
        }
        if files > 1
            && let Some(last) = out.iter().rposition(|w| !w.starts_with('-') && w != "&&")
        {
            out[last] = "<files>".into();
        }
    }
    let s = out.join(" ");
    floor_to_bytes(&s, 80).trim().to_string()
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    a.intersection(b).count() as f64 / a.union(b).count() as f64
}

fn merge_into(into: &mut Memory, from: Memory) {
    let (why, how) = (from.why, from.how);
    merge_parts(
        into,
        Parts {
            confidence: from.confidence,
            evidence: from.evidence,
            triggers: from.triggers,
            verified_at: from.verified_at,
        },
        || why,
        || how,
    );
}

/// What a merge takes from a near-duplicate besides its why and how.
struct Parts {
    confidence: Option<f64>,
    evidence: Vec<String>,
    triggers: Vec<String>,
    verified_at: Option<NaiveDate>,
}

/// [`merge_into`] with the near-duplicate in parts; its why and how are
/// made only when `into` lacks them.
fn merge_parts(
    into: &mut Memory,
    from: Parts,
    why: impl FnOnce() -> Option<String>,
    how: impl FnOnce() -> Option<String>,
) {
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
        into.why = why();
    }
    if into.how.is_none() {
        into.how = how();
    }
}

/// The origin of an event; `digest` caches the last session's digest.
fn at_of(digest: &mut Option<(String, Rc<str>)>, ev: &EventView<'_>) -> At {
    let d = match digest {
        Some((s, d)) if *s == ev.session => d.clone(),
        _ => {
            let d: Rc<str> = mem_core::session::digest(&ev.session).into();
            *digest = Some((ev.session.to_string(), d.clone()));
            d
        }
    };
    At {
        line: ev.line,
        digest: d,
        ts: ev.ts.as_deref().and_then(parse_ts),
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
    /// The message candidates, merged.
    cands: Merged,
    skipped: usize,
    /// Source entries used: per session, (uuid or line, block).
    seen: FxMap<String, FxSet<(String, u32)>>,
    digest: Option<(String, Rc<str>)>,
    lessons: Lessons,
    /// Open tool calls whose result may hold the user's decision: the
    /// question tool's calls, and every call's command (a rejection's reason
    /// names what to do instead of it).
    decisions: FxMap<String, Pending>,
    /// The user interrupted the agent: their next message corrects it.
    after_interrupt: bool,
    /// Secret values seen in the user's text and the agent's commands: a
    /// rule may carry a piece of one into a trigger or a sentence the
    /// scrubber cannot recognise on its own (`hunter2xyz` split off
    /// `--password hunter2xyz`), so every field is cleared of them.
    secrets: SecretValues,
    /// The user's messages read so far (as [`quote_key`]s): a compaction
    /// summary's quote of one of them adds nothing.
    said: FxSet<u64>,
}

/// A tool call whose result may carry the user's words.
struct Pending {
    ask: bool,
    cmd: Option<String>,
}

/// A user message as compared with a summary's quote of it: a 64-bit hash
/// of the text lowercased, whitespace collapsed, closing punctuation and an
/// ellipsis dropped. Streams the characters (no copy of the message).
fn quote_key(s: &str) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let s = s.trim().trim_end_matches(['.', '!', '?', '…', ' ']);
    let mut h = BuildHasherDefault::<Fx>::default().build_hasher();
    for (i, word) in s.split_whitespace().enumerate() {
        if i > 0 {
            h.write_u32(' ' as u32);
        }
        for c in word.chars().flat_map(char::to_lowercase) {
            h.write_u32(c as u32);
        }
    }
    h.finish()
}

/// The user's messages a compaction summary quotes: each `"…"` bullet of
/// its "All user messages" section (up to the next numbered heading), and
/// a quote right after `User said` / `User feedback` / `the user wrote`.
/// Unquoted bullets (`(Plan mode approval - implicit)`) are the
/// summary's own words and are left out.
pub fn summary_quotes(summary: &str) -> Vec<String> {
    static BULLET: OnceLock<Regex> = OnceLock::new();
    static SAID: OnceLock<Regex> = OnceLock::new();
    static HEAD: OnceLock<Regex> = OnceLock::new();
    let bullet = BULLET.get_or_init(|| {
        Regex::new(r#"^\s*(?:[-*•]|\d+[.)])\s+(?:\*\*[^*]*\*\*:?\s*)?["“]([^"”]{3,})["”]"#)
            .expect("bullet regex")
    });
    let said = SAID.get_or_init(|| {
        Regex::new(r#"(?i)\b(?:the )?user (?:said|says|wrote|feedback|asked|instructed|requested|stated|replied|answered)[^"“\n]{0,20}["“]([^"”\n]{3,})["”]"#)
            .expect("said regex")
    });
    let head = HEAD
        .get_or_init(|| Regex::new(r"^\s{0,3}(?:#+\s*)?\d+\.\s+\**[A-Z]").expect("heading regex"));
    let mut out: Vec<String> = Vec::new();
    let mut push = |q: &str| {
        let q = q.trim();
        if !q.is_empty() && !out.iter().any(|o| o == q) {
            out.push(q.to_string());
        }
    };
    let mut in_section = false;
    for line in summary.lines() {
        if line.to_lowercase().contains("all user messages") {
            in_section = true;
            continue;
        }
        if in_section && head.is_match(line) {
            in_section = false;
        }
        if in_section && let Some(c) = bullet.captures(line) {
            push(&c[1]);
            continue;
        }
        for c in said.captures_iter(line) {
            push(&c[1]);
        }
    }
    out
}

/// The question tool's result: `User has answered your questions: "Q"="A", …`.
const ANSWERED: &str = "User has answered your questions:";
/// A rejected tool call's result, and the phrase before the user's reason.
const REJECTED: &str = "The user doesn't want to proceed with this tool use.";
const REASON: &str = "The user provided the following reason for the rejection:";
/// The user text that marks an interrupt.
const INTERRUPTED: &str = "[Request interrupted by user";
/// Bytes of a tool result decoded to see whether it starts with
/// [`ANSWERED`] or [`REJECTED`] (after leading whitespace).
const MARKER_HEAD: usize = 256;

impl Extractor {
    /// A new extraction with `opts`.
    pub fn new(opts: ExtractOptions) -> Self {
        Extractor {
            scrubber: Scrubber::new(opts.project_root.as_deref()),
            opts,
            notes: Notes::default(),
            cands: Merged::default(),
            skipped: 0,
            seen: FxMap::default(),
            digest: None,
            lessons: Lessons::default(),
            decisions: FxMap::default(),
            after_interrupt: false,
            secrets: SecretValues::default(),
            said: FxSet::default(),
        }
    }

    fn at(&mut self, ev: &EventView<'_>) -> At {
        at_of(&mut self.digest, ev)
    }

    /// Do not collect [`Extraction::notes`] (they cost time on long streams).
    pub fn without_notes(mut self) -> Self {
        self.notes.off = true;
        self.lessons.notes.off = true;
        self.cands.notes.off = true;
        self.lessons.cands.notes.off = true;
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
                let fresh = match self.seen.get_mut(&*ev.session) {
                    Some(ids) => ids.insert((id, ev.block)),
                    None => {
                        let mut ids = FxSet::default();
                        ids.insert((id, ev.block));
                        self.seen.insert(ev.session.to_string(), ids);
                        true
                    }
                };
                if !fresh {
                    return; // the same source entry is used once
                }
                if let Some(text) = ev.text.as_ref() {
                    let text = text.whole();
                    self.secrets.learn(&self.scrubber, &text);
                    if text.len() <= MAX_MESSAGE_BYTES {
                        self.said.insert(quote_key(&text));
                    }
                    let t = text.trim_start();
                    if t.starts_with(INTERRUPTED) {
                        self.after_interrupt = true;
                    }
                    let at = self.at(ev);
                    let before = self.cands.v.len();
                    from_message(
                        &at,
                        &text,
                        text.len(),
                        &self.opts,
                        &self.scrubber,
                        &mut self.cands,
                        &mut self.notes,
                    );
                    // wrappers (`<ide_opened_file>`, the interrupt marker) do
                    // not end the wait for the correction
                    if self.after_interrupt && !t.starts_with(['<', '[']) && !t.is_empty() {
                        self.after_interrupt = false;
                        if self.cands.v.len() == before {
                            self.correction_after_interrupt(&at, t);
                        }
                    }
                }
            }
            "summary" => self.read_summary(ev),
            "tool_use" | "tool_result" => {
                if ev.kind == "tool_use"
                    && let Some(cmd) = ev.command.as_deref()
                {
                    self.secrets.learn(&self.scrubber, cmd);
                }
                self.decision_in(ev);
                // the origin is made only when a call or a failure is kept
                let digest = &mut self.digest;
                self.lessons
                    .step(ev, || at_of(digest, ev), &self.opts, &self.scrubber);
            }
            _ => {}
        }
    }

    /// A compaction summary (or a context collapse's summary) is the
    /// assistant's account of the session, never read as the user's words:
    /// only the user's messages it quotes (`"…"` bullets of its "All user
    /// messages" section, `User said: "…"`) go through the rules, and what
    /// they give is `source: assistant` (the summary chose and copied the
    /// words) with confidence lowered by 0.2. A quote of a message this
    /// extraction already read adds nothing.
    fn read_summary(&mut self, ev: &EventView<'_>) {
        let Some(text) = ev.text.as_ref() else {
            return;
        };
        let text = text.whole();
        let quotes: Vec<String> = summary_quotes(&text)
            .into_iter()
            .filter(|q| !self.said.contains(&quote_key(q)))
            .collect();
        if quotes.is_empty() {
            return;
        }
        let at = self.at(ev);
        let mut got = Merged::default();
        got.notes.off = self.notes.off;
        for q in &quotes {
            self.secrets.learn(&self.scrubber, q);
            from_message(
                &at,
                q,
                q.len(),
                &self.opts,
                &self.scrubber,
                &mut got,
                &mut self.notes,
            );
            self.said.insert(quote_key(q));
        }
        for mut c in got.v {
            c.mem.source = Some(Source::Assistant);
            c.mem.confidence = c
                .mem
                .confidence
                .map(|x| ((x - 0.2) * 100.0).round() / 100.0);
            if let Some(serde_json::Value::String(r)) = c.mem.extra.get("rule").cloned() {
                c.mem
                    .extra
                    .insert("rule".into(), format!("summary/{r}").into());
            }
            if c.mem.why.is_none() {
                c.mem.why = Some("A compaction summary quotes the user saying so.".into());
            }
            self.cands.add(c);
        }
    }

    /// Remember the calls whose results may carry a decision; read the
    /// user's words out of those results (the question tool's answers, a
    /// rejection's reason).
    fn decision_in(&mut self, ev: &EventView<'_>) {
        let Some(id) = ev.tool_id.as_deref() else {
            return;
        };
        if ev.kind == "tool_use" {
            let ask = ev.tool.as_deref() == Some("AskUserQuestion");
            self.decisions.insert(
                id.to_string(),
                Pending {
                    ask,
                    cmd: ev.command.as_deref().map(short_cmd),
                },
            );
            return;
        }
        let Some(call) = self.decisions.remove(id) else {
            return;
        };
        let Some(text) = ev.text.as_ref() else {
            return;
        };
        // Only an answer or a rejection is read here: decide on a short head,
        // and decode up to the message budget only for those.
        let head = text.prefix(MARKER_HEAD);
        let t = head.trim_start();
        let marker_len = ANSWERED.len().max(REJECTED.len());
        let cut = head.len() >= MARKER_HEAD && t.len() < marker_len;
        if !cut && !t.starts_with(ANSWERED) && !t.starts_with(REJECTED) {
            return;
        }
        let text = text.prefix(MAX_MESSAGE_BYTES);
        let t = text.trim_start();
        if call.ask && ev.is_error != Some(true) {
            if let Some(rest) = t.strip_prefix(ANSWERED) {
                let at = self.at(ev);
                for (q, a) in answers(rest) {
                    self.answer(&at, &q, &a);
                }
            }
            return;
        }
        if let Some(rest) = t.strip_prefix(REJECTED) {
            self.after_interrupt = true;
            if let Some(i) = rest.find(REASON) {
                let reason = rest[i + REASON.len()..].trim();
                if !reason.is_empty() {
                    let at = self.at(ev);
                    self.rejection(&at, reason, call.cmd.as_deref());
                }
            }
        }
    }

    /// One answer to the agent's question: a decision in the user's words.
    fn answer(&mut self, at: &At, q: &str, a: &str) {
        let a = a.trim();
        let q = q.trim();
        if a.is_empty() || a.len() > 400 || q.len() > 400 {
            return;
        }
        let scrub = |s: &str| self.scrubber.scrub(s).text;
        let (q, a) = (scrub(q), scrub(a));
        // a short answer says little alone: the question names the subject
        let bare = {
            let l = lower(&a);
            [
                "yes", "no", "option", "ok", "sure", "both", "neither", "all", "none",
            ]
            .iter()
            .any(|w| l.starts_with(w))
        };
        let name = if a.split_whitespace().count() >= 4 && !bare {
            title_of(&clean_sentence(&a))
        } else {
            // the question's first clause, short, then the answer
            let full = q.split(['?', '(']).next().unwrap_or(&q).trim();
            let mut q = floor_to_chars(full, 40);
            if q.len() < full.len() {
                q = q.rfind(' ').map_or(q, |i| &q[..i]);
            }
            title_of(&format!("{q}: {a}"))
        };
        let fact = format!("Asked \"{q}\", the user answered \"{a}\".");
        let words = content_words(&format!("{q} {a}"));
        let mut m = base_memory(
            name,
            cut(&fact, 150),
            MemoryType::Feedback,
            Kind::Preference,
            at,
            &self.opts,
        );
        m.triggers = triggers_with(&a, content_words(&a), 5);
        if m.triggers.len() < 3 {
            let more = triggers_with(q.as_str(), content_words(&q), 5 - m.triggers.len());
            for w in more {
                if !m.triggers.contains(&w) {
                    m.triggers.push(w);
                }
            }
        }
        self.add_decision(m, fact, "decision/answer", at, &a, words);
    }

    /// The reason the user gave when rejecting a tool call: read like a
    /// message; a bare imperative ("use pnpm") becomes "use X instead of the
    /// rejected command".
    fn rejection(&mut self, at: &At, reason: &str, cmd: Option<&str>) {
        let before = self.cands.v.len();
        from_message(
            at,
            reason,
            reason.len(),
            &self.opts,
            &self.scrubber,
            &mut self.cands,
            &mut self.notes,
        );
        if self.cands.v.len() > before {
            return;
        }
        static RE: OnceLock<Regex> = OnceLock::new();
        let re = RE.get_or_init(|| {
            Regex::new(r"(?i)^(?:let'?s |please |just )?(use|keep|prefer|stick (?:to|with)|run|switch to|go with)\s+\S")
                .expect("rejection regex")
        });
        let first = sentences(reason).into_iter().next().unwrap_or("").trim();
        let Some(c) = re.captures(first) else {
            note(
                &mut self.notes,
                false,
                Bucket::CurrentContext,
                "decision/rejection-unclassified",
                at.line,
                reason,
            );
            return;
        };
        let rule = clean_sentence(&first[c.get(1).map_or(0, |m| m.start())..]);
        let rule = rule.trim_end_matches(['.', '!']).to_string();
        let fact = match cmd {
            Some(c) if !rule.contains(" instead") && first.len() < 80 => {
                format!("{rule} instead of `{c}`")
            }
            _ => rule.clone(),
        };
        let fact = self.scrubber.scrub(&fact).text;
        let words = content_words(&fact);
        let mut m = base_memory(
            title_of(&fact),
            cut(&fact, 150),
            MemoryType::Feedback,
            Kind::Preference,
            at,
            &self.opts,
        );
        let mut trig = triggers_with(&rule, content_words(&rule), 4);
        if let Some(c) = cmd {
            for k in command_keywords(c)
                .into_iter()
                .chain(c.split_whitespace().next().map(String::from))
            {
                if !trig.contains(&k) && k.len() >= 2 {
                    trig.push(k);
                }
            }
        }
        m.triggers = trig;
        m.why = Some("The user rejected the tool call and said so.".into());
        self.add_decision(m, fact, "decision/rejection", at, reason, words);
    }

    /// Keep a decision the user stated inside a tool result: the user's
    /// words, normal trust, confidence 0.8, noted with `rule` (the quoted
    /// text is `quoted`).
    fn add_decision(
        &mut self,
        mut m: Memory,
        fact: String,
        rule: &str,
        at: &At,
        quoted: &str,
        words: impl IntoIterator<Item = String>,
    ) {
        m.fact = Some(fact);
        m.source = Some(Source::User);
        m.trust = Some(Trust::Normal);
        m.confidence = Some(0.8);
        m.extra.insert("rule".into(), rule.into());
        note(
            &mut self.notes,
            true,
            Bucket::DurableInstruction,
            rule,
            at.line,
            quoted,
        );
        self.cands.add(Cand {
            mem: m,
            tokens: words.into_iter().collect(),
            key: None,
        });
    }

    /// The user's message right after an interrupt that no rule kept: a
    /// sentence saying what to do instead ("you can set group.visible, which
    /// is less work") is a correction.
    fn correction_after_interrupt(&mut self, at: &At, text: &str) {
        static RE: OnceLock<Regex> = OnceLock::new();
        let re = RE.get_or_init(|| {
            Regex::new(r"(?i)(?:^|[^a-z])(?:you|we) (?:can|could) (?:just |simply )?(?:use|set|call|reuse|pass|import|do it with)\s|less work|(?:is|are|would be) (?:simpler|easier|cleaner|enough)(?:[^a-z]|$)|(?:^|[^a-z])(?:no need|don't need|not needed)(?:[^a-z]|$)")
                .expect("interrupt regex")
        });
        if text.len() > MAX_MESSAGE_BYTES {
            return;
        }
        let norm = normalize_quotes(text);
        let Some(s) = sentences(&norm)
            .into_iter()
            .find(|s| s.len() <= 400 && re.is_match(s))
        else {
            return;
        };
        let fact = self.scrubber.scrub(&clean_sentence(s)).text;
        let fact = fact.trim_end_matches(['.', '!']).to_string();
        let words = content_words(&fact);
        let mut m = base_memory(
            title_of(&fact),
            cut(&fact, 150),
            MemoryType::Feedback,
            Kind::Preference,
            at,
            &self.opts,
        );
        m.triggers = triggers_with(&fact, words.clone(), 5);
        m.why = Some("The user interrupted the agent to say so.".into());
        m.fact = Some(fact);
        m.source = Some(Source::User);
        m.trust = Some(Trust::Normal);
        m.confidence = Some(0.7);
        m.extra
            .insert("rule".into(), "decision/after-interrupt".into());
        note(
            &mut self.notes,
            true,
            Bucket::DurableInstruction,
            "decision/after-interrupt",
            at.line,
            s,
        );
        self.cands.add(Cand {
            mem: m,
            tokens: words.into_iter().collect(),
            key: None,
        });
    }

    /// The candidates: merged, scrubbed, limited.
    pub fn finish(self) -> Extraction {
        let Extractor {
            opts,
            scrubber,
            notes: msg_notes,
            cands,
            skipped,
            lessons,
            secrets,
            ..
        } = self;
        let mut notes = Notes {
            off: msg_notes.off,
            ..Notes::default()
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
        // the merge notes, messages' first, as when merged at the end
        notes.v.extend(cands.notes.v);
        notes.v.extend(lessons.cands.notes.v);
        let mut merged = cands.v;
        merged.extend(lessons.cands.v);
        for c in &mut merged {
            secrets.clear(&mut c.mem);
            // Text the person pasted (a log, a page) that poses as an
            // instruction to an AI is not theirs to vouch for.
            let m = &mut c.mem;
            if m.source == Some(Source::User) && m.trust != Some(Trust::Low) {
                let texts = [
                    Some(&m.name),
                    Some(&m.description),
                    m.fact.as_ref(),
                    m.how.as_ref(),
                ];
                if let Some(why) = texts
                    .into_iter()
                    .flatten()
                    .find_map(|t| crate::instruction::pasted_instruction(t))
                {
                    m.trust = Some(Trust::Low);
                    note(
                        &mut notes,
                        true,
                        Bucket::DurableInstruction,
                        &format!("trust/low: pasted {why}"),
                        0,
                        &m.name,
                    );
                }
            }
        }
        finish_candidates(merged, notes, &opts, &scrubber)
    }
}

/// Secret values seen in the source text, and the pieces of each that can
/// travel alone (a value split off its flag or label).
#[derive(Default)]
struct SecretValues {
    pieces: FxSet<String>,
}

impl SecretValues {
    /// Words that label a secret rather than hold it.
    const LABELS: [&'static str; 12] = [
        "password",
        "passwd",
        "authorization",
        "basic",
        "bearer",
        "cookie",
        "token",
        "secret",
        "auth",
        "session",
        "apikey",
        "api_key",
    ];

    /// Remember the secret values of `text`.
    fn learn(&mut self, scrubber: &Scrubber, text: &str) {
        for f in scrubber.find_secrets(text) {
            let span = &text[f.start..f.end];
            self.pieces.insert(span.to_string());
            for p in span.split(|c: char| c.is_whitespace() || "=:\"'`,;".contains(c)) {
                let p = p.trim_matches(|c: char| !c.is_alphanumeric());
                if p.len() >= 6
                    && !p.starts_with('-')
                    && !Self::LABELS.contains(&p.to_ascii_lowercase().as_str())
                {
                    self.pieces.insert(p.to_string());
                }
            }
        }
    }

    /// Clear `m` of every known value: `[REDACTED]` in its text fields, and
    /// triggers or paths that held one dropped (a trigger of `[REDACTED]`
    /// matches nothing useful).
    fn clear(&self, m: &mut Memory) {
        if self.pieces.is_empty() {
            return;
        }
        let held = |t: &str| self.pieces.iter().any(|p| t.contains(p.as_str()));
        let redact = |t: &mut String| {
            if held(t) {
                let mut pieces: Vec<&String> = self.pieces.iter().collect();
                // the longest first, so a span goes whole before its pieces
                pieces.sort_by_key(|p| std::cmp::Reverse(p.len()));
                for p in pieces {
                    *t = t.replace(p.as_str(), mem_core::scrub::REDACTED);
                }
            }
        };
        redact(&mut m.name);
        redact(&mut m.description);
        for f in [&mut m.fact, &mut m.why, &mut m.how, &mut m.body]
            .into_iter()
            .flatten()
        {
            redact(f);
        }
        m.triggers
            .retain(|t| !held(t) && !t.contains(mem_core::scrub::REDACTED));
        m.paths.retain(|t| !held(t));
        if m.id.as_deref().is_some_and(held) {
            m.id = None;
        }
    }
}

/// The `"question"="answer"` pairs of the question tool's result (the text
/// after [`ANSWERED`]); a quote inside is written `\"`.
fn answers(rest: &str) -> Vec<(String, String)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r#""((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)""#).expect("answers regex")
    });
    re.captures_iter(rest)
        .map(|c| (c[1].replace("\\\"", "\""), c[2].replace("\\\"", "\"")))
        .collect()
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

/// Candidates merged as they come: a near-duplicate of an earlier one (same
/// type and key, or no key and similar words) raises its confidence instead
/// of being kept. Message candidates and lessons never merge with each
/// other (their keys differ), so each has its own list.
#[derive(Default)]
struct Merged {
    v: Vec<Cand>,
    notes: Notes,
}

impl Merged {
    /// The kept candidate a new one of type `t` with `key` (else `tokens`)
    /// merges into.
    fn hit(&self, t: MemoryType, key: Option<&str>, tokens: &BTreeSet<String>) -> Option<usize> {
        self.v.iter().position(|m| {
            m.mem.mem_type == t
                && match (m.key.as_deref(), key) {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => jaccard(&m.tokens, tokens) >= 0.6,
                    _ => false,
                }
        })
    }

    /// Note a merge of the candidate named `name()` (made only when notes
    /// are collected).
    fn note_merge(&mut self, name: impl FnOnce() -> String) {
        if !self.notes.off {
            let name = name();
            note(
                &mut self.notes,
                false,
                Bucket::DurableInstruction,
                "merge/near-duplicate",
                0,
                &name,
            );
        }
    }

    fn add(&mut self, c: Cand) {
        match self.hit(c.mem.mem_type, c.key.as_deref(), &c.tokens) {
            Some(i) => {
                self.note_merge(|| c.mem.name.clone());
                merge_into(&mut self.v[i].mem, c.mem);
            }
            None => self.v.push(c),
        }
    }
}

/// The merged candidates as memories: scrubbed, dropped when still
/// sensitive, given ids, limited.
fn finish_candidates(
    merged: Vec<Cand>,
    mut notes: Notes,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
) -> Extraction {
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
/// that starts with a path, `~/.ssh/…` or `/etc/…`, or holds `..`, `\` or a
/// percent-encoded byte, which `mem-index write` refuses for a derived id
/// and would refuse the whole batch for): the id is derived from
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

    /// Names are cut at a phrase boundary, never in the middle of one.
    #[test]
    fn titles_end_at_a_phrase_boundary() {
        for (s, want) in [
            (
                "Always run cargo fmt before committing.",
                "Always run cargo fmt before committing",
            ),
            (
                "I have both Node and Python, but I don't want to make it assumptions about people's env",
                "I have both Node and Python",
            ),
            (
                "To be clear: don't use ClMail for communication, use the builtin subagent messaging",
                "To be clear: don't use ClMail for communication",
            ),
            (
                "You can set group.visible using the vis library which is less work than looping",
                "You can set group.visible using the vis library",
            ),
            (
                "Use `git push --set-upstream origin <branch>` instead of `git push`",
                "Use `git push --set-upstream origin <branch>` instead of `git push`",
            ),
            (
                "Use `cd assets && node build.js` instead of `node assets/build.js --watch --minify`",
                "Use `cd assets && node build.js`",
            ),
            (
                "As someone who mostly writes Go, I find these TS generics hard to follow in reviews",
                "As someone who mostly writes Go, I find these TS generics",
            ),
            (
                "Keep the generated files out of the repository and regenerate them in the CI job",
                "Keep the generated files out of the repository",
            ),
        ] {
            let t = super::title_of(s);
            assert_eq!(t, want, "{s}");
            assert!(t.chars().count() <= 72, "{t}");
        }
    }

    #[test]
    fn names_with_urls_or_paths_get_a_safe_id() {
        use mem_core::{Memory, MemoryType};
        let mut m = Memory::new(
            "Never paste postgres://db.internal:5432/app into the chat logs",
            "d",
            MemoryType::Feedback,
        );
        super::ensure_id(&mut m);
        // A `/` inside the text makes an id by itself now.
        let id =
            m.id.clone()
                .or_else(|| mem_core::id::derive_id(&m.name).ok());
        assert_eq!(
            id.as_deref(),
            Some("never-paste-postgres-db-internal-5432-app-into-the-chat-logs")
        );
        let mut home = Memory::new(
            "~/.ssh/config holds the deploy key",
            "d",
            MemoryType::Reference,
        );
        super::ensure_id(&mut home);
        assert_eq!(home.id.as_deref(), Some("ssh-config-holds-the-deploy-key"));
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
    fn sentences_split_ascii_and_cjk_alike() {
        use super::sentences;
        assert_eq!(
            sentences("Never push. Use v1.2 here! Why?no\n> quoted. x\n```\na. b\n```\nlast"),
            ["Never push.", "Use v1.2 here!", "Why?no", "last"]
        );
        assert_eq!(
            sentences("不要直接修改数据库。请用迁移！好吗？ok. é. fin"),
            [
                "不要直接修改数据库。",
                "请用迁移！",
                "好吗？",
                "ok.",
                "é.",
                "fin"
            ]
        );
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
