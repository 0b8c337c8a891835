//! Pass 1 of a Claude session: the node index of the whole file, built in
//! ranges of whole lines by several threads for large files and merged in
//! file order, parents resolved to node indices.

use std::borrow::Cow;
use std::collections::BTreeMap;

use mem_core::Error;
use mem_core::jsonl::{Warning, describe, parse_lossy, sanitize};

use super::head::{Head, fast_head};
use super::node::{
    BOUNDARY, DANGLING, FAST, HAS_LOGICAL, HAS_PARENT, LONG_LINE, META, NO_PARENT, Node, NodeType,
    SIDECHAIN, SUMMARY, U_ESCAPE,
};
use super::uuid_table::UuidTable;
use crate::event::ts_millis;
use crate::input::{Input, key, lossy_line, recovered_line, skipped_line};

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
pub(super) const PART_MIN: u64 = 16 << 20;

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
pub(super) fn index_parts(input: &Input, parts: usize, threads: usize) -> Result<Index, Error> {
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
pub(super) fn merge(whole: &mut (Index, Option<(usize, String)>), part: Part) {
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

    /// Where `node`'s line is: (byte offset, byte length with its `\n`).
    pub fn span(&self, node: u32) -> (u64, usize) {
        let n = &self.nodes[node as usize];
        let len = if n.len == LONG_LINE {
            self.long_lines
                .get(&node)
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
                ix.torn_tail |= !line.terminated;
                let err = describe(&e);
                ix.bad_lines.push(line.no);
                ix.warnings
                    .push(skipped_line(&input.label, line.no, line.terminated, &err));
                first_err.get_or_insert((line.no, err));
                continue;
            }
        };
        // replay reads the line from its U+FFFD copy (neither the fast scan
        // nor serde's skipping checks the UTF-8 of what they skip)
        if simdutf8::basic::from_utf8(&clean).is_err() {
            ix.lossy.push(line.no);
            ix.warnings.push(lossy_line(&input.label, line.no));
        }
        if at > 0 {
            ix.recovered.push(line.no);
            ix.warnings.push(recovered_line(&input.label, line.no, at));
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
