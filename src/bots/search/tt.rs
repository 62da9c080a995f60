//! The transposition table: search results by Zobrist key, so a position reached again (by
//! transposition or in the next iteration) starts from what is known about it.

use crate::chess::Move;

/// What the stored score says about the true value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    Exact,
    /// The true value is at least the score (a beta cut-off).
    Lower,
    /// The true value is at most the score (no move reached alpha).
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: u64,
    pub best: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// A fixed-size, always-replace-if-deeper-or-newer table. Its memory is taken on the first
/// search, not at creation: a server may hold many bot seats that are not thinking.
pub struct Table {
    entries: Vec<Option<Entry>>,
    bits: u32,
}

impl Table {
    /// A table of 2^bits entries (allocated by [`Table::allocate`]).
    pub fn new(bits: u32) -> Table {
        Table { entries: Vec::new(), bits }
    }

    /// Takes the table's memory if it has not yet.
    pub fn allocate(&mut self) {
        if self.entries.is_empty() {
            self.entries = vec![None; 1 << self.bits];
        }
    }

    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
    }

    fn slot(&self, key: u64) -> usize {
        key as usize & (self.entries.len().max(1) - 1)
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.entries.get(self.slot(key)).copied().flatten().filter(|e| e.key == key)
    }

    pub fn store(&mut self, entry: Entry) {
        let index = self.slot(entry.key);
        let Some(slot) = self.entries.get_mut(index) else {
            return;
        };
        // Keep a deeper result for the same position; otherwise the newest wins.
        if let Some(old) = slot {
            if old.key == entry.key && old.depth > entry.depth && entry.bound != Bound::Exact {
                return;
            }
        }
        *slot = Some(entry);
    }
}
