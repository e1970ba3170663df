//! The registry: games defined outside the crate register in one call, names stay unique,
//! and what a game can do beyond being played is asked of its entry.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use worp_engine::backgammon::mat::{match_file, MatHeader};
use worp_engine::backgammon::Backgammon;
use worp_engine::replay::Step;
use worp_engine::{
    register, variant, variants, Awaiting, Capability, CapabilityError, Die, EngineError, Game,
    GameResult, MatchHeader, RegisterError, Seat, Variant,
};

/// A game decided by one die: even, seat 0 wins; odd, seat 1.
#[derive(Debug, Clone, Serialize, ToSchema)]
struct Coin {
    options: CoinOptions,
    result: Option<GameResult>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
struct CoinOptions {}

impl Game for Coin {
    type Options = CoinOptions;
    type Move = u8;

    const VARIANT: &'static str = "registry_test_coin";
    const TITLE: &'static str = "Coin";
    const MIN_SEATS: u8 = 2;
    const MAX_SEATS: u8 = 2;

    fn new(options: &CoinOptions, seats: u8) -> Result<Self, EngineError> {
        worp_engine::game::check_seat_count::<Self>(seats)?;
        Ok(Coin {
            options: options.clone(),
            result: None,
        })
    }
    fn options(&self) -> &CoinOptions {
        &self.options
    }
    fn awaiting(&self) -> Awaiting {
        match &self.result {
            Some(result) => Awaiting::Finished {
                result: result.clone(),
            },
            None => Awaiting::Dice {
                seat: Seat(0),
                die: Die::D6,
                count: 1,
            },
        }
    }
    fn legal_moves(&self) -> Vec<u8> {
        Vec::new()
    }
    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError> {
        if self.result.is_some() {
            return Err(EngineError::NotAwaitingDice);
        }
        Die::D6.check(1, values)?;
        self.result = Some(GameResult::won(Seat(values[0] % 2)));
        Ok(())
    }
    fn apply_move(&mut self, _: &u8) -> Result<(), EngineError> {
        Err(EngineError::NotAwaitingMove)
    }
    fn retire(&mut self, seat: Seat) -> Result<(), EngineError> {
        if seat.0 > 1 || self.result.is_some() {
            return Err(EngineError::NoSuchSeat { seat: seat.0 });
        }
        self.result = Some(GameResult::last_seat_standing(Seat(1 - seat.0)));
        Ok(())
    }
}

#[test]
fn a_game_from_outside_registers_in_one_call_and_only_once() {
    let before = variants().len();
    register(Variant::of::<Coin>()).expect("a new name registers");
    assert_eq!(variants().len(), before + 1);
    assert_eq!(variants().last().map(|v| v.name), Some(Coin::VARIANT));
    let coin = variant(Coin::VARIANT).expect("found by name");
    let mut game = coin.create(&Value::Null, 2).expect("created");
    game.apply_dice(&[4]).expect("dice");
    assert!(matches!(
        game.awaiting(),
        Awaiting::Finished { result } if result.winner == Some(Seat(0))
    ));
    assert_eq!(
        register(Variant::of::<Coin>()),
        Err(RegisterError::NameTaken {
            name: Coin::VARIANT
        })
    );
    assert_eq!(variants().len(), before + 1);
}

#[test]
fn a_name_of_the_crate_cannot_be_registered_again() {
    assert_eq!(
        register(Variant::of::<Backgammon>()),
        Err(RegisterError::NameTaken { name: "backgammon" })
    );
    let names: Vec<&str> = variants().iter().map(|v| v.name).collect();
    assert_eq!(names.iter().filter(|n| **n == "backgammon").count(), 1);
}

#[test]
fn the_games_of_the_crate_come_first_in_their_order() {
    let names: Vec<&str> = variants().iter().take(5).map(|v| v.name).collect();
    assert_eq!(
        names,
        [
            "mens_erger_je_niet",
            "backgammon",
            "ali_baba",
            "hoofden",
            "ludo"
        ]
    );
}

/// Options are an object or null: serde alone would also read `[true, 5]` as backgammon's
/// `{"cube": true, "match_length": 5}`, by field order.
#[test]
fn every_game_takes_its_options_as_an_object_or_null_only() {
    for v in variants().iter().take(5) {
        let seats = v.min_seats;
        assert!(v.create(&Value::Null, seats).is_ok(), "{}", v.name);
        assert!(v.create(&json!({}), seats).is_ok(), "{}", v.name);
        for wrong in [
            json!([]),
            json!([true, 5]),
            json!("cube"),
            json!(5),
            json!(true),
        ] {
            let refused = v.create(&wrong, seats).err();
            assert!(
                matches!(refused, Some(EngineError::InvalidOptions { .. })),
                "{} took {wrong}: {refused:?}",
                v.name
            );
        }
    }
}

#[test]
fn backgammon_writes_match_files_through_its_entry() {
    let bg = variant("backgammon").expect("backgammon");
    assert!(bg.capabilities().has(Capability::MatchFile));
    let mut game = bg.create(&Value::Null, 2).expect("a game");
    game.apply_dice(&[3])
        .and_then(|()| game.apply_dice(&[1]))
        .expect("opening");
    let first = game.legal_moves().expect("legal moves").swap_remove(0);
    let steps = [Step::Dice(vec![3]), Step::Dice(vec![1]), Step::Move(first)];
    let header = MatchHeader {
        players: vec!["ann".into(), "bob".into()],
        date: Some("2024.05.01".into()),
        options: Value::Null,
    };
    let text = bg.match_file(&steps, &header).expect("a match file");
    let direct = match_file(
        &steps,
        &MatHeader {
            white: "ann".into(),
            black: "bob".into(),
            date: Some("2024.05.01".into()),
        },
    )
    .expect("the same file");
    assert_eq!(text, direct);
    assert!(text.contains("[Player 1 \"ann\"]") && text.contains("[Player 2 \"bob\"]"));
    // A step the game refuses is the engine's error, not "unsupported".
    assert!(matches!(
        bg.match_file(&[Step::Dice(vec![7])], &header),
        Err(CapabilityError::Engine(_))
    ));
}

#[test]
fn backgammon_analyzes_lines_through_its_entry() {
    let bg = variant("backgammon").expect("backgammon");
    assert!(bg.capabilities().has(Capability::AnalyzeLine));
    let line = json!({
        "board": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2],
        "bar": {"white": 0, "black": 0},
        "off": {"white": 0, "black": 0},
        "to_move": "white",
        "dice": [3, 1]
    })
    .to_string();
    let answer = bg.analyze_line(&line).expect("an answer");
    assert_eq!(
        answer,
        worp_engine::backgammon::analyze::analyze_line(&line)
    );
    assert!(answer["outcomes"].as_array().is_some_and(|o| !o.is_empty()));
    let bad = bg.analyze_line("not json").expect("an answer");
    assert!(bad["error"].is_string());
}

#[test]
fn the_other_games_answer_not_supported() {
    let header = MatchHeader::default();
    for name in ["mens_erger_je_niet", "ali_baba", "hoofden", "ludo"] {
        let v = variant(name).expect("registered");
        for capability in [Capability::MatchFile, Capability::AnalyzeLine] {
            assert!(!v.capabilities().has(capability), "{name}");
        }
        let unsupported = |capability| CapabilityError::Unsupported {
            variant: v.name,
            capability,
        };
        assert_eq!(
            v.match_file(&[], &header),
            Err(unsupported(Capability::MatchFile))
        );
        assert_eq!(
            v.analyze_line("{}"),
            Err(unsupported(Capability::AnalyzeLine))
        );
        assert_eq!(
            unsupported(Capability::MatchFile).to_string(),
            format!("{name} does not support match files")
        );
    }
}
