//! mem-index: Topic files with YAML frontmatter and the MEMORY.md index.
