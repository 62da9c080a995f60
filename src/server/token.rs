//! Seat tokens: 128-bit secrets handed to a seat's holder, and the SHA-256 hashes the server
//! keeps of them. Only the hash is held in memory and in the store, so a copy of the database
//! lets nobody act for a player.

use rand::rngs::OsRng;
use rand::{Rng, TryRngCore};
use sha2::{Digest, Sha256};

/// A new seat token: 128 bits from the operating system's random source, as 32 hex digits.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    if OsRng.try_fill_bytes(&mut bytes).is_err() {
        // The thread RNG is a CSPRNG seeded from the OS too; only used if the OS source fails.
        rand::rng().fill(&mut bytes);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of a token. A plain hash is enough: tokens are 128 random bits, so there is no
/// dictionary to try, and checking one must stay cheap.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TokenHash(pub [u8; 32]);

impl TokenHash {
    /// The hash of `token`.
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }

    /// True if `token` hashes to this, compared in time independent of where they differ.
    pub fn matches(&self, token: &str) -> bool {
        self.same_as(&TokenHash::of(token))
    }

    /// True if the two hashes are equal, compared in time independent of where they differ.
    pub fn same_as(&self, other: &TokenHash) -> bool {
        self.0.iter().zip(other.0.iter()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    /// The hash as 64 hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The hash read back from stored bytes, if there are 32 of them.
    pub fn from_slice(bytes: &[u8]) -> Option<TokenHash> {
        bytes.try_into().ok().map(TokenHash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_distinct_and_checked_by_hash() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        let hash = TokenHash::of(&a);
        assert!(hash.matches(&a));
        assert!(!hash.matches(&b));
        assert!(!hash.matches(""));
        assert_eq!(TokenHash::from_slice(&hash.0), Some(hash));
        assert_eq!(TokenHash::from_slice(&[1, 2, 3]), None);
        // The known SHA-256 of "abc", so the stored form never changes by accident.
        let abc = TokenHash::of("abc").0.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
