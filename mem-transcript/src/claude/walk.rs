//! The branch walk (docs/transcripts.md "Replay: one branch", rules 2–4): the default leaf, the
//! parent of a node, bridges over dangling parents, the warnings of a walk.

use mem_core::Error;
use mem_core::jsonl::Warning;

use super::index::Index;
use super::node::{BOUNDARY, DANGLING, NO_PARENT, NodeType, SIDECHAIN};
use crate::input::key;

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

    /// The node a dangling parent of `node` is bridged to (rule 3): the
    /// previous `user`/`assistant`/`system` node in file order on the same
    /// side (main chain or side chain).
    pub fn bridge_target(&self, node: u32) -> Option<u32> {
        let side = self.nodes[node as usize].has(SIDECHAIN);
        self.nodes[..node as usize]
            .iter()
            .rposition(|n| n.ty.is_conversation() && n.has(SIDECHAIN) == side)
            .map(|p| p as u32)
    }

    /// The parent of `node` as the walk sees it: `Ok(Some)` a node,
    /// `Ok(None)` a root, `Err(Dangling)` a reference to no node (missing node).
    /// A boundary's parent is its `logicalParentUuid`.
    pub fn parent_of(&self, node: u32) -> Result<Option<u32>, Dangling> {
        match self.nodes[node as usize].up {
            NO_PARENT => Ok(None),
            DANGLING => Err(Dangling),
            p if p == node => Ok(None),
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
        match leaf {
            Some(leaf) => Ok(self.walk_from(leaf, opts.resume, true)),
            None => Ok(Branch::default()),
        }
    }

    /// Walk from `leaf` to the root: stop at a parent cycle (`cycle_at`),
    /// with `resume` at the first compaction boundary; a dangling parent is
    /// bridged to the line before it when `bridge_dangling` (rule 3), else
    /// the walk ends there.
    pub fn walk_from(&self, leaf: u32, resume: bool, bridge_dangling: bool) -> Branch {
        let mut br = Branch {
            leaf: Some(leaf),
            ..Branch::default()
        };
        let mut cur = leaf;
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
                if resume {
                    break;
                }
            }
            let next = match self.parent_of(cur) {
                Ok(p) => p,
                Err(Dangling) if bridge_dangling => {
                    let to = self.bridge_target(cur);
                    br.bridges.push(Bridge { from: cur, to });
                    to
                }
                Err(Dangling) => None,
            };
            match next {
                Some(p) => cur = p,
                None => break,
            }
        }
        br.nodes.reverse();
        br.bridges.sort_by_key(|b| b.from);
        br
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
