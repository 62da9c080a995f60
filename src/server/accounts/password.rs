//! Password hashing: Argon2id with the crate's default parameters (19 MiB, 2 passes), run on
//! the blocking pool so a log-in never stalls the connections sharing a worker thread.

use std::sync::OnceLock;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use super::AccountError;

/// The PHC string (algorithm, parameters, salt and hash) of `password`.
pub(super) async fn hash(password: String) -> Result<String, AccountError> {
    tokio::task::spawn_blocking(move || hash_now(&password)).await.map_err(|e| AccountError::Hash(e.to_string()))?
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

/// True if `password` matches `stored`. With no stored hash (an unknown username) a hash made
/// for the purpose is checked instead, so the answer takes as long either way.
pub(super) async fn verify(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let decoy = stored.is_none();
        let stored = match stored {
            Some(stored) => stored,
            None => decoy_hash().to_string(),
        };
        let Ok(parsed) = PasswordHash::new(&stored) else { return false };
        Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && !decoy
    })
    .await
    .unwrap_or(false)
}

/// A hash of a random password, made once, to check unknown usernames against.
fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| hash_now(&super::new_token()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_checks_its_own_password_only() {
        let stored = hash("correct horse".into()).await.expect("hash");
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert!(verify("correct horse".into(), Some(stored.clone())).await);
        assert!(!verify("wrong horse".into(), Some(stored.clone())).await);
        assert!(!verify("correct horse".into(), None).await, "unknown user");
        assert!(!verify("x".into(), Some("not a hash".into())).await);
        assert_ne!(stored, hash("correct horse".into()).await.expect("hash"), "salted");
    }
}
