//! Bookkeeping shared by the asynchronous instructions (`wgmma.rs`, `cp_async.rs`): a
//! thread's operations grouped by `commit_group` and completed by `wait_group`, and the
//! bytes operations in flight touch.

use std::collections::{HashMap, VecDeque};

/// One thread's asynchronous operations: those not yet committed, then the committed groups,
/// oldest first (PTX's `commit_group` / `wait_group N` rules).
#[derive(Clone, Debug, Default)]
pub(crate) struct Groups<G> {
    /// Operations not yet in a group.
    pub uncommitted: G,
    groups: VecDeque<G>,
}

impl<G: Default> Groups<G> {
    /// `commit_group`: the uncommitted operations become the newest group (an empty one
    /// when there are none).
    pub fn commit(&mut self) {
        let group = std::mem::take(&mut self.uncommitted);
        self.groups.push_back(group);
    }

    /// For `wait_group keep`: the oldest group while more than `keep` are committed.
    pub fn pop_older(&mut self, keep: usize) -> Option<G> {
        if self.groups.len() > keep {
            self.groups.pop_front()
        } else {
            None
        }
    }

    /// The uncommitted operations, then every committed group.
    pub fn all(&self) -> impl Iterator<Item = &G> {
        std::iter::once(&self.uncommitted).chain(&self.groups)
    }
}

/// Byte addresses with how many operations in flight touch each (a multiset).
#[derive(Clone, Debug, Default)]
pub(crate) struct Bytes(HashMap<u64, u32>);

impl Bytes {
    /// Forgets every byte.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// One more operation touches each of `bytes`.
    pub fn add(&mut self, bytes: impl IntoIterator<Item = u64>) {
        for b in bytes {
            *self.0.entry(b).or_insert(0) += 1;
        }
    }

    /// One operation fewer touches each of `bytes`.
    pub fn remove(&mut self, bytes: impl IntoIterator<Item = u64>) {
        for b in bytes {
            if let Some(n) = self.0.get_mut(&b) {
                *n -= 1;
                if *n == 0 {
                    self.0.remove(&b);
                }
            }
        }
    }

    /// The first byte of [`a`, `a + size`) an operation in flight touches.
    pub fn first_in(&self, a: u64, size: usize) -> Option<u64> {
        if self.0.is_empty() {
            return None;
        }
        (a..a.saturating_add(size as u64)).find(|b| self.0.contains_key(b))
    }
}
