//! Names that lie: a name must show something, hold no bidirectional formatting or line
//! separators, and not look like another player's (PRECIS Nickname, RFC 8266, then the
//! UTS #39 confusable skeleton, unique in the store however many register at once).
//! Players registered before the rule keep their names; `worp rebuild` lists those that
//! collide.

use serde_json::{json, Value};
use uuid::Uuid;
use worp::store::Store;

use crate::helpers::{spawn_app, Backend, TestApp, BACKENDS};

/// `POST /v1/players` with `name`: the status and the body.
async fn register(app: &TestApp, name: &str) -> (u16, Value, String) {
    let resp = app
        .client
        .post(app.url("/v1/players"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .expect("request");
    let status = resp.status().as_u16();
    let kind = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, resp.json().await.expect("json"), kind)
}

#[tokio::test]
async fn names_of_invisible_characters_bidi_controls_or_line_separators_are_refused() {
    let refused = [
        "\u{200B}",
        "\u{FEFF}",
        "\u{3164}",
        "\u{2800}",
        "\u{200B}\u{FEFF}\u{3164}\u{2800}",
        "\u{115F}\u{1160}\u{FFA0}",
        "\u{202E}ecila",
        "ali\u{202D}ce",
        "\u{2066}alice\u{2069}",
        "\u{2067}alice",
        "\u{2068}alice",
        "alice\u{200E}",
        "alice\u{200F}",
        "alice\u{061C}",
        "al\u{2028}ice",
        "al\u{2029}ice",
    ];
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        for name in refused {
            let (status, body, kind) = register(&app, name).await;
            assert_eq!(status, 400, "{backend:?}: {name:?} {body}");
            assert_eq!(kind, "application/problem+json", "{backend:?}: {name:?}");
            assert!(
                body["detail"].as_str().is_some_and(|d| d.contains("name")),
                "{backend:?}: {body}"
            );
        }
    }
}

#[tokio::test]
async fn a_name_that_looks_like_another_players_is_refused_with_409() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (status, alice, _) = register(&app, "alice").await;
        assert_eq!(status, 201, "{backend:?}");
        // The exact name, and six that look the same.
        let same = [
            ("alice", 409),
            ("Alice", 409),
            ("\u{0430}lice", 409),                             // Cyrillic а
            ("\u{FF41}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}", 409), // fullwidth
            ("al\u{0131}ce", 409),                             // dotless ı
            ("ali\u{0301}ce", 409),                            // a combining acute accent
            ("alice\u{200B}", 400),                            // invisible: not a nickname
        ];
        for (name, expected) in same {
            let (status, body, kind) = register(&app, name).await;
            assert_eq!(status, expected, "{backend:?}: {name:?} {body}");
            assert_eq!(kind, "application/problem+json", "{backend:?}: {name:?}");
            if expected == 409 {
                assert!(
                    body["detail"]
                        .as_str()
                        .is_some_and(|d| d.contains("looks the same as \"alice\"")),
                    "{backend:?}: {body}"
                );
            }
        }
        // Names are stored normalised: spaces trimmed and collapsed, NFKC.
        let (status, body, _) = register(&app, "  Guybrush    Threepwood ").await;
        assert_eq!(status, 201, "{backend:?}");
        assert_eq!(body["name"], "Guybrush Threepwood", "{backend:?}");
        let page = app
            .get_json(&format!(
                "/v1/players/{}",
                alice["id"].as_str().expect("id")
            ))
            .await;
        assert_eq!(page["name"], "alice");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_look_alikes_registering_at_once_exactly_one_gets_the_name() {
    let names = [
        "alice",
        "Alice",
        "\u{0430}lice",
        "\u{FF41}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}",
        "al\u{0131}ce",
        "ali\u{0301}ce",
        "ALICE",
        "al\u{00ED}ce",
    ];
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        for round in 0..3 {
            let suffix = "x".repeat(round);
            let all = names.map(|n| format!("{n}{suffix}"));
            let answers =
                futures_util::future::join_all(all.iter().map(|n| register(&app, n))).await;
            let statuses: Vec<u16> = answers.iter().map(|(s, _, _)| *s).collect();
            assert_eq!(
                statuses.iter().filter(|s| **s == 201).count(),
                1,
                "{backend:?}: {statuses:?}"
            );
            assert!(
                statuses.iter().all(|s| *s == 201 || *s == 409),
                "{backend:?}: {statuses:?}"
            );
        }
    }
}

/// Inserts a player as one registered before names were keyed: no `name_keys` row.
async fn old_player(app: &TestApp, name: &str, token: &str, age_secs: i64) -> Uuid {
    let id = Uuid::new_v4();
    let hash = worp::service::token_hash(token);
    let at = chrono::Utc::now() - chrono::Duration::seconds(age_secs);
    let sql = "INSERT INTO players (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)";
    match &app.store {
        Store::Postgres(s) => sqlx::query(sql)
            .bind(id)
            .bind(name)
            .bind(hash)
            .bind(at)
            .execute(&s.pool)
            .await
            .map(drop),
        Store::Sqlite(s) => sqlx::query(sql)
            .bind(id)
            .bind(name)
            .bind(hash)
            .bind(at)
            .execute(&s.pool)
            .await
            .map(drop),
    }
    .expect("an old player");
    id
}

#[tokio::test]
async fn players_registered_before_whose_names_collide_keep_them_and_are_listed() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let bob = old_player(&app, "Bob", "worp_old_bob", 300).await;
        let fake = old_player(&app, "b\u{043E}b", "worp_old_fake", 200).await;
        let blank = old_player(&app, "\u{3164}", "worp_old_blank", 100).await;
        let collisions = app.worp.settle_name_keys().await.expect("settle");
        let listed: Vec<(Uuid, Option<Uuid>)> = collisions
            .iter()
            .map(|c| (c.player, c.holder.as_ref().map(|h| h.0)))
            .collect();
        assert_eq!(
            listed,
            vec![(fake, Some(bob)), (blank, None)],
            "{backend:?}: {collisions:?}"
        );
        // Settling again changes nothing and lists the same; so does `worp rebuild`.
        let again = app.worp.settle_name_keys().await.expect("settle");
        assert_eq!(again, collisions, "{backend:?}");
        let mut rebuild = std::process::Command::new(env!("CARGO_BIN_EXE_worp"));
        rebuild.arg("rebuild").env("RUST_LOG", "warn");
        match backend {
            Backend::Postgres => rebuild.env("DATABASE_URL", &app.database),
            Backend::Sqlite => rebuild
                .env_remove("DATABASE_URL")
                .env("WORP_SQLITE_PATH", &app.database),
        };
        let out = rebuild.output().expect("worp rebuild");
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{backend:?}: {printed}");
        let line = |id: Uuid| {
            printed
                .lines()
                .find(|l| l.starts_with(&id.to_string()))
                .unwrap_or_default()
                .to_owned()
        };
        assert!(
            line(fake).ends_with(&format!("looks like {bob} \"Bob\"")),
            "{backend:?}: {printed}"
        );
        assert!(
            line(blank).ends_with("shows nothing"),
            "{backend:?}: {printed}"
        );
        assert_eq!(line(bob), "", "{backend:?}: {printed}");
        // The oldest holds the key: nobody may now register a look-alike of it.
        let (status, body, _) = register(&app, "bob").await;
        assert_eq!(status, 409, "{backend:?}: {body}");
        // Each keeps their name and token.
        for (id, token, name) in [
            (bob, "worp_old_bob", "Bob"),
            (fake, "worp_old_fake", "b\u{043E}b"),
            (blank, "worp_old_blank", "\u{3164}"),
        ] {
            let me = app
                .get_json_as(
                    "/v1/players/me",
                    &crate::helpers::TestPlayer {
                        id,
                        token: token.into(),
                    },
                )
                .await;
            assert_eq!(me["name"], name, "{backend:?}");
        }
    }
}
