//! One server per database file: `<db>.lock` beside it, locked (`flock`) for as long as the
//! server runs and holding its process id, so a second server on the same file stops at start
//! and says which process holds it. Two servers on one file would interleave their writes and
//! leave games that cannot be replayed.
//!
//! The operating system drops the lock when the process ends, however it ends, so a crash
//! leaves no stale lock behind. SQLite's own locking is not used for this: its exclusive mode
//! would also shut out online backups (`sqlite3 gambit.db .backup`).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::server::store::StoreError;

/// The lock on a database file, held until dropped.
#[derive(Debug)]
pub struct DbLock {
    _file: File,
}

/// Locks the database at `path` for this process (`:memory:` needs no lock).
pub fn lock(path: &str) -> Result<Option<DbLock>, StoreError> {
    if path == ":memory:" {
        return Ok(None);
    }
    let lock_path = lock_path(Path::new(path));
    let failed = |e: std::io::Error| StoreError::Open {
        path: path.to_string(),
        message: format!("{}: {e}", lock_path.display()),
    };
    let mut file =
        OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&lock_path).map_err(failed)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            return Err(StoreError::Locked { path: path.to_string(), pid: text.trim().parse().ok() });
        }
        Err(TryLockError::Error(e)) => return Err(failed(e)),
    }
    // Ours now: note who holds it, for the message a second server shows.
    file.set_len(0).and_then(|()| file.seek(SeekFrom::Start(0))).map_err(failed)?;
    writeln!(file, "{}", std::process::id()).and_then(|()| file.flush()).map_err(failed)?;
    Ok(Some(DbLock { _file: file }))
}

/// The lock file of the database at `path`: beside the real file, symbolic links followed, so
/// every name that leads to one database shares one lock. (A hard link is a second real name
/// and is not caught; nobody makes those by accident.)
fn lock_path(path: &Path) -> PathBuf {
    let real = std::fs::canonicalize(path).ok().or_else(|| {
        // Not created yet: the real folder, and the name in it.
        let folder = path.parent().filter(|f| !f.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(std::fs::canonicalize(folder).ok()?.join(path.file_name()?))
    });
    let mut lock = real.unwrap_or_else(|| path.to_path_buf()).into_os_string();
    lock.push(".lock");
    PathBuf::from(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_file_is_refused_with_the_holder() {
        let dir = std::env::temp_dir().join(format!("gambit-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let db = dir.join("games.db").to_string_lossy().into_owned();
        std::fs::write(&db, b"").expect("database file");
        let held = lock(&db).expect("first lock").expect("a file lock");
        match lock(&db) {
            Err(StoreError::Locked { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("second lock: {other:?}"),
        }
        // Another name for the same file shares its lock.
        let link = dir.join("link.db");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(dir.join("games.db"), &link).expect("symlink");
        assert!(matches!(lock(&link.to_string_lossy()), Err(StoreError::Locked { .. })));
        drop(held);
        assert!(lock(&db).expect("free again").is_some());
        assert!(lock(":memory:").expect("memory").is_none());
        let _ = std::fs::remove_dir_all(dir);
    }
}
