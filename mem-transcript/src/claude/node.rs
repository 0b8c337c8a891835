//! One chain node of a Claude session (an entry with its own `uuid`): its
//! type, flags and place in the file, 32 bytes each.

/// The type of a chain node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeType {
    /// `user`.
    User,
    /// `assistant`.
    Assistant,
    /// `system`.
    System,
    /// `progress`.
    Progress,
    /// `attachment`.
    Attachment,
    /// Any other type that carries its own `uuid` (walked through, never emitted).
    Other,
}

impl NodeType {
    pub(super) fn of(ty: &str) -> NodeType {
        match ty {
            "user" => NodeType::User,
            "assistant" => NodeType::Assistant,
            "system" => NodeType::System,
            "progress" => NodeType::Progress,
            "attachment" => NodeType::Attachment,
            _ => NodeType::Other,
        }
    }

    /// True for `user`, `assistant`, `system`: conversation entries.
    pub fn is_conversation(self) -> bool {
        matches!(
            self,
            NodeType::User | NodeType::Assistant | NodeType::System
        )
    }

    /// The type name (`other` for unknown types).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeType::User => "user",
            NodeType::Assistant => "assistant",
            NodeType::System => "system",
            NodeType::Progress => "progress",
            NodeType::Attachment => "attachment",
            NodeType::Other => "other",
        }
    }
}

/// Node flag: `isSidechain: true`.
pub const SIDECHAIN: u8 = 1;
/// Node flag: `system` with `subtype: compact_boundary`.
pub const BOUNDARY: u8 = 2;
/// Node flag: `isCompactSummary: true`.
pub const SUMMARY: u8 = 4;
/// Node flag: `isMeta: true`.
pub const META: u8 = 8;
/// Node flag: has a `parentUuid`.
pub const HAS_PARENT: u8 = 16;
/// Node flag: has a `logicalParentUuid`.
pub const HAS_LOGICAL: u8 = 32;

/// Node flag: the line has a `\u` escape, so it goes through
/// [`sanitize`](mem_core::jsonl::sanitize) again in pass 2 (lines without one never change there).
pub const U_ESCAPE: u8 = 64;

/// Node flag: the whole line went through the fast scanner ([`mem_core::scan`]):
/// valid JSON nested at most 100 deep, so pass 2 may take its fast path.
pub const FAST: u8 = 128;

/// One chain node (an entry with its own `uuid`): 32 bytes. Units: bytes, ms.
///
/// The uuid's key is [`Index::keys`](super::Index::keys)`[i]`; the parent is resolved to a node
/// index once the whole file is indexed ([`Node::up`]).
#[derive(Debug, Clone)]
pub struct Node {
    /// Byte offset of the line in the file.
    pub offset: u64,
    /// Timestamp in ms since the epoch (`i64::MIN` when absent).
    pub ts: i64,
    /// Byte length of the raw line, its `\n` included; [`LONG_LINE`] for a
    /// line of 4 GiB or more (its length is in [`Index::long_lines`]).
    /// Read it with [`Index::span`].
    pub(super) len: u32,
    /// 1-based line number.
    pub line: u32,
    /// The node the walk goes up to: the node of `parentUuid` (of
    /// `logicalParentUuid` for a boundary that has one); [`NO_PARENT`] when
    /// the entry names none, [`DANGLING`] when the uuid it names is no node.
    pub up: u32,
    /// Entry type.
    pub ty: NodeType,
    /// Flags ([`SIDECHAIN`], [`BOUNDARY`], …).
    pub flags: u8,
}

/// [`Node::up`] of an entry that names no parent (a root).
pub const NO_PARENT: u32 = u32::MAX;
/// [`Node::up`] of an entry whose parent uuid names no node.
pub const DANGLING: u32 = u32::MAX - 1;
/// [`Node::len`] of a line of 4 GiB or more.
pub(super) const LONG_LINE: u32 = u32::MAX;

impl Node {
    /// True when the flag is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}
