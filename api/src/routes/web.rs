//! The reference web client: static files built into the binary, served at `/` (the page)
//! and `/web/<file>` (its scripts and styles). It talks to the server only through the
//! public v1 API, like any third-party client. These routes are not part of the API and
//! not in the OpenAPI document.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};

/// One built-in file: its name under `/web/`, its content type and its bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const JS: &str = "text/javascript; charset=utf-8";

const INDEX: Asset = Asset {
    name: "index.html",
    content_type: "text/html; charset=utf-8",
    body: include_bytes!("../../web/index.html"),
};

const ASSETS: &[Asset] = &[
    INDEX,
    Asset {
        name: "app.js",
        content_type: JS,
        body: include_bytes!("../../web/app.js"),
    },
    Asset {
        name: "match.js",
        content_type: JS,
        body: include_bytes!("../../web/match.js"),
    },
    Asset {
        name: "style.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../../web/style.css"),
    },
    Asset {
        name: "boards/common.js",
        content_type: JS,
        body: include_bytes!("../../web/boards/common.js"),
    },
    Asset {
        name: "boards/backgammon.js",
        content_type: JS,
        body: include_bytes!("../../web/boards/backgammon.js"),
    },
    Asset {
        name: "boards/mens_erger_je_niet.js",
        content_type: JS,
        body: include_bytes!("../../web/boards/mens_erger_je_niet.js"),
    },
    Asset {
        name: "boards/ali_baba.js",
        content_type: JS,
        body: include_bytes!("../../web/boards/ali_baba.js"),
    },
    Asset {
        name: "boards/hoofden.js",
        content_type: JS,
        body: include_bytes!("../../web/boards/hoofden.js"),
    },
    Asset {
        name: "boards/ludo.js",
        content_type: JS,
        body: include_bytes!("../../web/boards/ludo.js"),
    },
];

/// A strong validator for a file: FNV-1a of its bytes.
fn etag(body: &[u8]) -> String {
    let hash = body.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("\"{hash:016x}\"")
}

fn serve(req: &HttpRequest, asset: &Asset, cache: &'static str) -> HttpResponse {
    let tag = etag(asset.body);
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag));
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
    resp.content_type(asset.content_type).body(asset.body)
}

/// `GET /`: the single-page client.
async fn page(req: HttpRequest) -> HttpResponse {
    serve(&req, &INDEX, "no-cache")
}

/// `GET /web/{file}`: a script or style of the client.
async fn asset(req: HttpRequest, file: web::Path<String>) -> HttpResponse {
    let name = file.into_inner();
    match ASSETS.iter().find(|a| a.name == name) {
        Some(a) => serve(&req, a, "public, max-age=300, must-revalidate"),
        None => HttpResponse::NotFound()
            .content_type("text/plain; charset=utf-8")
            .body(format!("no web file {name}")),
    }
}

/// Registers the client's routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(page))
        .route("/", web::head().to(page))
        .route("/web/{file:.*}", web::get().to(asset))
        .route("/web/{file:.*}", web::head().to(asset));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_has_a_type_matching_its_name() {
        for a in ASSETS {
            let ext = a.name.rsplit('.').next().unwrap_or("");
            let want = match ext {
                "html" => "text/html",
                "js" => "text/javascript",
                "css" => "text/css",
                _ => "",
            };
            assert!(a.content_type.starts_with(want), "{}", a.name);
            assert!(!a.body.is_empty(), "{}", a.name);
        }
    }

    #[test]
    fn etags_differ_for_different_files() {
        assert_ne!(etag(b"a"), etag(b"b"));
        assert_eq!(etag(b"a"), etag(b"a"));
    }
}
