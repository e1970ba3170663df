//! The store itself: history cannot be rewritten, and read models rebuild from the log.

use serde_json::Value;
use worp::store::Store;

use crate::helpers::{spawn_app, BACKENDS};
use crate::play::two_seat_variant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_refuses_to_update_or_delete_events() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        app.create(
            &a,
            two_seat_variant(),
            Value::Null,
            vec![Some(a.id), Some(b.id)],
        )
        .await;
        let (update, delete) = match &app.worp.store {
            Store::Postgres(s) => (
                sqlx::query("UPDATE events SET kind = 'forged'")
                    .execute(&s.pool)
                    .await
                    .err(),
                sqlx::query("DELETE FROM events")
                    .execute(&s.pool)
                    .await
                    .err(),
            ),
            Store::Sqlite(s) => (
                sqlx::query("UPDATE events SET kind = 'forged'")
                    .execute(&s.pool)
                    .await
                    .err(),
                sqlx::query("DELETE FROM events")
                    .execute(&s.pool)
                    .await
                    .err(),
            ),
        };
        let update = update.expect("UPDATE must fail").to_string();
        let delete = delete.expect("DELETE must fail").to_string();
        assert!(update.contains("immutable"), "{update}");
        assert!(delete.contains("immutable"), "{delete}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rebuild_remakes_the_listing_from_the_log() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        for _ in 0..3 {
            app.create(
                &a,
                two_seat_variant(),
                Value::Null,
                vec![Some(a.id), Some(b.id)],
            )
            .await;
        }
        app.create(&a, two_seat_variant(), Value::Null, vec![Some(a.id), None])
            .await;
        let before = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        app.worp
            .store
            .replace_read_models(&[])
            .await
            .expect("clear");
        let empty = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        assert_eq!(empty["games"].as_array().map(Vec::len), Some(0));
        assert_eq!(app.worp.rebuild().await.expect("rebuild"), 4);
        let after = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        assert_eq!(before, after);
    }
}
