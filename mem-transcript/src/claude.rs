//! Claude Code sessions: the node index (pass 1), the branch walk (DESIGN.md
//! "Replay", rules 1–5) and the events of the branch (pass 2, re-reading only
//! the lines of the branch by offset).
//!
//! Memory: per node a fixed record (keys, offset, length, timestamp, flags);
//! content is parsed only for the lines of the chosen branch.

use std::borrow::Cow;
use std::collections::BTreeMap;

use mem_core::Error;
use mem_core::jsonl::{Warning, describe, parse_lossy, sanitize};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use crate::ahead::{BranchLines, Region, Spans, plan_regions, read_region};
use crate::event::{
    Cut, EventOut, Input as ToolInput, Sink, Text, norm_ts, ts_millis, write_event_cut,
};
use crate::input::clean_line;
use crate::input::{Input, key};

/// The type of a chain node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeType {
    /// `user`.
    User,
    /// `assistant`.
    Assistant,
    /// `system`.
    System,
    /// `progress`.
    Progress,
    /// `attachment`.
    Attachment,
    /// Any other type that carries its own `uuid` (walked through, never emitted).
    Other,
}

impl NodeType {
    fn of(ty: &str) -> NodeType {
        match ty {
            "user" => NodeType::User,
            "assistant" => NodeType::Assistant,
            "system" => NodeType::System,
            "progress" => NodeType::Progress,
            "attachment" => NodeType::Attachment,
            _ => NodeType::Other,
        }
    }

    /// True for `user`, `assistant`, `system`: conversation entries.
    pub fn is_conversation(self) -> bool {
        matches!(
            self,
            NodeType::User | NodeType::Assistant | NodeType::System
        )
    }

    /// The type name (`other` for unknown types).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeType::User => "user",
            NodeType::Assistant => "assistant",
            NodeType::System => "system",
            NodeType::Progress => "progress",
            NodeType::Attachment => "attachment",
            NodeType::Other => "other",
        }
    }
}

/// Node flag: `isSidechain: true`.
pub const SIDECHAIN: u8 = 1;
/// Node flag: `system` with `subtype: compact_boundary`.
pub const BOUNDARY: u8 = 2;
/// Node flag: `isCompactSummary: true`.
pub const SUMMARY: u8 = 4;
/// Node flag: `isMeta: true`.
pub const META: u8 = 8;
/// Node flag: has a `parentUuid`.
pub const HAS_PARENT: u8 = 16;
/// Node flag: has a `logicalParentUuid`.
pub const HAS_LOGICAL: u8 = 32;

/// Node flag: the line has a `\u` escape, so it goes through
/// [`sanitize`] again in pass 2 (lines without one never change there).
pub const U_ESCAPE: u8 = 64;

/// Node flag: the whole line went through the fast scanner ([`mem_core::scan`]):
/// valid JSON nested at most 100 deep, so pass 2 may take its fast path.
pub const FAST: u8 = 128;

/// One chain node (an entry with its own `uuid`): 32 bytes. Units: bytes, ms.
///
/// The uuid's key is [`Index::keys`]`[i]`; the parent is resolved to a node
/// index once the whole file is indexed ([`Node::up`]).
#[derive(Debug, Clone)]
pub struct Node {
    /// Byte offset of the line in the file.
    pub offset: u64,
    /// Timestamp in ms since the epoch (`i64::MIN` when absent).
    pub ts: i64,
    /// Byte length of the raw line, its `\n` included; [`LONG_LINE`] for a
    /// line of 4 GiB or more (its length is in [`Index::long_lines`]).
    /// Read it with [`Index::span`].
    len: u32,
    /// 1-based line number.
    pub line: u32,
    /// The node the walk goes up to: the node of `parentUuid` (of
    /// `logicalParentUuid` for a boundary that has one); [`NO_PARENT`] when
    /// the entry names none, [`DANGLING`] when the uuid it names is no node.
    pub up: u32,
    /// Entry type.
    pub ty: NodeType,
    /// Flags ([`SIDECHAIN`], [`BOUNDARY`], …).
    pub flags: u8,
}

/// [`Node::up`] of an entry that names no parent (a root).
pub const NO_PARENT: u32 = u32::MAX;
/// [`Node::up`] of an entry whose parent uuid names no node.
pub const DANGLING: u32 = u32::MAX - 1;
/// [`Node::len`] of a line of 4 GiB or more.
const LONG_LINE: u32 = u32::MAX;

impl Node {
    /// True when the flag is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// The nodes by uuid key: node indices in a hash table whose keys live in
/// [`Index::keys`] (4 bytes a node here, 16 there), the first node of each
/// uuid.
#[derive(Default, Clone)]
pub struct UuidTable {
    table: hashbrown::HashTable<u32>,
}

impl std::fmt::Debug for UuidTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UuidTable({} nodes)", self.table.len())
    }
}

fn hash_key(k: u128) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(k)
}

impl UuidTable {
    /// The first node whose uuid key is `k`.
    pub fn get(&self, keys: &[u128], k: u128) -> Option<u32> {
        self.table
            .find(hash_key(k), |&i| keys[i as usize] == k)
            .copied()
    }

    /// Record node `i` (whose key `keys[i]` is set) unless its uuid has a
    /// node already; returns that earlier node.
    fn insert_first(&mut self, keys: &[u128], i: u32) -> Option<u32> {
        let k = keys[i as usize];
        match self.table.entry(
            hash_key(k),
            |&j| keys[j as usize] == k,
            |&j| hash_key(keys[j as usize]),
        ) {
            hashbrown::hash_table::Entry::Occupied(o) => Some(*o.get()),
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(i);
                None
            }
        }
    }

    /// Room for `more` nodes.
    fn reserve(&mut self, keys: &[u128], more: usize) {
        self.table.reserve(more, |&j| hash_key(keys[j as usize]));
    }

    /// Nodes recorded (distinct uuids).
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when no node is recorded.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// Pass 1 of a Claude session: every node, the warnings, and counts.
#[derive(Debug, Default)]
pub struct Index {
    /// The file label for messages.
    pub label: String,
    /// Nodes in file order.
    pub nodes: Vec<Node>,
    /// Key of each node's uuid ([`key`]), by node index.
    pub keys: Vec<u128>,
    /// uuid key → node index (the first entry with that uuid).
    pub by_uuid: UuidTable,
    /// Lengths of the lines of 4 GiB or more, by node index.
    pub long_lines: foldhash::HashMap<u32, u64>,
    /// Nodes whose parent uuid was not found in their range (node index,
    /// parent key): resolved once every range is merged.
    unresolved: Vec<(u32, u128)>,
    /// Warnings of the read (torn, malformed, recovered lines).
    pub warnings: Vec<Warning>,
    /// Lines in the file.
    pub lines: usize,
    /// Lines that parsed as a JSON object (recovered ones included).
    pub objects: usize,
    /// Entries by `type` (all lines that parsed).
    pub types: BTreeMap<String, usize>,
    /// Session id (first `sessionId` seen).
    pub session: Option<String>,
    /// Recorded cwd (first `cwd` seen).
    pub cwd: Option<String>,
    /// Every distinct recorded cwd, in first-seen order.
    pub cwds: Vec<String>,
    /// Lines skipped as unreadable (torn or malformed).
    pub bad_lines: Vec<usize>,
    /// Line of a glued stub recovered, and where the record started.
    pub recovered: Vec<usize>,
    /// Lines read as U+FFFD where they are not UTF-8.
    pub lossy: Vec<usize>,
    /// Duplicate uuids (line of the later copy).
    pub duplicates: Vec<usize>,
    /// `summary` entries: (line, leafUuid key).
    pub summaries: Vec<(usize, u128)>,
    /// `queue-operation` entries (messages typed while the agent worked):
    /// (line, byte offset, length), in file order.
    pub queued: Vec<(usize, u64, usize)>,
    /// Entries Claude Code writes beside the conversation that mem reads
    /// (file history, attribution, content replacements, context collapse),
    /// in file order.
    pub extras: Vec<Extra>,
    /// The last line has no `\n`.
    pub torn_tail: bool,
    /// File size in bytes.
    pub size: u64,
}

/// The kind of an entry in [`Index::extras`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtraKind {
    /// `file-history-snapshot`: the files tracked so far and their pre-edit
    /// backups, anchored by `messageId` to the entry that made it.
    FileHistory,
    /// `attribution-snapshot`: per file, the characters Claude wrote
    /// (`fileStates`), anchored by `messageId`.
    Attribution,
    /// `content-replacement`: tool results the model saw as a shorter
    /// stand-in (`replacements[] {kind, toolUseId, replacement}`).
    ContentReplacement,
    /// `marble-origami-commit`: a span of the conversation collapsed into a
    /// summary (`firstArchivedUuid`..`lastArchivedUuid`, `summaryContent`).
    CollapseCommit,
    /// `marble-origami-snapshot`: spans staged for collapse (last one wins).
    CollapseSnapshot,
}

impl ExtraKind {
    /// The kind of an entry `type`, if mem reads it.
    pub fn of(ty: &str) -> Option<ExtraKind> {
        Some(match ty {
            "file-history-snapshot" => ExtraKind::FileHistory,
            "attribution-snapshot" => ExtraKind::Attribution,
            "content-replacement" => ExtraKind::ContentReplacement,
            "marble-origami-commit" => ExtraKind::CollapseCommit,
            "marble-origami-snapshot" => ExtraKind::CollapseSnapshot,
            _ => return None,
        })
    }

    /// True for the entries that belong to one message of the conversation
    /// (`messageId`), not to the session as a whole.
    pub fn anchored(self) -> bool {
        matches!(self, ExtraKind::FileHistory | ExtraKind::Attribution)
    }
}

/// Where an entry of [`Index::extras`] is. Units: bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extra {
    /// Its kind.
    pub kind: ExtraKind,
    /// 1-based line number.
    pub line: usize,
    /// Byte offset of the line in the file.
    pub offset: u64,
    /// Byte length of the raw line, its `\n` included.
    pub len: usize,
}

#[derive(Deserialize, Default)]
struct Head<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent: Option<Cow<'a, str>>,
    #[serde(rename = "logicalParentUuid", borrow, default)]
    logical: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    sidechain: Option<bool>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(rename = "isCompactSummary", default)]
    compact_summary: Option<bool>,
    #[serde(rename = "isMeta", default)]
    meta: Option<bool>,
    #[serde(rename = "sessionId", borrow, default)]
    session: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(rename = "leafUuid", borrow, default)]
    leaf: Option<Cow<'a, str>>,
}

/// A string field's value: `null` is `None`; `None` when unsure (the
/// caller then falls back to serde_json, which gives the same value or error).
fn opt_str(v: &[u8]) -> Option<Option<Cow<'_, str>>> {
    if v == b"null" {
        return Some(None);
    }
    if v.len() >= 2 && v[0] == b'"' {
        let inner = &v[1..v.len() - 1];
        if memchr::memchr(b'\\', inner).is_none() {
            return std::str::from_utf8(inner)
                .ok()
                .map(|s| Some(Cow::Borrowed(s)));
        }
    }
    serde_json::from_slice::<Option<String>>(v)
        .ok()
        .map(|o| o.map(Cow::Owned))
}

/// [`opt_str`] of the value `v` found at byte `at` of the text `s`: a
/// string without escapes is sliced from `s`, not validated again.
fn opt_str_in<'a>(s: &'a str, at: usize, v: &'a [u8]) -> Option<Option<Cow<'a, str>>> {
    if v.len() >= 2 && v[0] == b'"' && memchr::memchr(b'\\', &v[1..v.len() - 1]).is_none() {
        return s
            .get(at + 1..at + v.len() - 1)
            .map(|t| Some(Cow::Borrowed(t)));
    }
    opt_str(v)
}

/// A bool field's value: `null` is `None`; `None` when not a bool.
fn opt_bool(v: &[u8]) -> Option<Option<bool>> {
    match v {
        b"null" => Some(None),
        b"true" => Some(Some(true)),
        b"false" => Some(Some(false)),
        _ => None,
    }
}

/// Mark field `bit` seen; `None` on a duplicate (serde_json refuses those).
#[inline]
fn first_time(seen: &mut u32, bit: u32) -> Option<()> {
    let m = 1 << bit;
    (*seen & m == 0).then(|| *seen |= m)
}

/// [`Head`] by the fast scanner: `Some` only when serde_json would parse
/// the whole line to the same value.
fn fast_head(line: &[u8]) -> Option<Head<'_>> {
    let mut o = mem_core::scan::Obj::open(line, 0, 0)?;
    let mut h = Head::default();
    let mut seen = 0u32;
    while let Some(k) = o.next_key()? {
        let bit = match k {
            b"type" => 0,
            b"uuid" => 1,
            b"parentUuid" => 2,
            b"logicalParentUuid" => 3,
            b"isSidechain" => 4,
            b"timestamp" => 5,
            b"subtype" => 6,
            b"isCompactSummary" => 7,
            b"isMeta" => 8,
            b"sessionId" => 9,
            b"cwd" => 10,
            b"leafUuid" => 11,
            _ => {
                o.skip_value()?;
                continue;
            }
        };
        first_time(&mut seen, bit)?;
        let v = o.skip_value()?;
        match bit {
            0 => h.ty = opt_str(v)?,
            1 => h.uuid = opt_str(v)?,
            2 => h.parent = opt_str(v)?,
            3 => h.logical = opt_str(v)?,
            4 => h.sidechain = opt_bool(v)?,
            5 => h.timestamp = opt_str(v)?,
            6 => h.subtype = opt_str(v)?,
            7 => h.compact_summary = opt_bool(v)?,
            8 => h.meta = opt_bool(v)?,
            9 => h.session = opt_str(v)?,
            10 => h.cwd = opt_str(v)?,
            _ => h.leaf = opt_str(v)?,
        }
    }
    mem_core::scan::at_end(line, o.pos()).then_some(h)
}

/// Build the index of a Claude session (pass 1). Malformed lines are
/// warnings; a file with lines but no JSON object at all is an error.
///
/// Errors: [`Error::Io`]; [`Error::Input`] when no line is a JSON object.
pub fn index(input: &Input) -> Result<Index, Error> {
    if input.size < 2 * PART_MIN {
        return index_parts(input, 1, 1);
    }
    index_with(input, crate::default_threads())
}

/// Files smaller than this are indexed by one thread.
const PART_MIN: u64 = 16 << 20;

/// [`index`] with up to `threads` threads, each on a range of whole lines
/// of at least 16 MB; the result is the same for any count.
///
/// Errors: as [`index`].
pub fn index_with(input: &Input, threads: usize) -> Result<Index, Error> {
    let threads = threads.clamp(1, (input.size / PART_MIN).max(1) as usize);
    // Four ranges a thread, taken in turn, so a slow range does not leave
    // the other threads idle at the end.
    let parts = if threads > 1 { threads * 4 } else { 1 };
    index_parts(input, parts, threads)
}

/// [`index`] on `parts` ranges of whole lines, whatever the file's size
/// (fewer when lines are long); the result is the same for any count.
/// Errors: as [`index`].
pub fn index_in(input: &Input, parts: usize) -> Result<Index, Error> {
    index_parts(input, parts, parts.min(crate::default_threads()))
}

/// Index `parts` ranges with `threads` threads, each taking the next range
/// not yet taken; merged in file order.
fn index_parts(input: &Input, parts: usize, threads: usize) -> Result<Index, Error> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let cuts = if parts > 1 {
        input.cuts(parts)?
    } else {
        vec![0, input.size]
    };
    let (ix, first_err) = if cuts.len() <= 2 {
        index_range(input, 0, input.size)?
    } else {
        let ranges: Vec<(u64, u64)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
        let next = AtomicUsize::new(0);
        let done: Vec<std::sync::Mutex<Option<Result<Part, Error>>>> =
            ranges.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..threads.clamp(1, ranges.len()) {
                s.spawn(|| {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(a, b)) = ranges.get(k) else { break };
                        let r = index_range(input, a, b);
                        let stop = r.is_err();
                        *done[k].lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
                        if stop {
                            break;
                        }
                    }
                });
            }
        });
        let mut parts = Vec::with_capacity(done.len());
        for d in done {
            // A range left untaken follows an error, which comes first.
            let Some(p) = d.into_inner().unwrap_or_else(|p| p.into_inner()) else {
                continue;
            };
            parts.push(p?);
        }
        let nodes: usize = parts.iter().map(|(p, _)| p.nodes.len()).sum();
        let mut whole: Option<Part> = None;
        for p in parts {
            match &mut whole {
                None => {
                    let (ix, _) = whole.insert(p);
                    ix.nodes.reserve(nodes - ix.nodes.len());
                    ix.keys.reserve(nodes - ix.keys.len());
                    let more = nodes - ix.by_uuid.len();
                    ix.by_uuid.reserve(&ix.keys, more);
                }
                Some(w) => merge(w, p),
            }
        }
        let (mut ix, first_err) = whole.expect("the first range is indexed");
        ix.resolve_parents();
        (ix, first_err)
    };
    if ix.objects == 0
        && let Some(first) = first_err
    {
        return Err(crate::input::not_a_transcript(
            &input.label,
            ix.lines,
            first,
        ));
    }
    Ok(ix)
}

/// The index of a range of lines and its first unreadable line (line
/// numbers relative to the range, offsets absolute).
pub(crate) type Part = (Index, Option<(usize, String)>);

/// Append the index of the lines that follow `whole`'s to it: line numbers
/// shift by `whole.lines`, node indices by its node count; a uuid already
/// seen is a duplicate, as in one pass.
fn merge(whole: &mut (Index, Option<(usize, String)>), part: Part) {
    let (ix, first_err) = whole;
    let (p, p_err) = part;
    let base = ix.lines;
    let node_base = ix.nodes.len() as u32;
    if first_err.is_none() {
        *first_err = p_err.map(|(l, r)| (l + base, r));
    }
    ix.lines += p.lines;
    ix.objects += p.objects;
    for (t, n) in p.types {
        *ix.types.entry(t).or_insert(0) += n;
    }
    if ix.session.is_none() {
        ix.session = p.session;
    }
    for c in p.cwds {
        if !ix.cwds.contains(&c) {
            ix.cwds.push(c);
        }
    }
    if ix.cwd.is_none() {
        ix.cwd = p.cwd;
    }
    ix.warnings.extend(p.warnings.into_iter().map(|mut w| {
        w.line += base;
        w
    }));
    ix.bad_lines.extend(p.bad_lines.iter().map(|l| l + base));
    ix.recovered.extend(p.recovered.iter().map(|l| l + base));
    ix.lossy.extend(p.lossy.iter().map(|l| l + base));
    ix.summaries
        .extend(p.summaries.iter().map(|&(l, k)| (l + base, k)));
    ix.queued
        .extend(p.queued.iter().map(|&(l, o, n)| (l + base, o, n)));
    ix.extras.extend(p.extras.iter().map(|&e| Extra {
        line: e.line + base,
        ..e
    }));
    ix.torn_tail |= p.torn_tail;
    ix.long_lines
        .extend(p.long_lines.iter().map(|(&i, &l)| (i + node_base, l)));
    let mut dups: Vec<usize> = p.duplicates.iter().map(|l| l + base).collect();
    // A uuid of the part that an earlier range has already: its first node
    // is the earlier one, for the parents resolved within the part too.
    let mut first_of: foldhash::HashMap<u32, u32> = foldhash::HashMap::default();
    ix.keys.extend_from_slice(&p.keys);
    for (i, &k) in p.keys.iter().enumerate() {
        let Some(earlier) = ix.by_uuid.insert_first(&ix.keys, node_base + i as u32) else {
            continue;
        };
        if p.by_uuid.get(&p.keys, k) == Some(i as u32) {
            dups.push(p.nodes[i].line as usize + base);
            first_of.insert(i as u32, earlier);
        }
    }
    for mut n in p.nodes {
        n.line += base as u32;
        if n.up < DANGLING {
            n.up = first_of.get(&n.up).copied().unwrap_or(node_base + n.up);
        }
        ix.nodes.push(n);
    }
    ix.unresolved
        .extend(p.unresolved.iter().map(|&(i, k)| (i + node_base, k)));
    dups.sort_unstable();
    ix.duplicates.extend(dups);
}

impl Index {
    /// Resolve the parents left unresolved ([`Index::unresolved`]) against
    /// every node: the first node of the uuid, else [`DANGLING`].
    fn resolve_parents(&mut self) {
        let mut left = Vec::new();
        for (i, k) in std::mem::take(&mut self.unresolved) {
            match self.by_uuid.get(&self.keys, k) {
                Some(p) => self.nodes[i as usize].up = p,
                None => left.push((i, k)),
            }
        }
        self.unresolved = left;
    }

    /// Set the byte length of node `i`'s line.
    fn set_len(&mut self, i: usize, len: u64) {
        match u32::try_from(len) {
            Ok(l) if l != LONG_LINE => {
                self.nodes[i].len = l;
                self.long_lines.remove(&(i as u32));
            }
            _ => {
                self.nodes[i].len = LONG_LINE;
                self.long_lines.insert(i as u32, len);
            }
        }
    }

    /// Where node `i`'s line is: (byte offset, byte length with its `\n`).
    pub fn span(&self, i: u32) -> (u64, usize) {
        let n = &self.nodes[i as usize];
        let len = if n.len == LONG_LINE {
            self.long_lines
                .get(&i)
                .copied()
                .unwrap_or(u64::from(LONG_LINE))
        } else {
            u64::from(n.len)
        };
        (n.offset, len as usize)
    }
}

/// Pass 1 over the lines in `[start, end)` of the file.
pub(crate) fn index_range(input: &Input, start: u64, end: u64) -> Result<Part, Error> {
    let mut ix = Index {
        label: input.label.clone(),
        size: input.size,
        ..Index::default()
    };
    let mut rd = input.lines_in(start, end);
    let mut first_err: Option<(usize, String)> = None;
    let mut last_node: Option<usize> = None;
    let mut last_extra: Option<usize> = None;
    while let Some(mut line) = rd.next_line().map_err(|e| Error::io(&input.label, e))? {
        line.offset += start;
        ix.lines = line.no;
        if let Some(i) = last_node.take() {
            ix.set_len(i, line.offset - ix.nodes[i].offset);
        }
        if let Some(i) = last_extra.take() {
            ix.extras[i].len = (line.offset - ix.extras[i].offset) as usize;
        }
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // sanitize acts only on `\u` escapes: one search decides.
        let has_u = mem_core::jsonl::has_u_escape(line.bytes);
        let clean = if has_u {
            sanitize(line.bytes)
        } else {
            Cow::Borrowed(line.bytes)
        };
        let fast = fast_head(&clean);
        let is_fast = fast.is_some();
        let mut copy = None;
        let parsed = match fast {
            Some(h) => Ok((h, 0)),
            None => parse_lossy(&clean, &mut copy, serde_json::from_slice::<Head>)
                .map(|(h, at, _)| (h, at)),
        };
        let (h, at) = match parsed {
            Ok(v) => v,
            Err(e) => {
                let reason = if !line.terminated {
                    ix.torn_tail = true;
                    format!("torn last line skipped ({})", describe(&e))
                } else {
                    format!("malformed line skipped ({})", describe(&e))
                };
                first_err.get_or_insert((line.no, describe(&e)));
                ix.bad_lines.push(line.no);
                ix.warnings.push(Warning {
                    file: input.label.clone(),
                    line: line.no,
                    reason,
                });
                continue;
            }
        };
        // replay reads the line from its U+FFFD copy (neither the fast scan
        // nor serde's skipping checks the UTF-8 of what they skip)
        if simdutf8::basic::from_utf8(&clean).is_err() {
            ix.lossy.push(line.no);
            ix.warnings.push(Warning {
                file: input.label.clone(),
                line: line.no,
                reason: crate::input::LOSSY.to_string(),
            });
        }
        if at > 0 {
            ix.recovered.push(line.no);
            ix.warnings.push(Warning {
                file: input.label.clone(),
                line: line.no,
                reason: format!("torn stub of {at} bytes before a record; record recovered"),
            });
        }
        if !line.terminated {
            ix.torn_tail = true;
        }
        ix.objects += 1;
        let ty = h.ty.as_deref().unwrap_or("");
        match ix.types.get_mut(ty) {
            Some(n) => *n += 1,
            None => {
                ix.types.insert(ty.to_string(), 1);
            }
        }
        if ix.session.is_none()
            && let Some(s) = &h.session
        {
            ix.session = Some(s.to_string());
        }
        if let Some(c) = &h.cwd
            && ix.cwds.last().map(String::as_str) != Some(c)
            && !ix.cwds.iter().any(|x| x == c)
        {
            ix.cwds.push(c.to_string());
            if ix.cwd.is_none() {
                ix.cwd = Some(c.to_string());
            }
        }
        if ty == "summary"
            && let Some(l) = &h.leaf
        {
            ix.summaries.push((line.no, key(l)));
        }
        if ty == "queue-operation" {
            ix.queued.push((line.no, line.offset, line.bytes.len()));
        }
        if let Some(kind) = ExtraKind::of(ty) {
            ix.extras.push(Extra {
                kind,
                line: line.no,
                offset: line.offset,
                len: line.bytes.len(),
            });
            last_extra = Some(ix.extras.len() - 1);
        }
        let Some(uuid) = h.uuid.as_deref() else {
            continue;
        };
        let nt = NodeType::of(ty);
        let mut flags = if has_u { U_ESCAPE } else { 0 };
        if is_fast {
            flags |= FAST;
        }
        if h.sidechain == Some(true) {
            flags |= SIDECHAIN;
        }
        if nt == NodeType::System && h.subtype.as_deref() == Some("compact_boundary") {
            flags |= BOUNDARY;
        }
        if h.compact_summary == Some(true) {
            flags |= SUMMARY;
        }
        if h.meta == Some(true) {
            flags |= META;
        }
        if h.parent.is_some() {
            flags |= HAS_PARENT;
        }
        if h.logical.is_some() {
            flags |= HAS_LOGICAL;
        }
        // The walk goes up by a boundary's logicalParentUuid when it has one.
        let up_uuid = if flags & BOUNDARY != 0 && h.logical.is_some() {
            h.logical.as_deref()
        } else {
            h.parent.as_deref()
        };
        let idx = ix.nodes.len() as u32;
        ix.keys.push(key(uuid));
        let up = match up_uuid.map(key) {
            None => NO_PARENT,
            Some(pk) => ix.by_uuid.get(&ix.keys, pk).unwrap_or_else(|| {
                ix.unresolved.push((idx, pk));
                DANGLING
            }),
        };
        if ix.by_uuid.insert_first(&ix.keys, idx).is_some() {
            ix.duplicates.push(line.no);
        }
        ix.nodes.push(Node {
            offset: line.offset,
            len: 0,
            up,
            ts: h
                .timestamp
                .as_deref()
                .and_then(ts_millis)
                .unwrap_or(i64::MIN),
            line: line.no as u32,
            ty: nt,
            flags,
        });
        ix.set_len(idx as usize, line.bytes.len() as u64);
        last_node = Some(ix.nodes.len() - 1);
    }
    if let Some(i) = last_node {
        ix.set_len(i, end - ix.nodes[i].offset);
    }
    // parents named before their node in the range
    ix.resolve_parents();
    if let Some(i) = last_extra {
        ix.extras[i].len = (end - ix.extras[i].offset) as usize;
    }
    Ok((ix, first_err))
}

/// How to choose and walk the branch.
#[derive(Debug, Clone, Default)]
pub struct WalkOpts {
    /// Stop at the last compaction boundary (what resume loads).
    pub resume: bool,
    /// Start from this uuid instead of the newest message.
    pub leaf: Option<String>,
}

/// A `parentUuid` (or a boundary's `logicalParentUuid`) that names no node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dangling;

/// A dangling parent bridged during a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bridge {
    /// Node index whose parent is missing.
    pub from: u32,
    /// Node index it was bridged to (`None`: no earlier entry; it became a root).
    pub to: Option<u32>,
}

/// The chosen branch: node indices root first.
#[derive(Debug, Clone, Default)]
pub struct Branch {
    /// The leaf chosen (node index).
    pub leaf: Option<u32>,
    /// Node indices, root first.
    pub nodes: Vec<u32>,
    /// Dangling parents bridged on the way.
    pub bridges: Vec<Bridge>,
    /// Boundaries crossed (node indices), newest first.
    pub boundaries: Vec<u32>,
    /// The walk met a node twice (a parent cycle) and stopped there.
    pub cycle_at: Option<u32>,
}

impl Index {
    /// The default leaf (rule 2): the newest non-sidechain `user`/`assistant`
    /// node by timestamp, file order breaking ties; among sidechain nodes when
    /// there is no other (a sub-agent file).
    pub fn default_leaf(&self) -> Option<u32> {
        let pick = |side: bool| {
            let mut best: Option<(i64, u32)> = None;
            for (i, n) in self.nodes.iter().enumerate() {
                if !matches!(n.ty, NodeType::User | NodeType::Assistant) || n.has(SIDECHAIN) != side
                {
                    continue;
                }
                if best.is_none_or(|(t, _)| n.ts >= t) {
                    best = Some((n.ts, i as u32));
                }
            }
            best.map(|b| b.1)
        };
        pick(false).or_else(|| pick(true))
    }

    /// The node a dangling parent of node `i` is bridged to (rule 3): the
    /// previous `user`/`assistant`/`system` node in file order on the same
    /// side (main chain or side chain).
    pub fn bridge_target(&self, i: u32) -> Option<u32> {
        let side = self.nodes[i as usize].has(SIDECHAIN);
        self.nodes[..i as usize]
            .iter()
            .rposition(|n| n.ty.is_conversation() && n.has(SIDECHAIN) == side)
            .map(|p| p as u32)
    }

    /// The parent of node `i` as the walk sees it: `Ok(Some)` a node,
    /// `Ok(None)` a root, `Err(Dangling)` a reference to no node (missing node).
    /// A boundary's parent is its `logicalParentUuid`.
    pub fn parent_of(&self, i: u32) -> Result<Option<u32>, Dangling> {
        match self.nodes[i as usize].up {
            NO_PARENT => Ok(None),
            DANGLING => Err(Dangling),
            p if p == i => Ok(None),
            p => Ok(Some(p)),
        }
    }

    /// Node index of a uuid string.
    pub fn find(&self, uuid: &str) -> Option<u32> {
        self.by_uuid.get(&self.keys, key(uuid))
    }

    /// Choose the leaf and walk to the root (rules 2–4).
    ///
    /// Errors: [`Error::Input`] when `--leaf` names no node.
    pub fn walk(&self, opts: &WalkOpts) -> Result<Branch, Error> {
        let leaf = match &opts.leaf {
            Some(u) => Some(self.find(u).ok_or_else(|| {
                Error::input(
                    &self.label,
                    0,
                    format!("--leaf {u}: no entry with this uuid"),
                )
            })?),
            None => self.default_leaf(),
        };
        let mut br = Branch {
            leaf,
            ..Branch::default()
        };
        let Some(mut cur) = leaf else {
            return Ok(br);
        };
        let mut seen = vec![false; self.nodes.len()];
        loop {
            if seen[cur as usize] {
                br.cycle_at = Some(cur);
                break;
            }
            seen[cur as usize] = true;
            br.nodes.push(cur);
            let n = &self.nodes[cur as usize];
            if n.has(BOUNDARY) {
                br.boundaries.push(cur);
                if opts.resume {
                    break;
                }
            }
            let next = match self.parent_of(cur) {
                Ok(p) => p,
                Err(Dangling) => {
                    let to = self.bridge_target(cur);
                    br.bridges.push(Bridge { from: cur, to });
                    to
                }
            };
            match next {
                Some(p) => cur = p,
                None => break,
            }
        }
        br.nodes.reverse();
        br.bridges.sort_by_key(|b| b.from);
        Ok(br)
    }

    /// Count of the branch's conversation entries (`user`/`assistant`/`system`).
    pub fn conversation_count(&self, br: &Branch) -> usize {
        br.nodes
            .iter()
            .filter(|&&i| self.nodes[i as usize].ty.is_conversation())
            .count()
    }

    /// The warnings of a walk: one for the bridged dangling parents (B06:
    /// "1 dangling parent at line 8 bridged to line 7"; "none" for one that
    /// became a root) and one for a cycle.
    pub fn walk_warnings(&self, br: &Branch) -> Vec<Warning> {
        // One warning names every bridge (B06), so each is reported once.
        let mut w = Vec::new();
        if !br.bridges.is_empty() {
            let n = br.bridges.len();
            let froms: Vec<String> = br
                .bridges
                .iter()
                .map(|b| self.nodes[b.from as usize].line.to_string())
                .collect();
            let tos: Vec<String> = br
                .bridges
                .iter()
                .map(|b| {
                    b.to.map_or("none".into(), |t| self.nodes[t as usize].line.to_string())
                })
                .collect();
            let s = if n == 1 { "" } else { "s" };
            w.push(Warning {
                file: self.label.clone(),
                line: self.nodes[br.bridges[0].from as usize].line as usize,
                reason: format!(
                    "{n} dangling parent{s} at line{s} {} bridged to line{s} {}",
                    froms.join(", "),
                    tos.join(", ")
                ),
            });
        }
        if let Some(c) = br.cycle_at {
            w.push(Warning {
                file: self.label.clone(),
                line: self.nodes[c as usize].line as usize,
                reason: "parent cycle: walk stopped".into(),
            });
        }
        w
    }
}

// ---- pass 2: content of the branch ----

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
enum MaybeBlock<'a> {
    Block(Block<'a>),
    Skip,
}

impl<'de: 'a, 'a> Deserialize<'de> for MaybeBlock<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let c = d.deserialize_any(BlockOrText(std::marker::PhantomData))?;
        Ok(c)
    }
}

struct BlockOrText<'a>(std::marker::PhantomData<&'a ()>);

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
fn raw_json<'de: 'a, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'a str>, D::Error> {
    Ok(Option::<&'a RawValue>::deserialize(d)?.map(RawValue::get))
}

/// A string field, or `None` when the value is of another type.
fn lenient_str<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    match Content::deserialize(d)? {
        Content::Text(t) => Ok(Some(t)),
        _ => Ok(None),
    }
}

/// A bool field; anything else (`null`, `"true"`) reads as its best guess.
fn lenient_bool<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
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

/// A `content` value at `i` of `s` (a line the fast scanner accepted in
/// pass 1): `null` is `None`; the index after the value. `None` when the
/// value is not of the common shapes (serde_json then reads the line).
fn fast_content(s: &str, i: usize) -> Option<(Option<Content<'_>>, usize)> {
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
fn fast_str(s: &str, i: usize) -> Option<(usize, Cow<'_, str>)> {
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
fn fast_block(s: &str, i: usize) -> Option<(Block<'_>, usize)> {
    let b = s.as_bytes();
    let mut o = mem_core::scan::Obj::open(b, i, 3)?;
    let mut blk = Block::default();
    let mut seen = 0u32;
    while let Some(k) = o.next_key()? {
        let bit = match k {
            b"type" => 0,
            b"text" => 1,
            b"thinking" => 2,
            b"id" => 3,
            b"name" => 4,
            b"input" => 5,
            b"tool_use_id" => 6,
            b"content" => 7,
            b"is_error" => 8,
            _ => {
                o.skip_value()?;
                continue;
            }
        };
        first_time(&mut seen, bit)?;
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
fn fast_lenient_str(v: &str) -> Option<Option<Cow<'_, str>>> {
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
fn fast_message(s: &str, i: usize) -> Option<(Message<'_>, usize)> {
    let b = s.as_bytes();
    let mut o = mem_core::scan::Obj::open(b, i, 1)?;
    let mut m = Message::default();
    let mut seen = 0u32;
    while let Some(k) = o.next_key()? {
        match k {
            b"id" => {
                first_time(&mut seen, 0)?;
                let st = o.pos();
                o.skip_value()?;
                m.id = fast_lenient_str(&s[st..o.pos()])?;
            }
            b"content" => {
                first_time(&mut seen, 1)?;
                let (c, e) = fast_content(s, o.pos())?;
                m.content = c;
                o.set_pos(e);
            }
            _ => {
                o.skip_value()?;
            }
        }
    }
    Some((m, o.pos()))
}

/// [`Entry`] by the fast scanner, for a line that passed it in pass 1 and is
/// valid UTF-8: `Some` only with the value serde_json would give.
fn fast_entry(s: &str) -> Option<Entry<'_>> {
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
    let mut seen = 0u32;
    while let Some(k) = o.next_key()? {
        let bit = match k {
            b"type" => 0,
            b"uuid" => 1,
            b"parentUuid" => 2,
            b"logicalParentUuid" => 3,
            b"sessionId" => 4,
            b"timestamp" => 5,
            b"cwd" => 6,
            b"isSidechain" => 7,
            b"isMeta" => 8,
            b"isCompactSummary" => 9,
            b"subtype" => 10,
            b"content" => 11,
            b"message" => 12,
            _ => {
                o.skip_value()?;
                continue;
            }
        };
        first_time(&mut seen, bit)?;
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

/// Text of a tool result's content: strings and text blocks joined by `\n`,
/// images as `[image]`.
pub fn content_text<'a>(c: &Content<'a>) -> Option<Cow<'a, str>> {
    match c {
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

/// Options of `replay`.
#[derive(Debug, Clone, Default)]
pub struct ReplayOpts {
    /// Branch choice.
    pub walk: WalkOpts,
    /// Print the branch's original lines instead of events.
    pub raw: bool,
}

/// What a replay did: the branch and the warnings met.
#[derive(Debug, Default)]
pub struct Replayed {
    /// Events written (or raw lines).
    pub written: u64,
    /// Conversation entries on the branch.
    pub entries: usize,
    /// Warnings of pass 2 (content that could not be read).
    pub warnings: Vec<Warning>,
}

/// Emit the branch (pass 2): events, or the original lines with `raw`.
///
/// Large branches written as JSON lines to a buffered sink are read,
/// parsed and rendered by `threads` workers, a region each in
/// turn, and stitched in order here (`seq`, `parent` and an assistant
/// turn's block numbers depend on what came before); other branches are
/// read one region ahead. The output is the same byte for byte.
///
/// Errors: I/O on the file or the output.
pub fn emit(
    input: &Input,
    ix: &Index,
    br: &Branch,
    raw: bool,
    sink: &mut Sink<'_>,
    threads: usize,
) -> Result<Replayed, Error> {
    if raw {
        return emit_raw(input, ix, br, sink, threads);
    }
    let repl = crate::entries::replacements(input, ix)?;
    // The lines pass 2 reads: the branch's conversation entries (the others
    // are walked through unread).
    let nodes: Vec<u32> = br
        .nodes
        .iter()
        .copied()
        .filter(|&i| ix.nodes[i as usize].ty.is_conversation())
        .collect();
    let spans = NodeSpans { ix, nodes: &nodes };
    let bytes: u64 = nodes.iter().map(|&i| ix.span(i).1 as u64).sum();
    let threads = if bytes >= AHEAD_MIN {
        threads.max(1)
    } else {
        1
    };
    if threads > 1 && bytes >= AHEAD_MIN && sink.stitches() {
        return emit_parallel(input, ix, br, &repl, &nodes, &spans, sink, threads);
    }
    if threads > 1 && bytes >= AHEAD_MIN {
        std::thread::scope(|s| {
            let lines = BranchLines::ahead(s, &input.file, &spans);
            emit_lines(input, ix, br, &repl, sink, lines)
        })
    } else {
        let lines = BranchLines::here(&input.file, &spans);
        emit_lines(input, ix, br, &repl, sink, lines)
    }
}

/// The lines of `nodes`, from the index (no list of their own).
struct NodeSpans<'a> {
    ix: &'a Index,
    nodes: &'a [u32],
}

impl Spans for NodeSpans<'_> {
    fn count(&self) -> usize {
        self.nodes.len()
    }
    fn span(&self, k: usize) -> (u64, usize) {
        self.ix.span(self.nodes[k])
    }
}

/// Tool results replaced by a stand-in: `toolUseId` → the exact text the
/// model saw ([`crate::entries::replacements`]).
pub type Replacements = foldhash::HashMap<String, String>;

/// `--raw`: the original lines of the branch, byte for byte, with the
/// entries of [`Index::extras`] that belong to it
/// ([`crate::entries::raw_extras`]) at their place in file order.
fn emit_raw(
    input: &Input,
    ix: &Index,
    br: &Branch,
    sink: &mut Sink<'_>,
    threads: usize,
) -> Result<Replayed, Error> {
    let mut done = Replayed {
        entries: ix.conversation_count(br),
        ..Replayed::default()
    };
    let extras = crate::entries::raw_extras(input, ix, br)?;
    let mut spans: Vec<(u64, usize)> = Vec::with_capacity(br.nodes.len() + extras.len());
    let mut next = extras.iter().peekable();
    for &i in &br.nodes {
        let n = &ix.nodes[i as usize];
        while let Some(e) = next.next_if(|e| e.line < n.line as usize) {
            spans.push((e.offset, e.len));
        }
        spans.push(ix.span(i));
    }
    spans.extend(next.map(|e| (e.offset, e.len)));
    let bytes: u64 = spans.iter().map(|s| s.1 as u64).sum();
    let io_in = |e| Error::io(&input.label, e);
    let io_out = |e| Error::io("<stdout>", e);
    let mut write = |mut lines: BranchLines<'_>, spans: &[(u64, usize)]| {
        for &(off, len) in spans {
            let b = lines.get(off, len).map_err(io_in)?;
            sink.raw(b).map_err(io_out)?;
            if !b.ends_with(b"\n") {
                sink.raw(b"\n").map_err(io_out)?;
            }
            done.written += 1;
        }
        Ok::<(), Error>(())
    };
    if threads > 1 && bytes >= AHEAD_MIN {
        std::thread::scope(|s| write(BranchLines::ahead(s, &input.file, &spans), &spans))?;
    } else {
        write(BranchLines::here(&input.file, &spans), &spans)?;
    }
    Ok(done)
}

/// Emit the messages the user typed while the agent worked and that never
/// became a user entry: `queue-operation` entries `enqueue` later taken off
/// the queue by `remove` (the newest pending one) rather than `dequeue` (the
/// oldest, replayed as the user entry it became). Each is a `user` `text` event at its own line;
/// system notifications (`<task-notification>`) are left out. Returns the
/// events written.
///
/// Errors: reading the file or writing the sink.
pub fn emit_queued(input: &Input, ix: &Index, sink: &mut Sink<'_>) -> Result<usize, Error> {
    if ix.queued.is_empty() {
        return Ok(0);
    }
    let mut win = crate::input::Window::new(&input.file);
    let mut pending: std::collections::VecDeque<(usize, String, Option<String>, String)> =
        std::collections::VecDeque::new();
    let mut out = Vec::new();
    for &(no, off, len) in &ix.queued {
        let bytes = win.get(off, len).map_err(|e| Error::io(&input.label, e))?;
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&sanitize(bytes)) else {
            continue;
        };
        let text = match &v["content"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(a) => a
                .iter()
                .filter_map(|b| b["text"].as_str())
                .filter(|t| !t.trim_start().starts_with('<'))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        let session = v["sessionId"].as_str().unwrap_or("").to_string();
        let ts = v["timestamp"]
            .as_str()
            .and_then(norm_ts)
            .map(|t| t.into_owned());
        // system notifications are queued too and often never taken off:
        // they are not the user's and are not tracked
        match v["operation"].as_str() {
            Some("enqueue") if !text.trim_start().starts_with('<') => {
                pending.push_back((no, text, ts, session));
            }
            Some("dequeue") => {
                pending.pop_front();
            }
            Some("remove") => {
                if let Some(p) = pending.pop_back() {
                    out.push(p);
                }
            }
            _ => {}
        }
    }
    let fallback = ix.session.as_deref().unwrap_or("");
    let mut n = 0;
    for (no, text, ts, session) in out {
        let t = text.trim();
        if t.is_empty() || t.starts_with('<') {
            continue;
        }
        let ev = EventOut {
            session: if session.is_empty() {
                fallback
            } else {
                &session
            },
            source: "claude",
            line: no as u64,
            seq: 0,
            uuid: None,
            parent: None,
            msg_id: None,
            block: 0,
            ts: ts.map(Cow::Owned),
            role: "user",
            kind: "text",
            tool: None,
            tool_id: None,
            input: None,
            text: Some(Text::Str(Cow::Borrowed(t))),
            is_error: None,
            sidechain: false,
            cwd: ix.cwd.as_deref().map(Cow::Borrowed),
        };
        sink.emit(ev).map_err(|e| Error::io("<stdout>", e))?;
        n += 1;
    }
    Ok(n)
}

/// Branches with fewer bytes to read than this are read by one thread.
const AHEAD_MIN: u64 = 4 << 20;

/// Parse one conversation entry of pass 2 (`line0` as read, `clean` after
/// [`sanitize`]). Errors: the warning's reason.
///
/// A line that is not UTF-8 is read from its U+FFFD copy (kept in `copy`),
/// as resume decodes it (pass 1 warned about it).
fn parse_entry<'a>(
    n: &Node,
    clean: &'a [u8],
    copy: &'a mut Option<Vec<u8>>,
) -> Result<Entry<'a>, String> {
    let fast = if n.has(FAST) {
        simdutf8::basic::from_utf8(clean).ok().and_then(fast_entry)
    } else {
        None
    };
    match fast {
        Some(e) => Ok(e),
        None => parse_lossy(clean, copy, serde_json::from_slice::<Entry>)
            .map(|(e, _, _)| e)
            .map_err(|e| format!("content not readable, entry skipped ({})", describe(&e))),
    }
}

/// Call `f` with each event of one parsed conversation entry, in order,
/// before the branch state is known: `seq` 0, `parent` unset, and for an
/// assistant entry `block` counted from the entry's first block (the caller
/// adds the turn's blocks so far). Returns the blocks the entry takes in its
/// turn (assistant entries; 0 for others).
///
/// Errors: what `f` returns.
fn entry_events<'a>(
    n: &Node,
    entry: &'a Entry<'a>,
    fallback_session: &'a str,
    repl: &Replacements,
    mut f: impl FnMut(EventOut<'a>) -> std::io::Result<()>,
) -> std::io::Result<u32> {
    let session: &str = entry.session.as_deref().unwrap_or(fallback_session);
    let base = EventOut {
        session,
        source: "claude",
        line: u64::from(n.line),
        seq: 0,
        uuid: entry.uuid.clone(),
        parent: None,
        msg_id: None,
        block: 0,
        ts: entry.timestamp.as_deref().and_then(norm_ts),
        role: "user",
        kind: "text",
        tool: None,
        tool_id: None,
        input: None,
        text: None,
        is_error: None,
        sidechain: n.has(SIDECHAIN),
        cwd: entry.cwd.clone(),
    };
    match n.ty {
        NodeType::System => {
            let text = entry.content.as_ref().and_then(content_text);
            let text = text.or_else(|| entry.subtype.clone());
            let kind = if n.has(BOUNDARY) { "compact" } else { "meta" };
            f(EventOut {
                role: "system",
                kind,
                text: text.map(Text::from),
                ..base
            })?;
            Ok(0)
        }
        NodeType::User => {
            let kind = if n.has(SUMMARY) {
                "summary"
            } else if n.has(META) {
                "meta"
            } else {
                "text"
            };
            match entry.message.as_ref().and_then(|m| m.content.as_ref()) {
                Some(Content::Text(t)) => f(EventOut {
                    kind,
                    text: Some(t.clone().into()),
                    ..base
                })?,
                Some(Content::Blocks(blocks)) => {
                    for (b, blk) in (0u32..).zip(blocks) {
                        match blk.ty.as_deref() {
                            Some("tool_result") => f(EventOut {
                                block: b,
                                role: "tool",
                                kind: "tool_result",
                                tool_id: blk.tool_use_id.clone(),
                                // what the model saw: a content replacement's
                                // stand-in when the session recorded one
                                text: Some(
                                    match blk.tool_use_id.as_deref().and_then(|id| repl.get(id)) {
                                        Some(r) => Text::Str(Cow::Owned(r.clone())),
                                        None => tool_text(blk.content),
                                    },
                                ),
                                is_error: Some(blk.is_error.unwrap_or(false)),
                                ..base.clone()
                            })?,
                            Some("text") | None if blk.text.is_some() => f(EventOut {
                                block: b,
                                kind,
                                text: blk.text.clone().map(Text::from),
                                ..base.clone()
                            })?,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            Ok(0)
        }
        NodeType::Assistant => {
            let msg = entry.message.as_ref();
            let base = EventOut {
                role: "assistant",
                msg_id: msg.and_then(|m| m.id.clone()),
                ..base
            };
            match msg.and_then(|m| m.content.as_ref()) {
                Some(Content::Text(t)) => {
                    f(EventOut {
                        text: Some(t.clone().into()),
                        ..base
                    })?;
                    Ok(1)
                }
                Some(Content::Blocks(blocks)) => {
                    for (b, blk) in (0u32..).zip(blocks) {
                        let ev = match blk.ty.as_deref() {
                            Some("text") => EventOut {
                                text: blk.text.clone().map(Text::from),
                                ..base.clone()
                            },
                            Some("thinking") => EventOut {
                                kind: "thinking",
                                text: blk
                                    .thinking
                                    .clone()
                                    .or_else(|| blk.text.clone())
                                    .map(Text::from),
                                ..base.clone()
                            },
                            Some("tool_use" | "server_tool_use") => EventOut {
                                kind: "tool_use",
                                tool: blk.name.clone(),
                                tool_id: blk.id.clone(),
                                input: blk.input.map(ToolInput::Raw),
                                ..base.clone()
                            },
                            _ => continue,
                        };
                        f(EventOut { block: b, ..ev })?;
                    }
                    Ok(blocks.len() as u32)
                }
                _ => Ok(0),
            }
        }
        _ => Ok(0),
    }
}

/// The branch state pass 2 carries from entry to entry: the parent of the
/// next event and the assistant turn being numbered.
#[derive(Default)]
struct Chain {
    /// uuid of the last conversation entry emitted.
    prev_uuid: Option<String>,
    /// `message.id` of the current assistant turn.
    turn: Option<String>,
    /// Blocks of the current turn so far.
    next_block: u32,
}

impl Chain {
    /// The block number the entry's first block gets (assistant entries
    /// continue their turn's numbering; the others end the turn).
    fn enter(&mut self, ty: NodeType, mid: Option<&str>) -> u32 {
        if ty == NodeType::Assistant {
            let same = mid.is_some() && self.turn.as_deref() == mid;
            if !same {
                self.next_block = 0;
                self.turn = mid.map(str::to_string);
            }
            self.next_block
        } else {
            self.turn = None;
            0
        }
    }

    /// After the entry's events: its blocks and uuid.
    fn leave(&mut self, advance: u32, uuid: Option<&str>) {
        self.next_block += advance;
        self.prev_uuid = uuid.map(str::to_string);
    }
}

fn message_id<'a>(entry: &'a Entry<'a>) -> Option<&'a str> {
    entry.message.as_ref().and_then(|m| m.id.as_deref())
}

fn emit_lines(
    input: &Input,
    ix: &Index,
    br: &Branch,
    repl: &Replacements,
    sink: &mut Sink<'_>,
    mut lines: BranchLines<'_>,
) -> Result<Replayed, Error> {
    let mut done = Replayed {
        entries: ix.conversation_count(br),
        ..Replayed::default()
    };
    let io_in = |e| Error::io(&input.label, e);
    let io_out = |e| Error::io("<stdout>", e);
    let mut chain = Chain::default();
    let fallback_session = ix.session.as_deref().unwrap_or("");
    for &i in &br.nodes {
        let n = &ix.nodes[i as usize];
        if !n.ty.is_conversation() {
            // progress / attachment / unknown: walked through, not emitted;
            // the next emitted entry's parent stays the last emitted one.
            continue;
        }
        let (offset, len) = ix.span(i);
        let line0 = clean_line(lines.get(offset, len).map_err(io_in)?);
        let clean = if n.has(U_ESCAPE) {
            sanitize(&line0)
        } else {
            Cow::Borrowed(&*line0)
        };
        let mut copy = None;
        let entry = match parse_entry(n, &clean, &mut copy) {
            Ok(e) => e,
            Err(reason) => {
                done.warnings.push(Warning {
                    file: input.label.clone(),
                    line: n.line as usize,
                    reason,
                });
                continue;
            }
        };
        let first = chain.enter(n.ty, message_id(&entry));
        let parent = chain.prev_uuid.take();
        let before = sink.seq;
        let advance = entry_events(n, &entry, fallback_session, repl, |ev| {
            sink.emit(EventOut {
                parent: parent.as_deref().map(Cow::Borrowed),
                block: ev.block + first,
                ..ev
            })
        })
        .map_err(io_out)?;
        done.written += sink.seq - before;
        chain.leave(advance, entry.uuid.as_deref());
    }
    Ok(done)
}

/// One conversation entry as a worker left it: its events rendered with
/// holes, or the reason it could not be read.
struct Rendered {
    /// Events: indices into the batch's cuts.
    events: std::ops::Range<usize>,
    /// Err: the warning's reason.
    result: Result<Facts, String>,
}

/// What the branch state needs of an entry.
struct Facts {
    uuid: Option<String>,
    mid: Option<String>,
    advance: u32,
}

/// The rendered entries of one region.
#[derive(Default)]
struct Batch {
    buf: Vec<u8>,
    cuts: Vec<Cut>,
    entries: Vec<Rendered>,
}

/// Parse and render the entries of one region (a worker's part);
/// `batch` is a spent one to reuse (its allocations; its contents are
/// cleared), or a new one.
fn render_region(
    ix: &Index,
    nodes: &[u32],
    region: &Region,
    fallback_session: &str,
    repl: &Replacements,
    mut batch: Batch,
) -> Batch {
    batch.buf.clear();
    batch.cuts.clear();
    batch.entries.clear();
    // events take about as many bytes as their lines
    batch.buf.reserve(region.len() + region.len() / 4);
    batch.cuts.reserve(nodes.len() * 2);
    batch.entries.reserve(nodes.len());
    for &i in nodes {
        let n = &ix.nodes[i as usize];
        let (offset, len) = ix.span(i);
        let line0 = clean_line(region.slice(offset, len));
        let clean = if n.has(U_ESCAPE) {
            sanitize(&line0)
        } else {
            Cow::Borrowed(&*line0)
        };
        let first = batch.cuts.len();
        let mut copy = None;
        let result = parse_entry(n, &clean, &mut copy).map(|entry| {
            let advance = entry_events(n, &entry, fallback_session, repl, |ev| {
                batch.cuts.push(write_event_cut(&mut batch.buf, &ev));
                Ok(())
            })
            .unwrap_or(0);
            Facts {
                uuid: entry.uuid.as_deref().map(str::to_string),
                mid: message_id(&entry).map(str::to_string),
                advance,
            }
        });
        batch.entries.push(Rendered {
            events: first..batch.cuts.len(),
            result,
        });
    }
    batch
}

/// Pass 2 by `threads` workers: region `k` of the branch goes to worker
/// `k % threads`; this thread takes the batches in order and stitches them.
#[allow(clippy::too_many_arguments)]
fn emit_parallel(
    input: &Input,
    ix: &Index,
    br: &Branch,
    repl: &Replacements,
    nodes: &[u32],
    spans: &NodeSpans<'_>,
    sink: &mut Sink<'_>,
    threads: usize,
) -> Result<Replayed, Error> {
    use std::sync::mpsc::sync_channel;
    let mut done = Replayed {
        entries: ix.conversation_count(br),
        ..Replayed::default()
    };
    let plan = plan_regions(spans);
    let fallback_session = ix.session.as_deref().unwrap_or("");
    let io_out = |e| Error::io("<stdout>", e);
    let file = &input.file;
    std::thread::scope(|s| {
        let mut rxs = Vec::new();
        // spent batches go back to their worker: its buffers are reused, not
        // allocated (and page-faulted) again for every region
        let mut spent = Vec::new();
        for w in 0..threads.min(plan.len()) {
            let (tx, rx) = sync_channel::<std::io::Result<Batch>>(1);
            let (back, back_rx) = std::sync::mpsc::channel::<Batch>();
            rxs.push(rx);
            spent.push(back);
            let plan = &plan;
            s.spawn(move || {
                let mut buf = Vec::new();
                for r in plan.iter().skip(w).step_by(threads) {
                    let batch = read_region(file, spans, r.clone(), std::mem::take(&mut buf)).map(
                        |region| {
                            let spare = back_rx.try_recv().unwrap_or_default();
                            let b = render_region(
                                ix,
                                &nodes[r.clone()],
                                &region,
                                fallback_session,
                                repl,
                                spare,
                            );
                            buf = region.into_buf();
                            b
                        },
                    );
                    let stop = batch.is_err();
                    // The receiver is gone when stitching stopped (an error).
                    if tx.send(batch).is_err() || stop {
                        break;
                    }
                }
            });
        }
        let mut chain = Chain::default();
        for k in 0..plan.len() {
            let batch = rxs[k % rxs.len()]
                .recv()
                .map_err(|_| Error::Msg(format!("{}: a reader stopped", input.label)))?
                .map_err(|e| Error::io(&input.label, e))?;
            for (j, r) in plan[k].clone().zip(&batch.entries) {
                let n = &ix.nodes[nodes[j] as usize];
                let facts = match &r.result {
                    Ok(f) => f,
                    Err(reason) => {
                        done.warnings.push(Warning {
                            file: input.label.clone(),
                            line: n.line as usize,
                            reason: reason.clone(),
                        });
                        continue;
                    }
                };
                let first = chain.enter(n.ty, facts.mid.as_deref());
                let parent = chain.prev_uuid.take();
                for c in &batch.cuts[r.events.clone()] {
                    sink.stitch(&batch.buf, c, parent.as_deref(), first)
                        .map_err(io_out)?;
                    done.written += 1;
                }
                chain.leave(facts.advance, facts.uuid.as_deref());
            }
            // the worker may be done already: then the batch is dropped
            let _ = spent[k % spent.len()].send(batch);
        }
        Ok(done)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

#[cfg(test)]
mod parts_tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// A node is 32 bytes: 5 million of them fit in 160 MB.
    #[test]
    fn a_node_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 32);
    }

    /// Everything an index says, in a comparable form.
    fn summary(ix: &Index) -> String {
        let mut by: Vec<_> = (0..ix.keys.len() as u32)
            .filter(|&i| ix.by_uuid.get(&ix.keys, ix.keys[i as usize]) == Some(i))
            .map(|i| (ix.keys[i as usize], i))
            .collect();
        by.sort();
        assert_eq!(by.len(), ix.by_uuid.len());
        format!(
            "{:?}\n{by:?}\n{:?}\n{} {} {:?} {:?} {:?} {:?}\n{:?} {:?} {:?} {:?} {:?} {}",
            ix.nodes,
            ix.warnings,
            ix.lines,
            ix.objects,
            ix.types,
            ix.session,
            ix.cwd,
            ix.cwds,
            ix.bad_lines,
            ix.recovered,
            ix.lossy,
            ix.duplicates,
            ix.summaries,
            ix.torn_tail
        )
    }

    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }

    fn same_in_parts(path: &Path) {
        let input = Input::open(path).unwrap();
        let one = index_in(&input, 1);
        for parts in 2..=5 {
            let many = index_in(&input, parts);
            match (&one, &many) {
                (Ok(a), Ok(b)) => assert_eq!(
                    summary(a),
                    summary(b),
                    "{} in {parts} parts",
                    path.display()
                ),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("{}: {parts} parts disagree on failing", path.display()),
            }
        }
    }

    /// A session cut shorter while it is indexed: an error naming the file
    /// and the cause, whatever the number of ranges.
    #[test]
    fn a_session_that_shrank_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.jsonl");
        let line = "{\"type\":\"user\",\"uuid\":\"u\",\"message\":{\"content\":\"x\"}}\n";
        std::fs::write(&f, line.repeat(2000)).unwrap();
        let input = Input::open(&f).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .unwrap()
            .set_len(1000)
            .unwrap();
        for parts in [1, 3] {
            let e = index_in(&input, parts).unwrap_err().to_string();
            assert!(
                e.contains("s.jsonl") && e.contains("shorter"),
                "{parts}: {e}"
            );
        }
    }

    /// A file cut into ranges indexes exactly as in one pass: forks,
    /// parents named before their entry, dangling parents, duplicates
    /// across the cut, torn and malformed lines, CRLF, NUL bytes.
    #[test]
    fn any_number_of_parts_gives_the_same_index() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.jsonl");
        let mut text = String::new();
        let u = |n: u32| format!("11111111-1111-4111-8111-{n:012}");
        for n in 1..=60u32 {
            // a parent named before its entry (n % 23), one named by a
            // duplicate uuid (n % 13), one that names nothing (n % 31)
            let parent = if n == 1 {
                "null".into()
            } else if n % 23 == 0 {
                format!("\"{}\"", u(n + 4))
            } else if n % 31 == 0 {
                format!("\"{}\"", u(900 + n))
            } else {
                format!("\"{}\"", u(n - 1 - n % 7 / 6))
            };
            text.push_str(&format!(
                "{{\"type\":\"{}\",\"uuid\":\"{}\",\"parentUuid\":{parent},\"timestamp\":\"2026-01-01T00:00:{:02}Z\",\"cwd\":\"/p{}\",\"message\":{{\"content\":\"m{n} é\"}}}}{}",
                if n % 2 == 0 { "assistant" } else { "user" },
                u(if n % 13 == 0 { 3 } else { n }),
                n % 60,
                n % 3,
                if n % 17 == 0 { "\r\n" } else { "\n" }
            ));
            if n % 11 == 0 {
                text.push_str("{\"type\":\"user\",\"uuid\":\"torn\n\n");
            }
            if n % 19 == 0 {
                text.push_str("{\"type\":\"summary\",\"leafUuid\":\"x\"}\0\n");
            }
        }
        text.push_str("{\"type\":\"user\",\"uu");
        std::fs::write(&f, &text).unwrap();
        same_in_parts(&f);
        let mut files = Vec::new();
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hostile/transcripts"),
            &mut files,
        );
        assert!(files.len() > 10, "hostile transcripts: {}", files.len());
        let shared = std::env::var_os("MEM_SHARED_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
        if shared.is_dir() {
            walk(&shared.join("corpus"), &mut files);
            walk(&shared.join("cases"), &mut files);
        } else {
            eprintln!(
                "SKIPPED any_number_of_parts_gives_the_same_index (corpus part): ../shared not present"
            );
            println!(
                "SKIPPED any_number_of_parts_gives_the_same_index (corpus part): ../shared not present"
            );
        }
        for p in files {
            if std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.len() > 0) {
                same_in_parts(&p);
            }
        }
    }
}
