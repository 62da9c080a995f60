//! The transposition table: search results by Zobrist key, so a position reached again (by
//! transposition or in the next iteration) starts from what is known about it.

use std::sync::{Arc, Mutex};

use crate::bots::eval::PawnCache;
use crate::chess::{Move, Role, Square};

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

/// An [`Entry`] as the table holds it: 16 bytes, so that four share a cache line and none
/// straddles two (an `Option<Entry>` takes 24). `data` packs, from the low bits: the move
/// (from, to, promotion: 16 bits; [`NO_MOVE`] for none), the score (16), the depth (16), the
/// bound (2) and a bit that says the slot is filled.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    data: u64,
}

/// The packed move of an entry without one (no move goes from a square to itself).
const NO_MOVE: u64 = 0;
const FILLED: u64 = 1 << 50;

impl Slot {
    fn pack(entry: &Entry) -> Slot {
        let mv = entry.best.map_or(NO_MOVE, |m| {
            m.from.index() as u64 | (m.to.index() as u64) << 6 | m.promotion.map_or(0, |r| r.index() as u64 + 1) << 12
        });
        // Scores stay within ±(MATE + MAX_PLY) and depths within MAX_PLY, far inside 16 bits.
        let score = entry.score.clamp(i16::MIN.into(), i16::MAX.into()) as i16 as u16 as u64;
        let depth = entry.depth.clamp(i16::MIN.into(), i16::MAX.into()) as i16 as u16 as u64;
        let bound = entry.bound as u64;
        Slot { key: entry.key, data: mv | score << 16 | depth << 32 | bound << 48 | FILLED }
    }

    fn unpack(self) -> Option<Entry> {
        if self.data & FILLED == 0 {
            return None;
        }
        let mv = self.data & 0xFFFF;
        let square = |bits: u64| Square::new_unchecked((bits & 63) as u8);
        let best = (mv != NO_MOVE).then(|| Move {
            from: square(mv),
            to: square(mv >> 6),
            promotion: Role::ALL.get(((mv >> 12) as usize).wrapping_sub(1)).copied(),
        });
        let bound = match (self.data >> 48) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Entry {
            key: self.key,
            best,
            score: i32::from((self.data >> 16) as u16 as i16),
            depth: i32::from((self.data >> 32) as u16 as i16),
            bound,
        })
    }
}

/// A fixed-size, always-replace-if-deeper-or-newer table. Its memory is taken on the first
/// search, not at creation: a server may hold many bot seats that are not thinking.
pub struct Table {
    entries: Vec<Slot>,
    /// Static evaluations, direct-mapped by the key's low bits: each slot packs the key's other
    /// 48 bits with the evaluation's 16, so a hit checks the whole key. Most of a search's
    /// evaluations are of positions it evaluated before (in the last iteration, or by another
    /// move order), and a small table that stays in the cache answers them faster than the
    /// evaluation does.
    evals: Vec<u64>,
    /// The pawns' part of the evaluation, by pawn formation.
    pub pawns: PawnCache,
    bits: u32,
}

/// The low bits of a key, which index the evaluation table and are not stored in it.
const EVAL_KEY_LOW: u64 = 0xFFFF;

/// The most entry bits a table of `megabytes` MiB has room for (clamped to 10..=26, as
/// [`AlphaBeta::with_table_bits`](super::AlphaBeta::with_table_bits) clamps).
pub fn bits_for_megabytes(megabytes: u64) -> u32 {
    let entries = megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Slot>() as u64;
    entries.checked_ilog2().unwrap_or(0).clamp(10, 26)
}

impl Table {
    /// A table of 2^bits entries (allocated by [`Table::allocate`]).
    pub fn new(bits: u32) -> Table {
        Table { entries: Vec::new(), evals: Vec::new(), pawns: PawnCache::new(), bits }
    }

    /// Takes the table's memory if it has not yet.
    pub fn allocate(&mut self) {
        if self.entries.is_empty() {
            self.entries = huge_page_vec(1 << self.bits);
            // An eighth as many evaluations (at most 2^16, 512 KiB): they are reached from
            // nearby positions, and a table that fits in the cache is the point.
            self.evals = vec![0; 1 << (self.bits - 3).min(16)];
            self.pawns.allocate();
        }
    }

    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = Slot::default());
        self.evals.iter_mut().for_each(|e| *e = 0);
        self.pawns.clear();
    }

    /// The static evaluation stored for `key`, if any.
    pub fn eval(&self, key: u64) -> Option<i32> {
        let slot = *self.evals.get(self.eval_slot(key))?;
        (slot & !EVAL_KEY_LOW == key & !EVAL_KEY_LOW && slot != 0).then_some(i32::from(slot as u16 as i16))
    }

    /// Keeps the static evaluation of `key` (clamped to 16 bits; evaluations stay far inside).
    pub fn store_eval(&mut self, key: u64, eval: i32) {
        let index = self.eval_slot(key);
        if let Some(slot) = self.evals.get_mut(index) {
            let eval = eval.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
            *slot = (key & !EVAL_KEY_LOW) | u64::from(eval as u16);
        }
    }

    /// The evaluation table's slot for `key`: by its low bits only (at most [`EVAL_KEY_LOW`]'s).
    fn eval_slot(&self, key: u64) -> usize {
        key as usize & (self.evals.len().max(1) - 1)
    }

    fn slot(&self, key: u64) -> usize {
        key as usize & (self.entries.len().max(1) - 1)
    }

    /// Asks the processor to start loading `key`'s entry and its static evaluation's slot (which
    /// keys that differ only above [`EVAL_KEY_LOW`] share), so that a probe a little later
    /// (after the move generation in between) finds them in the cache, not in memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if let (Some(entry), Some(eval)) = (self.entries.get(self.slot(key)), self.evals.get(self.eval_slot(key))) {
            // SAFETY: `_mm_prefetch` only hints the cache; it reads nothing and cannot fault, and
            // the pointers are to live elements of `entries` and `evals` besides.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>((entry as *const Slot).cast());
                _mm_prefetch::<_MM_HINT_T0>((eval as *const u64).cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = self.entries.get(self.slot(key))?;
        if slot.key != key {
            return None;
        }
        slot.unpack()
    }

    pub fn store(&mut self, entry: Entry) {
        let index = self.slot(entry.key);
        let Some(slot) = self.entries.get_mut(index) else {
            return;
        };
        // Keep a deeper result for the same position; otherwise the newest wins.
        if let Some(old) = slot.unpack() {
            if old.key == entry.key && old.depth > entry.depth && entry.bound != Bound::Exact {
                return;
            }
        }
        *slot = Slot::pack(&entry);
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table").field("bits", &self.bits).field("allocated", &!self.entries.is_empty()).finish()
    }
}

/// Tables lent to searches and shared by many engines (a server's bot seats), so memory is
/// held by the searches under way and by at most `keep` idle tables, not by every engine that
/// has ever searched. A table comes back with what it learnt; entries of another game are
/// harmless, as every probe checks the full key.
#[derive(Clone, Debug)]
pub struct TablePool {
    idle: Arc<Mutex<Vec<Table>>>,
    bits: u32,
    keep: usize,
}

impl TablePool {
    /// A pool of tables of 2^bits entries (clamped to 10..=26) that keeps at most `keep` idle.
    pub fn new(bits: u32, keep: usize) -> TablePool {
        TablePool { idle: Arc::new(Mutex::new(Vec::new())), bits: bits.clamp(10, 26), keep }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Table>> {
        // A list of tables cannot be left inconsistent by a panic elsewhere.
        self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A table for one search: an idle one, or a new one.
    pub fn take(&self) -> Table {
        self.idle().pop().unwrap_or_else(|| Table::new(self.bits))
    }

    /// Gives a table back after a search; beyond `keep` idle ones it is freed.
    pub fn give(&self, table: Table) {
        let mut idle = self.idle();
        if idle.len() < self.keep {
            idle.push(table);
        }
    }

    /// Idle tables held now.
    pub fn idle_count(&self) -> usize {
        self.idle().len()
    }
}

/// `len` empty entries, on 2 MiB pages where Linux gives them.
///
/// The table is read at a random place at every node, and 8 MiB on 4 KiB pages is more than
/// the processor's cache of page addresses (its TLB) covers. `perf record` found the search
/// stalled at the prefetch of a child's slot, which cannot finish before its page walk (a
/// reading of the profile, not a count: this machine's TLB counters cannot be read). Linux
/// commonly gives huge pages only to memory that asks for them (transparent huge pages in
/// "madvise" mode), and only before it is first touched.
fn huge_page_vec(len: usize) -> Vec<Slot> {
    let mut entries = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    {
        let start = entries.as_mut_ptr() as usize;
        let end = start + len * std::mem::size_of::<Slot>();
        // SAFETY: sysconf only reads a system setting.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(1);
        // Whole pages inside the allocation only: advice on a page past its ends would be
        // advice on another allocation's memory.
        let (first, last) = (start.next_multiple_of(page), end / page * page);
        if first < last {
            // SAFETY: madvise changes no memory; it only tells the kernel how to back these
            // pages, all inside `entries`' allocation. If it fails (huge pages off, an old
            // kernel) the table stays on ordinary pages, so its result is not needed.
            unsafe { libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE) };
        }
    }
    entries.resize(len, Slot::default());
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_of_every_size_start_empty_and_keep_what_is_stored() {
        // From a table smaller than a page (no page to advise) to one of many huge pages.
        for len in [1, 3, 1 << 10, 1 << 15, (1 << 17) + 5] {
            let entries = huge_page_vec(len);
            assert_eq!(entries.len(), len);
            assert!(entries.iter().all(|slot| slot.unpack().is_none()));
        }
        let mut table = Table::new(20);
        table.allocate();
        let entry = Entry { key: 0xDEAD_BEEF_1234_5678, best: None, score: 17, depth: 5, bound: Bound::Exact };
        table.store(entry);
        assert_eq!(table.probe(entry.key).map(|e| (e.score, e.depth)), Some((17, 5)));
        assert!(table.probe(entry.key ^ 1 << 40).is_none());
    }

    #[test]
    fn an_entry_comes_back_as_it_was_stored() {
        let square = |i: u8| Square::new_unchecked(i);
        let moves = [
            None,
            Some(Move::new(square(12), square(28))),
            Some(Move::new(square(63), square(0))),
            Some(Move::with_promotion(square(52), square(60), Role::Queen)),
            Some(Move::with_promotion(square(9), square(1), Role::Ferz)),
        ];
        let scores = [0, 1, -1, 31_000, -30_000 - 127, 29_000, i32::from(i16::MAX)];
        let bounds = [Bound::Exact, Bound::Lower, Bound::Upper];
        for (i, best) in moves.into_iter().enumerate() {
            for (j, &score) in scores.iter().enumerate() {
                for (k, &bound) in bounds.iter().enumerate() {
                    let key = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul((i * 100 + j * 10 + k + 1) as u64);
                    let entry = Entry { key, best, score, depth: (j * 20) as i32, bound };
                    let back = Slot::pack(&entry).unpack().expect("a stored entry is there");
                    assert_eq!(
                        (back.key, back.best, back.score, back.depth, back.bound),
                        (key, best, score, entry.depth, bound)
                    );
                }
            }
        }
        assert!(Slot::default().unpack().is_none(), "an empty slot holds nothing, whatever its key");
    }
}
