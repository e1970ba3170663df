//! The holes a hostile user found: what is stored is text a database can keep, the log
//! cannot be rewritten, retry keys answer only their own request, and neither overload,
//! a bad read-model row nor a rebuild loses or hides anything.

use serde_json::{json, Value};
use uuid::Uuid;
use worp::store::Store;

use crate::helpers::{spawn_app, Backend, TestApp, TestPlayer, BACKENDS};
use crate::play::two_seat_variant;

/// Runs `sql` (binding `id` when given) on the app's own database.
async fn run_sql(app: &TestApp, sql: &str, id: Option<Uuid>) -> Result<u64, sqlx::Error> {
    match &app.store {
        Store::Postgres(s) => {
            let q = sqlx::query(sql);
            let q = if let Some(id) = id { q.bind(id) } else { q };
            q.execute(&s.pool).await.map(|r| r.rows_affected())
        }
        Store::Sqlite(s) => {
            let q = sqlx::query(sql);
            let q = if let Some(id) = id { q.bind(id) } else { q };
            q.execute(&s.pool).await.map(|r| r.rows_affected())
        }
    }
}

fn game_id(game: &Value) -> String {
    game["id"].as_str().expect("id").to_owned()
}

/// Plays `mv` in `game` as `who`, with an `Idempotency-Key` when given.
async fn play(
    app: &TestApp,
    game: &str,
    who: &TestPlayer,
    mv: &Value,
    key: Option<&str>,
) -> reqwest::Response {
    let mut req = app
        .client
        .post(app.url(&format!("/v1/games/{game}/moves")))
        .bearer_auth(&who.token)
        .json(&json!({ "move": mv }));
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    req.send().await.expect("request")
}

/// Who is to move in `game`: `a` holds seat 0, `b` seat 1.
fn mover<'p>(game: &Value, a: &'p TestPlayer, b: &'p TestPlayer) -> &'p TestPlayer {
    if game["to_move"] == 0 {
        a
    } else {
        b
    }
}

/// A new game between `a` (seat 0) and `b` (seat 1) in which `who` is to move.
async fn game_to_move(app: &TestApp, a: &TestPlayer, b: &TestPlayer, who: &TestPlayer) -> Value {
    for _ in 0..50 {
        let game = app
            .create(
                a,
                two_seat_variant(),
                Value::Null,
                vec![Some(a.id), Some(b.id)],
            )
            .await;
        if mover(&game, a, b).id == who.id {
            return game;
        }
    }
    panic!("{} never got the first move", who.id);
}

// ---- F5: text a database cannot keep ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strings_with_nul_or_control_characters_are_refused_with_400() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let resp = app
            .client
            .post(app.url("/v1/players"))
            .json(&json!({"name": "a\u{0}b"}))
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 400, "{backend:?}: name");
        let (a, b) = (app.player("a").await, app.player("b").await);
        for body in [
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "client_seed": "x\u{0}y"}),
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "client_seed": "x\u{7}y"}),
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "options": {"k": "\u{0}"}}),
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "options": {"\u{0}": 1}}),
        ] {
            let resp = app.post("/v1/games", &a, body.clone()).await;
            assert_eq!(resp.status(), 400, "{backend:?}: {body}");
        }
        let open = app
            .create(&a, two_seat_variant(), Value::Null, vec![Some(a.id), None])
            .await;
        let resp = app
            .post(
                &format!("/v1/games/{}/seats/1", game_id(&open)),
                &b,
                json!({"client_seed": "\u{0}"}),
            )
            .await;
        assert_eq!(resp.status(), 400, "{backend:?}: seat client_seed");
        let (a, b, game) = app.two_player_game(two_seat_variant()).await;
        let who = mover(&game, &a, &b);
        for mv in [json!({"k\u{0}": 1}), json!(["\u{0}"]), json!("a\u{0}")] {
            let resp = play(&app, &game_id(&game), who, &mv, None).await;
            assert_eq!(resp.status(), 400, "{backend:?}: move {mv}");
        }
        let resp = app
            .post(
                "/v1/players/me/webhooks",
                &a,
                json!({"url": "https://hooks.example/a\u{0}b"}),
            )
            .await;
        assert_eq!(resp.status(), 400, "{backend:?}: webhook url");
        // The game is where it was, and still plays.
        let after = app.get_json(&format!("/v1/games/{}", game_id(&game))).await;
        assert_eq!(after["version"], game["version"]);
        let resp = play(&app, &game_id(&game), who, &game["legal_moves"][0], None).await;
        assert_eq!(resp.status(), 200, "{backend:?}");
    }
}

// ---- F6: the log cannot be rewritten ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_refuses_to_replace_an_event() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, _, game) = app.two_player_game(two_seat_variant()).await;
    let before = app.events(&game_id(&game)).await;
    for verb in ["REPLACE INTO", "INSERT OR REPLACE INTO"] {
        let sql = format!(
            "{verb} events (game_id, seq, kind, payload, rules_version, recorded_at, hash) \
             SELECT game_id, seq, 'forged', payload, rules_version, recorded_at, hash \
             FROM events WHERE game_id = $1 AND seq = 1"
        );
        let id: Uuid = game_id(&game).parse().expect("uuid");
        let err = run_sql(&app, &sql, Some(id))
            .await
            .expect_err("REPLACE must fail");
        assert!(err.to_string().contains("immutable"), "{verb}: {err}");
        let sql = format!(
            "{verb} events (position, game_id, seq, kind, payload, rules_version, recorded_at, hash) \
             SELECT position, game_id, seq + 1000, 'forged', payload, rules_version, recorded_at, hash \
             FROM events WHERE game_id = $1 AND seq = 1"
        );
        let err = run_sql(&app, &sql, Some(id))
            .await
            .expect_err("REPLACE of a position must fail");
        assert!(err.to_string().contains("immutable"), "{verb}: {err}");
    }
    assert_eq!(app.events(&game_id(&game)).await, before);
}

/// A login role of the server role, unique to this test run, on the cluster of
/// `database`; returns its name and the URL of `database` as that role.
async fn server_login(database: &str) -> (String, String) {
    use sqlx::Connection;
    let name = format!("worp_test_login_{}", Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(database).await.expect("admin");
    // The name is generated here (hex only), never taken from input.
    sqlx::query(&format!(
        "CREATE ROLE {name} LOGIN PASSWORD 'worp-test' IN ROLE worp_server"
    ))
    .execute(&mut admin)
    .await
    .expect("a login role of worp_server (made by the migrations)");
    let mut url = reqwest::Url::parse(database).expect("url");
    url.set_username(&name).expect("user");
    url.set_password(Some("worp-test")).expect("password");
    (name, url.to_string())
}

async fn drop_login(database: &str, name: &str) {
    use sqlx::Connection;
    if let Ok(mut admin) = sqlx::PgConnection::connect(database).await {
        let _ = sqlx::query(&format!("DROP ROLE IF EXISTS {name}"))
            .execute(&mut admin)
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_role_cannot_change_events_and_the_server_runs_as_it() {
    use sqlx::Connection;
    // Migrated by the owner.
    let owner = spawn_app(Backend::Postgres).await;
    let (a, b, game) = owner.two_player_game(two_seat_variant()).await;
    let (name, url) = server_login(&owner.database).await;
    let outcome = async {
        let mut conn = sqlx::PgConnection::connect(&url).await.expect("login");
        for sql in [
            "UPDATE events SET kind = 'forged'",
            "DELETE FROM events",
            "TRUNCATE events",
            "ALTER TABLE events DISABLE TRIGGER USER",
            "DROP TRIGGER events_no_update_or_delete ON events",
            "SET session_replication_role = replica",
            "INSERT INTO events (game_id, seq, kind, payload, rules_version, recorded_at, hash) \
             SELECT game_id, seq, kind, payload, rules_version, recorded_at, hash FROM events \
             ON CONFLICT (game_id, seq) DO UPDATE SET kind = 'forged'",
        ] {
            let err = sqlx::query(sql)
                .execute(&mut conn)
                .await
                .expect_err("the server role may not");
            assert!(
                err.to_string().contains("permission denied")
                    || err.to_string().contains("must be owner")
                    || err.to_string().contains("immutable"),
                "{sql}: {err}"
            );
        }
        // The server, started as that role, plays (the migrations are there already).
        let app = crate::helpers::spawn_app_from(
            crate::helpers::test_settings(url.clone()),
            std::sync::Arc::new(worp::clock::SystemClock),
            None,
        )
        .await;
        let id = game_id(&game);
        let mut game = app.get_json(&format!("/v1/games/{id}")).await;
        for i in 0..4 {
            if game["status"] != "active" {
                break;
            }
            let key = format!("move-{i}");
            let resp = play(
                &app,
                &id,
                mover(&game, &a, &b),
                &game["legal_moves"][0],
                Some(&key),
            )
            .await;
            assert_eq!(resp.status(), 200);
            game = resp.json().await.expect("json");
        }
        let (c, d, _) = app.two_player_game(two_seat_variant()).await;
        let resp = app
            .post(
                "/v1/players/me/webhooks",
                &c,
                json!({"url": "https://hooks.example/worp"}),
            )
            .await;
        assert_eq!(resp.status(), 201);
        // Web Push: the VAPID key made and kept, a subscription kept and removed.
        let key = app.get_json("/v1/push/key").await;
        assert!(key["public_key"].is_string(), "{key}");
        let resp = app
            .post(
                "/v1/players/me/push-subscriptions",
                &c,
                json!({"endpoint": "https://push.example/send/c", "keys": {
                    "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                    "auth": "BTBZMqHH6r4Tts7J_aSIgg"}}),
            )
            .await;
        assert_eq!(resp.status(), 201);
        let made: Value = resp.json().await.expect("json");
        let resp = app
            .client
            .delete(app.url(&format!(
                "/v1/players/me/push-subscriptions/{}",
                made["id"].as_str().expect("id")
            )))
            .bearer_auth(&c.token)
            .send()
            .await
            .expect("delete");
        assert_eq!(resp.status(), 204);
        let open = app
            .create(&c, two_seat_variant(), Value::Null, vec![Some(c.id), None])
            .await;
        let resp = app
            .post(
                &format!("/v1/games/{}/seats/1", game_id(&open)),
                &d,
                json!({}),
            )
            .await;
        assert_eq!(resp.status(), 200);
        // Turning invitation notices off, and declining an invitation.
        let resp = app
            .client
            .patch(app.url("/v1/players/me"))
            .bearer_auth(&d.token)
            .json(&json!({"invitation_notices": false}))
            .send()
            .await
            .expect("patch");
        assert_eq!(resp.status(), 200);
        let invited = app
            .post(
                "/v1/games",
                &c,
                json!({"variant": two_seat_variant(), "seats": [c.id, d.id]}),
            )
            .await;
        assert_eq!(invited.status(), 201);
        let invited: Value = invited.json().await.expect("json");
        let resp = app
            .post(
                &format!("/v1/games/{}/seats/1/decline", game_id(&invited)),
                &d,
                json!({}),
            )
            .await;
        assert_eq!(resp.status(), 200);
        app.worp
            .rebuild()
            .await
            .expect("rebuild as the server role");
    };
    // Drop the login role whatever happened.
    let result = futures_util::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(outcome)).await;
    drop_login(&owner.database, &name).await;
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

// ---- F7: an Idempotency-Key answers only its own request ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_answers_only_the_request_it_was_first_sent_with() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b, first) = app.two_player_game(two_seat_variant()).await;
        let who = mover(&first, &a, &b);
        let mv = first["legal_moves"][0].clone();
        let key = format!("key-{}", Uuid::new_v4());
        let resp = play(&app, &game_id(&first), who, &mv, Some(&key)).await;
        assert_eq!(resp.status(), 200);
        let played: Value = resp.json().await.expect("json");
        // The same request again: the first answer, nothing played.
        let resp = play(&app, &game_id(&first), who, &mv, Some(&key)).await;
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()["idempotent-replayed"], "true");
        assert_eq!(resp.json::<Value>().await.expect("json"), played);
        // Another move under the same key: refused, not replayed.
        let resp = play(
            &app,
            &game_id(&first),
            who,
            &json!({"other": 1}),
            Some(&key),
        )
        .await;
        assert_eq!(resp.status(), 422, "{backend:?}: another body");
        assert_eq!(
            resp.headers()["content-type"],
            "application/problem+json",
            "{backend:?}"
        );
        // The same key on another game of the same player: refused, nothing played.
        let other = game_to_move(&app, &a, &b, who).await;
        let resp = play(
            &app,
            &game_id(&other),
            who,
            &other["legal_moves"][0],
            Some(&key),
        )
        .await;
        assert_eq!(resp.status(), 422, "{backend:?}: another game");
        let after = app
            .get_json(&format!("/v1/games/{}", game_id(&other)))
            .await;
        assert_eq!(after["version"], other["version"]);
    }
}

/// Two keyed moves a day apart (the first key has expired by the second), in a fresh
/// app: the second is played anew, not answered from the first one's key.
async fn keyed_moves_a_day_apart(backend: Backend, first_key: &str, second_key: &str) -> TestApp {
    let clock = crate::helpers::ManualClock::new();
    let app = crate::helpers::spawn_app_with(backend, clock.clone()).await;
    let (a, b, first) = app.two_player_game(two_seat_variant()).await;
    let who = mover(&first, &a, &b);
    let resp = play(
        &app,
        &game_id(&first),
        who,
        &first["legal_moves"][0],
        Some(first_key),
    )
    .await;
    assert_eq!(resp.status(), 200);
    clock.advance(chrono::Duration::hours(25));
    let second = game_to_move(&app, &a, &b, who).await;
    let resp = play(
        &app,
        &game_id(&second),
        who,
        &second["legal_moves"][0],
        Some(second_key),
    )
    .await;
    assert_eq!(resp.status(), 200, "{backend:?}");
    assert!(resp.headers().get("idempotent-replayed").is_none());
    let after = app
        .get_json(&format!("/v1/games/{}", game_id(&second)))
        .await;
    assert!(after["version"].as_i64() > second["version"].as_i64());
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_idempotency_key_is_new_and_old_answers_are_deleted() {
    for backend in BACKENDS {
        let app = keyed_moves_a_day_apart(backend, "the-same-key", "the-same-key").await;
        // The expired answer is gone; the new one is kept.
        let kept = answers_kept(&app).await;
        assert_eq!(kept, 1, "{backend:?}: only the new answer is kept");
    }
}

/// How many `Idempotency-Key` answers the store keeps (counted by deleting them all).
async fn answers_kept(app: &TestApp) -> u64 {
    run_sql(app, "DELETE FROM idempotency", None)
        .await
        .expect("count")
}

/// The sweep deletes expired answers through their index on `created_at`: with 5,000
/// answers kept and none expired, a step reads a few pages, not the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweep_of_expired_answers_reads_their_index_not_every_answer() {
    let app = spawn_app(Backend::Postgres).await;
    let Store::Postgres(pg) = &app.store else {
        panic!("a PostgreSQL store");
    };
    let (player, _) = app.worp.create_player("keeper").await.expect("player");
    sqlx::query(
        "INSERT INTO idempotency (player_id, key, status, body, created_at, request, body_hash) \
         SELECT $1, 'key-' || g, 200, '{\"version\": 1}', now(), '', '' \
         FROM generate_series(1, 5000) g",
    )
    .bind(player.id)
    .execute(&pg.pool)
    .await
    .expect("answers");
    let plan: Value = sqlx::query_scalar(&format!(
        "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {}",
        worp::store::sql::DELETE_EXPIRED_ANSWERS
    ))
    .bind(chrono::Utc::now() - chrono::Duration::hours(24))
    .fetch_one(&pg.pool)
    .await
    .expect("plan");
    let top = &plan[0]["Plan"];
    let pages = top["Shared Hit Blocks"].as_u64().unwrap_or(0)
        + top["Shared Read Blocks"].as_u64().unwrap_or(0);
    assert!(
        pages <= 16,
        "deleting no expired answer read {pages} pages of 5,000 answers: {plan}"
    );
    let kept = answers_kept(&app).await;
    assert_eq!(kept, 5000, "no answer kept today was deleted");
}

/// Answers expire after a day whatever their key: the background sweep deletes them (a
/// keyed write deletes only an expired answer of its own key, by that key).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweep_deletes_every_expired_answer() {
    for backend in BACKENDS {
        let app = keyed_moves_a_day_apart(backend, "first-key", "second-key").await;
        assert_eq!(
            app.worp.sweep_answers().await.expect("sweep"),
            1,
            "{backend:?}: the expired answer is swept, the new one kept"
        );
        assert_eq!(app.worp.sweep_answers().await.expect("sweep"), 0);
        let kept = answers_kept(&app).await;
        assert_eq!(kept, 1, "{backend:?}");
    }
}

// ---- R3: a full write queue answers 503 ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_write_queue_answers_503_with_retry_after() {
    use sqlx::Connection;
    let (url, _) = crate::helpers::fresh_database(Backend::Postgres).await;
    let mut settings = crate::helpers::test_settings(url.clone());
    settings.write_queue = 1;
    let app = crate::helpers::spawn_app_from(
        settings,
        std::sync::Arc::new(worp::clock::SystemClock),
        None,
    )
    .await;
    let mut games = Vec::new();
    for _ in 0..8 {
        games.push(app.two_player_game(two_seat_variant()).await);
    }
    // Hold the writers: every append waits for this lock.
    let mut blocker = sqlx::PgConnection::connect(&url).await.expect("connect");
    sqlx::query("BEGIN")
        .execute(&mut blocker)
        .await
        .expect("begin");
    sqlx::query("LOCK TABLE games IN EXCLUSIVE MODE")
        .execute(&mut blocker)
        .await
        .expect("lock");
    let mut tasks = Vec::new();
    for (a, b, game) in games.clone() {
        let app_url = app.address.clone();
        let client = app.client.clone();
        let who = mover(&game, &a, &b).clone();
        tasks.push(tokio::spawn(async move {
            let resp = client
                .post(format!("{app_url}/v1/games/{}/moves", game_id(&game)))
                .bearer_auth(&who.token)
                .json(&json!({"move": game["legal_moves"][0]}))
                .send()
                .await
                .expect("request");
            let retry = resp.headers().get("retry-after").is_some();
            (resp.status().as_u16(), retry)
        }));
    }
    // No move is written while the lock is held: a move answered by then found the
    // writers held and the queue full.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !tasks.iter().any(|t| t.is_finished()) {
        assert!(
            std::time::Instant::now() < deadline,
            "no move was answered within 30 s while the writers were held"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    sqlx::query("COMMIT")
        .execute(&mut blocker)
        .await
        .expect("commit");
    let mut refused = 0;
    for ((_, _, game), task) in games.iter().zip(tasks) {
        let (status, retry) = task.await.expect("task");
        let now = app.get_json(&format!("/v1/games/{}", game_id(game))).await;
        match status {
            200 => assert!(now["version"].as_i64() > game["version"].as_i64()),
            503 => {
                refused += 1;
                assert!(retry, "503 says when to retry");
                assert_eq!(
                    now["version"], game["version"],
                    "a refused move records nothing"
                );
            }
            other => panic!("unexpected {other}"),
        }
    }
    assert!(refused > 0, "some moves found the queue full");
}

// ---- R4: an unreadable summary is an error, not a hole ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_summary_fails_the_listing_instead_of_hiding_a_game() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let mut ids = Vec::new();
        for _ in 0..3 {
            let g = app
                .create(
                    &a,
                    two_seat_variant(),
                    Value::Null,
                    vec![Some(a.id), Some(b.id)],
                )
                .await;
            ids.push(game_id(&g).parse::<Uuid>().expect("uuid"));
        }
        let changed = run_sql(
            &app,
            "UPDATE games SET summary = '{\"bogus\": true}' WHERE id = $1",
            Some(ids[1]),
        )
        .await
        .expect("corrupt a summary");
        assert_eq!(changed, 1);
        let resp = app.get(&format!("/v1/games?player={}", a.id)).await;
        assert_eq!(resp.status(), 500, "{backend:?}: listing");
        let resp = app
            .client
            .get(app.url("/v1/players/me/games"))
            .bearer_auth(&a.token)
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 500, "{backend:?}: inbox");
        app.worp.rebuild().await.expect("rebuild");
        let page = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        assert_eq!(page["games"].as_array().map(Vec::len), Some(3));
    }
}

// ---- R5: a rebuild racing appends loses nothing ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuild_racing_new_games_loses_no_seat() {
    for backend in BACKENDS {
        let app = std::sync::Arc::new(spawn_app(backend).await);
        let (a, b) = (app.player("a").await, app.player("b").await);
        for _ in 0..20 {
            app.create(&a, two_seat_variant(), Value::Null, vec![Some(a.id), None])
                .await;
        }
        let creating = {
            let (app, a) = (app.clone(), a.clone());
            tokio::spawn(async move {
                for _ in 0..30 {
                    app.create(&a, two_seat_variant(), Value::Null, vec![Some(a.id), None])
                        .await;
                }
            })
        };
        while !creating.is_finished() {
            app.worp.rebuild().await.expect("rebuild");
            // Rebuilds back to back would hold SQLite's write lock nearly all the time
            // and starve the writer past its busy timeout (503): leave it a moment.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        creating.await.expect("creations");
        let page = app
            .get_json(&format!("/v1/games?player={}&limit=200", a.id))
            .await;
        assert_eq!(
            page["games"].as_array().map(Vec::len),
            Some(50),
            "{backend:?}: every game keeps its seats"
        );
        let _ = b;
    }
}
