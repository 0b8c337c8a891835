//! mem-dream: Gated, locked consolidation of the memory directory.
