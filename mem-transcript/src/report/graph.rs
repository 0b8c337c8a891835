//! The shape of a session's node graph, shared by `tree` and `verify`:
//! effective parents, leaves and forks, dangling parents.

use crate::claude::{Index, NodeType};

/// The parent a node hangs from as a walk sees it (bridged when dangling).
pub(super) fn eff_parent(ix: &Index, i: u32) -> Option<u32> {
    match ix.parent_of(i) {
        Ok(p) => p,
        Err(crate::claude::Dangling) => ix.bridge_target(i),
    }
}

/// Shape of the conversation: leaves (user/assistant nodes with no
/// user/assistant entry below them; progress hanging off a node does not make
/// a branch) and forks (nodes with two or more children that lead to
/// conversation), as node indices.
pub(super) fn shape(ix: &Index) -> (Vec<u32>, Vec<(u32, u32)>) {
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
pub(super) fn dangling(ix: &Index) -> Vec<(u32, Option<u32>)> {
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

pub(super) fn lines_of(ix: &Index, v: impl IntoIterator<Item = u32>) -> Vec<u32> {
    v.into_iter().map(|i| ix.nodes[i as usize].line).collect()
}

/// Line numbers as printed in the reports.
pub(super) fn lines64<T: Copy + TryInto<u64>>(v: &[T]) -> Vec<u64> {
    v.iter().filter_map(|&l| l.try_into().ok()).collect()
}

/// [`dangling`]'s pairs as records.
pub(super) fn dangling_records(
    d: &[(u32, Option<u32>)],
) -> Vec<mem_core::records::transcript::Dangling> {
    d.iter()
        .map(|&(line, to)| mem_core::records::transcript::Dangling {
            line: line.into(),
            bridged_to: to.map(u64::from),
        })
        .collect()
}
