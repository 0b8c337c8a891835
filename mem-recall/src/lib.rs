//! mem-recall: Relevance-gated recall of memories for a task.
