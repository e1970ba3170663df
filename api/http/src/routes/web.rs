//! The reference web client: every file under `api/web/` built into the binary and served
//! at `/web/<path>`, with `/` serving `index.html`. There is no list of files: a game's
//! board module is found by the page as `web/boards/<variant>.js`, so adding a game adds
//! a file and nothing else. The client talks to the server only through the public v1
//! API, like any third-party client. These routes are not part of the API and not in the
//! OpenAPI document.
//!
//! `include_dir!` makes cargo rebuild when an included file changes; `api/http/build.rs` makes
//! it rebuild when a file is added to or removed from the folder.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use include_dir::{include_dir, Dir};

/// The client's files, as they are in `api/web/` when the crate is built.
static WEB: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../web");

/// The content type of a file, by its extension.
fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The built-in file at `path` (relative to `api/web/`), if there is one. Only plain
/// relative paths are looked up: an empty, `.`, `..` or hidden segment, a backslash or a
/// NUL (after actix has decoded `%xx`) finds nothing, so nothing outside the folder and
/// no dotfile is ever served.
fn lookup(path: &str) -> Option<&'static [u8]> {
    let plain = !path.contains(['\\', '\0'])
        && path
            .split('/')
            .all(|seg| !seg.is_empty() && !seg.starts_with('.'));
    if !plain {
        return None;
    }
    WEB.get_file(path).map(|f| f.contents())
}

/// A strong validator for a file: FNV-1a of its bytes.
fn etag(body: &[u8]) -> String {
    let hash = body.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("\"{hash:016x}\"")
}

fn serve(req: &HttpRequest, path: &str, cache: &'static str) -> HttpResponse {
    let Some(body) = lookup(path) else {
        return HttpResponse::NotFound()
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .content_type("text/plain; charset=utf-8")
            .body("no such web file");
    };
    let tag = etag(body);
    let fresh = super::none_match(req, &tag);
    let mut resp = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    resp.insert_header((header::ETAG, tag))
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    if fresh {
        return resp.finish();
    }
    resp.content_type(content_type(path)).body(body)
}

/// `GET /`: the single-page client.
async fn page(req: HttpRequest) -> HttpResponse {
    page_for(&req)
}

/// The single-page client, for a route of the server that opens one of its pages.
pub fn page_for(req: &HttpRequest) -> HttpResponse {
    serve(req, "index.html", "no-cache")
}

/// `GET /web/{path}`: any file of the client.
async fn file(req: HttpRequest, path: web::Path<String>) -> HttpResponse {
    serve(&req, &path, "public, max-age=300, must-revalidate")
}

/// `GET /sw.js`: the service worker (Web Push notices), served from the root so that its
/// scope is the whole site; revalidated each time, as browsers do for workers anyway.
async fn service_worker(req: HttpRequest) -> HttpResponse {
    serve(&req, "sw.js", "no-cache")
}

/// Registers the client's routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(page))
        .route("/", web::head().to(page))
        .route("/sw.js", web::get().to(service_worker))
        .route("/sw.js", web::head().to(service_worker))
        .route("/web/{path:.*}", web::get().to(file))
        .route("/web/{path:.*}", web::head().to(file));
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::dev::ServiceResponse;
    use actix_web::http::StatusCode;
    use actix_web::test::{call_service, init_service, read_body, TestRequest};
    use actix_web::App;

    /// Every file under `dir`, recursively, by its path relative to `api/web/`.
    fn all_files(dir: &'static Dir<'static>, out: &mut Vec<String>) {
        for f in dir.files() {
            out.push(f.path().to_string_lossy().replace('\\', "/"));
        }
        for d in dir.dirs() {
            all_files(d, out);
        }
    }

    fn header_of(resp: &ServiceResponse, name: header::HeaderName) -> String {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    }

    #[test]
    fn content_types_follow_the_extension() {
        for (path, want) in [
            ("index.html", "text/html; charset=utf-8"),
            ("a/b.js", "text/javascript; charset=utf-8"),
            ("m.mjs", "text/javascript; charset=utf-8"),
            ("s.CSS", "text/css; charset=utf-8"),
            ("i.svg", "image/svg+xml"),
            ("i.png", "image/png"),
            ("d.json", "application/json"),
            ("favicon.ico", "image/x-icon"),
            ("r.txt", "text/plain; charset=utf-8"),
            ("x.wasm", "application/octet-stream"),
            ("Makefile", "application/octet-stream"),
        ] {
            assert_eq!(content_type(path), want, "{path}");
        }
    }

    #[test]
    fn etags_differ_for_different_files() {
        assert_ne!(etag(b"a"), etag(b"b"));
        assert_eq!(etag(b"a"), etag(b"a"));
    }

    #[actix_web::test]
    async fn every_file_in_the_folder_is_served_with_its_type_and_headers() {
        let mut files = Vec::new();
        all_files(&WEB, &mut files);
        for want in ["index.html", "app.js", "style.css", "boards/common.js"] {
            assert!(files.iter().any(|f| f == want), "{want} in {files:?}");
        }
        let app = init_service(App::new().configure(configure)).await;
        for f in &files {
            let req = TestRequest::get().uri(&format!("/web/{f}")).to_request();
            let resp = call_service(&app, req).await;
            assert_eq!(resp.status(), StatusCode::OK, "{f}");
            assert_eq!(
                header_of(&resp, header::CONTENT_TYPE),
                content_type(f),
                "{f}"
            );
            assert_eq!(
                header_of(&resp, header::CACHE_CONTROL),
                "public, max-age=300, must-revalidate"
            );
            assert_eq!(header_of(&resp, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
            assert!(header_of(&resp, header::ETAG).starts_with('"'), "{f}");
            let body = read_body(resp).await;
            assert_eq!(Some(&body[..]), lookup(f), "{f}");
        }
    }

    #[actix_web::test]
    async fn the_service_worker_is_served_from_the_root_as_javascript() {
        let app = init_service(App::new().configure(configure)).await;
        let resp = call_service(&app, TestRequest::get().uri("/sw.js").to_request()).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(
            header_of(&resp, header::CONTENT_TYPE),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(header_of(&resp, header::CACHE_CONTROL), "no-cache");
        let body = read_body(resp).await;
        assert_eq!(Some(&body[..]), lookup("sw.js"));
    }

    #[actix_web::test]
    async fn the_root_serves_the_page_uncached() {
        let app = init_service(App::new().configure(configure)).await;
        let resp = call_service(&app, TestRequest::get().uri("/").to_request()).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(
            header_of(&resp, header::CONTENT_TYPE),
            "text/html; charset=utf-8"
        );
        assert_eq!(header_of(&resp, header::CACHE_CONTROL), "no-cache");
        assert_eq!(header_of(&resp, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        let body = read_body(resp).await;
        assert_eq!(Some(&body[..]), lookup("index.html"));
    }

    #[actix_web::test]
    async fn a_matching_etag_gets_304_without_a_body() {
        let app = init_service(App::new().configure(configure)).await;
        for uri in ["/", "/web/app.js"] {
            let resp = call_service(&app, TestRequest::get().uri(uri).to_request()).await;
            let tag = header_of(&resp, header::ETAG);
            for sent in [tag.clone(), format!("\"other\", {tag}"), "*".to_owned()] {
                let req = TestRequest::get()
                    .uri(uri)
                    .insert_header((header::IF_NONE_MATCH, sent.as_str()))
                    .to_request();
                let resp = call_service(&app, req).await;
                assert_eq!(resp.status(), StatusCode::NOT_MODIFIED, "{uri} {sent}");
                assert_eq!(header_of(&resp, header::ETAG), tag);
                assert_eq!(header_of(&resp, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
                assert!(read_body(resp).await.is_empty());
            }
            let req = TestRequest::get()
                .uri(uri)
                .insert_header((header::IF_NONE_MATCH, "\"stale\""))
                .to_request();
            assert_eq!(
                call_service(&app, req).await.status(),
                StatusCode::OK,
                "{uri}"
            );
        }
    }

    #[actix_web::test]
    async fn head_answers_like_get() {
        let app = init_service(App::new().configure(configure)).await;
        for uri in ["/", "/web/style.css", "/web/boards/common.js"] {
            let get = call_service(&app, TestRequest::get().uri(uri).to_request()).await;
            let head = call_service(
                &app,
                TestRequest::default()
                    .method(actix_web::http::Method::HEAD)
                    .uri(uri)
                    .to_request(),
            )
            .await;
            assert_eq!(head.status(), StatusCode::OK, "{uri}");
            for h in [header::CONTENT_TYPE, header::ETAG, header::CACHE_CONTROL] {
                assert_eq!(header_of(&head, h.clone()), header_of(&get, h), "{uri}");
            }
        }
        let missing = TestRequest::default()
            .method(actix_web::http::Method::HEAD)
            .uri("/web/nope.js")
            .to_request();
        assert_eq!(
            call_service(&app, missing).await.status(),
            StatusCode::NOT_FOUND
        );
    }

    #[actix_web::test]
    async fn nothing_outside_the_folder_is_served() {
        let app = init_service(App::new().configure(configure)).await;
        for uri in [
            "/web/nope.js",
            "/web/",
            "/web/boards",
            "/web/boards/",
            "/web/../Cargo.toml",
            "/web/boards/../../Cargo.toml",
            "/web/%2e%2e/Cargo.toml",
            "/web/%2E%2E/src/lib.rs",
            "/web/boards/%2e%2e/%2e%2e/Cargo.toml",
            "/web/..%2fCargo.toml",
            "/web/%2e%2e%2fCargo.toml",
            "/web/%252e%252e/Cargo.toml",
            "/web//etc/passwd",
            "/web/%2fetc%2fpasswd",
            "/web/./app.js",
            "/web/boards//common.js",
            "/web/..%5cCargo.toml",
            "/web/app.js%00.png",
            "/web/.hidden",
        ] {
            let resp = call_service(&app, TestRequest::get().uri(uri).to_request()).await;
            assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{uri}");
            assert_eq!(header_of(&resp, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        }
    }

    #[test]
    fn lookup_refuses_anything_but_plain_relative_paths() {
        assert!(lookup("app.js").is_some());
        assert!(lookup("boards/common.js").is_some());
        for bad in [
            "",
            "/app.js",
            "./app.js",
            "../api/web/app.js",
            "boards/../app.js",
            "boards\\common.js",
            "app.js\0",
            "boards/",
        ] {
            assert!(lookup(bad).is_none(), "{bad:?}");
        }
    }
}
