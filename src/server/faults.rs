//! Fault points for crash tests: the server stops dead, as a SIGKILL would stop it (no
//! destructors, no flushing), at a named point when the environment variable `GAMBIT_FAULT`
//! names it. Tests set it on the real binary to stop between the steps of a change that must
//! be all or nothing (tests/server/restart.rs), rather than hope a kill lands there by chance.
//! Unset, as in normal use, a point costs one read of a flag set once.

use std::sync::OnceLock;

/// The environment variable naming the point to stop at.
pub const VARIABLE: &str = "GAMBIT_FAULT";

/// Stops the process at once if `point` is the one `GAMBIT_FAULT` names.
pub fn hit(point: &str) {
    static ARMED: OnceLock<Option<String>> = OnceLock::new();
    if ARMED.get_or_init(|| std::env::var(VARIABLE).ok().filter(|p| !p.is_empty())).as_deref() == Some(point) {
        eprintln!("gambit: stopping at fault point {point} ({VARIABLE})");
        std::process::abort();
    }
}
