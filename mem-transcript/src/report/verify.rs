//! `verify`: an integrity report per file, and `--repair`: a repaired copy
//! (parents bridged, torn lines dropped), never over the input.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use mem_core::jsonl::{parse_lossy, parse_recovering, sanitize};
use mem_core::records::transcript::{
    ClaudeVerify, CodexVerify, EmptyVerify, LineCheck, TranscriptSource, VerifyReport,
};
use mem_core::{Error, Exit};
use serde_json::Value;

use crate::claude::{BOUNDARY, Index, SIDECHAIN, WalkOpts};
use crate::codex::Rollout;
use crate::error::TranscriptError;
use crate::input::Input;
use crate::{Global, VerifyArgs, report_warnings};

use super::graph::{dangling, dangling_records, lines_of, lines64, shape};
use super::{Loaded, load, uuid_of, write_report};

/// `verify FILE…` (and `--repair OUT`).
///
/// Exit 1 when a file has conversation entries but no leaf or its chain
/// runs into a parent cycle, or with `--strict` on any warning.
pub fn verify(
    a: &VerifyArgs,
    g: &Global,
    text: bool,
    out: &mut dyn Write,
) -> Result<Exit, TranscriptError> {
    if a.repair.is_some() && a.files.files.len() != 1 {
        return Err(TranscriptError::RepairNeedsOneFile);
    }
    let mut broken = false;
    for f in &a.files.files {
        let (v, warnings) = match load(f, a.files.from, g.threads())? {
            Loaded::Empty(inp) => (
                VerifyReport::Empty(EmptyVerify {
                    file: inp.label,
                    ok: true,
                    empty: true,
                    lines: 0,
                }),
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
                let v = VerifyReport::Claude(ClaudeVerify {
                    check: LineCheck {
                        file: inp.label.clone(),
                        source: TranscriptSource::Claude,
                        ok,
                        lines: ix.lines as u64,
                        entries: ix.objects as u64,
                        torn: lines64(&torn),
                        malformed: lines64(&malformed),
                    },
                    recovered: lines64(&ix.recovered),
                    invalid_utf8: lines64(&ix.lossy),
                    dangling: dangling_records(&dang),
                    duplicates: lines64(&ix.duplicates),
                    leaf: br.leaf.map(|l| u64::from(ix.nodes[l as usize].line)),
                    reached: ix.conversation_count(&br) as u64,
                    resume_reached: ix.conversation_count(&resume) as u64,
                    conversation: conv.len() as u64,
                    main_conversation: main_conv as u64,
                    unreached: unreached as u64,
                    orphan_leaves: lines_of(&ix, orphan_leaves.iter().copied())
                        .into_iter()
                        .map(u64::from)
                        .collect(),
                    cycle_at: br.cycle_at.map(|c| u64::from(ix.nodes[c as usize].line)),
                    warnings: ws.len() as u64,
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
                let v = VerifyReport::Codex(CodexVerify {
                    check: LineCheck {
                        file: inp.label.clone(),
                        source: TranscriptSource::Codex,
                        ok: true,
                        lines: r.lines as u64,
                        entries: r.items.len() as u64,
                        torn: lines64(&torn),
                        malformed: lines64(&malformed),
                    },
                    invalid_utf8: lines64(&r.lossy),
                    metadata_damaged: r.meta_damaged,
                    session: r.session.clone(),
                    warnings: r.warnings.len() as u64,
                });
                (v, r.warnings.len())
            }
        };
        let ok = v.ok() && !(g.strict && warnings > 0);
        broken |= !ok;
        write_report(out, &v, text, |out, v| write_verify_text(out, v, ok))?;
    }
    Ok(if broken { Exit::Failure } else { Exit::Success })
}

pub(super) fn write_verify_text(out: &mut dyn Write, v: &Value, ok: bool) -> std::io::Result<()> {
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
pub(super) fn repair(inp: &Input, ix: &Index, outp: &Path) -> Result<(), TranscriptError> {
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

pub(super) fn repair_codex(inp: &Input, r: &Rollout, outp: &Path) -> Result<(), TranscriptError> {
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

pub(super) fn refuse_same(inp: &Input, outp: &Path) -> Result<(), TranscriptError> {
    let a = std::fs::canonicalize(&inp.label).ok();
    let b = std::fs::canonicalize(outp).ok();
    if a.is_some() && a == b {
        return Err(TranscriptError::RepairOverInput(outp.to_path_buf()));
    }
    Ok(())
}
