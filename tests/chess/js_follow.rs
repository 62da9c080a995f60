//! The web client's JavaScript checks, run by `cargo test`: Node's built-in test runner over
//! tests/js/ — the game follower (client/js/follow.js) against the shared cases of
//! tests/data/protocol/follow.json, the move numbering of the move list, the display-name
//! check and how seats are named.
//!
//! Without Node.js this test fails when CI=true (CI must run the checks) and is skipped with a
//! note otherwise. `apt-get install nodejs` installs it.

use std::path::Path;
use std::process::Command;

#[test]
fn javascript_checks_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if Command::new("node").arg("--version").output().is_err() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("node is required in CI to run tests/js: apt-get install -y nodejs");
        }
        eprintln!("note: skipping the JavaScript checks: node not found (apt-get install nodejs)");
        return;
    }
    // The files by name: `node --test DIR` searches DIR on Node 20, but Node 21 and later take
    // the argument as a pattern and would try to run the directory itself.
    let mut files: Vec<String> = std::fs::read_dir(root.join("tests/js"))
        .expect("tests/js")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".test.mjs")))
        .map(|p| p.strip_prefix(root).unwrap_or(&p).display().to_string())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no tests/js/*.test.mjs");
    let output = Command::new("node").arg("--test").args(&files).current_dir(root).output().expect("run node --test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "node --test {} failed:\n{stdout}\n{stderr}", files.join(" "));
}
