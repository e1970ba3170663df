//! The state of a game as the API shows it.

use std::borrow::Cow;

use serde::{Deserialize, Serialize, Serializer};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

use super::cube::MAX_CUBE;
use super::match_id::parse_match_id;
use super::{
    position_id, Backgammon, Cube, Ended, GameScore, MatchPlay, Offer, OfferKind, OpeningRoll,
    Options, Phase, Position, Side, Tally, CHECKERS, DIE,
};
use crate::{Ending, EngineError, Game, GameResult};

/// The state of a game as JSON: the position in the oracle corpus layout, whose turn,
/// the last dice, the phase and the result.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = BackgammonState)]
pub struct StateJson {
    /// Point 1..24 (index 0..23): positive = White checkers, negative = Black checkers.
    #[schema(value_type = Vec<i8>, min_items = 24, max_items = 24)]
    pub board: [i8; 24],
    /// Checkers on the bar.
    pub bar: Tally,
    /// Checkers borne off.
    pub off: Tally,
    /// The colour to roll or move (during the opening: the next to roll its one die).
    pub to_move: Side,
    /// What the game waits for.
    pub phase: Phase,
    /// The opening roll so far (each player's one die).
    pub opening_roll: OpeningRoll,
    /// The last dice rolled: two values (for the first move, White's and Black's opening
    /// dice), or empty before any.
    pub dice: Vec<u8>,
    /// The GNU Backgammon Position ID, from the side of the player to move (with the
    /// cube or in a match, once it is over: from the side GNU Backgammon counts on roll,
    /// as in `match_id`).
    pub position_id: String,
    /// The colour that retired (resigned or ran out of time), if any.
    pub retired: Option<Side>,
    /// How the game ended, once it has.
    pub result: Option<GameResult>,
    /// The creation options.
    pub options: Options,
    /// With the cube or in a match: the doubling cube.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cube: Option<Cube>,
    /// With the cube or in a match: the match length, the score, the game number, the
    /// Crawford game and every finished game (a single game is a match of one game).
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_play: Option<MatchPlay>,
    /// A double or resignation awaiting the opponent's answer (who answers is the
    /// opponent of `offer.by`; the phase is where play goes on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offer: Option<Offer>,
    /// With the cube or in a match: the GNU Backgammon Match ID (seat 0 is its player 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
}

impl Backgammon {
    /// The state as shown in JSON.
    pub fn state(&self) -> StateJson {
        let rules_2b = self.options.section_2b();
        // With §2b, a finished match's Position ID is taken from the side GNU
        // Backgammon counts on roll (the loser); otherwise from the side to move.
        let on_roll = if rules_2b {
            self.gnubg_turn().1
        } else {
            self.to_move
        };
        StateJson {
            board: self.position.board,
            bar: self.position.bar,
            off: self.position.off,
            to_move: self.to_move,
            phase: self.phase,
            opening_roll: self.opening,
            dice: self.dice.map(|d| d.to_vec()).unwrap_or_default(),
            position_id: position_id::position_id(&self.position, on_roll),
            retired: self.retired,
            result: self.result.clone(),
            options: self.options.clone(),
            cube: rules_2b.then_some(self.cube),
            match_play: rules_2b.then(|| self.play.clone()),
            offer: self.offer,
            match_id: rules_2b.then(|| self.match_id()),
        }
    }
}

/// A game serialises as its [`StateJson`].
impl Serialize for Backgammon {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.state().serialize(s)
    }
}

impl PartialSchema for Backgammon {
    fn schema() -> RefOr<Schema> {
        StateJson::schema()
    }
}

impl ToSchema for Backgammon {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Backgammon")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        <StateJson as ToSchema>::schemas(schemas);
    }
}

/// [`StateJson`] as read back ([`Backgammon::from_state_json`]): the same fields, those
/// written only with §2b optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateIn {
    board: [i8; 24],
    bar: Tally,
    off: Tally,
    to_move: Side,
    phase: Phase,
    opening_roll: OpeningRoll,
    dice: Vec<u8>,
    position_id: String,
    retired: Option<Side>,
    result: Option<GameResult>,
    options: Options,
    cube: Option<Cube>,
    #[serde(rename = "match")]
    match_play: Option<MatchPlay>,
    offer: Option<Offer>,
    match_id: Option<String>,
}

/// An [`EngineError::UnreadableState`] unless `ok`.
fn ensure(ok: bool, reason: impl FnOnce() -> String) -> Result<(), EngineError> {
    if ok {
        Ok(())
    } else {
        Err(EngineError::state(reason()))
    }
}

impl Backgammon {
    /// The game whose state JSON ([`StateJson`]) is `text`: [`Game::from_state`].
    ///
    /// What the JSON does not hold is derived again: the legal checker moves from the
    /// position and the dice (as after the roll), the cube and the match of a game
    /// without §2b (a centred cube; a finished game's win recorded, as playing it out
    /// records it), and how a finished match ended (GNU Backgammon's game state, player
    /// on roll and player to decide) from its Match ID. The Position ID and the Match ID
    /// of the game rebuilt must be those written.
    pub(super) fn from_state_json(text: &str) -> Result<Backgammon, EngineError> {
        let s: StateIn = serde_json::from_str(text)
            .map_err(|e| EngineError::state(format!("not a backgammon state: {e}")))?;
        let mut game = Backgammon::new(&s.options, 2)
            .map_err(|e| EngineError::state(format!("its options: {e}")))?;
        let position = Position {
            board: s.board,
            bar: s.bar,
            off: s.off,
        };
        match (s.retired, s.options.section_2b()) {
            // Without §2b a retired player's checkers leave the board; those borne off
            // stay counted.
            (Some(side), false) => {
                let other = side.opponent();
                let left = position.total(side) - u32::from(position.off.get(side));
                ensure(
                    left == 0
                        && position.off.get(side) < CHECKERS
                        && position.total(other) == u32::from(CHECKERS),
                    || "a retired player's checkers leave the board; the other has 15".into(),
                )?;
            }
            _ => position.check().map_err(EngineError::state)?,
        }
        game.position = position;
        game.to_move = s.to_move;
        game.phase = s.phase;
        game.opening = s.opening_roll;
        game.retired = s.retired;
        game.offer = s.offer;
        game.dice = match s.dice[..] {
            [] => None,
            [a, b] => Some([a, b]),
            _ => {
                return Err(EngineError::state(format!(
                    "dice holds {} values; it holds two or none",
                    s.dice.len()
                )))
            }
        };
        let opening = [s.opening_roll.white, s.opening_roll.black];
        let dice = game.dice.iter().flatten().copied();
        let shown = dice.chain(opening.iter().flatten().copied());
        for v in shown {
            ensure(DIE.shows(v), || format!("a die cannot show {v}"))?;
        }
        let finished = s.phase == Phase::Finished;
        ensure(finished == s.result.is_some(), || {
            "a result is there exactly when the phase is finished".into()
        })?;
        ensure(finished || s.retired.is_none(), || {
            "a game with a retired player is finished".into()
        })?;
        ensure(
            finished || Side::BOTH.iter().all(|&side| s.off.get(side) < CHECKERS),
            || "a game in which a player has borne off every checker is finished".into(),
        )?;
        if s.phase == Phase::OpeningRoll {
            ensure(
                s.opening_roll.black.is_none()
                    && s.to_move
                        == if s.opening_roll.white.is_some() {
                            Side::Black
                        } else {
                            Side::White
                        },
                || "the opening roll is White's die, then Black's".into(),
            )?;
        }
        game.result = s.result;
        if s.options.section_2b() {
            game.rebuild_2b(s.cube, s.match_play, s.match_id.as_deref())?;
        } else {
            ensure(
                s.cube.is_none()
                    && s.match_play.is_none()
                    && s.offer.is_none()
                    && s.match_id.is_none(),
                || {
                    "a game without the cube or a match has no cube, match, offer or match_id"
                        .into()
                },
            )?;
            game.rebuild_single_game_score();
        }
        if s.phase == Phase::Move {
            let Some(dice) = game.dice else {
                return Err(EngineError::state(
                    "a move is awaited but no dice were rolled",
                ));
            };
            // As after the roll: the legal checker moves.
            ensure(
                !game
                    .movegen
                    .generate(&game.position, game.to_move, dice)
                    .is_empty(),
                || {
                    format!(
                        "the roll {}-{} cannot be played: the turn would have passed",
                        dice[0], dice[1]
                    )
                },
            )?;
        }
        let written = game.state();
        ensure(written.position_id == s.position_id, || {
            format!(
                "position_id {} is not that of the position ({})",
                s.position_id, written.position_id
            )
        })?;
        Ok(game)
    }

    /// The cube, the match, and how a finished match ended (from its Match ID), of a game
    /// with §2b; checks the offer and the Match ID against the rest.
    fn rebuild_2b(
        &mut self,
        cube: Option<Cube>,
        play: Option<MatchPlay>,
        match_id: Option<&str>,
    ) -> Result<(), EngineError> {
        let (Some(cube), Some(play), Some(match_id)) = (cube, play, match_id) else {
            return Err(EngineError::state(
                "a game with the cube or a match has a cube, a match and a match_id",
            ));
        };
        ensure(
            cube.value.is_power_of_two() && cube.value <= MAX_CUBE,
            || format!("the cube cannot show {}", cube.value),
        )?;
        ensure(play.length == self.options.match_length, || {
            format!(
                "the match is to {} points but the options say {}",
                play.length, self.options.match_length
            )
        })?;
        self.cube = cube;
        self.play = play;
        if self.phase == Phase::RollOrDouble {
            ensure(self.may_double(self.to_move), || {
                "roll or double is awaited from a player who may not double".into()
            })?;
        }
        if let (Some(offer), false) = (self.offer, self.phase == Phase::Finished) {
            ensure(offer.by == self.to_move, || {
                "an offer is made by the player on roll".into()
            })?;
            ensure(
                match offer.kind {
                    OfferKind::Double => self.phase == Phase::RollOrDouble,
                    OfferKind::Resign(_) => {
                        matches!(self.phase, Phase::RollOrDouble | Phase::Move)
                    }
                },
                || {
                    "an offer is made before rolling (a resignation also with a move pending)"
                        .into()
                },
            )?;
        }
        let key = parse_match_id(match_id)
            .ok_or_else(|| EngineError::state(format!("match_id {match_id} is not a Match ID")))?;
        // A match that ended by a passed double (4) or a resignation (3) says so in its
        // Match ID, with the player it counts on roll, the one to decide, the level
        // resigned and a roll left unplayed.
        if self.phase == Phase::Finished && matches!(key.game_state, 3 | 4) {
            let side = |player: u8| {
                if player == 0 {
                    Side::White
                } else {
                    Side::Black
                }
            };
            self.ended = Some(Ended {
                state: key.game_state,
                on_roll: side(key.on_roll),
                turn: side(key.turn),
                resigned: key.resigned,
                dice: key.dice,
            });
        }
        let rebuilt = self.match_id();
        ensure(rebuilt == match_id, || {
            format!("match_id {match_id} is not that of the rest of the state ({rebuilt})")
        })
    }

    /// A single game without §2b records its win in the match of one game, as playing
    /// it out does (a player's retirement records nothing): the winner's progress counts
    /// it.
    fn rebuild_single_game_score(&mut self) {
        let Some(result) = &self.result else {
            return;
        };
        let winner = result.winner.and_then(Side::of_seat);
        if let (Some(winner), false) = (winner, result.ending == Ending::OpponentsRetired) {
            let game = GameScore {
                winner,
                points: u16::from(result.points),
                ending: result.ending,
                cube: self.cube.value,
                crawford: false,
            };
            self.play.record(game, false);
        }
    }
}
