//! The web client: the files of `client/`, embedded into the binary at build time, served at
//! `/` (the lobby), `/g/{id}` (a game: the same page, its script reads the path) and
//! `/assets/{path}` (CSS, JavaScript modules, icons).
//!
//! Embedding keeps `gambit serve` one self-contained file; `debug-embed` makes debug builds
//! embed too, so tests exercise exactly what a release serves.
//!
//! Caching: the page names its assets under `/assets/v-{VERSION}/…`, VERSION being a digest of
//! every embedded file, and those are served as immutable: a returning visitor's browser asks
//! for the page alone (a 304 when nothing changed), not for each of its modules. A new binary
//! with a changed client has a new VERSION, so new URLs. Modules import each other by relative
//! paths, so they stay under the same prefix. Plain `/assets/…` is still served, revalidated
//! with an ETag each time.

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::Embed;
use sha2::{Digest, Sha256};
use std::sync::LazyLock;

/// Everything under `client/`.
#[derive(Embed)]
#[folder = "client/"]
struct Client;

/// The page's security policy: nothing may load from, or connect to, any other host. This
/// turns "no request to any other host" from a habit into something the browser enforces.
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
                   script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; \
                   frame-ancestors 'none'";

/// `GET /` and `GET /g/{id}`: the single page of the client, naming its assets by version.
pub(super) async fn index(headers: HeaderMap) -> Response {
    let Some(found) = client_file("index.html") else {
        return not_found();
    };
    let page = String::from_utf8_lossy(&found.data).replace("\"/assets/", &format!("\"/assets/v-{}/", version()));
    let etag = etag_of(&Sha256::digest(page.as_bytes()));
    respond((page.into_bytes(), found.metadata.mimetype()), &etag, &headers, NO_CACHE)
}

/// `GET /assets/{*path}`: a static file of the client; under `v-{VERSION}/`, for good.
pub(super) async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let (path, cache) = match path.strip_prefix("v-").and_then(|rest| rest.split_once('/')) {
        // A page from an older binary may still ask for its version: it gets what there is
        // now, revalidated, rather than something kept for a year.
        Some((v, rest)) => (rest.to_string(), if v == version() { IMMUTABLE } else { NO_CACHE }),
        None => (path, NO_CACHE),
    };
    // index.html is only served as a page (at `/` and `/g/{id}`), not as an asset.
    if path == "index.html" {
        return not_found();
    }
    let Some(found) = client_file(&path) else {
        return not_found();
    };
    let etag = etag_of(&found.metadata.sha256_hash());
    respond((found.data.into_owned(), found.metadata.mimetype()), &etag, &headers, cache)
}

/// Revalidate each time (the ETag makes it a round trip, not the bytes).
const NO_CACHE: &str = "no-cache";
/// Keep for a year without asking: the URL changes with the content.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The digest of every embedded client file, naming this build's assets ("dev" while they are
/// read from `GAMBIT_CLIENT_DIR`, which may change under the server).
fn version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        if std::env::var_os("GAMBIT_CLIENT_DIR").is_some() {
            return "dev".to_string();
        }
        let mut hasher = Sha256::new();
        for path in Client::iter() {
            if let Some(file) = Client::get(&path) {
                hasher.update(path.as_bytes());
                hasher.update(file.metadata.sha256_hash());
            }
        }
        hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
    });
    &VERSION
}

fn etag_of(hash: &[u8]) -> String {
    format!("\"{}\"", hash.iter().take(12).map(|b| format!("{b:02x}")).collect::<String>())
}

/// The client's file at `path`: from the directory named by `GAMBIT_CLIENT_DIR` when set (for
/// working on the client: edit, reload, no rebuild), else as embedded in the binary.
fn client_file(path: &str) -> Option<rust_embed::EmbeddedFile> {
    match std::env::var_os("GAMBIT_CLIENT_DIR") {
        Some(dir) => {
            // Only plain relative paths inside the directory: no `..`, no absolute path.
            let relative = std::path::Path::new(path);
            if !relative.components().all(|c| matches!(c, std::path::Component::Normal(_))) {
                return None;
            }
            rust_embed::utils::read_file_from_fs(&std::path::Path::new(&dir).join(relative)).ok()
        }
        None => Client::get(path),
    }
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], "not found\n").into_response()
}

/// Answers with `body` of type `mime`, or 304 when the request's `If-None-Match` names `etag`,
/// with the caching policy `cache` and the page's security headers.
fn respond((body, mime): (Vec<u8>, &str), etag: &str, headers: &HeaderMap, cache: &'static str) -> Response {
    let mut response = if headers.get(header::IF_NONE_MATCH).is_some_and(|tag| tag.as_bytes() == etag.as_bytes()) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        body.into_response()
    };
    let out = response.headers_mut();
    // mime_guess names .js `text/javascript`, what browsers require for module scripts.
    let content_type = if mime.starts_with("text/") || mime == "application/javascript" || mime == "image/svg+xml" {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    };
    if let Ok(value) = HeaderValue::from_str(&content_type) {
        out.insert(header::CONTENT_TYPE, value);
    }
    if let Ok(value) = HeaderValue::from_str(etag) {
        out.insert(header::ETAG, value);
    }
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    out.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    out.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    out.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn serves_the_page_and_assets_with_their_types() {
        let page = index(HeaderMap::new()).await;
        assert_eq!(page.status(), StatusCode::OK);
        assert!(page.headers()[header::CONTENT_TYPE].to_str().unwrap_or("").starts_with("text/html"));
        let etag = page.headers()[header::ETAG].clone();

        let mut again = HeaderMap::new();
        again.insert(header::IF_NONE_MATCH, etag);
        assert_eq!(index(again).await.status(), StatusCode::NOT_MODIFIED);

        let js = asset(Path("js/main.js".into()), HeaderMap::new()).await;
        assert_eq!(js.status(), StatusCode::OK);
        assert!(js.headers()[header::CONTENT_TYPE].to_str().unwrap_or("").starts_with("text/javascript"));
        let css = asset(Path("css/gambit.css".into()), HeaderMap::new()).await;
        assert!(css.headers()[header::CONTENT_TYPE].to_str().unwrap_or("").starts_with("text/css"));

        let missing = asset(Path("../Cargo.toml".into()), HeaderMap::new()).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    }

    #[tokio::test]
    async fn the_page_names_versioned_assets_kept_for_good() {
        let page = index(HeaderMap::new()).await;
        let body = axum::body::to_bytes(page.into_body(), usize::MAX).await.unwrap_or_default();
        let page = String::from_utf8_lossy(&body);
        let prefix = format!("/assets/v-{}/", version());
        assert!(page.contains(&format!("src=\"{prefix}js/main.js\"")), "{page}");
        assert!(!page.contains("\"/assets/js/"), "every asset is versioned: {page}");

        let current = asset(Path(format!("v-{}/js/main.js", version())), HeaderMap::new()).await;
        assert_eq!(current.status(), StatusCode::OK);
        assert_eq!(current.headers()[header::CACHE_CONTROL], IMMUTABLE);
        // An old page's version: the file as it is now, not to be kept.
        let old = asset(Path("v-0123456789ab/js/main.js".into()), HeaderMap::new()).await;
        assert_eq!(
            (old.status(), old.headers()[header::CACHE_CONTROL].to_str().ok()),
            (StatusCode::OK, Some(NO_CACHE))
        );
        let plain = asset(Path("js/main.js".into()), HeaderMap::new()).await;
        assert_eq!(plain.headers()[header::CACHE_CONTROL], NO_CACHE);
        let nothing = asset(Path(format!("v-{}/js/nothing.js", version())), HeaderMap::new()).await;
        assert_eq!(nothing.status(), StatusCode::NOT_FOUND);
    }
}
