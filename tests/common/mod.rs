//! Shared by the test crates: reading the perft data files in tests/data, and whether an
//! outside program a test needs is installed.

#![allow(dead_code)] // each test crate uses a different part

use std::path::Path;

/// One line of an EPD perft file: a FEN and the node counts at depths 1, 2, ….
pub struct PerftCase {
    pub fen: String,
    pub counts: Vec<u64>,
    pub line: usize,
}

/// Parses `FEN ;D1 n ;D2 n ...` lines; `#` starts a comment line.
pub fn load(file: &str) -> Vec<PerftCase> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap_or_default().trim().to_string();
        let counts = parts
            .enumerate()
            .map(|(d, part)| {
                let (tag, n) = part.trim().split_once(' ').unwrap_or_else(|| panic!("{file}:{}: bad field", i + 1));
                assert_eq!(tag, format!("D{}", d + 1), "{file}:{}: depths must run 1, 2, …", i + 1);
                n.trim().parse().unwrap_or_else(|_| panic!("{file}:{}: bad count", i + 1))
            })
            .collect();
        cases.push(PerftCase { fen, counts, line: i + 1 });
    }
    assert!(!cases.is_empty(), "{file} has no positions");
    cases
}

/// True if the program at `path` (an engine a test plays) is installed. With CI=true a missing
/// one fails the test instead: `.ci/run` installs it.
pub fn installed(path: &str) -> bool {
    if Path::new(path).exists() {
        return true;
    }
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{path} is missing; .ci/run installs it");
    eprintln!("skipped: {path} is not installed");
    false
}
