//! One small helper of the async parts (server, terminal client, load generator): waiting for
//! a moment that may not be set.

use tokio::time::Instant;

/// Sleeps until `at`, or forever when there is nothing scheduled — for a `select!` branch whose
/// timer is optional.
pub async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
