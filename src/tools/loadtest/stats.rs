//! What a run counts, shared by all its client tasks: latencies in HDR histograms (sharded so
//! thousands of tasks rarely wait on one lock), event and error counters, and a clock that
//! every task reads so that a send in one task and a receipt in another can be compared.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use hdrhistogram::{CreationError, Histogram};
use serde::Serialize;

/// The latencies measured.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Metric {
    /// From a player's `move` send to a spectator's receipt of the event.
    Spectator = 0,
    /// From a player's `move` send to the opponent's receipt of the event.
    Opponent = 1,
    /// From a player's `move` send to its `ack`.
    Ack = 2,
}

const METRICS: usize = 3;

/// Latencies are kept in microseconds, from 1 µs to an hour, to three significant figures.
const MAX_MICROS: u64 = 3_600_000_000;

/// Enough shards that the runtime's worker threads seldom meet on one.
const SHARDS: usize = 16;

/// One shard: the whole run's histograms, and those since the progress line last looked.
struct Shard {
    total: Vec<Histogram<u64>>,
    recent: Vec<Histogram<u64>>,
}

/// An empty histogram of the run's bounds. hdrhistogram checks the bounds at run time, so
/// even constant ones come back as a Result.
fn histogram() -> Result<Histogram<u64>, CreationError> {
    Histogram::new_with_bounds(1, MAX_MICROS, 3)
}

fn histograms() -> Result<Vec<Histogram<u64>>, CreationError> {
    (0..METRICS).map(|_| histogram()).collect()
}

/// Counters and histograms of one run.
pub struct Stats {
    epoch: Instant,
    shards: Vec<Mutex<Shard>>,
    errors: Mutex<BTreeMap<String, u64>>,
    /// Connections opened and still open (or closed by the tool at the end).
    pub open: AtomicU64,
    /// Connections that could not be opened.
    pub failed: AtomicU64,
    /// Moves sent by the scripted players.
    pub moves: AtomicU64,
    /// Game events (versioned messages) received, by anyone.
    pub events: AtomicU64,
    /// Events never received (version gaps and missing tails).
    pub lost: AtomicU64,
    /// Events received with a version not after the last one.
    pub out_of_order: AtomicU64,
    /// Unrequested `state` messages: the server's answer to a connection that fell behind.
    pub resyncs: AtomicU64,
    /// Games created (and joined) by the scripted players.
    pub games_started: AtomicU64,
    /// Games that ended (checkmate, repetition, …) during the run.
    pub games_finished: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking client task cannot leave a counter half-written; keep counting.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Stats {
    pub fn new() -> Result<Stats, CreationError> {
        let shards = (0..SHARDS)
            .map(|_| Ok(Mutex::new(Shard { total: histograms()?, recent: histograms()? })))
            .collect::<Result<_, CreationError>>()?;
        Ok(Stats {
            epoch: Instant::now(),
            shards,
            errors: Mutex::new(BTreeMap::new()),
            open: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            moves: AtomicU64::new(0),
            events: AtomicU64::new(0),
            lost: AtomicU64::new(0),
            out_of_order: AtomicU64::new(0),
            resyncs: AtomicU64::new(0),
            games_started: AtomicU64::new(0),
            games_finished: AtomicU64::new(0),
        })
    }

    /// Microseconds since the run began: the clock all tasks share.
    pub fn now_us(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    /// Records a latency ending now for an action that began at `since_us`; `key` spreads the
    /// callers over the shards (any number that differs between tasks).
    pub fn record_since(&self, metric: Metric, key: usize, since_us: u64) {
        let micros = self.now_us().saturating_sub(since_us).max(1);
        let mut shard = lock(&self.shards[key % SHARDS]);
        shard.total[metric as usize].saturating_record(micros);
        shard.recent[metric as usize].saturating_record(micros);
    }

    /// Counts one error under `kind` (a protocol error code or a connection failure).
    pub fn error(&self, kind: &str) {
        *lock(&self.errors).entry(kind.to_string()).or_insert(0) += 1;
    }

    /// The errors counted, by kind.
    pub fn errors(&self) -> BTreeMap<String, u64> {
        lock(&self.errors).clone()
    }

    /// Adds one to a counter.
    pub fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Adds `n` to a counter.
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Reads a counter.
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }

    /// The whole run's latencies of `metric`.
    pub fn summary(&self, metric: Metric) -> Latency {
        let mut all = Histogram::new_from(&lock(&self.shards[0]).total[metric as usize]);
        for shard in &self.shards {
            let _ = all.add(&lock(shard).total[metric as usize]);
        }
        Latency::of(&all)
    }

    /// The latencies of `metric` since the last call, for the progress line.
    pub fn take_recent(&self, metric: Metric) -> Latency {
        let mut all = Histogram::new_from(&lock(&self.shards[0]).recent[metric as usize]);
        for shard in &self.shards {
            let mut shard = lock(shard);
            let _ = all.add(&shard.recent[metric as usize]);
            shard.recent[metric as usize].reset();
        }
        Latency::of(&all)
    }
}

/// A latency distribution in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    pub count: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
}

impl Latency {
    /// The distribution of `times`.
    pub fn of_durations(times: &[std::time::Duration]) -> Result<Latency, CreationError> {
        let mut h = histogram()?;
        for t in times {
            h.saturating_record(u64::try_from(t.as_micros()).unwrap_or(u64::MAX).max(1));
        }
        Ok(Latency::of(&h))
    }

    fn of(h: &Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        let ms = |micros: u64| micros as f64 / 1000.0;
        Latency {
            count: h.len(),
            p50_ms: ms(h.value_at_quantile(0.50)),
            p99_ms: ms(h.value_at_quantile(0.99)),
            max_ms: ms(h.max()),
            mean_ms: h.mean() / 1000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_latencies_over_shards() -> Result<(), CreationError> {
        let stats = Stats::new()?;
        let now = stats.now_us();
        for key in 0..100 {
            stats.record_since(Metric::Ack, key, now);
        }
        let ack = stats.summary(Metric::Ack);
        assert_eq!(ack.count, 100);
        assert!(ack.p50_ms <= ack.p99_ms && ack.p99_ms <= ack.max_ms);
        assert_eq!(stats.summary(Metric::Spectator).count, 0);
        assert_eq!(stats.take_recent(Metric::Ack).count, 100);
        assert_eq!(stats.take_recent(Metric::Ack).count, 0, "recent resets");
        assert_eq!(stats.summary(Metric::Ack).count, 100, "the total stays");
        Ok(())
    }

    #[test]
    fn tallies_errors_by_kind() -> Result<(), CreationError> {
        let stats = Stats::new()?;
        stats.error("rate_limited");
        stats.error("rate_limited");
        stats.error("connect:timeout");
        let errors = stats.errors();
        assert_eq!(errors.get("rate_limited"), Some(&2));
        assert_eq!(errors.len(), 2);
        Ok(())
    }
}
