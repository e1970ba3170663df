//! The answers kept for an `Idempotency-Key`: a move sent again with its key is answered
//! what it was answered the first time.

use actix_web::http::header;
use actix_web::HttpResponse;
use serde_json::Value;
use uuid::Uuid;

use crate::problem::ApiError;
use worp_domain::records::KeptAnswer;
use worp_service::Worp;

/// The answer kept for an `Idempotency-Key`, if it was kept for this very request (a
/// request and body hash left empty: kept before requests were recorded); else 422. It
/// was kept before its move was committed: a move that ended a rated game gets the
/// rating changes it made added, as its first answer had them.
pub(crate) async fn answer_kept(
    worp: &Worp,
    mut kept: KeptAnswer,
    request: &str,
    body_hash: &str,
) -> Result<HttpResponse, ApiError> {
    let same = (kept.request.is_empty() || kept.request == request)
        && (kept.body_hash.is_empty() || kept.body_hash == body_hash);
    if !same {
        return Err(ApiError::KeyReused(format!(
            "this Idempotency-Key was used for another request ({}); use a new key",
            if kept.request == request {
                "another body"
            } else {
                "another game"
            }
        )));
    }
    let rated_end = kept.body["rated"] == true && kept.body["status"] == "finished";
    let game = kept.body["id"]
        .as_str()
        .and_then(|id| Uuid::parse_str(id).ok());
    let unsettled = kept.body["rating_changes"].is_null() && kept.body["not_rated"].is_null();
    if let Some(game) = game.filter(|_| rated_end && unsettled) {
        let book = worp.rating_book().await?;
        let changes = book.changes(game).map(<[_]>::to_vec);
        if let (Some(changes), Some(body)) = (changes, kept.body.as_object_mut()) {
            let changes = serde_json::to_value(changes)
                .map_err(|e| ApiError::unserialisable("the rating changes", e))?;
            body.insert("rating_changes".into(), changes);
        }
        if let (Some(why), Some(body)) = (book.not_rated(game), kept.body.as_object_mut()) {
            let why = serde_json::to_value(why)
                .map_err(|e| ApiError::unserialisable("why the game is not rated", e))?;
            body.insert("not_rated".into(), why);
        }
    }
    let mut answer = HttpResponse::Ok();
    answer.insert_header(("Idempotent-Replayed", "true"));
    if let Some(version) = kept.body.get("version").and_then(Value::as_i64) {
        answer.insert_header((header::ETAG, format!("\"{version}\"")));
    }
    Ok(answer.json(kept.body))
}
