//! Claude Code sessions: the node index (pass 1), the branch walk (docs/transcripts.md
//! "Replay: one branch", rules 1–5) and the events of the branch (pass 2, re-reading only
//! the lines of the branch by offset).
//!
//! Memory: per node a 32-byte record (offset, length, timestamp, line,
//! parent node, type, flags), its 16-byte uuid key and a 4-byte slot of the
//! uuid table; content is parsed only for the lines of the chosen branch.
//!
//! - `node`: one chain node; `uuid_table`: nodes by uuid key;
//!   `head`: the fields pass 1 reads of a line; `index`: pass 1.
//! - `walk`: the branch walk.
//! - `entry`: the entry model of pass 2; `fast_entry`: its fast parser.
//! - `emit_branch`: pass 2's entry ([`emit()`]: one reader, one reader
//!   ahead or several workers); `emit`: pass 2 (events or raw lines) and
//!   what its workers share; `emit_parallel`: pass 2 by several workers;
//!   `queued`: messages typed while the agent worked.

mod emit;
mod emit_branch;
mod emit_parallel;
mod entry;
mod fast_entry;
mod head;
mod index;
mod node;
mod queued;
mod uuid_table;
mod walk;

pub use emit::*;
pub use emit_branch::*;
pub use entry::*;
pub use index::*;
pub use node::*;
pub use queued::*;
pub use uuid_table::*;
pub use walk::*;
