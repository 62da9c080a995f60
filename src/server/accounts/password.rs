//! Password hashing: Argon2id with the crate's default parameters (19 MiB, 2 passes), run on
//! the blocking pool so a log-in never stalls the connections sharing a worker thread, and
//! never more than a few at once: each hash holds 19 MiB while it runs, so a crowd of log-ins
//! (unknown names too: they are checked against a decoy) would otherwise take memory without
//! bound. Excess requests wait a short while for a turn, then are turned away.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use tokio::sync::Semaphore;

use super::AccountError;

/// The server's hashing: how many may run at once, and how long a request waits for its turn.
pub(super) struct Hasher {
    turns: Arc<Semaphore>,
    wait: Duration,
}

impl Hasher {
    pub(super) fn new(at_once: usize, wait: Duration) -> Hasher {
        return_big_blocks_when_freed();
        let at_once = at_once.max(1);
        Hasher { turns: Arc::new(Semaphore::new(at_once)), wait }
    }

    /// The PHC string (algorithm, parameters, salt and hash) of `password`.
    pub(super) async fn hash(&self, password: String) -> Result<String, AccountError> {
        self.run(move || hash_now(&password)).await?
    }

    /// True if `password` matches `stored`. With no stored hash (an unknown username) a hash
    /// made for the purpose is checked instead, so the answer takes as long either way.
    pub(super) async fn verify(&self, password: String, stored: Option<String>) -> Result<bool, AccountError> {
        self.run(move || {
            let decoy = stored.is_none();
            let stored = match stored {
                Some(stored) => stored,
                None => decoy_hash().to_string(),
            };
            let Ok(parsed) = PasswordHash::new(&stored) else { return false };
            Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && !decoy
        })
        .await
    }

    /// Runs `work` on the blocking pool once a turn is free, or refuses with `Busy` after
    /// waiting `wait` for one.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, AccountError> {
        let turn = match tokio::time::timeout(self.wait, self.turns.clone().acquire_owned()).await {
            Ok(Ok(turn)) => turn,
            // Closed never happens (nothing closes it); timing out is the crowd's answer.
            Ok(Err(_)) | Err(_) => return Err(AccountError::Busy(self.wait.as_secs().max(1))),
        };
        // The turn goes with the work: a request given up on while its hash runs still holds
        // it until the hash is done.
        tokio::task::spawn_blocking(move || {
            let done = work();
            drop(turn);
            done
        })
        .await
        .map_err(|e| AccountError::Hash(e.to_string()))
    }
}

fn hash_now(password: &str) -> Result<String, AccountError> {
    let mut bytes = [0u8; 16];
    super::fill_random(&mut bytes);
    let salt = SaltString::encode_b64(&bytes).map_err(|e| AccountError::Hash(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| AccountError::Hash(e.to_string()))
}

/// A hash of a random password, made once, to check unknown usernames against.
fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| hash_now(&super::new_token()).unwrap_or_default())
}

/// Makes every allocation of 1 MiB or more a mapping of its own, returned to the system when
/// freed. Each hash allocates and frees a 19 MiB block on whichever blocking thread runs it;
/// glibc's default threshold rises to the largest block freed, after which such blocks come
/// from the thread's arena and stay cached there when freed: one per thread the blocking pool
/// ever ran a hash on (measured: 600 MiB after a burst of 60 log-ins, with two hashing at
/// once). A fixed threshold keeps the hashing memory to the hashes running.
fn return_big_blocks_when_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt only sets one of the allocator's parameters; it is thread-safe.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_checks_its_own_password_only() {
        let hasher = Hasher::new(2, Duration::from_secs(5));
        let stored = hasher.hash("correct horse".into()).await.expect("hash");
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert!(hasher.verify("correct horse".into(), Some(stored.clone())).await.expect("turn"));
        assert!(!hasher.verify("wrong horse".into(), Some(stored.clone())).await.expect("turn"));
        assert!(!hasher.verify("correct horse".into(), None).await.expect("turn"), "unknown user");
        assert!(!hasher.verify("x".into(), Some("not a hash".into())).await.expect("turn"));
        assert_ne!(stored, hasher.hash("correct horse".into()).await.expect("hash"), "salted");
    }

    #[tokio::test]
    async fn a_crowd_waits_for_its_turn_then_is_turned_away() {
        let hasher = Arc::new(Hasher::new(1, Duration::from_millis(1)));
        // One hash holds the only turn; the others cannot get one within a millisecond.
        let held = hasher.turns.clone().acquire_owned().await.expect("turn");
        let refused = hasher.hash("correct horse".into()).await;
        assert!(matches!(refused, Err(AccountError::Busy(1))), "{refused:?}");
        drop(held);
        assert!(hasher.hash("correct horse".into()).await.is_ok(), "a free turn is taken");
    }
}
