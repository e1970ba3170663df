//! The OpenAPI document (served at `/openapi.json`, committed as `openapi/openapi.json`).

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::routes;

/// Version 1 of the Worp API.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Worp",
        description = "Correspondence play of dice board games over HTTP. Every roll and move is an immutable, hash-chained event; the server rolls the dice from a committed seed that is revealed when the game ends. Errors are RFC 9457 problem+json.",
        license(name = "MIT OR Apache-2.0"),
    ),
    paths(
        routes::health::healthz,
        routes::players::create_player,
        routes::variants::list_variants,
        routes::games::create_game,
        routes::games::list_games,
        routes::games::get_game,
        routes::games::take_seat,
        routes::games::decline_seat,
        routes::games::play_move,
        routes::games::resign,
        routes::games::list_events,
        routes::games::state_at,
        routes::me::me,
        routes::me::update_me,
        routes::me::inbox,
        routes::me::create_webhook,
        routes::me::list_webhooks,
        routes::me::delete_webhook,
        routes::me::deliveries,
        routes::streams::game_stream,
        routes::streams::player_stream,
        routes::audit::export_game,
        routes::audit::audit_game,
    ),
    components(schemas(
        crate::problem::Problem,
        worp_engine::Awaiting,
        worp_engine::GameResult,
        worp_engine::Ending,
        worp_engine::Die,
        routes::games::StatusFilter,
        routes::audit::ExportFormat,
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Accounts and their tokens"),
        (name = "variants", description = "The games this server plays"),
        (name = "games", description = "Creating, joining, playing and auditing games"),
        (name = "live", description = "Server-Sent Events of games and of a player's turns"),
        (name = "audit", description = "Exports and audits that need no trust in the server"),
        (name = "health", description = "Liveness"),
    )
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme(
                "bearer",
                SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
            );
        }
    }
}

/// The document as pretty JSON with a trailing newline (the committed form).
pub fn openapi_json() -> String {
    let mut s = ApiDoc::openapi().to_pretty_json().unwrap_or_default();
    s.push('\n');
    s
}
