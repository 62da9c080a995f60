//! The SQLite store's own cases; the contract every store keeps is tests/server/store.rs.

use super::*;

#[test]
fn a_file_from_a_newer_server_is_refused_with_a_reason() {
    let dir = std::env::temp_dir().join(format!("gambit-newer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("newer.db");
    let _ = std::fs::remove_file(&path);
    {
        let conn = Connection::open(&path).expect("create");
        conn.pragma_update(None, "user_version", schema::LATEST as i64 + 1).expect("version");
    }
    let err = SqliteStore::open(path.to_str().expect("utf-8")).err().expect("refused");
    assert!(err.to_string().contains("newer gambit"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
