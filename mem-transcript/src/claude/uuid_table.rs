//! The nodes of a session by uuid key: node indices in a hash table whose
//! keys live beside the nodes.

/// The nodes by uuid key: node indices in a hash table whose keys live in
/// [`Index::keys`](super::Index::keys) (4 bytes a node here, 16 there), the first node of each
/// uuid.
#[derive(Default, Clone)]
pub struct UuidTable {
    table: hashbrown::HashTable<u32>,
}

impl std::fmt::Debug for UuidTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UuidTable({} nodes)", self.table.len())
    }
}

pub(super) fn hash_key(k: u128) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(k)
}

impl UuidTable {
    /// The first node whose uuid key is `key`.
    pub fn get(&self, keys: &[u128], key: u128) -> Option<u32> {
        self.table
            .find(hash_key(key), |&i| keys[i as usize] == key)
            .copied()
    }

    /// Record node `i` (whose key `keys[i]` is set) unless its uuid has a
    /// node already; returns that earlier node.
    pub(super) fn insert_first(&mut self, keys: &[u128], i: u32) -> Option<u32> {
        let k = keys[i as usize];
        match self.table.entry(
            hash_key(k),
            |&j| keys[j as usize] == k,
            |&j| hash_key(keys[j as usize]),
        ) {
            hashbrown::hash_table::Entry::Occupied(o) => Some(*o.get()),
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(i);
                None
            }
        }
    }

    /// Room for `more` nodes.
    pub(super) fn reserve(&mut self, keys: &[u128], more: usize) {
        self.table.reserve(more, |&j| hash_key(keys[j as usize]));
    }

    /// Nodes recorded (distinct uuids).
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when no node is recorded.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}
