//! The HTTP routes of API version 1, one module per resource.

pub mod accounts;
pub mod audit;
pub mod bots;
pub mod games;
pub mod health;
pub mod history;
mod kept_answers;
pub mod leaving;
pub mod lobby;
pub mod me;
pub mod messages;
pub mod notifications;
pub mod oauth;
pub mod paging;
pub mod passkeys;
pub mod players;
pub mod push;
pub mod sessions;
pub mod streams;
pub mod tournaments;
pub mod vacation;
pub mod variants;
#[path = "web.rs"]
pub mod web_client;

use actix_web::{web, HttpRequest};

/// Whether `req`'s `If-None-Match` names the entity tag `tag` or is `*` (RFC 9110
/// §13.1.2): any of a list of tags, compared weakly (`W/` aside), quotes optional.
pub(crate) fn none_match(req: &HttpRequest, tag: &str) -> bool {
    fn opaque(t: &str) -> &str {
        let t = t.trim();
        t.strip_prefix("W/").unwrap_or(t).trim_matches('"')
    }
    req.headers()
        .get_all(actix_web::http::header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || opaque(t) == opaque(tag))
}

/// Registers every route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    // actix tries the routes in this order, matching each pattern with parameters by a
    // regular expression (about 1,900 instructions a pattern tried, against some 120,000
    // for a whole state read): the move, the busiest route by far, comes first, then the
    // reads of a game a front-end repeats (the game after each change, every state of
    // its replay slider). No two patterns overlap, so order means nothing else.
    cfg.service(games::play_move)
        .service(games::get_game)
        .service(history::state_at)
        .service(history::list_events);
    cfg.configure(web_client::configure);
    cfg.configure(oauth::configure);
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(players::create_player)
        .service(variants::list_variants)
        .service(games::create_game)
        .service(games::list_games)
        .service(games::take_seat)
        .service(games::decline_seat)
        .service(games::resign)
        .service(me::me)
        .service(me::update_me)
        .service(me::inbox)
        .service(me::create_webhook)
        .service(me::list_webhooks)
        .service(me::delete_webhook)
        .service(me::deliveries)
        .service(tournaments::create_tournament)
        .service(tournaments::list_tournaments)
        .service(tournaments::get_tournament)
        .service(tournaments::register)
        .service(tournaments::withdraw)
        .service(tournaments::start)
        .service(tournaments::change_rules)
        .service(tournaments::export)
        .service(vacation::get_vacation)
        .service(vacation::start_vacation)
        .service(vacation::end_vacation)
        .service(leaving::export_account)
        .service(leaving::delete_account)
        .service(accounts::set_password)
        .service(accounts::revoke_first_token)
        .service(accounts::new_recovery_codes)
        .service(accounts::create_token)
        .service(accounts::list_tokens)
        .service(accounts::revoke_token)
        .service(sessions::list_sessions)
        .service(sessions::end_session)
        .service(sessions::end_all_sessions)
        .service(accounts::list_apps)
        .service(accounts::revoke_app)
        .service(passkeys::passkey_options)
        .service(passkeys::register_passkey)
        .service(passkeys::list_passkeys)
        .service(passkeys::remove_passkey)
        .service(passkeys::sign_in_options)
        .service(passkeys::sign_in_with_passkey)
        .service(push::push_key)
        .service(push::subscribe_push)
        .service(push::list_push_subscriptions)
        .service(push::unsubscribe_push)
        .service(sessions::sign_in)
        .service(sessions::current_session)
        .service(sessions::sign_out)
        .service(notifications::get_email)
        .service(notifications::set_email)
        .service(notifications::delete_email)
        .service(notifications::confirm_page)
        .service(notifications::confirm_email)
        .service(notifications::unsubscribe_page)
        .service(notifications::unsubscribe)
        .service(notifications::get_preferences)
        .service(notifications::set_preferences)
        .service(notifications::muted_games)
        .service(notifications::mute_game)
        .service(notifications::unmute_game)
        .service(notifications::forgot_password)
        .service(notifications::reset_page)
        .service(notifications::reset_password)
        .service(oauth::consent)
        .service(oauth::answer_consent)
        // After `/v1/players/me`, which the pattern `/v1/players/{id}` would match too.
        .service(players::get_player)
        .service(lobby::lobby)
        .service(lobby::leaderboard)
        .service(messages::post_message)
        .service(messages::list_messages)
        .service(streams::game_stream)
        .service(streams::player_stream)
        .service(audit::export_game)
        .service(audit::audit_game)
        .service(bots::list_bots)
        .service(bots::game_analysis);
}
