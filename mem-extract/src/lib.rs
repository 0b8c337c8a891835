//! mem-extract: Turn transcript events into candidate memories, with redaction.
