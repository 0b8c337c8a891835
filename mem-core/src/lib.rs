//! mem-core: what every mem tool shares.
//!
//! - [`records`]: the JSONL records (event, memory, recall decision, plan op,
//!   what mem-index and mem-lock print);
//! - [`jsonl`]: the transcript line reader (reading rules) and record streams;
//! - [`cli`]: output buffered by destination and the one `main` shape;
//! - [`frontmatter`]: topic files (YAML frontmatter + Markdown body);
//! - [`id`]: ids from names, path containment;
//! - [`atomic`]: atomic writes;
//! - [`diff`]: the hunks of a unified line diff;
//! - [`hooks`]: the agent hooks mem installs (events, commands, timeouts);
//! - [`journal`]: the consolidation journal, crash recovery;
//! - [`confine`]: no write through a link below the memory directory,
//!   reads of regular files only, with size caps;
//! - [`time`]: the pinned clock, local days;
//! - [`truncate`]: byte budgets at character boundaries, the token estimate;
//! - [`memdir`]: where memory lives (slug, worktrees, settings);
//! - [`merge`]: how two copies of one memory combine (the merge policy);
//! - [`store`]: reading a memory directory, the index lock, the names of
//!   retired copies;
//! - [`tier`]: the personal and team tiers, which wins on a conflict;
//! - [`team_trust`]: which team files the user reviewed and trusts;
//! - [`index_md`]: the `MEMORY.md` policy (order, limits, WARNING line);
//! - [`lock`]: the consolidation lock protocol;
//! - [`scrub`]: secrets, session ids and absolute paths;
//! - [`shell`]: the one shell-command splitter (simple commands, operators,
//!   quotes, substitutions, here-documents);
//! - [`risk`]: what a command line does (risky, project-local, ordinary);
//! - [`lesson`]: the lesson a memory states, and the trust gate on it;
//! - [`instruction`]: does a text read as an instruction to an agent (the
//!   one detector the tools share);
//! - [`set`]: regex sets compiled for ASCII text first;
//! - [`text`]: words, stop words and stems (the one tokenizer);
//! - [`error`]: one error type and the exit codes.
//!
//! Format and contract: docs/ (records.md, memory-dir.md, conventions.md).

pub mod atomic;
pub mod cli;
pub mod confine;
pub mod diff;
pub mod error;
pub mod frontmatter;
pub mod hooks;
pub mod id;
pub mod index_md;
pub mod instruction;
pub mod journal;
pub mod jsonl;
pub mod lesson;
pub mod literals;
pub mod lock;
pub mod memdir;
pub mod merge;
pub mod records;
pub mod risk;
pub mod scan;
pub mod scrub;
pub mod session;
pub mod set;
pub mod shape;
pub mod shell;
pub mod store;
pub mod team_trust;
pub use mem_text as text;
pub mod tier;
pub mod time;
pub mod truncate;

pub use error::{Error, Exit, IdError, Result};
pub use records::{
    Event, Expires, Kind, Layout, Memory, MemoryType, PlanOp, RecallDecision, Scope, Shape, Source,
    Trust,
};
