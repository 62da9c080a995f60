//! The gambit of a commit, for `gambit:@REV` players: its tree exported with `git archive` and
//! built once with `cargo build --release` into `target/match-builds/HASH/` of this checkout,
//! where later matches find it again.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The release binary of gambit at `rev` (anything `git rev-parse` reads), built if it is not
/// there yet. The build's own output goes to stderr, as a build's does.
pub fn binary_at(rev: &str) -> Result<String, String> {
    let top = git(&["rev-parse", "--show-toplevel"]).map_err(|_| {
        format!("gambit:@{rev} builds a commit of this repository: run the match inside gambit's git checkout")
    })?;
    let hash = git(&["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])
        .map_err(|_| format!("gambit:@{rev}: no such commit in {top}"))?;
    let dir = Path::new(&top).join("target").join("match-builds").join(&hash);
    let binary = dir.join("target").join("release").join("gambit");
    if binary.is_file() {
        return Ok(binary.display().to_string());
    }
    let source = dir.join("src");
    export(&hash, &source)?;
    eprintln!("building gambit at {} in {} (once; later matches use it)", &hash[..12.min(hash.len())], dir.display());
    let built = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(source.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(dir.join("target"))
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("gambit:@{rev}: cannot run cargo to build it: {e}"))?;
    if !built.success() || !binary.is_file() {
        return Err(format!("gambit:@{rev}: the build of {hash} failed (its output is above)"));
    }
    Ok(binary.display().to_string())
}

/// `git ARGS`' one line of output, or why there is none.
fn git(args: &[&str]) -> Result<String, String> {
    let out = Command::new("git").args(args).stderr(Stdio::null()).output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() && !text.is_empty() {
        Ok(text)
    } else {
        Err(format!("git {} failed", args.join(" ")))
    }
}

/// Writes the commit's tree into `into` (afresh: a half-written tree from an interrupted
/// export is removed first).
fn export(hash: &str, into: &PathBuf) -> Result<(), String> {
    let fail = |what: String| format!("cannot export commit {hash}: {what}");
    if into.exists() {
        std::fs::remove_dir_all(into).map_err(|e| fail(e.to_string()))?;
    }
    std::fs::create_dir_all(into).map_err(|e| fail(e.to_string()))?;
    let mut archive = Command::new("git")
        .args(["archive", "--format=tar", hash])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| fail(e.to_string()))?;
    let tar_input = archive.stdout.take().ok_or_else(|| fail("no pipe from git archive".into()))?;
    let unpacked = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(tar_input)
        .status()
        .map_err(|e| fail(format!("cannot run tar: {e}")))?;
    let archived = archive.wait().map_err(|e| fail(e.to_string()))?;
    if !archived.success() || !unpacked.success() {
        return Err(fail("git archive | tar failed".into()));
    }
    Ok(())
}
