//! The team tier next to the personal one (docs/team-memory.md "Recall and
//! hooks").
//!
//! The team tier is `<checkout root>/.claude/team-memory/` ([`mem_core::memdir::checkout_root`])
//! ([`mem_core::memdir::team_dir`]), read like a memory directory through
//! its own cache (`$XDG_CACHE_HOME/mem/<digest of the team folder>/`, never
//! inside the repository). Recall only reads it: nothing in it is written.
//! Only the files the user reviewed and trusts, byte for byte, are read
//! ([`mem_core::team_trust`], `mem-index team trust`); the others wait for
//! review and are only counted. Every team memory's source is `team`,
//! whatever its file says.
//! On a conflict ([`mem_core::tier::conflicts`]) the personal memory wins.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use mem_core::Source;
use mem_core::cli::warn;
use mem_core::team_trust;
use mem_core::tier::{Conflict, PersonalEntry, Tier};

use crate::error::NAME;
use crate::load::{self, Item};
use mem_core::text::Stems;

/// The team tier as recall reads it: the trusted memories, and what waits
/// for review.
#[derive(Debug)]
pub struct Team {
    /// The team folder.
    pub dir: PathBuf,
    /// The memories whose files the user trusts as they are now
    /// ([`mem_core::team_trust`]), with `source: team` (the tier decides:
    /// the file's own `source:` is ignored; its `trust: low` is kept).
    pub items: Vec<Item>,
    /// The ids of the topic files that wait for review (added or changed
    /// since the user trusted the tier, or never trusted): never recalled.
    pub waiting: Vec<String>,
    /// True when the team `MEMORY.md` is trusted as it is now.
    pub index_trusted: bool,
}

/// Read the team tier of the project at `root`: `None` when its folder does
/// not exist (said on stderr when the team tier was asked for alone,
/// `explicit`), lies behind a link, or cannot be listed (both said on
/// stderr). Topic files that do not parse are named on stderr and left out.
/// `no_cache`: neither read nor write the team tier's cache.
///
/// Only files the user trusts, byte for byte, are kept
/// ([`mem_core::team_trust`]); the others are named in [`Team::waiting`].
/// With nothing trusted, no topic file is parsed.
pub fn load(root: &Path, no_cache: bool, stems: &Stems, explicit: bool) -> Option<Team> {
    let dir = mem_core::memdir::team_dir(root);
    if !dir.is_dir() {
        if explicit {
            warn(
                NAME,
                format!("no team tier: {} does not exist", dir.display()),
            );
        }
        return None;
    }
    // A clone may carry a link: the team tier is read only below the root.
    if let Err(e) = mem_core::confine::check_below(root, &dir) {
        warn(NAME, format!("team tier left out: {e}"));
        return None;
    }
    let trusted = match team_trust::load(root) {
        Ok(t) => t,
        Err(e) => {
            warn(NAME, format!("team tier: {e}"));
            team_trust::Trusted::default()
        }
    };
    let entries = if trusted.is_empty() {
        // nothing trusted: every file waits, none is read
        match team_trust::files(&dir) {
            Ok(names) => names
                .into_iter()
                .map(|name| team_trust::Entry {
                    name,
                    state: team_trust::State::New,
                    bytes: None,
                    unreadable: None,
                    trusted_hash: None,
                })
                .collect(),
            Err(e) => {
                warn(NAME, format!("team tier left out: {e}"));
                return None;
            }
        }
    } else {
        match team_trust::scan(&dir, &trusted) {
            Ok(e) => e,
            Err(e) => {
                warn(NAME, format!("team tier left out: {e}"));
                return None;
            }
        }
    };
    let ok: HashSet<&str> = entries
        .iter()
        .filter(|e| e.state == team_trust::State::Trusted)
        .map(|e| &*e.name)
        .collect();
    let index_trusted = ok.contains(mem_core::store::INDEX_FILE);
    let waiting: Vec<String> = entries
        .iter()
        .filter(|e| e.state.pending() && e.name != mem_core::store::INDEX_FILE)
        .map(|e| e.name.trim_end_matches(".md").to_string())
        .collect();
    let mut items = Vec::new();
    if ok.iter().any(|n| *n != mem_core::store::INDEX_FILE) {
        let cache = if no_cache {
            None
        } else {
            load::cache_path(&dir)
        };
        let loaded = match load::load_dir(&dir, cache.as_deref(), stems) {
            Ok(l) => l,
            Err(e) => {
                warn(NAME, format!("team tier left out: {e}"));
                return None;
            }
        };
        for b in &loaded.broken {
            warn(NAME, format!("team tier: {b} (left out)"));
        }
        items = loaded.items;
        items.retain(|it| {
            it.path()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .is_some_and(|n| ok.contains(&*n))
        });
        for it in &mut items {
            it.tier = Tier::Team;
            // the tier decides who wrote it; a file may only lower its trust
            it.doc.source = Source::Team;
        }
    }
    Some(Team {
        dir,
        items,
        waiting,
        index_trusted,
    })
}

/// Split the team items into those recalled beside `personal` and those a
/// personal memory overrides (with the conflict). The kept team memories'
/// `supersedes` lose the ids of personal memories: a team memory never hides
/// a personal one. A personal memory is live when neither retired nor
/// expired on `today`.
pub fn merge(
    personal: &[Item],
    team: Vec<Item>,
    today: NaiveDate,
) -> (Vec<Item>, Vec<(Item, Conflict)>) {
    if personal.is_empty() {
        return (team, Vec::new());
    }
    let entries: Vec<PersonalEntry<'_>> = personal
        .iter()
        .map(|p| PersonalEntry {
            id: &p.doc.id,
            supersedes: p.doc.supersedes.iter().map(|s| &**s).collect(),
            live: !p.doc.retired && !p.doc.expires.is_some_and(|e| e.is_expired(today)),
        })
        .collect();
    let team_ids: Vec<&str> = team.iter().map(|t| &*t.doc.id).collect();
    let found = mem_core::tier::conflicts(&entries, &team_ids);
    let ids: HashSet<&str> = personal.iter().map(|p| &*p.doc.id).collect();
    let mut keep = Vec::with_capacity(team.len());
    let mut hidden = Vec::new();
    let mut found = found.into_iter().peekable();
    for mut t in team {
        if let Some(c) = found.next_if(|c| c.team_id == *t.doc.id) {
            hidden.push((t, c));
            continue;
        }
        t.doc.supersedes.retain(|s| !ids.contains(&**s));
        keep.push(t);
    }
    (keep, hidden)
}

/// Team memories belong to the repository they are committed in: under the
/// cross-project guard (a project folder shared by several projects) they
/// are taken as the current project's.
pub fn claim(items: &mut [Item], project: &str) {
    for it in items.iter_mut().filter(|i| i.tier == Tier::Team) {
        it.doc.project = Some(crate::gate::Text::Owned(project.to_string()));
    }
}

/// What a text line says of the tier: with `explain`, `; tier: team` or
/// `; tier: personal`; without, ` (team)` for a team memory and nothing for
/// a personal one.
pub fn text_suffix(tier: Tier, explain: bool) -> String {
    if explain {
        format!("; tier: {tier}")
    } else if tier == Tier::Team {
        " (team)".to_string()
    } else {
        String::new()
    }
}

/// The `--explain` line of a shadowed team memory.
pub fn shadowed_line(conflict: &Conflict) -> String {
    format!(
        "SKIP   {} — overridden ({}): {}; tier: team",
        conflict.team_id,
        conflict.kind.as_str(),
        conflict.describe()
    )
}

/// The `--explain` line of a team memory waiting for review.
pub fn waiting_text(id: &str) -> String {
    format!(
        "SKIP   {id} — unreviewed (a team memory you have not trusted as it is now: `{}`); tier: team",
        team_trust::REVIEW_COMMAND
    )
}

/// The JSONL record of a team memory waiting for review: a `skip` with
/// reason `unreviewed`, `tier: team`.
pub fn waiting_record(id: &str) -> mem_core::RecallDecision {
    mem_core::RecallDecision::Skip(mem_core::records::Skipped {
        id: id.to_string(),
        reason: Some(mem_core::records::SkipReason::Unreviewed),
        score: None,
        source: Some(Source::Team),
        trust: None,
        tier: Some(Tier::Team),
        by: None,
        conflict: None,
        extra: Default::default(),
    })
}

/// The JSONL record of a shadowed team memory: a `skip` with reason
/// `overridden`, `tier: team`, `by` (the personal memory's id) and
/// `conflict` (`same-id` or `supersedes`).
pub fn shadowed_record(conflict: &Conflict) -> mem_core::RecallDecision {
    mem_core::RecallDecision::Skip(mem_core::records::Skipped {
        id: conflict.team_id.clone(),
        reason: Some(mem_core::records::SkipReason::Overridden),
        score: None,
        source: None,
        trust: None,
        tier: Some(Tier::Team),
        by: Some(conflict.personal_id.clone()),
        conflict: Some(conflict.kind),
        extra: Default::default(),
    })
}
