//! Real services for the tests, started by the tests themselves on free loopback ports and
//! stopped when the test process ends: PostgreSQL (one server per test binary, a fresh
//! database per test) and nginx (the shipped deploy/nginx.conf in front of test servers).
//!
//! When a service's programs are not installed the tests that need it are skipped with a note,
//! except under CI (`CI=true`), where a missing service fails the run: `.ci/run` installs them.

#![allow(dead_code)] // each test crate uses a different part

pub mod nginx;
pub mod postgres;
pub mod redis;

use std::path::PathBuf;

/// Whether the tests run under CI, where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A service cannot be had: fails the test under CI, else prints a note (the caller skips).
pub fn missing(service: &str, why: &str) {
    assert!(!in_ci(), "{service} is needed by this test under CI=true, but {why}");
    eprintln!("note: {service} tests skipped: {why} (install it, or run .ci/run)");
}

/// The first `program` on the PATH.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| p.exists())
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

/// True when this process runs as root (PostgreSQL refuses to).
pub fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// A fresh scratch directory for a service of this process.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gambit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Runs `stop` and removes `dir` once this test process has ended, however it ends: a watcher
/// shell outlives us just long enough to clean up, since a Rust test binary runs no
/// destructors for its statics (and none at all when it is killed).
pub fn supervise(stop: &str, dir: &std::path::Path) -> std::process::Child {
    let parent = std::process::id();
    let script = format!(
        "while kill -0 {parent} 2>/dev/null; do sleep 0.3; done\n\
         {stop} >/dev/null 2>&1\n\
         rm -rf '{}'\n",
        dir.display()
    );
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start a watcher")
}
