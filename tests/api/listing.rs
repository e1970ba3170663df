//! Paging the game listings: a cursor (`next_cursor`, sent back as `after`) walks every
//! game once, in the listing's order, at the same cost at any depth; an offset skips at
//! most 10,000 games.

use serde_json::Value;

use crate::helpers::{spawn_app_with, ManualClock, TestApp, TestPlayer, BACKENDS};
use crate::play::two_seat_variant;

fn ids(page: &Value) -> Vec<String> {
    page["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| g["id"].as_str().expect("id").to_owned())
        .collect()
}

/// Follows `next_cursor` from `first` (a path with a query) to the end, checking that
/// no page offers an offset, and returns every game's id in the order met.
async fn walk(app: &TestApp, first: &str, who: Option<&TestPlayer>) -> Vec<String> {
    walk_from(app, first, first.to_owned(), who).await
}

/// [`walk`] from `path`, a page of `first`.
async fn walk_from(
    app: &TestApp,
    first: &str,
    mut path: String,
    who: Option<&TestPlayer>,
) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..100 {
        let page = match who {
            Some(p) => app.get_json_as(&path, p).await,
            None => app.get_json(&path).await,
        };
        seen.extend(ids(&page));
        if path.contains("after=") {
            assert!(page["next_offset"].is_null(), "{path}: {page}");
        }
        match page["next_cursor"].as_str() {
            Some(cursor) => path = format!("{first}&after={cursor}"),
            None => return seen,
        }
    }
    panic!("the walk from {first} did not end");
}

#[tokio::test]
async fn a_cursor_walks_every_game_once_in_the_listings_order() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (a, b, c) = (
            app.player("a").await,
            app.player("b").await,
            app.player("c").await,
        );
        // Games changed at the same instant (ordered by id among themselves) and at
        // instants a microsecond and a second apart.
        for round in 0..4 {
            for _ in 0..3 {
                app.create(
                    &a,
                    two_seat_variant(),
                    Value::Null,
                    vec![Some(a.id), Some(b.id)],
                )
                .await;
            }
            app.create(
                &c,
                two_seat_variant(),
                Value::Null,
                vec![Some(c.id), Some(b.id)],
            )
            .await;
            clock.advance(if round % 2 == 0 {
                chrono::Duration::microseconds(1)
            } else {
                chrono::Duration::seconds(1)
            });
        }
        let (of_a, of_b) = (
            format!("/v1/games?player={}", a.id),
            format!("/v1/games?player={}", b.id),
        );
        for (first, all, who, count) in [
            ("/v1/games?limit=3", "/v1/games?limit=200", None, 16),
            (
                &format!("{of_a}&limit=2"),
                &format!("{of_a}&limit=200"),
                None,
                12,
            ),
            (
                &format!("{of_b}&limit=5"),
                &format!("{of_b}&limit=200"),
                None,
                16,
            ),
            (
                "/v1/games?status=active&limit=3",
                "/v1/games?status=active&limit=200",
                None,
                16,
            ),
            (
                "/v1/players/me/games?limit=3",
                "/v1/players/me/games?limit=200",
                Some(&a),
                12,
            ),
            (
                "/v1/players/me/games?my_turn=true&limit=1",
                "/v1/players/me/games?my_turn=true&limit=200",
                Some(&b),
                0,
            ),
        ] {
            let whole = match who {
                Some(p) => ids(&app.get_json_as(all, p).await),
                None => ids(&app.get_json(all).await),
            };
            // 0: whichever of the games the dice gave the first move to.
            match count {
                0 => assert!(!whole.is_empty(), "{backend:?} {first}"),
                n => assert_eq!(whole.len(), n, "{backend:?} {first}"),
            }
            let walked = walk(&app, first, who).await;
            assert_eq!(
                walked, whole,
                "{backend:?} {first}: every game once, in order"
            );
        }
        // A game that changes while a client pages moves to the top: the pages after
        // the cursor neither repeat nor skip the others.
        let page = app.get_json("/v1/games?limit=4").await;
        let cursor = page["next_cursor"].as_str().expect("cursor").to_owned();
        let listed = app.get_json("/v1/games?limit=200").await;
        let before = ids(&listed);
        let last = before.last().expect("a game").clone();
        let seated = &listed["games"][before.len() - 1]["seats"][0];
        let resigner = if seated == &serde_json::json!(a.id) {
            &a
        } else {
            &c
        };
        clock.advance(chrono::Duration::seconds(1));
        let resp = app
            .post(&format!("/v1/games/{last}/resign"), resigner, Value::Null)
            .await;
        assert_eq!(resp.status(), 200, "{backend:?}: resign");
        let rest = walk_from(
            &app,
            "/v1/games?limit=4",
            format!("/v1/games?limit=4&after={cursor}"),
            None,
        )
        .await;
        let expected: Vec<String> = before[4..before.len() - 1].to_vec();
        assert_eq!(rest, expected, "{backend:?}: the rest after the cursor");
        // The listings of one status see it change.
        let finished = ids(&app.get_json("/v1/games?status=finished").await);
        assert_eq!(finished, vec![last.clone()], "{backend:?}");
        let active = walk(&app, "/v1/games?status=active&limit=5", None).await;
        assert_eq!(active.len(), 15, "{backend:?}");
        assert!(!active.contains(&last), "{backend:?}");
    }
}

#[tokio::test]
async fn an_offset_beyond_ten_thousand_or_a_made_up_cursor_is_refused() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, ManualClock::new()).await;
        let a = app.player("a").await;
        for path in [
            "/v1/games?offset=10001",
            "/v1/games?offset=9223372036854775807",
            "/v1/games?after=1764020207.264041123",
            "/v1/games?after=yesterday_ea9644ad11384775bc87d714080ffd3c",
            "/v1/games?offset=3&after=1764020207.264041123_ea9644ad11384775bc87d714080ffd3c",
            "/v1/lobby?offset=10001",
            "/v1/lobby?variant=bogus",
        ] {
            let resp = app.get(path).await;
            assert_eq!(resp.status(), 400, "{backend:?} {path}");
            let problem: Value = resp.json().await.expect("problem");
            assert!(
                problem["detail"].is_string(),
                "{backend:?} {path}: {problem}"
            );
        }
        let resp = app
            .client
            .get(app.url("/v1/players/me/games?offset=20000"))
            .bearer_auth(&a.token)
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 400, "{backend:?}: inbox");
        let page = app.get_json("/v1/games?offset=10000").await;
        assert_eq!(page["games"].as_array().map(Vec::len), Some(0));
        assert!(page["next_cursor"].is_null() && page["next_offset"].is_null());
        // A cursor of a game that no longer is where it was still reads as a place.
        let page = app
            .get_json("/v1/games?after=1764020207.264041123_ea9644ad11384775bc87d714080ffd3c")
            .await;
        assert_eq!(page["games"].as_array().map(Vec::len), Some(0));
    }
}

/// On a database that has lived for years, the listing of one status reads that
/// status's games through an index that starts with it (the listing of the few active
/// games among a million finished ones walked them all: 1.2 to 1.6 s), and the
/// notifier's read of the log after its position reads the pages past it (it sorted the
/// whole log: a second with 8 million events). Planned as a prepared statement is, for
/// any parameters (PostgreSQL's generic plan).
#[tokio::test]
async fn a_status_listing_and_the_notifiers_read_of_the_log_use_their_indexes() {
    use worp::store::{sql, Store};
    for backend in BACKENDS {
        let app = crate::helpers::spawn_app(backend).await;
        let plan: Vec<String> = match &app.store {
            Store::Postgres(pg) => {
                crate::helpers::store_finished_games(&pg.pool, 5000, 8).await;
                let mut conn = pg.pool.acquire().await.expect("a connection");
                sqlx::query("SET plan_cache_mode = force_generic_plan")
                    .execute(&mut *conn)
                    .await
                    .expect("generic plans");
                let mut plan: Vec<String> =
                    sqlx::query_scalar(&format!("EXPLAIN {}", sql::LIST_GAMES_IN_POSTGRES))
                        .bind(None::<uuid::Uuid>)
                        .bind("active")
                        .bind(None::<uuid::Uuid>)
                        .bind(50_i64)
                        .bind(0_i64)
                        .fetch_all(&mut *conn)
                        .await
                        .expect("plan");
                let log: Vec<String> = sqlx::query_scalar(
                    "EXPLAIN SELECT position, game_id, seq FROM events WHERE position > $1 \
                     ORDER BY position LIMIT $2",
                )
                .bind(39_990_i64)
                .bind(500_i64)
                .fetch_all(&mut *conn)
                .await
                .expect("plan");
                assert!(
                    log.iter().any(|l| l.contains("events_position")),
                    "the notifier's read goes through the log's position: {log:#?}"
                );
                assert!(
                    !log.iter().any(|l| l.contains("Seq Scan")),
                    "the notifier's read does not read the whole log: {log:#?}"
                );
                plan.push(String::new());
                plan
            }
            Store::Sqlite(lite) => {
                let rows: Vec<(i64, i64, i64, String)> =
                    sqlx::query_as(&format!("EXPLAIN QUERY PLAN {}", sql::LIST_GAMES_IN_SQLITE))
                        .bind(None::<String>)
                        .bind("active")
                        .bind(None::<String>)
                        .bind(50_i64)
                        .bind(0_i64)
                        .fetch_all(&lite.pool)
                        .await
                        .expect("plan");
                rows.into_iter().map(|r| r.3).collect()
            }
        };
        let index = match backend {
            crate::helpers::Backend::Postgres => "games_listed_by_status",
            crate::helpers::Backend::Sqlite => "games_by_status",
        };
        assert!(
            plan.iter().any(|l| l.contains(index)),
            "{backend:?}: the listing of one status reads its index: {plan:#?}"
        );
        assert!(
            !plan
                .iter()
                .any(|l| l.contains("Seq Scan")
                    || (l.starts_with("SCAN ") && !l.contains(" INDEX "))),
            "{backend:?}: no table read whole: {plan:#?}"
        );
    }
}
