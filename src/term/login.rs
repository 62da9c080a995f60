//! `gambit play --login USER`: logs in over HTTP (`POST /api/login`), asking for the password
//! without echoing it, and keeps the session token in the user's config directory
//! (`$XDG_CONFIG_HOME/gambit/sessions.json`, else `~/.config/gambit/`), one per server, in a
//! file only the user can read. Every later connection to that server carries the session as
//! its cookie, so the player plays under their username and their seats follow the account.
//! `gambit play --token TOKEN` (or `GAMBIT_TOKEN`) plays as a personal API token's account
//! instead: the token goes in each connection's `Authorization` header and is kept nowhere.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

use axum::body::Body;
use hyper::header;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::TermError;

/// The environment variable a script may give the password in (no terminal to ask on).
pub const PASSWORD_VAR: &str = "GAMBIT_PASSWORD";
/// The cookie the server keeps the session in.
const COOKIE: &str = "gambit_session";

/// The API token this process plays with, if `--token` gave one.
static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Plays every connection of this process as `token`'s account (checked by `--token`'s parser).
pub fn use_token(token: &str) {
    let _ = TOKEN.set(token.to_string());
}

/// The header that says who connects to `url`'s server: the API token given to this process,
/// else the session kept by `--login` for that server.
pub fn credentials_for(url: &str) -> Option<(header::HeaderName, String)> {
    match TOKEN.get() {
        Some(token) => Some((header::AUTHORIZATION, format!("Bearer {token}"))),
        None => cookie_for(url).map(|cookie| (header::COOKIE, cookie)),
    }
}

/// The `host:port` of a `ws://host:port/path` address: the key sessions are kept under.
fn authority(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("ws://")?;
    Some(rest.split('/').next().unwrap_or(rest)).filter(|a| !a.is_empty())
}

/// Where sessions are kept.
fn sessions_file() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("gambit").join("sessions.json"))
}

fn saved() -> BTreeMap<String, String> {
    sessions_file()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// The `Cookie` header value for the session kept for `url`'s server, if there is one.
pub fn cookie_for(url: &str) -> Option<String> {
    let key = authority(url)?;
    saved().get(key).map(|token| format!("{COOKIE}={token}"))
}

/// Keeps `token` as the session for `url`'s server, in a file only the user may read.
fn save(url: &str, token: &str) -> Result<PathBuf, String> {
    let key = authority(url).ok_or("not a ws:// address")?;
    let path = sessions_file().ok_or("no home directory to keep the session in (set HOME or XDG_CONFIG_HOME)")?;
    let dir = path.parent().ok_or("no config directory")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut sessions = saved();
    sessions.insert(key.to_string(), token.to_string());
    let text = serde_json::to_string_pretty(&sessions).map_err(|e| e.to_string())?;
    write_private(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(unix)]
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    if let Some(dir) = path.parent() {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    let mut file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)?;
    // A file made by an older run keeps its mode: make sure.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(text.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

/// The password: from `GAMBIT_PASSWORD`, else asked on the terminal without echo.
fn password(username: &str) -> Result<String, TermError> {
    if let Ok(password) = std::env::var(PASSWORD_VAR) {
        return Ok(password);
    }
    if !std::io::stdin().is_terminal() {
        return Err(TermError::Refused(format!(
            "no terminal to ask for the password on; set {PASSWORD_VAR} to log in from a script"
        )));
    }
    rpassword::prompt_password(format!("Password for {username}: "))
        .map_err(|e| TermError::Refused(format!("could not read the password: {e}")))
}

/// Logs `username` in at `url`'s server and keeps the session; says where.
pub async fn log_in(url: &str, username: &str) -> Result<(), TermError> {
    let host =
        authority(url).ok_or_else(|| TermError::BadUrl { url: url.into(), reason: "not a ws:// address".into() })?;
    let password = password(username)?;
    let token = post_login(host, username, &password).await?;
    let path = save(url, &token).map_err(TermError::Refused)?;
    println!("Logged in as {username} (session kept in {}).", path.display());
    Ok(())
}

/// `POST /api/login`: the session token, or the server's reason.
async fn post_login(host: &str, username: &str, password: &str) -> Result<String, TermError> {
    let fail = |reason: String| TermError::Connect { url: format!("http://{host}/api/login"), reason };
    let stream = TcpStream::connect(host).await.map_err(|e| fail(e.to_string()))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| fail(e.to_string()))?;
    tokio::spawn(connection);
    let body = serde_json::json!({ "username": username, "password": password }).to_string();
    let request = hyper::Request::post("/api/login")
        .header(header::HOST, host)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .map_err(|e| fail(e.to_string()))?;
    let response = sender.send_request(request).await.map_err(|e| fail(e.to_string()))?;
    let status = response.status();
    let token = response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| cookie::Cookie::parse(v.to_string()).ok())
        .find(|c| c.name() == COOKIE)
        .map(|c| c.value().to_string());
    let bytes = axum::body::to_bytes(Body::new(response.into_body()), 64 * 1024).await.unwrap_or_default();
    if let (true, Some(token)) = (status.is_success(), token) {
        return Ok(token);
    }
    let reason = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| format!("the server answered {status}"));
    Err(TermError::Refused(format!("could not log in: {reason}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_kept_per_server() {
        assert_eq!(authority("ws://127.0.0.1:8080/ws"), Some("127.0.0.1:8080"));
        assert_eq!(authority("ws://chess.example/ws"), Some("chess.example"));
        assert_eq!(authority("http://x/ws"), None);
        assert_eq!(authority("ws:///ws"), None);
    }
}
