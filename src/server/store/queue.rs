//! The write queue both stores share: changes are queued in the order they are recorded, and
//! their writer commits whatever has queued up in one transaction (group commit), then answers
//! the other jobs (reads, closing) that came with them, in order.

use futures::future::BoxFuture;
use tokio::sync::oneshot;

use super::{StoreError, StoreEvent};

/// The most changes one transaction commits.
pub(super) const MAX_BATCH: usize = 512;

/// A change waiting to be committed, and who waits for it.
pub(super) struct Write {
    pub(super) game: String,
    pub(super) event: StoreEvent,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// Work for a store's writer: a change, or another job `T` that waits for the changes queued
/// before it.
pub(super) enum Job<T> {
    Write(Write),
    Then(T),
}

/// Queues a change with `send` (false if the writer is gone); the future says when it is
/// committed. Dropping the future still lets the change be written.
pub(super) fn record<T>(
    send: impl FnOnce(Job<T>) -> bool,
    game: &str,
    event: StoreEvent,
) -> BoxFuture<'static, Result<(), StoreError>> {
    let (done, committed) = oneshot::channel();
    let sent = send(Job::Write(Write { game: game.to_string(), event, done }));
    Box::pin(async move {
        if !sent {
            return Err(StoreError::Closed);
        }
        committed.await.unwrap_or(Err(StoreError::Closed))
    })
}

/// Sorts `first` and whatever else is queued already (`next`, until it has nothing or the
/// batch is full) into the changes to commit together and the jobs to run after them.
pub(super) fn gather<T>(
    first: Job<T>,
    mut next: impl FnMut() -> Option<Job<T>>,
    writes: &mut Vec<Write>,
    then: &mut Vec<T>,
) {
    let mut job = Some(first);
    while let Some(current) = job.take() {
        match current {
            Job::Write(write) => writes.push(write),
            Job::Then(other) => then.push(other),
        }
        if writes.len() < MAX_BATCH {
            job = next();
        }
    }
}

/// Tells each writer of a batch how its change went: `results` has one per change, or the
/// whole transaction failed for the reason given.
pub(super) fn answer(writes: &mut Vec<Write>, results: Result<Vec<Result<(), StoreError>>, String>) {
    let results = results.unwrap_or_else(|message| {
        tracing::error!(error = %message, "store commit failed");
        writes.iter().map(|_| Err(StoreError::Write(message.clone()))).collect()
    });
    for (write, result) in writes.drain(..).zip(results) {
        if let Err(e) = &result {
            tracing::error!(game = %write.game, error = %e, "change not stored");
        }
        let _ = write.done.send(result);
    }
}
