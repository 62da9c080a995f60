//! The web client: the files of `client/`, embedded into the binary at build time, served at
//! `/` (the lobby), `/g/{id}` (a game: the same page, its script reads the path) and
//! `/assets/{path}` (CSS, JavaScript modules, icons).
//!
//! Embedding keeps `gambit serve` one self-contained file; `debug-embed` makes debug builds
//! embed too, so tests exercise exactly what a release serves.

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::Embed;

/// Everything under `client/`.
#[derive(Embed)]
#[folder = "client/"]
struct Client;

/// The page's security policy: nothing may load from, or connect to, any other host. This
/// turns "no request to any other host" from a habit into something the browser enforces.
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
                   script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; \
                   frame-ancestors 'none'";

/// `GET /` and `GET /g/{id}`: the single page of the client.
pub(super) async fn index(headers: HeaderMap) -> Response {
    file("index.html", &headers)
}

/// `GET /assets/{*path}`: a static file of the client.
pub(super) async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    // index.html is only served as a page (at `/` and `/g/{id}`), not as an asset.
    if path == "index.html" {
        return not_found();
    }
    file(&path, &headers)
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

/// Answers with the embedded file at `path` (or 404), honouring `If-None-Match` so a reload
/// costs a round trip, not the bytes.
fn file(path: &str, headers: &HeaderMap) -> Response {
    let Some(found) = client_file(path) else {
        return not_found();
    };
    let hash = found.metadata.sha256_hash();
    let etag = format!("\"{}\"", hash.iter().take(12).map(|b| format!("{b:02x}")).collect::<String>());
    let mut response = if headers.get(header::IF_NONE_MATCH).is_some_and(|tag| tag.as_bytes() == etag.as_bytes()) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        found.data.into_owned().into_response()
    };
    let out = response.headers_mut();
    // mime_guess names .js `text/javascript`, what browsers require for module scripts.
    let mime = found.metadata.mimetype();
    let content_type = if mime.starts_with("text/") || mime == "application/javascript" || mime == "image/svg+xml" {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    };
    if let Ok(value) = HeaderValue::from_str(&content_type) {
        out.insert(header::CONTENT_TYPE, value);
    }
    if let Ok(value) = HeaderValue::from_str(&etag) {
        out.insert(header::ETAG, value);
    }
    // Revalidate every time: the files change with the binary, and the ETag makes it cheap.
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
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
}
