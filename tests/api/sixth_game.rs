//! A sixth game, defined here and registered in one line, is served like the five of the
//! engine: listed, created, played, exported and audited over HTTP, with nothing in the
//! server naming it. Every other test of this binary sees it too (`helpers::spawn_app`
//! registers it before the first server starts), so the generic tests play it as well.

use std::sync::Once;

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use worp_engine::{Awaiting, Die, EngineError, Game, GameResult, Seat, Variant};

use crate::helpers::{spawn_app, Backend};

/// Registers the dice race (once per process).
pub fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| worp_engine::register(Variant::of::<DiceRace>()).expect("a new name"));
}

/// A race to `goal`: the seat to move rolls a d6 and walks either the roll or one field.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DiceRace {
    options: Options,
    /// Fields walked, by seat.
    walked: Vec<u8>,
    /// Seats that left the game, by seat.
    retired: Vec<bool>,
    to_move: Seat,
    /// The roll to play, once rolled.
    roll: Option<u8>,
    result: Option<GameResult>,
}

/// How far the race goes.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = DiceRaceOptions)]
pub struct Options {
    /// The fields to walk.
    goal: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options { goal: 20 }
    }
}

/// Walk `by` fields: the roll, or one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = DiceRaceMove)]
pub struct Move {
    by: u8,
}

impl DiceRace {
    fn next_seat(&self) -> Seat {
        let n = self.walked.len() as u8;
        (1..=n)
            .map(|k| Seat((self.to_move.0 + k) % n))
            .find(|s| !self.retired[s.index()])
            .unwrap_or(self.to_move)
    }
}

impl Game for DiceRace {
    type Options = Options;
    type Move = Move;

    const VARIANT: &'static str = "dice_race";
    const TITLE: &'static str = "Dice race (a test's sixth game)";
    const MIN_SEATS: u8 = 2;
    const MAX_SEATS: u8 = 3;

    fn new(options: &Options, seats: u8) -> Result<Self, EngineError> {
        worp_engine::game::check_seat_count::<Self>(seats)?;
        if options.goal == 0 {
            return Err(EngineError::options("goal: at least one field"));
        }
        Ok(DiceRace {
            options: options.clone(),
            walked: vec![0; usize::from(seats)],
            retired: vec![false; usize::from(seats)],
            to_move: Seat(0),
            roll: None,
            result: None,
        })
    }

    fn options(&self) -> &Options {
        &self.options
    }

    fn awaiting(&self) -> Awaiting {
        match (&self.result, self.roll) {
            (Some(result), _) => Awaiting::Finished {
                result: result.clone(),
            },
            (None, None) => Awaiting::Dice {
                seat: self.to_move,
                die: Die::D6,
                count: 1,
            },
            (None, Some(_)) => Awaiting::Move { seat: self.to_move },
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        match (&self.result, self.roll) {
            (None, Some(1)) => vec![Move { by: 1 }],
            (None, Some(roll)) => vec![Move { by: roll }, Move { by: 1 }],
            _ => Vec::new(),
        }
    }

    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError> {
        if self.result.is_some() {
            return Err(EngineError::Finished);
        }
        if self.roll.is_some() {
            return Err(EngineError::NotAwaitingDice);
        }
        Die::D6.check(1, values)?;
        self.roll = values.first().copied();
        Ok(())
    }

    fn apply_move(&mut self, mv: &Move) -> Result<(), EngineError> {
        if self.result.is_some() {
            return Err(EngineError::Finished);
        }
        if !self.legal_moves().contains(mv) {
            return Err(EngineError::illegal(format!("cannot walk {} now", mv.by)));
        }
        let seat = self.to_move;
        let walked = &mut self.walked[seat.index()];
        *walked = walked.saturating_add(mv.by).min(self.options.goal);
        self.roll = None;
        if *walked == self.options.goal {
            self.result = Some(GameResult::won(seat));
        } else {
            self.to_move = self.next_seat();
        }
        Ok(())
    }

    fn retire(&mut self, seat: Seat) -> Result<(), EngineError> {
        if self.result.is_some() {
            return Err(EngineError::Finished);
        }
        match self.retired.get(seat.index()) {
            Some(false) => self.retired[seat.index()] = true,
            _ => return Err(EngineError::NoSuchSeat { seat: seat.0 }),
        }
        let left: Vec<usize> = (0..self.retired.len())
            .filter(|s| !self.retired[*s])
            .collect();
        if let [last] = left[..] {
            self.result = Some(GameResult::last_seat_standing(Seat(last as u8)));
        } else if seat == self.to_move {
            self.roll = None;
            self.to_move = self.next_seat();
        }
        Ok(())
    }

    fn progress(&self, seat: Seat) -> i32 {
        self.walked.get(seat.index()).map_or(0, |w| i32::from(*w))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sixth_game_registered_in_one_line_is_served_like_the_others() {
    let app = spawn_app(Backend::Sqlite).await;
    let listed = app.get_json("/v1/variants").await;
    let race = listed
        .as_array()
        .and_then(|all| all.iter().find(|v| v["name"] == "dice_race"))
        .expect("listed by GET /v1/variants");
    assert_eq!(race["max_seats"], 3);
    assert_eq!(race["default_options"], json!({"goal": 20}));
    assert!(race["move_schema"]["properties"]["by"].is_object());

    let (a, b) = (app.player("a").await, app.player("b").await);
    let players = [&a, &b];
    let mut game = app
        .create(
            &a,
            "dice_race",
            json!({"goal": 12}),
            vec![Some(a.id), Some(b.id)],
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    let mut moves = 0;
    while game["status"] == "active" {
        let seat = game["to_move"].as_u64().expect("a seat to move") as usize;
        let legal = game["legal_moves"].as_array().expect("legal moves");
        // Seat 0 walks the roll, seat 1 one field: seat 0 wins.
        let mv = if seat == 0 {
            &legal[0]
        } else {
            &legal[legal.len() - 1]
        };
        let resp = app
            .post(
                &format!("/v1/games/{id}/moves"),
                players[seat],
                json!({"move": mv}),
            )
            .await;
        assert_eq!(resp.status(), 200);
        game = resp.json().await.expect("json");
        moves += 1;
        assert!(moves < 100, "the race ends: {game}");
    }
    assert_eq!(game["status"], "finished");
    assert_eq!(game["result"]["winner"], 0);
    assert_eq!(game["result"]["winners"], json!([0]));
    assert_eq!(game["state"]["walked"][0], 12);

    let export: worp::export::Export =
        serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
            .expect("an export");
    assert_eq!(export.variant, "dice_race");
    worp::export::audit_export(&export).expect("the export audits offline");
    let audit = app.get(&format!("/v1/games/{id}/audit")).await;
    assert_eq!(audit.status(), 200);
    let record = app
        .get_json(&format!("/v1/games/{id}/export?format=record"))
        .await;
    assert_eq!(record["variant"], "dice_race");

    let mat = app.get(&format!("/v1/games/{id}/export?format=mat")).await;
    assert_eq!(mat.status(), 400, "no match files for the dice race");
}

#[test]
fn the_sixth_game_is_registered_once_under_its_own_name() {
    register();
    register();
    let named: Vec<&str> = worp_engine::variants()
        .iter()
        .map(|v| v.name)
        .filter(|n| *n == "dice_race")
        .collect();
    assert_eq!(named, ["dice_race"]);
    let race = worp_engine::variant("dice_race").expect("registered");
    assert!(matches!(
        race.match_file(&[], &worp_engine::MatchHeader::default()),
        Err(worp_engine::CapabilityError::Unsupported { .. })
    ));
    assert!(matches!(
        race.create(&json!({"goal": 0}), 2),
        Err(EngineError::InvalidOptions { .. })
    ));
    assert_eq!(race.default_options(), Ok(json!({"goal": 20})));
}
