//! The two tiers of memory and which one wins when they disagree.
//!
//! - **personal**: the person's memory directory ([`crate::memdir::resolve`]);
//! - **team**: the folder committed in the repository,
//!   `<repository root>/.claude/team-memory/` ([`crate::memdir::team_dir`]),
//!   same format (topic files with frontmatter + `MEMORY.md`).
//!
//! A conflict between the tiers ([`conflicts`]): a team memory whose id is
//! also a personal memory's, or a team memory a live personal memory
//! supersedes (its `supersedes` field, or "supersedes `<id>`" in its
//! description or body, as [`crate::index_md`] and recall read it). The
//! personal memory wins for that person: recall leaves the team memory out
//! (shadowed), and `mem-index check` reports it (docs/team-memory.md).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::records::Memory;

/// Which tier a memory comes from; written `personal` or `team`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// The person's memory directory.
    #[default]
    Personal,
    /// The repository's team tier (`.claude/team-memory/`).
    Team,
}

impl Tier {
    /// `personal` or `team` (as in JSONL records and `--tier`).
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Personal => "personal",
            Tier::Team => "team",
        }
    }
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a personal memory overrides a team memory; written `same-id` or
/// `supersedes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConflictKind {
    /// The same id in both tiers.
    SameId,
    /// A live personal memory supersedes the team memory.
    Supersedes,
}

impl ConflictKind {
    /// `same-id` or `supersedes`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictKind::SameId => "same-id",
            ConflictKind::Supersedes => "supersedes",
        }
    }
}

/// One team memory overridden by a personal one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The team memory left out for this person.
    pub team_id: String,
    /// The personal memory that wins.
    pub personal_id: String,
    /// Why.
    pub kind: ConflictKind,
}

impl Conflict {
    /// The conflict in words, e.g. `team memory use-pnpm is overridden by
    /// your personal memory use-pnpm (same id); yours is recalled`.
    pub fn describe(&self) -> String {
        match self.kind {
            ConflictKind::SameId => format!(
                "team memory {} is overridden by your personal memory of the same id; yours is recalled, the team's is not",
                self.team_id
            ),
            ConflictKind::Supersedes => format!(
                "team memory {} is superseded by your personal memory {}; yours is recalled, the team's is not",
                self.team_id, self.personal_id
            ),
        }
    }
}

/// What [`conflicts`] needs of one personal memory.
#[derive(Debug, Clone)]
pub struct PersonalEntry<'a> {
    /// Its id.
    pub id: &'a str,
    /// The ids it supersedes (field and text, see
    /// [`crate::index_md::supersedes_of`]).
    pub supersedes: Vec<&'a str>,
    /// False when it is retired or expired: it then still shadows the team
    /// memory of the same id, but supersedes nothing.
    pub live: bool,
}

/// The team memories a personal memory overrides, in `team` order: the same
/// id (whatever the personal memory's state: the person's own copy, even
/// retired or expired, is theirs to keep), or superseded by a live personal
/// memory (the first such, by id). A team memory is named once; the same id
/// comes first.
pub fn conflicts(personal: &[PersonalEntry<'_>], team: &[&str]) -> Vec<Conflict> {
    let ids: HashSet<&str> = personal.iter().map(|p| p.id).collect();
    let mut by: HashMap<&str, &str> = HashMap::new();
    let mut live: Vec<&PersonalEntry<'_>> = personal.iter().filter(|p| p.live).collect();
    live.sort_by_key(|p| p.id);
    for p in live {
        for s in &p.supersedes {
            by.entry(s).or_insert(p.id);
        }
    }
    team.iter()
        .filter_map(|&t| {
            if ids.contains(t) {
                Some(Conflict {
                    team_id: t.to_string(),
                    personal_id: t.to_string(),
                    kind: ConflictKind::SameId,
                })
            } else {
                by.get(t).map(|p| Conflict {
                    team_id: t.to_string(),
                    personal_id: (*p).to_string(),
                    kind: ConflictKind::Supersedes,
                })
            }
        })
        .collect()
}

/// True when two memories say the same thing: name, description, type,
/// body (or fact / why / how), triggers, paths and expiry are equal. Fields
/// promotion drops or rewrites (project, evidence, verification dates,
/// hash, unknown keys) are not compared, so a memory promoted unchanged is
/// the same as its personal copy.
pub fn same_content(a: &Memory, b: &Memory) -> bool {
    let trim = |s: &Option<String>| s.as_deref().map(str::trim).unwrap_or_default().to_string();
    a.name.trim() == b.name.trim()
        && a.description.trim() == b.description.trim()
        && a.mem_type == b.mem_type
        && trim(&a.body) == trim(&b.body)
        && trim(&a.fact) == trim(&b.fact)
        && trim(&a.why) == trim(&b.why)
        && trim(&a.how) == trim(&b.how)
        && a.triggers == b.triggers
        && a.paths == b.paths
        && a.expires == b.expires
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(id: &'a str, sup: &'a [&'a str], live: bool) -> PersonalEntry<'a> {
        PersonalEntry {
            id,
            supersedes: sup.to_vec(),
            live,
        }
    }

    #[test]
    fn same_id_and_supersedes_are_conflicts() {
        let sup = ["use-npm"];
        let none: [&str; 0] = [];
        let personal = [
            entry("use-pnpm", &sup, true),
            entry("deploy-friday", &none, false),
        ];
        let got = conflicts(&personal, &["use-npm", "deploy-friday", "other"]);
        assert_eq!(
            got,
            vec![
                Conflict {
                    team_id: "use-npm".into(),
                    personal_id: "use-pnpm".into(),
                    kind: ConflictKind::Supersedes,
                },
                Conflict {
                    team_id: "deploy-friday".into(),
                    personal_id: "deploy-friday".into(),
                    kind: ConflictKind::SameId,
                },
            ]
        );
    }

    #[test]
    fn a_retired_personal_memory_supersedes_nothing() {
        let sup = ["use-npm"];
        assert!(conflicts(&[entry("use-pnpm", &sup, false)], &["use-npm"]).is_empty());
    }

    #[test]
    fn same_content_ignores_personal_only_fields() {
        let a = Memory::new("Use pnpm", "pnpm, not npm", crate::MemoryType::Project);
        let mut b = a.clone();
        b.project = Some("0123456789ab".into());
        b.evidence = vec!["session 1234".into()];
        assert!(same_content(&a, &b));
        b.description = "npm, not pnpm".into();
        assert!(!same_content(&a, &b));
    }
}
