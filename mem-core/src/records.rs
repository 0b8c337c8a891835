//! The JSONL records that flow between the tools (docs/records.md).
//!
//! Every record keeps the fields it does not know in `extra` and writes them
//! back, so a record passed through a tool of an older version loses nothing.
//! Optional fields that are absent are not written.
//!
//! What `mem-index` and `mem-lock` print is typed in [`index`] and [`lock`];
//! `mem-recall`'s decisions in [`recall`], `mem-dream`'s plan in [`plan`],
//! `mem-transcript`'s reports in [`transcript`], the hook's answer on stdout
//! in [`hook`].

pub mod hook;
pub mod index;
pub mod lock;
pub mod plan;
pub mod recall;
pub mod transcript;

pub use hook::{
    AddedContext, HookOutput, HookSpecificOutput, PermissionDecision, PreToolUseOutput,
};
pub use index::{
    DriverInstalled, Finding, FindingCode, IndexOp, Level, Limits, MoveResult, PathExplain,
    PathInfo, TierConflict, TierMove,
};
pub use lock::{
    LockAcquired, LockReleased, LockRolledBack, LockStamped, LockStatus, ReclaimKind, ReleaseResult,
};
pub use plan::PlanOp;
pub use recall::{
    DropReason, Dropped, EvictReason, Evicted, Provenance, RecallDecision, RecallSummary, Recalled,
    SkipReason, Skipped,
};

use chrono::NaiveDate;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Unknown fields, kept in their original order.
pub type Extra = Map<String, Value>;

/// One content block of the replayed branch: output of `mem-transcript
/// replay`, input of `mem-extract`.
///
/// Format: docs/records.md "Events: `mem-transcript replay`, the input of
/// `mem-extract`". `line` is the 1-based line of the entry in its
/// file, `seq` the index in this replay, `block` the index within the API
/// response `msg_id`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Session id (Claude `sessionId`, Codex `session_meta.id`).
    pub session: String,
    /// `claude` or `codex`.
    pub source: String,
    /// 1-based line of the entry in its file.
    pub line: u64,
    /// Index of this event in the replay, from 0.
    pub seq: u64,
    /// The entry's uuid (Codex: `<session>:<line>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The parent's uuid (Codex: `<session>:<line>` of the previous item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The API response id shared by the blocks of one response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg_id: Option<String>,
    /// Index of the block within its response or message.
    #[serde(default)]
    pub block: u32,
    /// UTC RFC 3339 timestamp with `Z`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    /// `user` | `assistant` | `system` | `tool`.
    pub role: String,
    /// `text` | `thinking` | `tool_use` | `tool_result` | `summary` | `compact` | `meta`.
    pub kind: String,
    /// Tool name, for `tool_use`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Tool call id, for `tool_use` and `tool_result`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_id: Option<String>,
    /// Tool input, for `tool_use`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The text (`text`, `thinking`, `summary`, `meta`) or the tool output (`tool_result`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// For `tool_result`: whether the tool reported an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// True for sub-agent (side chain) entries.
    #[serde(default)]
    pub sidechain: bool,
    /// The working directory the entry was recorded in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Claude Code's four memory types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    /// Facts about the person.
    User,
    /// Instructions and corrections given to the agent.
    Feedback,
    /// Facts about the project.
    Project,
    /// Pointers to outside resources.
    Reference,
}

impl MemoryType {
    /// The lowercase name, as written in frontmatter.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::User => "user",
            MemoryType::Feedback => "feedback",
            MemoryType::Project => "project",
            MemoryType::Reference => "reference",
        }
    }

    /// Parse a lowercase type name.
    pub fn parse(s: &str) -> Option<MemoryType> {
        match s.trim().to_ascii_lowercase().as_str() {
            "user" => Some(MemoryType::User),
            "feedback" => Some(MemoryType::Feedback),
            "project" => Some(MemoryType::Project),
            "reference" => Some(MemoryType::Reference),
            _ => None,
        }
    }
}

/// The lifecycle kind of a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A lesson that stays true.
    DurableLesson,
    /// How the user likes things done.
    Preference,
    /// State that holds until a date (must carry `expires`).
    OneTimeState,
    /// A pointer to an outside resource.
    Reference,
}

impl Kind {
    /// The kebab-case name, as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::DurableLesson => "durable-lesson",
            Kind::Preference => "preference",
            Kind::OneTimeState => "one-time-state",
            Kind::Reference => "reference",
        }
    }

    /// Parse a kebab-case kind name.
    pub fn parse(s: &str) -> Option<Kind> {
        match s.trim() {
            "durable-lesson" => Some(Kind::DurableLesson),
            "preference" => Some(Kind::Preference),
            "one-time-state" => Some(Kind::OneTimeState),
            "reference" => Some(Kind::Reference),
            _ => None,
        }
    }
}

/// Where a memory applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Only the project it came from (default).
    #[default]
    ThisRepo,
    /// Every project.
    AllRepos,
}

impl Scope {
    /// The kebab-case name, as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::ThisRepo => "this-repo",
            Scope::AllRepos => "all-repos",
        }
    }
}

/// Who said what a memory holds: its provenance.
///
/// Written as the lowercase name. Text only a tool's output said (a command's
/// log, a file read, a fetched page) is `tool` whoever controls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Typed by the person in the session.
    User,
    /// Said or done by the agent itself (its messages, the commands it ran).
    Assistant,
    /// Tool output: a command's output, file content, web content.
    Tool,
    /// Written by a `--model-cmd` model.
    Model,
    /// Written by hand, or by `mem-index write` of a record without a source.
    Manual,
    /// Read from a repository's team tier (`.claude/team-memory/`): written
    /// by whoever can commit there. Set by the tier, never taken from the
    /// file (a team file's own `source:` is ignored).
    Team,
}

impl Source {
    /// Every source, in documented order.
    pub const ALL: [Source; 6] = [
        Source::User,
        Source::Assistant,
        Source::Tool,
        Source::Model,
        Source::Manual,
        Source::Team,
    ];

    /// The lowercase name, as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::User => "user",
            Source::Assistant => "assistant",
            Source::Tool => "tool",
            Source::Model => "model",
            Source::Manual => "manual",
            Source::Team => "team",
        }
    }

    /// Parse a lowercase source name (surrounding space ignored).
    pub fn parse(s: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|x| x.as_str() == s.trim())
    }
}

/// How far recall may trust a memory: `low` ones are injected only when asked
/// for (`mem-recall --trust low`), never by a hook.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    /// Suspect: its content came from text an outsider may control.
    Low,
    /// The default.
    #[default]
    Normal,
}

impl Trust {
    /// The lowercase name, as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::Low => "low",
            Trust::Normal => "normal",
        }
    }

    /// Parse `normal` or `low` (surrounding space ignored).
    pub fn parse(s: &str) -> Option<Trust> {
        match s.trim() {
            "normal" => Some(Trust::Normal),
            "low" => Some(Trust::Low),
            _ => None,
        }
    }
}

/// When a memory stops being valid: a date (inclusive) or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Expires {
    /// Valid through this day; evicted when `expires < today`.
    On(NaiveDate),
    /// Never expires.
    Never,
}

impl Expires {
    /// True when the memory is expired on `today` (`expires < today`).
    pub fn is_expired(self, today: NaiveDate) -> bool {
        matches!(self, Expires::On(d) if d < today)
    }

    /// Parse `never` or `YYYY-MM-DD`.
    pub fn parse(s: &str) -> Option<Expires> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("never") {
            Some(Expires::Never)
        } else {
            crate::time::parse_day(s).map(Expires::On)
        }
    }
}

impl std::fmt::Display for Expires {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expires::On(d) => write!(f, "{d}"),
            Expires::Never => f.write_str("never"),
        }
    }
}

impl Serialize for Expires {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Expires {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Expires::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "expires: {s:?} is neither a date (YYYY-MM-DD) nor \"never\""
            ))
        })
    }
}

/// A list that may also be written as one string (`trigger: deploy`).
/// An optional enum read leniently: a value it does not know (or not a
/// string) is none rather than an error (docs/records.md "Reading
/// hand-written memories").
fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(v.and_then(|v| serde_json::from_value(v).ok()))
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
        Null(()),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
        OneOrMany::Null(()) => Vec::new(),
    })
}

/// One memory: output of `mem-extract`, input of `mem-index write`, output of
/// `mem-index list`. On disk it is a topic file (see [`crate::frontmatter`]).
///
/// Format: docs/records.md "Memory". Required: `name`, `description`, `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// The file stem; derived from `name` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Short title.
    pub name: String,
    /// One line: what it is and when it matters (the index line's text).
    pub description: String,
    /// Claude Code's type.
    #[serde(rename = "type")]
    pub mem_type: MemoryType,
    /// Lifecycle kind; default from the type ([`Memory::effective_kind`]).
    /// An unknown value is read as none (a topic file keeps it in `extra`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub kind: Option<Kind>,
    /// `this-repo` (default) or `all-repos`; an unknown value is read as none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub scope: Option<Scope>,
    /// First 12 hex of BLAKE3 of the canonical main-worktree root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Who said it ([`Source`]); absent reads as `manual`
    /// ([`Memory::effective_source`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// How far recall may trust it ([`Trust`]); absent reads as `normal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<Trust>,
    /// Words or phrases that make the memory relevant (`re:` prefix = regex).
    #[serde(
        default,
        alias = "trigger",
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub triggers: Vec<String>,
    /// Globs of paths the memory is about.
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub paths: Vec<String>,
    /// Local day of the newest evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified_at: Option<NaiveDate>,
    /// Expiry date (inclusive) or never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<Expires>,
    /// Ids this memory replaces.
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub supersedes: Vec<String>,
    /// The id that replaced this memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// Day the memory was retired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<NaiveDate>,
    /// Why it was retired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_reason: Option<String>,
    /// Pointers to the evidence (`transcript:<digest>#<line>`, `file:…`, `url:…`).
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub evidence: Vec<String>,
    /// 0..1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The fact, one sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact: Option<String>,
    /// Why it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// How to use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// The Markdown body of the topic file, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Output only: first 16 hex of BLAKE3 of the file's bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Unknown fields (frontmatter keys or JSON fields), in order.
    #[serde(flatten)]
    pub extra: Extra,
    /// How the topic file it was read from was written (its shape, the YAML
    /// text of its unknown keys), so a rewrite keeps what mem does not
    /// change byte for byte. Not part of the record: never serialized, and
    /// two memories that differ only here are equal.
    #[serde(skip)]
    pub layout: Layout,
}

/// The two shapes of topic file Claude Code has written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// The type as a top-level `type:` key, the name a title (Claude Code
    /// before 2.1.300, and mem's default).
    #[default]
    Legacy,
    /// Claude Code 2.1.3xx: `name:` a short kebab-case slug, the type under
    /// `metadata:` (`metadata:\n  type: feedback`), index lines with ` — `.
    Current,
}

impl Shape {
    /// `legacy` or `current`.
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Legacy => "legacy",
            Shape::Current => "current",
        }
    }

    /// Parse `legacy` / `current`.
    pub fn parse(s: &str) -> Option<Shape> {
        match s {
            "legacy" => Some(Shape::Legacy),
            "current" => Some(Shape::Current),
            _ => None,
        }
    }
}

/// How a topic file was written (see [`Memory::layout`]). Compares equal to
/// any other layout: it is presentation, not content.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// The file's shape; `None` for a record that was not read from a file
    /// (the writer chooses).
    pub shape: Option<Shape>,
    /// For unknown top-level keys: the key, its value as read, and the YAML
    /// text that wrote it (the key's line and its indented lines). Written
    /// again as it was while the value is unchanged.
    pub raw: Vec<(String, serde_json::Value, String)>,
}

impl PartialEq for Layout {
    fn eq(&self, _: &Layout) -> bool {
        true
    }
}

impl Memory {
    /// True when mem wrote this memory: its frontmatter carries one of the
    /// keys only mem's writers (or a person writing mem's shape) set —
    /// `kind`, `source`, or a non-empty `evidence` or `triggers`, or
    /// `verified_at`. Anything else (Claude Code's own topic files with
    /// `name`/`description`/`type` and perhaps `created:`, files written by
    /// hand) is *foreign*: its index line is kept as written and
    /// `--max-files` never retires it without `--include-foreign`.
    pub fn written_by_mem(&self) -> bool {
        self.kind.is_some()
            || self.source.is_some()
            || !self.evidence.is_empty()
            || !self.triggers.is_empty()
            || self.verified_at.is_some()
    }

    /// The memory's title for people and agents: its name, or, for a file
    /// of Claude Code's current shape whose name is its slug, the `title:`
    /// mem wrote beside it (docs/memory-dir.md "Claude Code's two shapes of
    /// topic file").
    pub fn title(&self) -> &str {
        match self.extra.get("title").and_then(serde_json::Value::as_str) {
            Some(t) if !t.trim().is_empty() && crate::id::is_slug_name(&self.name) => t,
            _ => &self.name,
        }
    }

    /// A memory with the three required fields and nothing else.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        mem_type: MemoryType,
    ) -> Memory {
        Memory {
            id: None,
            name: name.into(),
            description: description.into(),
            mem_type,
            kind: None,
            scope: None,
            project: None,
            source: None,
            trust: None,
            triggers: Vec::new(),
            paths: Vec::new(),
            verified_at: None,
            expires: None,
            supersedes: Vec::new(),
            superseded_by: None,
            retired_at: None,
            retired_reason: None,
            evidence: Vec::new(),
            confidence: None,
            fact: None,
            why: None,
            how: None,
            body: None,
            hash: None,
            extra: Extra::new(),
            layout: Layout::default(),
        }
    }

    /// The source, `manual` when absent (a file written by hand or by a
    /// tool that does not say).
    pub fn effective_source(&self) -> Source {
        self.source.unwrap_or(Source::Manual)
    }

    /// The trust, `normal` when absent.
    pub fn effective_trust(&self) -> Trust {
        self.trust.unwrap_or(Trust::Normal)
    }

    /// The kind, or its default from the type: user → preference, feedback →
    /// durable-lesson, project → durable-lesson (one-time-state when `expires`
    /// is a date), reference → reference.
    pub fn effective_kind(&self) -> Kind {
        if let Some(k) = self.kind {
            return k;
        }
        match self.mem_type {
            MemoryType::User => Kind::Preference,
            MemoryType::Feedback => Kind::DurableLesson,
            MemoryType::Project => match self.expires {
                Some(Expires::On(_)) => Kind::OneTimeState,
                _ => Kind::DurableLesson,
            },
            MemoryType::Reference => Kind::Reference,
        }
    }

    /// The id: the explicit one, else derived from `name`.
    ///
    /// Errors: [`crate::error::IdError`] when neither gives a valid id.
    pub fn resolve_id(&self) -> Result<String, crate::error::IdError> {
        match &self.id {
            Some(id) => {
                crate::id::validate_id(id)?;
                Ok(id.clone())
            }
            None => crate::id::derive_id(&self.name),
        }
    }

    /// True when expired on `today` (`expires < today`).
    pub fn is_expired(&self, today: NaiveDate) -> bool {
        self.expires.is_some_and(|e| e.is_expired(today))
    }

    /// True when superseded (`superseded_by` set).
    pub fn is_superseded(&self) -> bool {
        self.superseded_by.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESIGN_MEMORY: &str = r#"{"id":"fixture-before-verify","name":"Run setup before build-token","description":"build-token needs data/fixture.json, which only setup creates","type":"feedback","kind":"durable-lesson","scope":"this-repo","project":"3b1f0c9a2d4e","triggers":["build-token","verify","fixture"],"paths":["src/**"],"verified_at":"2026-07-11","expires":"never","fact":"Run setup before build-token.","why":"data/fixture.json is generated and git-ignored; a fresh clone lacks it.","how":"Before any verification, run node src/setup.mjs.","evidence":["transcript:3f9a0c1d2e4b#17"],"confidence":0.9}"#;

    #[test]
    fn memory_round_trips_and_keeps_unknown_fields() {
        let m: Memory = serde_json::from_str(DESIGN_MEMORY).unwrap();
        assert_eq!(m.mem_type, MemoryType::Feedback);
        assert_eq!(m.expires, Some(Expires::Never));
        assert_eq!(m.triggers, ["build-token", "verify", "fixture"]);
        let v1: Value = serde_json::from_str(DESIGN_MEMORY).unwrap();
        let v2 = serde_json::to_value(&m).unwrap();
        assert_eq!(v1, v2);

        let with_extra =
            r#"{"name":"n","description":"d","type":"user","x-owner":"ops","trigger":"deploy"}"#;
        let m: Memory = serde_json::from_str(with_extra).unwrap();
        assert_eq!(m.triggers, ["deploy"]);
        assert_eq!(m.extra["x-owner"], "ops");
        assert!(
            serde_json::to_string(&m)
                .unwrap()
                .contains(r#""x-owner":"ops""#)
        );
    }

    #[test]
    fn source_and_trust_round_trip_in_order() {
        let line = r#"{"name":"n","description":"d","type":"feedback","scope":"this-repo","source":"tool","trust":"low","triggers":["t"]}"#;
        let m: Memory = serde_json::from_str(line).unwrap();
        assert_eq!(m.source, Some(Source::Tool));
        assert_eq!(m.trust, Some(Trust::Low));
        assert_eq!(serde_json::to_string(&m).unwrap(), line);
        let bare = Memory::new("n", "d", MemoryType::User);
        assert_eq!(bare.effective_source(), Source::Manual);
        assert_eq!(bare.effective_trust(), Trust::Normal);
        let err = serde_json::from_str::<Memory>(
            r#"{"name":"n","description":"d","type":"user","source":"web"}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("web"), "{err}");
        for s in Source::ALL {
            assert_eq!(Source::parse(s.as_str()), Some(s));
        }
        assert_eq!(Trust::parse(" low "), Some(Trust::Low));
        assert_eq!(Trust::parse("high"), None);
    }

    #[test]
    fn default_kinds_follow_the_type() {
        let mut m = Memory::new("n", "d", MemoryType::Project);
        assert_eq!(m.effective_kind(), Kind::DurableLesson);
        m.expires = Expires::parse("2026-07-12");
        assert_eq!(m.effective_kind(), Kind::OneTimeState);
        assert!(m.is_expired(NaiveDate::from_ymd_opt(2026, 7, 13).unwrap()));
        assert!(!m.is_expired(NaiveDate::from_ymd_opt(2026, 7, 12).unwrap()));
        assert_eq!(
            Memory::new("n", "d", MemoryType::User).effective_kind(),
            Kind::Preference
        );
        assert_eq!(
            Memory::new("n", "d", MemoryType::Reference).effective_kind(),
            Kind::Reference
        );
    }

    #[test]
    fn missing_required_field_is_an_error() {
        let err = serde_json::from_str::<Memory>(r#"{"name":"n","type":"user"}"#).unwrap_err();
        assert!(err.to_string().contains("description"), "{err}");
        let err = serde_json::from_str::<Memory>(r#"{"name":"n","description":"d","type":"boss"}"#)
            .unwrap_err();
        assert!(err.to_string().contains("boss"), "{err}");
    }

    #[test]
    fn event_round_trips() {
        let line = r#"{"session":"6f1c","source":"claude","line":42,"seq":12,"uuid":"a1","parent":"9e","msg_id":"msg_01","block":0,"ts":"2026-07-11T10:00:00Z","role":"assistant","kind":"tool_use","tool":"Bash","tool_id":"toolu_01","input":{"command":"node src/build-token.mjs"},"sidechain":false,"cwd":"/home/u/proj"}"#;
        let e: Event = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&e).unwrap(), line);
    }
}
