//! `tree`: the structure of a session — roots, forks, leaves, dangling
//! parents, compaction boundaries, side chains and sub-agent files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use mem_core::records::transcript::{
    ClaudeTree, CodexTree, Counts, EmptyTree, Fork, TranscriptSource, TreeLinks, TreeReport,
    TreeShape,
};
use mem_core::{Error, Exit};
use serde_json::Value;

use crate::claude::{BOUNDARY, Index, SIDECHAIN};
use crate::{FilesArgs, Global, report_warnings};

use super::graph::{dangling, dangling_records, lines_of, lines64, shape};
use super::{Loaded, joined_or, load, subagent_files, uuid_of, write_report};

pub(super) fn node_types(ix: &Index) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for n in &ix.nodes {
        *m.entry(n.ty.as_str()).or_default() += 1;
    }
    m
}

pub(super) fn short_list(v: &[u32], max: usize) -> String {
    let mut s: Vec<String> = v.iter().take(max).map(u32::to_string).collect();
    if v.len() > max {
        s.push(format!("… ({} more)", v.len() - max));
    }
    joined_or(&s, "none")
}

/// `tree FILE…`.
///
/// Errors: as [`load`]; `--strict` on any warning.
pub fn tree(
    args: &FilesArgs,
    global: &Global,
    text: bool,
    out: &mut dyn Write,
) -> Result<Exit, Error> {
    for f in &args.files {
        let v = match load(f, args.from, global.threads())? {
            Loaded::Empty(inp) => TreeReport::Empty(EmptyTree {
                file: inp.label,
                source: None,
                empty: true,
                nodes: Counts::new(),
            }),
            Loaded::Claude(inp, ix) => {
                report_warnings(&ix.warnings, global.strict)?;
                let (leaves, forks) = shape(&ix);
                let roots: Vec<u32> = (0..ix.nodes.len() as u32)
                    .filter(|&i| {
                        matches!(ix.parent_of(i), Ok(None))
                            || (ix.parent_of(i).is_err() && ix.bridge_target(i).is_none())
                    })
                    .collect();
                let forks: Vec<Fork> = forks
                    .iter()
                    .map(|&(i, c)| Fork {
                        line: ix.nodes[i as usize].line.into(),
                        children: c.into(),
                    })
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
                let lines = |v: &[u32]| lines64(&lines_of(&ix, v.iter().copied()));
                TreeReport::Claude(ClaudeTree {
                    file: inp.label.clone(),
                    source: TranscriptSource::Claude,
                    session: ix.session.clone(),
                    cwd: ix.cwd.clone(),
                    shape: TreeShape {
                        nodes: node_types(&ix)
                            .into_iter()
                            .map(|(k, n)| (k.to_string(), n as u64))
                            .collect(),
                        roots: lines(&roots),
                        forks,
                        leaves: lines(&leaves),
                        leaf: leaf.map(|l| u64::from(ix.nodes[l as usize].line)),
                    },
                    leaf_uuid: leaf.and_then(|l| uuid_of(&inp, &ix, l)),
                    links: TreeLinks {
                        dangling: dangling_records(&dangling(&ix)),
                        boundaries: lines(&boundaries),
                        sidechain_nodes: side.len() as u64,
                        sidechain_roots: lines(&side_roots),
                        subagents: subs,
                    },
                    duplicates: lines64(&ix.duplicates),
                    summaries: ix.summaries.len() as u64,
                })
            }
            Loaded::Codex(inp, r) => {
                report_warnings(&r.warnings, global.strict)?;
                let boundaries: Vec<usize> = r
                    .items
                    .iter()
                    .filter(|i| i.value["type"] == "compacted")
                    .map(|i| i.line)
                    .collect();
                let first = r.items.first().map(|i| i.line as u64);
                let last = r.items.last().map(|i| i.line as u64);
                TreeReport::Codex(CodexTree {
                    file: inp.label.clone(),
                    source: TranscriptSource::Codex,
                    session: r.session.clone(),
                    cwd: r.cwd.clone(),
                    metadata_damaged: r.meta_damaged,
                    shape: TreeShape {
                        nodes: r
                            .types
                            .iter()
                            .map(|(k, n)| (k.clone(), *n as u64))
                            .collect(),
                        roots: first.into_iter().collect(),
                        forks: Vec::new(),
                        leaves: last.into_iter().collect(),
                        leaf: last,
                    },
                    links: TreeLinks {
                        dangling: Vec::new(),
                        boundaries: lines64(&boundaries),
                        sidechain_nodes: 0,
                        sidechain_roots: Vec::new(),
                        subagents: Vec::new(),
                    },
                })
            }
        };
        write_report(out, &v, text, write_tree_text)?;
    }
    Ok(Exit::Success)
}

pub(super) fn nums(v: &Value) -> Vec<u32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64().map(|n| n as u32))
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn write_tree_text(out: &mut dyn Write, v: &Value) -> std::io::Result<()> {
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
    writeln!(out, "  dangling parents: {}", joined_or(&dang, "none"))?;
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
