//! How many long-lived streams (the API's event and game streams) one caller may hold open at
//! once: a program that opens stream after stream without closing them is refused rather than
//! left to hold the server's tasks and sockets.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// The open streams per caller.
pub struct StreamSlots<K: Hash + Eq + Copy + Send + 'static> {
    max: usize,
    open: Arc<Mutex<HashMap<K, usize>>>,
}

/// One open stream; closing it (dropping this) frees the slot.
pub struct StreamSlot<K: Hash + Eq + Copy + Send + 'static> {
    key: K,
    open: Arc<Mutex<HashMap<K, usize>>>,
}

impl<K: Hash + Eq + Copy + Send + 'static> StreamSlots<K> {
    /// At most `max` streams per caller.
    pub fn new(max: usize) -> StreamSlots<K> {
        StreamSlots { max, open: Arc::default() }
    }

    /// A slot for one more stream of `key`, or None if it holds `max` already.
    pub fn open(&self, key: K) -> Option<StreamSlot<K>> {
        // Counts only: a panic elsewhere leaves nothing half-changed that matters.
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(key).or_default();
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(StreamSlot { key, open: self.open.clone() })
    }
}

impl<K: Hash + Eq + Copy + Send + 'static> Drop for StreamSlot<K> {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_holds_at_most_so_many_streams() {
        let slots = StreamSlots::new(2);
        let a = slots.open(1).expect("first");
        let _b = slots.open(1).expect("second");
        assert!(slots.open(1).is_none(), "a third");
        let _other = slots.open(2).expect("another caller's");
        drop(a);
        assert!(slots.open(1).is_some(), "a slot freed");
        assert_eq!(slots.open.lock().map(|m| m.get(&1).copied()).ok().flatten(), Some(1));
    }
}
