//! `tree`, `verify` (with `--repair`) and `stats`: one report per file,
//! a JSON object per line (jsonl) or a short block of text.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use mem_core::jsonl::{parse_lossy, parse_recovering, sanitize};
use mem_core::{Error, Exit};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::claude::{self, BOUNDARY, Content, Index, NodeType, SIDECHAIN, WalkOpts};
use crate::codex::{self, Rollout};
use crate::input::{Input, Source, Window, clean_line};
use crate::{FilesArgs, Global, VerifyArgs, report_warnings, source_of};

fn io_out(e: std::io::Error) -> Error {
    Error::io("<stdout>", e)
}

fn write_json(out: &mut dyn Write, v: &Value) -> Result<(), Error> {
    serde_json::to_writer(&mut *out, v).map_err(|e| io_out(e.into()))?;
    out.write_all(b"\n").map_err(io_out)
}

/// A file read for a report: either kind, or empty.
pub enum Loaded {
    /// A 0-byte file.
    Empty(Input),
    /// A Claude session and its index.
    Claude(Input, Box<Index>),
    /// A Codex rollout.
    Codex(Input, Rollout),
}

/// Open and index one file. Errors: as [`Input::open`], [`claude::index`], [`codex::read`].
pub fn load(path: &Path, from: crate::FromArg, threads: usize) -> Result<Loaded, Error> {
    let inp = Input::open(path)?;
    if inp.size == 0 {
        return Ok(Loaded::Empty(inp));
    }
    Ok(match source_of(&inp, from)? {
        Source::Claude => {
            let ix = claude::index_with(&inp, threads)?;
            Loaded::Claude(inp, Box::new(ix))
        }
        Source::Codex => {
            let r = codex::read(&inp)?;
            Loaded::Codex(inp, r)
        }
    })
}

#[derive(Deserialize)]
struct UuidOnly<'a> {
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
}

/// The uuid string of node `i` (re-read from its line).
pub fn uuid_of(inp: &Input, ix: &Index, i: u32) -> Option<String> {
    let (offset, len) = ix.span(i);
    let mut w = Window::new(&inp.file);
    let raw = w.get(offset, len).ok()?;
    let line = clean_line(raw);
    let clean = sanitize(&line);
    let mut copy = None;
    let (u, _, _) = parse_lossy(&clean, &mut copy, serde_json::from_slice::<UuidOnly>).ok()?;
    u.uuid.map(|c| c.into_owned())
}

/// Sub-agent files of a Claude session: `<dir>/<session>/subagents/*.jsonl`
/// and `agent-*.jsonl` beside the session whose first entry names it.
pub fn subagent_files(path: &Path, session: Option<&str>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else {
        return out;
    };
    let sub = dir.join(stem).join("subagents");
    if let Ok(rd) = std::fs::read_dir(&sub) {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    if let Some(sid) = session
        && let Ok(rd) = std::fs::read_dir(dir)
    {
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("agent-")
                && name.ends_with(".jsonl")
                && p != path
                && first_session_id(&p).as_deref() == Some(sid)
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `sessionId` of the first entry that has one (first 16 lines).
pub fn first_session_id(p: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct S {
        #[serde(rename = "sessionId", default)]
        session: Option<String>,
    }
    let f = std::fs::File::open(p).ok()?;
    let mut rd = mem_core::jsonl::LineReader::new(f);
    for _ in 0..16 {
        let line = rd.next_line().ok()??;
        if let Ok(S { session: Some(s) }) = serde_json::from_slice::<S>(&sanitize(line.bytes)) {
            return Some(s);
        }
    }
    None
}

/// The parent a node hangs from as a walk sees it (bridged when dangling).
fn eff_parent(ix: &Index, i: u32) -> Option<u32> {
    match ix.parent_of(i) {
        Ok(p) => p,
        Err(crate::claude::Dangling) => ix.bridge_target(i),
    }
}

/// Shape of the conversation: leaves (user/assistant nodes with no
/// user/assistant entry below them; progress hanging off a node does not make
/// a branch) and forks (nodes with two or more children that lead to
/// conversation), as node indices.
fn shape(ix: &Index) -> (Vec<u32>, Vec<(u32, u32)>) {
    let n = ix.nodes.len();
    let mut below = vec![false; n];
    for i in 0..n as u32 {
        if !matches!(
            ix.nodes[i as usize].ty,
            NodeType::User | NodeType::Assistant
        ) {
            continue;
        }
        let mut p = eff_parent(ix, i);
        while let Some(q) = p {
            if below[q as usize] {
                break;
            }
            below[q as usize] = true;
            p = eff_parent(ix, q);
        }
    }
    let mut kids = vec![0u32; n];
    for i in 0..n as u32 {
        if (matches!(
            ix.nodes[i as usize].ty,
            NodeType::User | NodeType::Assistant
        ) || below[i as usize])
            && let Some(p) = eff_parent(ix, i)
        {
            kids[p as usize] += 1;
        }
    }
    let leaves = (0..n as u32)
        .filter(|&i| {
            matches!(
                ix.nodes[i as usize].ty,
                NodeType::User | NodeType::Assistant
            ) && !below[i as usize]
        })
        .collect();
    let forks = (0..n as u32)
        .filter(|&i| kids[i as usize] > 1)
        .map(|i| (i, kids[i as usize]))
        .collect();
    (leaves, forks)
}

/// Dangling parents of the whole file: (line, bridged-to line).
fn dangling(ix: &Index) -> Vec<(u32, Option<u32>)> {
    (0..ix.nodes.len() as u32)
        .filter(|&i| ix.parent_of(i).is_err())
        .map(|i| {
            (
                ix.nodes[i as usize].line,
                ix.bridge_target(i).map(|t| ix.nodes[t as usize].line),
            )
        })
        .collect()
}

fn lines_of(ix: &Index, v: impl IntoIterator<Item = u32>) -> Vec<u32> {
    v.into_iter().map(|i| ix.nodes[i as usize].line).collect()
}

fn node_types(ix: &Index) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for n in &ix.nodes {
        *m.entry(n.ty.as_str()).or_default() += 1;
    }
    m
}

fn short_list(v: &[u32], max: usize) -> String {
    let mut s: Vec<String> = v.iter().take(max).map(u32::to_string).collect();
    if v.len() > max {
        s.push(format!("… ({} more)", v.len() - max));
    }
    if s.is_empty() {
        "none".into()
    } else {
        s.join(", ")
    }
}

/// `tree FILE…`.
///
/// Errors: as [`load`]; `--strict` on any warning.
pub fn tree(a: &FilesArgs, g: &Global, text: bool, out: &mut dyn Write) -> Result<Exit, Error> {
    for f in &a.files {
        let v = match load(f, a.from, g.threads())? {
            Loaded::Empty(inp) => {
                json!({"file": inp.label, "source": null, "empty": true, "nodes": {}})
            }
            Loaded::Claude(inp, ix) => {
                report_warnings(&ix.warnings, g.strict)?;
                let (leaves, forks) = shape(&ix);
                let roots: Vec<u32> = (0..ix.nodes.len() as u32)
                    .filter(|&i| {
                        matches!(ix.parent_of(i), Ok(None))
                            || (ix.parent_of(i).is_err() && ix.bridge_target(i).is_none())
                    })
                    .collect();
                let forks: Vec<Value> = forks
                    .iter()
                    .map(|(i, c)| json!({"line": ix.nodes[*i as usize].line, "children": c}))
                    .collect();
                let leaf = ix.default_leaf();
                let side: Vec<u32> = (0..ix.nodes.len() as u32)
                    .filter(|&i| ix.nodes[i as usize].has(SIDECHAIN))
                    .collect();
                let side_roots: Vec<u32> = side
                    .iter()
                    .copied()
                    .filter(|&i| match ix.parent_of(i) {
                        Ok(Some(p)) => !ix.nodes[p as usize].has(SIDECHAIN),
                        _ => true,
                    })
                    .collect();
                let boundaries: Vec<u32> = (0..ix.nodes.len() as u32)
                    .filter(|&i| ix.nodes[i as usize].has(BOUNDARY))
                    .collect();
                let subs: Vec<String> = if inp.label == "<stdin>" {
                    Vec::new()
                } else {
                    subagent_files(Path::new(&inp.label), ix.session.as_deref())
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect()
                };
                let dang: Vec<Value> = dangling(&ix)
                    .iter()
                    .map(|(l, t)| json!({"line": l, "bridged_to": t}))
                    .collect();
                json!({
                    "file": inp.label, "source": "claude", "session": ix.session, "cwd": ix.cwd,
                    "nodes": node_types(&ix),
                    "roots": lines_of(&ix, roots.iter().copied()),
                    "forks": forks,
                    "leaves": lines_of(&ix, leaves.iter().copied()),
                    "leaf": leaf.map(|l| ix.nodes[l as usize].line),
                    "leaf_uuid": leaf.and_then(|l| uuid_of(&inp, &ix, l)),
                    "dangling": dang,
                    "boundaries": lines_of(&ix, boundaries.iter().copied()),
                    "sidechain_nodes": side.len(),
                    "sidechain_roots": lines_of(&ix, side_roots.iter().copied()),
                    "subagents": subs,
                    "duplicates": ix.duplicates,
                    "summaries": ix.summaries.len(),
                })
            }
            Loaded::Codex(inp, r) => {
                report_warnings(&r.warnings, g.strict)?;
                let boundaries: Vec<usize> = r
                    .items
                    .iter()
                    .filter(|i| i.value["type"] == "compacted")
                    .map(|i| i.line)
                    .collect();
                json!({
                    "file": inp.label, "source": "codex", "session": r.session, "cwd": r.cwd,
                    "metadata_damaged": r.meta_damaged,
                    "nodes": r.types,
                    "roots": r.items.first().map(|i| vec![i.line]).unwrap_or_default(),
                    "forks": [],
                    "leaves": r.items.last().map(|i| vec![i.line]).unwrap_or_default(),
                    "leaf": r.items.last().map(|i| i.line),
                    "dangling": [],
                    "boundaries": boundaries,
                    "sidechain_nodes": 0, "sidechain_roots": [], "subagents": [],
                })
            }
        };
        if text {
            write_tree_text(out, &v).map_err(io_out)?;
        } else {
            write_json(out, &v)?;
        }
    }
    Ok(Exit::Success)
}

fn nums(v: &Value) -> Vec<u32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64().map(|n| n as u32))
                .collect()
        })
        .unwrap_or_default()
}

fn write_tree_text(out: &mut dyn Write, v: &Value) -> std::io::Result<()> {
    writeln!(out, "{}", v["file"].as_str().unwrap_or(""))?;
    if v["empty"] == true {
        return writeln!(out, "  empty session (0 bytes)");
    }
    writeln!(
        out,
        "  {} session {}  cwd {}",
        v["source"].as_str().unwrap_or(""),
        v["session"].as_str().unwrap_or("-"),
        v["cwd"].as_str().unwrap_or("-")
    )?;
    let nodes: Vec<String> = v["nodes"]
        .as_object()
        .map(|o| o.iter().map(|(k, n)| format!("{k} {n}")).collect())
        .unwrap_or_default();
    writeln!(out, "  nodes: {}", nodes.join(", "))?;
    writeln!(
        out,
        "  roots at lines: {}",
        short_list(&nums(&v["roots"]), 10)
    )?;
    let forks: Vec<String> = v["forks"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| format!("{} ({} children)", f["line"], f["children"]))
                .collect()
        })
        .unwrap_or_default();
    writeln!(
        out,
        "  forks: {}{}",
        forks.len(),
        if forks.is_empty() {
            String::new()
        } else {
            format!(
                " at {}",
                forks.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
            )
        }
    )?;
    writeln!(
        out,
        "  leaves at lines: {}",
        short_list(&nums(&v["leaves"]), 10)
    )?;
    writeln!(
        out,
        "  resume picks: line {} ({})",
        v["leaf"],
        v["leaf_uuid"].as_str().unwrap_or("-")
    )?;
    let dang: Vec<String> = v["dangling"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| format!("line {} → {}", d["line"], d["bridged_to"]))
                .collect()
        })
        .unwrap_or_default();
    writeln!(
        out,
        "  dangling parents: {}",
        if dang.is_empty() {
            "none".into()
        } else {
            dang.join(", ")
        }
    )?;
    writeln!(
        out,
        "  compaction boundaries at lines: {}",
        short_list(&nums(&v["boundaries"]), 10)
    )?;
    writeln!(
        out,
        "  side chains: {} entries, roots at lines {}",
        v["sidechain_nodes"],
        short_list(&nums(&v["sidechain_roots"]), 10)
    )?;
    if let Some(s) = v["subagents"].as_array().filter(|s| !s.is_empty()) {
        writeln!(out, "  sub-agent files:")?;
        for p in s {
            writeln!(out, "    {}", p.as_str().unwrap_or(""))?;
        }
    }
    Ok(())
}

/// `verify FILE…` (and `--repair OUT`).
///
/// Exit 1 when a file has conversation entries but no leaf or its chain
/// runs into a parent cycle, or with `--strict` on any warning.
pub fn verify(a: &VerifyArgs, g: &Global, text: bool, out: &mut dyn Write) -> Result<Exit, Error> {
    if a.repair.is_some() && a.files.files.len() != 1 {
        return Err(Error::Msg("--repair takes exactly one FILE".into()));
    }
    let mut broken = false;
    for f in &a.files.files {
        let (v, warnings) = match load(f, a.files.from, g.threads())? {
            Loaded::Empty(inp) => (
                json!({"file": inp.label, "ok": true, "empty": true, "lines": 0}),
                0,
            ),
            Loaded::Claude(inp, ix) => {
                let br = ix.walk(&WalkOpts::default())?;
                let resume = ix.walk(&WalkOpts {
                    resume: true,
                    leaf: None,
                })?;
                let (leaves, _) = shape(&ix);
                let conv: Vec<u32> = (0..ix.nodes.len() as u32)
                    .filter(|&i| ix.nodes[i as usize].ty.is_conversation())
                    .collect();
                let on: HashSet<u32> = br.nodes.iter().copied().collect();
                let main_conv = conv
                    .iter()
                    .filter(|&&i| !ix.nodes[i as usize].has(SIDECHAIN))
                    .count();
                let orphan_leaves: Vec<u32> = leaves
                    .into_iter()
                    .filter(|&i| !ix.nodes[i as usize].has(SIDECHAIN) && Some(i) != br.leaf)
                    .collect();
                let unreached = conv
                    .iter()
                    .filter(|&&i| !on.contains(&i) && !ix.nodes[i as usize].has(SIDECHAIN))
                    .count();
                let dang = dangling(&ix);
                let ok = (conv.is_empty() || br.leaf.is_some()) && br.cycle_at.is_none();
                let torn: Vec<usize> = if ix.torn_tail && ix.bad_lines.last() == Some(&ix.lines) {
                    vec![ix.lines]
                } else {
                    vec![]
                };
                let malformed: Vec<usize> = ix
                    .bad_lines
                    .iter()
                    .copied()
                    .filter(|l| !torn.contains(l))
                    .collect();
                let mut ws = ix.warnings.clone();
                ws.extend(ix.walk_warnings(&br));
                report_warnings(&ws, false)?;
                if let Some(outp) = &a.repair {
                    repair(&inp, &ix, outp)?;
                }
                let v = json!({
                    "file": inp.label, "source": "claude", "ok": ok,
                    "lines": ix.lines, "entries": ix.objects,
                    "torn": torn, "malformed": malformed, "recovered": ix.recovered,
                    "invalid_utf8": ix.lossy,
                    "dangling": dang.iter().map(|(l, t)| json!({"line": l, "bridged_to": t})).collect::<Vec<_>>(),
                    "duplicates": ix.duplicates,
                    "leaf": br.leaf.map(|l| ix.nodes[l as usize].line),
                    "reached": ix.conversation_count(&br),
                    "resume_reached": ix.conversation_count(&resume),
                    "conversation": conv.len(),
                    "main_conversation": main_conv,
                    "unreached": unreached,
                    "orphan_leaves": lines_of(&ix, orphan_leaves.iter().copied()),
                    "cycle_at": br.cycle_at.map(|c| ix.nodes[c as usize].line),
                    "warnings": ws.len(),
                });
                (v, ws.len())
            }
            Loaded::Codex(inp, r) => {
                report_warnings(&r.warnings, false)?;
                if let Some(outp) = &a.repair {
                    repair_codex(&inp, &r, outp)?;
                }
                let torn: Vec<usize> = if r.torn_tail && r.bad_lines.last() == Some(&r.lines) {
                    vec![r.lines]
                } else {
                    vec![]
                };
                let malformed: Vec<usize> = r
                    .bad_lines
                    .iter()
                    .copied()
                    .filter(|l| !torn.contains(l))
                    .collect();
                let v = json!({
                    "file": inp.label, "source": "codex", "ok": true,
                    "lines": r.lines, "entries": r.items.len(),
                    "torn": torn, "malformed": malformed, "invalid_utf8": r.lossy,
                    "metadata_damaged": r.meta_damaged, "session": r.session,
                    "warnings": r.warnings.len(),
                });
                (v, r.warnings.len())
            }
        };
        let ok = v["ok"] == true && !(g.strict && warnings > 0);
        broken |= !ok;
        if text {
            write_verify_text(out, &v, ok).map_err(io_out)?;
        } else {
            write_json(out, &v)?;
        }
    }
    Ok(if broken { Exit::Failure } else { Exit::Success })
}

fn write_verify_text(out: &mut dyn Write, v: &Value, ok: bool) -> std::io::Result<()> {
    let file = v["file"].as_str().unwrap_or("");
    let status = if ok { "ok" } else { "BROKEN" };
    if v["empty"] == true {
        return writeln!(out, "{file}: {status} — empty session (0 bytes)");
    }
    writeln!(
        out,
        "{file}: {status} — {} lines, {} entries",
        v["lines"], v["entries"]
    )?;
    let count = |k: &str| v[k].as_array().map_or(0, Vec::len);
    writeln!(
        out,
        "  torn lines: {}, malformed: {}, recovered stubs: {}, duplicate uuids: {}, \
         invalid UTF-8 (read as U+FFFD): {}",
        count("torn"),
        count("malformed"),
        count("recovered"),
        count("duplicates"),
        count("invalid_utf8")
    )?;
    if v["source"] == "codex" {
        if v["metadata_damaged"] == true {
            writeln!(
                out,
                "  session metadata damaged; id from file name: {}",
                v["session"]
            )?;
        }
        return Ok(());
    }
    let dang: Vec<String> = v["dangling"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| format!("{} → {}", d["line"], d["bridged_to"]))
                .collect()
        })
        .unwrap_or_default();
    writeln!(
        out,
        "  dangling parents: {}{}",
        dang.len(),
        if dang.is_empty() {
            String::new()
        } else {
            format!(" (line {})", dang.join(", "))
        }
    )?;
    writeln!(
        out,
        "  chain reaches {} of {} conversation entries ({} on the main line; {} with --resume); leaf at line {}",
        v["reached"], v["conversation"], v["main_conversation"], v["resume_reached"], v["leaf"]
    )?;
    writeln!(
        out,
        "  orphaned: {} main-line entries off the chain, {} other leaves",
        v["unreached"],
        count("orphan_leaves")
    )
}

/// Write a repaired copy: unreadable lines dropped, glued stubs cut, dangling
/// parents set to their bridge target, a final `\n` ensured.
fn repair(inp: &Input, ix: &Index, outp: &Path) -> Result<(), Error> {
    refuse_same(inp, outp)?;
    let bad: HashSet<usize> = ix.bad_lines.iter().copied().collect();
    let mut fix: HashMap<usize, (bool, Option<String>)> = HashMap::new();
    for i in 0..ix.nodes.len() as u32 {
        if ix.parent_of(i).is_err() {
            let n = &ix.nodes[i as usize];
            let to = ix.bridge_target(i).and_then(|t| uuid_of(inp, ix, t));
            fix.insert(n.line as usize, (n.has(BOUNDARY), to));
        }
    }
    let mut buf = Vec::with_capacity(inp.size as usize);
    let mut rd = inp.lines()?;
    while let Some(line) = rd.next_line().map_err(|e| Error::io(&inp.label, e))? {
        if bad.contains(&line.no) {
            continue;
        }
        let clean = sanitize(line.bytes);
        let start = if ix.recovered.contains(&line.no) {
            parse_recovering(&clean, serde_json::from_slice::<serde::de::IgnoredAny>)
                .map(|(_, at)| at)
                .unwrap_or(0)
        } else {
            0
        };
        if let Some((boundary, to)) = fix.get(&line.no) {
            let mut copy = None;
            let (mut v, _, _) =
                parse_lossy(&clean[start..], &mut copy, serde_json::from_slice::<Value>).map_err(
                    |e| Error::input(&inp.label, line.no, mem_core::jsonl::describe(&e)),
                )?;
            let field = if *boundary && v.get("logicalParentUuid").is_some() {
                "logicalParentUuid"
            } else {
                "parentUuid"
            };
            v[field] = to.clone().map_or(Value::Null, Value::String);
            serde_json::to_writer(&mut buf, &v).map_err(|e| Error::io(outp, e.into()))?;
        } else if start > 0 || !matches!(clean, Cow::Borrowed(_)) {
            buf.extend_from_slice(&clean[start..]);
        } else {
            buf.extend_from_slice(line.bytes);
        }
        buf.push(b'\n');
    }
    mem_core::atomic::write_atomic(outp, &buf)?;
    eprintln!("{}: repaired copy written to {}", inp.label, outp.display());
    Ok(())
}

fn repair_codex(inp: &Input, r: &Rollout, outp: &Path) -> Result<(), Error> {
    refuse_same(inp, outp)?;
    let mut buf = Vec::new();
    for it in &r.items {
        serde_json::to_writer(&mut buf, &it.value).map_err(|e| Error::io(outp, e.into()))?;
        buf.push(b'\n');
    }
    mem_core::atomic::write_atomic(outp, &buf)?;
    eprintln!("{}: repaired copy written to {}", inp.label, outp.display());
    Ok(())
}

fn refuse_same(inp: &Input, outp: &Path) -> Result<(), Error> {
    let a = std::fs::canonicalize(&inp.label).ok();
    let b = std::fs::canonicalize(outp).ok();
    if a.is_some() && a == b {
        return Err(Error::Msg(format!(
            "{}: --repair OUT must differ from the input (the input is never touched)",
            outp.display()
        )));
    }
    Ok(())
}

#[derive(Deserialize)]
struct StatEntry<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isMeta", default)]
    meta: Option<bool>,
    #[serde(rename = "isCompactSummary", default)]
    compact_summary: Option<bool>,
    #[serde(rename = "isSidechain", default)]
    sidechain: Option<bool>,
    #[serde(borrow, default)]
    message: Option<StatMessage<'a>>,
}

#[derive(Deserialize)]
struct StatMessage<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

#[derive(Default)]
struct Acc {
    tools: BTreeMap<String, u64>,
    errors: BTreeMap<String, u64>,
    models: Vec<String>,
    first: Option<i64>,
    last: Option<i64>,
    first_prompt: Option<String>,
    prompts: u64,
    turns: u64,
    tokens: [u64; 4],
}

impl Acc {
    fn ts(&mut self, t: Option<i64>) {
        if let Some(t) = t {
            self.first = Some(self.first.map_or(t, |f| f.min(t)));
            self.last = Some(self.last.map_or(t, |l| l.max(t)));
        }
    }
    fn model(&mut self, m: &str) {
        if !m.is_empty() && !m.starts_with('<') && !self.models.iter().any(|x| x == m) {
            self.models.push(m.to_string());
        }
    }
    fn prompt(&mut self, t: &str) {
        self.prompts += 1;
        if self.first_prompt.is_none() {
            self.first_prompt = Some(mem_core::truncate::floor_to_chars(t.trim(), 200).to_string());
        }
    }
}

fn fmt_ms(t: Option<i64>) -> Value {
    t.and_then(chrono::DateTime::from_timestamp_millis)
        .map_or(Value::Null, |t| Value::String(mem_core::time::fmt_ts(t)))
}

fn is_command_noise(t: &str) -> bool {
    let t = t.trim_start();
    t.starts_with("<command-") || t.starts_with("<local-command") || t.starts_with("Caveat:")
}

fn stats_claude(inp: &Input) -> Result<(Acc, Vec<mem_core::jsonl::Warning>), Error> {
    let mut acc = Acc::default();
    let mut usage: HashMap<String, Usage> = HashMap::new();
    let mut ids: HashMap<String, String> = HashMap::new();
    let mut rd = inp.lines()?;
    while let Some(line) = rd.next_line().map_err(|e| Error::io(&inp.label, e))? {
        let clean = sanitize(line.bytes);
        let mut copy = None;
        let Ok((e, _, _)) = parse_lossy(&clean, &mut copy, serde_json::from_slice::<StatEntry>)
        else {
            continue;
        };
        acc.ts(e.timestamp.as_deref().and_then(crate::event::ts_millis));
        let Some(m) = &e.message else { continue };
        let ty = e.ty.as_deref().unwrap_or("");
        if ty == "assistant" {
            if let Some(model) = &m.model {
                acc.model(model);
            }
            match &m.id {
                Some(id) => {
                    if !usage.contains_key(id.as_ref()) {
                        acc.turns += 1;
                    }
                    usage.insert(id.to_string(), m.usage.unwrap_or_default());
                }
                None => {
                    acc.turns += 1;
                    let u = m.usage.unwrap_or_default();
                    usage.insert(format!("line:{}", line.no), u);
                }
            }
        }
        match &m.content {
            Some(Content::Blocks(bs)) => {
                for b in bs {
                    match b.ty.as_deref() {
                        Some("tool_use" | "server_tool_use") => {
                            let name = b.name.as_deref().unwrap_or("?").to_string();
                            if let Some(id) = &b.id
                                && ids.insert(id.to_string(), name.clone()).is_some()
                            {
                                continue;
                            }
                            *acc.tools.entry(name).or_default() += 1;
                        }
                        Some("tool_result") if b.is_error == Some(true) => {
                            let name = b
                                .tool_use_id
                                .as_deref()
                                .and_then(|i| ids.get(i).cloned())
                                .unwrap_or_else(|| "?".into());
                            *acc.errors.entry(name).or_default() += 1;
                        }
                        Some("text")
                            if ty == "user"
                                && e.meta != Some(true)
                                && e.compact_summary != Some(true)
                                && e.sidechain != Some(true) =>
                        {
                            if let Some(t) = &b.text
                                && !is_command_noise(t)
                            {
                                acc.prompt(t);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Some(Content::Text(t))
                if ty == "user"
                    && e.meta != Some(true)
                    && e.compact_summary != Some(true)
                    && e.sidechain != Some(true)
                    && !is_command_noise(t) =>
            {
                acc.prompt(t);
            }
            _ => {}
        }
    }
    for u in usage.values() {
        acc.tokens[0] += u.input_tokens.unwrap_or(0);
        acc.tokens[1] += u.output_tokens.unwrap_or(0);
        acc.tokens[2] += u.cache_creation_input_tokens.unwrap_or(0);
        acc.tokens[3] += u.cache_read_input_tokens.unwrap_or(0);
    }
    Ok((acc, Vec::new()))
}

fn stats_codex(r: &Rollout) -> Acc {
    let mut acc = Acc::default();
    let mut ids: HashMap<String, String> = HashMap::new();
    let has_messages = !r.plan(false).use_event_msgs;
    for it in &r.items {
        let v = &it.value;
        let p = &v["payload"];
        let t = match &v["timestamp"] {
            Value::String(s) => crate::event::ts_millis(s),
            Value::Number(n) => n
                .as_f64()
                .and_then(mem_core::time::from_epoch)
                .map(|t| t.timestamp_millis()),
            _ => None,
        };
        acc.ts(t);
        let ty = v["type"].as_str().unwrap_or("");
        let pty = p["type"].as_str().unwrap_or("");
        match (ty, pty) {
            ("turn_context", _) => {
                if let Some(m) = p["model"].as_str() {
                    acc.model(m);
                }
            }
            ("response_item", "message") => {
                let role = p["role"].as_str().unwrap_or("");
                if role == "assistant" {
                    acc.turns += 1;
                }
                if role == "user"
                    && let Some(t) = p["content"]
                        .as_array()
                        .and_then(|a| a.iter().find_map(|b| b["text"].as_str()))
                    && ![
                        "<environment_context>",
                        "<user_instructions>",
                        "# AGENTS.md",
                    ]
                    .iter()
                    .any(|m| t.trim_start().starts_with(m))
                {
                    acc.prompt(t);
                }
            }
            ("event_msg", "user_message") if !has_messages => {
                if let Some(t) = p["message"].as_str() {
                    acc.prompt(t);
                }
            }
            ("event_msg", "agent_message") if !has_messages => acc.turns += 1,
            ("event_msg", "token_count") => {
                let u = &p["info"]["total_token_usage"];
                if u.is_object() {
                    let cached = u["cached_input_tokens"].as_u64().unwrap_or(0);
                    acc.tokens = [
                        u["input_tokens"]
                            .as_u64()
                            .unwrap_or(0)
                            .saturating_sub(cached),
                        u["output_tokens"].as_u64().unwrap_or(0),
                        u["cache_write_input_tokens"].as_u64().unwrap_or(0),
                        cached,
                    ];
                }
            }
            ("response_item", t) if t.ends_with("_call") => {
                let name = p["name"]
                    .as_str()
                    .unwrap_or(t.trim_end_matches("_call"))
                    .to_string();
                if let Some(c) = p["call_id"].as_str() {
                    ids.insert(c.to_string(), name.clone());
                }
                *acc.tools.entry(name).or_default() += 1;
            }
            ("response_item", t) if t.ends_with("_output") => {
                let out = &p["output"];
                let err = match out {
                    Value::String(s) => serde_json::from_str::<Value>(s).ok(),
                    Value::Object(_) => Some(out.clone()),
                    _ => None,
                }
                .is_some_and(|o| {
                    o["metadata"]["exit_code"].as_i64().is_some_and(|c| c != 0)
                        || o["success"].as_bool() == Some(false)
                });
                if err {
                    let name = p["call_id"]
                        .as_str()
                        .and_then(|c| ids.get(c).cloned())
                        .unwrap_or_else(|| "?".into());
                    *acc.errors.entry(name).or_default() += 1;
                }
            }
            _ => {}
        }
    }
    acc
}

fn stats_json(label: &str, source: &str, session: Option<&str>, types: Value, acc: &Acc) -> Value {
    let dur = match (acc.first, acc.last) {
        (Some(f), Some(l)) => json!((l - f) as f64 / 1000.0),
        _ => Value::Null,
    };
    json!({
        "file": label, "source": source, "session": session,
        "entries": types,
        "turns": acc.turns, "prompts": acc.prompts,
        "tool_calls": acc.tools, "tool_errors": acc.errors,
        "tokens": {"input": acc.tokens[0], "output": acc.tokens[1],
                   "cache_creation": acc.tokens[2], "cache_read": acc.tokens[3]},
        "models": acc.models,
        "first": fmt_ms(acc.first), "last": fmt_ms(acc.last), "duration_s": dur,
        "first_prompt": acc.first_prompt,
    })
}

/// `stats FILE…`.
///
/// Errors: as [`load`]; `--strict` on any warning.
pub fn stats(a: &FilesArgs, g: &Global, text: bool, out: &mut dyn Write) -> Result<Exit, Error> {
    for f in &a.files {
        let v = match load(f, a.from, g.threads())? {
            Loaded::Empty(inp) => stats_json(&inp.label, "", None, json!({}), &Acc::default()),
            Loaded::Claude(inp, ix) => {
                report_warnings(&ix.warnings, g.strict)?;
                let (acc, _) = stats_claude(&inp)?;
                stats_json(
                    &inp.label,
                    "claude",
                    ix.session.as_deref(),
                    json!(ix.types),
                    &acc,
                )
            }
            Loaded::Codex(inp, r) => {
                report_warnings(&r.warnings, g.strict)?;
                let acc = stats_codex(&r);
                stats_json(&inp.label, "codex", Some(&r.session), json!(r.types), &acc)
            }
        };
        if text {
            write_stats_text(out, &v).map_err(io_out)?;
        } else {
            write_json(out, &v)?;
        }
    }
    Ok(Exit::Success)
}

fn kv(v: &Value) -> String {
    let s: Vec<String> = v
        .as_object()
        .map(|o| o.iter().map(|(k, n)| format!("{k} {n}")).collect())
        .unwrap_or_default();
    if s.is_empty() {
        "none".into()
    } else {
        s.join(", ")
    }
}

fn write_stats_text(out: &mut dyn Write, v: &Value) -> std::io::Result<()> {
    writeln!(out, "{}", v["file"].as_str().unwrap_or(""))?;
    writeln!(out, "  session: {}", v["session"].as_str().unwrap_or("-"))?;
    writeln!(out, "  entries: {}", kv(&v["entries"]))?;
    writeln!(out, "  turns: {}, prompts: {}", v["turns"], v["prompts"])?;
    writeln!(out, "  tool calls: {}", kv(&v["tool_calls"]))?;
    writeln!(out, "  tool errors: {}", kv(&v["tool_errors"]))?;
    let t = &v["tokens"];
    writeln!(
        out,
        "  tokens: input {}, output {}, cache creation {}, cache read {}",
        t["input"], t["output"], t["cache_creation"], t["cache_read"]
    )?;
    let models: Vec<&str> = v["models"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    writeln!(
        out,
        "  models: {}",
        if models.is_empty() {
            "-".into()
        } else {
            models.join(", ")
        }
    )?;
    writeln!(
        out,
        "  time: {} .. {} ({} s)",
        v["first"].as_str().unwrap_or("-"),
        v["last"].as_str().unwrap_or("-"),
        v["duration_s"]
    )?;
    writeln!(
        out,
        "  first prompt: {}",
        v["first_prompt"].as_str().unwrap_or("-")
    )
}
