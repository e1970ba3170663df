//! The group commit on PostgreSQL keeps a connection per writer only while changes keep
//! coming: once quiet, the connections go back to the pool for everything else (the
//! shared writers' and those of each actix-web worker thread's own writer).

use std::time::Duration;

use serde_json::json;
use worp::store::Store;

use crate::helpers::{spawn_app, spawn_app_with, Backend, ManualClock, BACKENDS};
use crate::play::two_seat_variant;
use crate::store::move_once;
use crate::webhooks::register;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_commit_writers_give_their_connections_back_when_quiet() {
    let app = spawn_app(Backend::Postgres).await;
    let Store::Postgres(pg) = &app.store else {
        panic!("a PostgreSQL store");
    };
    // Several games moving at once, so both writers take batches.
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let (a, b, game) = app.two_player_game(two_seat_variant()).await;
        let (client, base) = (app.client.clone(), app.address.clone());
        tasks.push(tokio::spawn(async move {
            let mut game = game;
            for _ in 0..10 {
                if game["status"] != "active" {
                    break;
                }
                let who = if game["to_move"] == 0 { &a } else { &b };
                let id = game["id"].as_str().expect("id").to_owned();
                let resp = client
                    .post(format!("{base}/v1/games/{id}/moves"))
                    .bearer_auth(&who.token)
                    .json(&json!({"move": game["legal_moves"][0]}))
                    .send()
                    .await
                    .expect("move");
                assert_eq!(resp.status(), 200);
                game = resp.json().await.expect("json");
            }
        }));
    }
    for t in tasks {
        t.await.expect("moves");
    }
    // Quiet now: only the LISTEN connection stays checked out (the webhook poller and
    // the announcer borrow one for a moment now and then).
    let until = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let held = pg.pool.size() as usize - pg.pool.num_idle();
        // The writers of actix-web's worker threads have connections of their own.
        let (in_use, _) = app.store.connections();
        if held <= 1 && in_use <= 1 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "{held} connections of the pool and {in_use} in all still held after the moves stopped"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A move judged on `table` (the `pick`th legal move), as the service would append it
/// (without the dice that follow), and the hash it would record.
pub(crate) fn move_on(table: &worp::table::Table, pick: usize) -> (worp::store::Append, String) {
    let seat = table.to_move().expect("a seat to move");
    let moves = table.game.legal_moves().expect("legal moves");
    let mv = moves[pick.min(moves.len() - 1)].clone();
    change_on(table, worp::events::Event::MovePlayed { seat: seat.0, mv })
}

/// A message of seat 0 posted on `table`, and the hash it would record.
fn message_on(table: &worp::table::Table) -> (worp::store::Append, String) {
    let text = "gl hf".to_owned();
    let salt = "00112233445566778899aabbccddeeff".to_owned();
    let text_sha256 = worp::events::message_commitment(Some(&salt), &text).expect("hex salt");
    let event = worp::events::Event::MessagePosted {
        seat: 0,
        text: Some(text),
        salt: Some(salt),
        text_sha256,
    };
    change_on(table, event)
}

/// `event` judged on `table`, as the service would append it, and the hash it would
/// record.
fn change_on(
    table: &worp::table::Table,
    event: worp::events::Event,
) -> (worp::store::Append, String) {
    let row = worp::events::EventRow::new(
        table.id,
        table.version + 1,
        &event,
        table.updated_at,
        &table.head_hash,
    )
    .expect("an event serialises");
    let mut after = table.clone();
    after
        .apply_event(&row.event, event)
        .expect("the change applies");
    let hash = row.event.hash.clone();
    (
        worp::store::Append {
            game_id: table.id,
            expected_version: table.version,
            events: vec![row],
            row: worp::service::game_row(&after).expect("a row"),
            secret: None,
            answer_to_keep: None,
            notices: Vec::new(),
        },
        hash,
    )
}

/// The game's last recorded change sent again: the log has moved past it.
fn last_change_again(
    table: &worp::table::Table,
    last: &worp::events::StoredEvent,
) -> worp::store::Append {
    worp::store::Append {
        game_id: table.id,
        expected_version: table.version - 1,
        events: vec![last.clone().into()],
        row: worp::service::game_row(table).expect("a row"),
        secret: None,
        answer_to_keep: None,
        notices: Vec::new(),
    }
}

/// The log of `id` has `len` events ending with `hash`, replays, and the `games` row
/// follows it.
pub(crate) async fn assert_log(
    app: &crate::helpers::TestApp,
    id: uuid::Uuid,
    len: i64,
    hash: &str,
) {
    let events = app.worp.all_events(id).await.expect("events");
    assert_eq!(events.len() as i64, len, "no gap, no duplicate");
    assert_eq!(events.last().expect("an event").hash, hash);
    const VERSION: &str = "SELECT version FROM games WHERE id = $1";
    let row: i64 = match &app.store {
        Store::Postgres(pg) => {
            sqlx::query_scalar(VERSION)
                .bind(id)
                .fetch_one(&pg.pool)
                .await
        }
        Store::Sqlite(s) => {
            sqlx::query_scalar(VERSION)
                .bind(id)
                .fetch_one(&s.pool)
                .await
        }
    }
    .expect("games row");
    assert_eq!(row, len, "the games row follows the log");
    let replayed = worp::table::Table::from_events(&events).expect("the log replays");
    assert_eq!(replayed.version, len);
}

/// A batch of moves is judged change by change: the changes still at their game's
/// version are written, a change to a game that has moved on writes nothing and is
/// refused on its own, and of two racing changes exactly one is written. On both
/// backends (`sqlite_commit.rs` makes sure the SQLite changes share a batch).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_moves_writes_the_current_changes_and_refuses_the_stale_ones() {
    for backend in BACKENDS {
        batch_of_moves(backend).await;
    }
}

async fn batch_of_moves(backend: Backend) {
    use worp::store::StoreError;

    let app = spawn_app(backend).await;
    let mut tables = Vec::new();
    for _ in 0..26 {
        let (_, _, game) = app.two_player_game(two_seat_variant()).await;
        let id: uuid::Uuid = game["id"].as_str().expect("id").parse().expect("uuid");
        tables.push(app.worp.load(id).await.expect("load"));
    }

    // Current and stale changes to different games, all at once (the writers take them
    // in batches). Stale: a change judged on a version the log has not reached (as from
    // a cache left ahead of a database restored from a backup: writing it would leave a
    // gap in the log); then, separately (its events would also break the unique key of
    // the log, which fails a batch as a whole), the game's last recorded change sent
    // again (the log has moved past it).
    for (games, behind) in [(&tables[0..8], false), (&tables[8..16], true)] {
        let mut changes = Vec::new();
        let mut expected = Vec::new();
        for (i, table) in games.iter().enumerate() {
            let last = app.worp.all_events(table.id).await.expect("events");
            let last = last.last().expect("an event").clone();
            if i % 2 == 0 {
                let (change, hash) = move_on(table, 0);
                changes.push(change);
                expected.push((table.id, table.version + 1, hash, true));
                continue;
            }
            if behind {
                changes.push(last_change_again(table, &last));
            } else {
                let mut ahead = (**table).clone();
                ahead.version += 1;
                changes.push(move_on(&ahead, 0).0);
            }
            expected.push((table.id, table.version, last.hash, false));
        }
        let answers =
            futures_util::future::join_all(changes.into_iter().map(|a| app.store.append(a))).await;
        for ((id, len, hash, written), answer) in expected.iter().zip(&answers) {
            if *written {
                assert!(answer.is_ok(), "a current change is written: {answer:?}");
            } else {
                assert!(
                    matches!(answer, Err(StoreError::Conflict)),
                    "a change to a game at another version is refused: {answer:?}"
                );
            }
            assert_log(&app, *id, *len, hash).await;
        }
    }

    // One change at a time (a batch of one, as a lone player's moves are written): a
    // change judged on a version the log has not reached, then the last change again,
    // are refused and write nothing; a current one is written.
    for table in &tables[20..22] {
        let last = app.worp.all_events(table.id).await.expect("events");
        let last = last.last().expect("an event").clone();
        let mut ahead = (**table).clone();
        ahead.version += 1;
        let again = last_change_again(table, &last);
        for stale in [move_on(&ahead, 0).0, again] {
            let answer = app.store.append(stale).await;
            assert!(matches!(answer, Err(StoreError::Conflict)), "{answer:?}");
            assert_log(&app, table.id, table.version, &last.hash).await;
        }
        let (current, hash) = move_on(table, 0);
        let answer = app.store.append(current).await;
        assert!(answer.is_ok(), "a current change is written: {answer:?}");
        assert_log(&app, table.id, table.version + 1, &hash).await;
    }

    // Two moves judged on the same state of each game, at once.
    let mut changes = Vec::new();
    let mut hashes = Vec::new();
    for table in &tables[16..20] {
        let (first, h1) = move_on(table, 0);
        let (second, h2) = move_on(table, usize::MAX);
        changes.push(first);
        changes.push(second);
        hashes.push((table.id, table.version + 1, h1, h2));
    }
    let answers =
        futures_util::future::join_all(changes.into_iter().map(|a| app.store.append(a))).await;
    for ((id, len, h1, h2), pair) in hashes.iter().zip(answers.chunks(2)) {
        let won: Vec<bool> = pair.iter().map(Result::is_ok).collect();
        assert_eq!(
            won.iter().filter(|ok| **ok).count(),
            1,
            "exactly one of two racing moves is written: {pair:?}"
        );
        for refused in pair.iter().filter(|a| a.is_err()) {
            assert!(matches!(refused, Err(StoreError::Conflict)), "{refused:?}");
        }
        assert_log(&app, *id, *len, if won[0] { h1 } else { h2 }).await;
    }

    // Two changes of one game at once, the second (a message) judged on the state the
    // first (a move) leaves: a batch naming a game twice. The first is written; the
    // second is written after it or refused, and the `games` row follows the log either
    // way: the batch's upsert refuses to write one row twice, and a statement that did
    // would leave the row at one change while the log holds both.
    let mut changes = Vec::new();
    let mut expected = Vec::new();
    for table in &tables[22..26] {
        let (first, h1) = move_on(table, 0);
        let mut events = app.worp.all_events(table.id).await.expect("events");
        events.extend(first.events.iter().map(|r| r.event.clone()));
        let after = worp::table::Table::from_events(&events).expect("the move replays");
        let (second, h2) = message_on(&after);
        changes.push(first);
        changes.push(second);
        expected.push((table.id, table.version, h1, h2));
    }
    let answers =
        futures_util::future::join_all(changes.into_iter().map(|a| app.store.append(a))).await;
    for ((id, version, h1, h2), pair) in expected.iter().zip(answers.chunks(2)) {
        assert!(pair[0].is_ok(), "the move is written: {pair:?}");
        match &pair[1] {
            Ok(_) => assert_log(&app, *id, version + 2, h2).await,
            Err(StoreError::Conflict) => assert_log(&app, *id, version + 1, h1).await,
            Err(e) => panic!("the message is written or refused: {e:?}"),
        }
    }
}

/// A lone move (a batch of one, each move when a single client plays) is written by a
/// statement of its own shape: its events take their positions in their order, its
/// `games` row carries the second of the change the listings are ordered by, and its
/// notices reach the webhook outbox. Backgammon, whose moves are followed by the next
/// roll (two events), with a webhook registered for one player, and a clock that moves
/// on by more than a second between moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lone_moves_events_take_their_positions_in_order() {
    let clock = ManualClock::new();
    let app = spawn_app_with(Backend::Postgres, clock.clone()).await;
    let Store::Postgres(pg) = &app.store else {
        panic!("a PostgreSQL store");
    };
    let (a, b, mut game) = app.two_player_game("backgammon").await;
    register(&app, &a, "http://127.0.0.1:9/hook").await;
    let id = game["id"].as_str().expect("id").to_owned();
    let mut moves = 0;
    // How often the turn came to `a` from a change in which it was not `a`'s: a's
    // webhook hears each of those once (the dice decide how many there are).
    let mut turns_of_a = 0;
    while game["status"] == "active" && moves < 40 {
        clock.advance(chrono::Duration::milliseconds(1_100));
        let before = game["to_move"].clone();
        game = move_once(&app, &game, &a, &b).await;
        if game["status"] == "active" && game["to_move"] == 0 && before != 0 {
            turns_of_a += 1;
        }
        moves += 1;
    }
    let game_id: uuid::Uuid = id.parse().expect("uuid");
    let events: Vec<(i64, i64, String)> =
        sqlx::query_as("SELECT seq, position, kind FROM events WHERE game_id = $1 ORDER BY seq")
            .bind(game_id)
            .fetch_all(&pg.pool)
            .await
            .expect("events");
    assert!(
        events.iter().filter(|e| e.2 == "dice_rolled").count() >= moves / 2,
        "moves and the rolls after them: {events:?}"
    );
    assert!(
        events.windows(2).all(|w| w[0].1 < w[1].1),
        "positions in the order of the game's sequence: {events:?}"
    );
    const UNLISTED: &str = "SELECT count(*) FROM games WHERE listed_second IS DISTINCT FROM \
         date_bin('1 second', updated_at, TIMESTAMPTZ '2000-01-01 00:00:00+00')";
    let unlisted = || async {
        let n: i64 = sqlx::query_scalar(UNLISTED)
            .fetch_one(&pg.pool)
            .await
            .expect("games");
        n
    };
    assert_eq!(
        unlisted().await,
        0,
        "every row is listed by the second of its change"
    );
    // The same once the read models are written again from the log.
    assert_eq!(app.worp.rebuild().await.expect("rebuild"), 1);
    assert_eq!(unlisted().await, 0, "every rebuilt row too");
    let turns: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM webhook_deliveries WHERE game_id = $1 AND player_id = $2 \
         AND kind = 'your_turn'",
    )
    .bind(game_id)
    .bind(a.id)
    .fetch_one(&pg.pool)
    .await
    .expect("deliveries");
    assert!(turns_of_a > 0, "the turn came to a: {moves} moves");
    assert_eq!(
        turns, turns_of_a,
        "a delivery for each turn of the player with a webhook, in {moves} moves"
    );
}

/// A lone move whose notices go to players without a webhook is written without the
/// outbox, by a statement that writes nothing when one of them has a webhook after all.
/// A webhook registered in the middle of a game hears every turn from the next one on,
/// exactly once each: the first through the move appended again with its outbox, the
/// later ones because the writer then knows the player has a webhook.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_registered_during_a_game_hears_each_later_turn_once() {
    let app = spawn_app(Backend::Postgres).await;
    let Store::Postgres(pg) = &app.store else {
        panic!("a PostgreSQL store");
    };
    let (a, b, mut game) = app.two_player_game("backgammon").await;
    for _ in 0..6 {
        game = move_once(&app, &game, &a, &b).await;
    }
    assert_eq!(game["status"], "active", "{game}");
    register(&app, &a, "http://127.0.0.1:9/hook").await;
    let mut turns = 0;
    for _ in 0..12 {
        if game["status"] != "active" {
            break;
        }
        let before = game["to_move"].clone();
        game = move_once(&app, &game, &a, &b).await;
        if game["status"] == "active" && game["to_move"] == 0 && before != 0 {
            turns += 1;
        }
    }
    assert!(turns >= 3, "the turn came back to the player: {turns}");
    let game_id: uuid::Uuid = game["id"].as_str().expect("id").parse().expect("uuid");
    let heard: Vec<(i64, uuid::Uuid)> = sqlx::query_as(
        "SELECT version, player_id FROM webhook_deliveries WHERE game_id = $1 \
         AND kind = 'your_turn' ORDER BY version",
    )
    .bind(game_id)
    .fetch_all(&pg.pool)
    .await
    .expect("deliveries");
    assert_eq!(heard.len(), turns, "one delivery per turn: {heard:?}");
    assert!(heard.iter().all(|(_, p)| *p == a.id), "{heard:?}");
}

/// [`move_on`] with a notice to `player` that it is their turn.
fn noticed_move_on(table: &worp::table::Table, player: uuid::Uuid) -> worp::store::Append {
    let (mut change, _) = move_on(table, 0);
    change.notices = vec![worp::store::PlayerNotice {
        player_id: player,
        game_id: table.id,
        version: table.version + 1,
        kind: "your_turn".to_owned(),
        payload: worp_engine::json::RawJson::of(&json!({"type": "your_turn"})).expect("JSON"),
    }];
    change
}

/// A batch of moves whose notices go to players without a webhook is written without
/// the outbox, by a statement that writes nothing at all when one of them has a webhook
/// after all; the writer then learns who and writes the batch with its outbox. Here one
/// batch (on a single-threaded runtime the thread's own writer takes every change
/// queued before it runs) of moves to six games, one of which turns to a player with a
/// webhook the writer has not seen: that player hears the turn once, the others nothing.
#[tokio::test]
async fn a_batch_of_moves_to_a_player_with_a_webhook_writes_the_delivery() {
    let app = spawn_app(Backend::Postgres).await;
    let Store::Postgres(pg) = &app.store else {
        panic!("a PostgreSQL store");
    };
    let mut games = Vec::new();
    let mut changes = Vec::new();
    for _ in 0..6 {
        let (a, b, game) = app.two_player_game("backgammon").await;
        let id: uuid::Uuid = game["id"].as_str().expect("id").parse().expect("uuid");
        let table = app.worp.load(id).await.expect("load");
        changes.push(noticed_move_on(&table, b.id));
        games.push((a, b, id));
    }
    let (watcher, heard_by) = (&games[0].1, games[0].1.id);
    register(&app, watcher, "http://127.0.0.1:9/hook").await;
    let answers =
        futures_util::future::join_all(changes.into_iter().map(|a| app.store.append(a))).await;
    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    let heard: Vec<(uuid::Uuid, uuid::Uuid, String)> = sqlx::query_as(
        "SELECT game_id, player_id, kind FROM webhook_deliveries WHERE game_id = ANY($1)",
    )
    .bind(games.iter().map(|g| g.2).collect::<Vec<_>>())
    .fetch_all(&pg.pool)
    .await
    .expect("deliveries");
    assert_eq!(
        heard,
        vec![(games[0].2, heard_by, "your_turn".to_owned())],
        "one delivery, to the player with a webhook"
    );
}
