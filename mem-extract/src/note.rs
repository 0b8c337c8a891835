//! The lifecycle bucket of every candidate and the note that says why it
//! was kept or dropped (`mem-extract --explain`).

/// The five lifecycle buckets of the memory-layer discipline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// Only relevant to the conversation at hand (requests, questions, chatter).
    CurrentContext,
    /// Progress of the task in hand ("I'm halfway through…").
    TaskState,
    /// Instructions and facts that hold across sessions (kept).
    DurableInstruction,
    /// What the tool itself learns: lessons, references, dated state (kept).
    AutomaticMemory,
    /// Tool output and logs: evidence, never memory.
    RawEvidence,
}

impl Bucket {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::CurrentContext => "current-context",
            Bucket::TaskState => "task-state",
            Bucket::DurableInstruction => "durable-instruction",
            Bucket::AutomaticMemory => "automatic-memory",
            Bucket::RawEvidence => "raw-evidence",
        }
    }

    /// True for the buckets that outlive the session (emitted).
    pub fn is_cross_session(self) -> bool {
        matches!(self, Bucket::DurableInstruction | Bucket::AutomaticMemory)
    }
}

/// Why a candidate was kept or dropped (printed by `--explain`).
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// Kept (emitted) or dropped.
    pub kept: bool,
    /// The lifecycle bucket.
    pub bucket: Bucket,
    /// The rule (`feedback/negative-imperative`, `drop/task-state`, …).
    pub rule: String,
    /// The entry's line in its transcript (0 when unknown).
    pub line: u64,
    /// The text concerned (the sentence, or the candidate's name), cut to 120 chars.
    pub text: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} [{}] {} line {}: {}",
            if self.kept { "keep" } else { "drop" },
            self.bucket.as_str(),
            self.rule,
            self.line,
            self.text
        )
    }
}
