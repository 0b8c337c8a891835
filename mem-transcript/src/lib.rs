//! mem-transcript: Read and append agent session transcripts (Claude Code JSONL, Codex rollouts).
