//! The merged candidates as memories: scrubbed, given ids, limited.

use std::collections::HashSet;

use mem_core::records::{Memory, Source};
use mem_core::scrub::Scrubber;

use super::merge::Cand;
use super::notes::{Notes, note};
use super::options::{ExtractOptions, Extraction};
use crate::note::Bucket;

/// The merged candidates as memories: scrubbed, dropped when still
/// sensitive, given ids, limited.
pub(super) fn finish_candidates(
    merged: Vec<Cand>,
    mut notes: Notes,
    opts: &ExtractOptions,
    scrubber: &Scrubber,
) -> Extraction {
    let mut memories = Vec::new();
    let mut sensitive = Vec::new();
    for c in merged {
        let mut m = c.mem;
        // whichever rule wrote it, a risky command is never normal trust: a
        // lesson's command, or one the memory's words tell to run (a
        // person's reason too) — read before the scrubber hides any of it
        let person = m.source == Some(Source::User);
        let risk =
            mem_core::lesson::gate(&mut m).or_else(|| crate::risky::gate_words(&mut m, person));
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
        if let Some(why) = risk {
            // (the reason quotes the command: scrubbed like the memory)
            let why = scrubber.scrub(&why).text;
            m.extra.insert(
                mem_core::lesson::RISK_KEY.into(),
                serde_json::Value::String(why.clone()),
            );
            note(
                &mut notes,
                true,
                Bucket::AutomaticMemory,
                "trust/low: risky command",
                0,
                &format!("{}: {why}", m.name),
            );
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
pub fn ensure_id(memory: &mut Memory) {
    if memory.id.is_some() || mem_core::id::derive_id(&memory.name).is_ok() {
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
        let h = blake3::hash(memory.name.as_bytes()).to_hex();
        format!("{}-{}", memory.mem_type.as_str(), &h[..8])
    };
    memory.id = Some(
        mem_core::id::derive_id(&clean(&memory.name))
            .or_else(|_| mem_core::id::derive_id(&clean(&memory.description)))
            .unwrap_or_else(|_| hashed()),
    );
}

#[cfg(test)]
mod tests {

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
        assert_eq!(id.as_deref(), Some("never-paste-postgres-db-internal-5432"));
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
}
