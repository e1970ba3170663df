//! How the decisions of RULES.md §2b are played: who may double, the decisions awaited
//! now, their effects, the end of a game and the start of the next one in a match, and
//! the Match ID of the state.

use super::match_id::{match_id, MatchKey};
use super::{
    Backgammon, Cube, Decision, GameScore, Level, Offer, OfferKind, Phase, Position, Side,
};
use crate::{EngineError, GameResult};

const NONE: &[Decision] = &[];
const ANSWER_DOUBLE: &[Decision] = &[Decision::Take, Decision::Pass];
const ANSWER_RESIGNATION: &[Decision] = &[Decision::Accept, Decision::Decline];
const BEFORE_ROLLING: &[Decision] = &[
    Decision::Roll,
    Decision::Double,
    Decision::Resign(Level::Single),
    Decision::Resign(Level::Gammon),
    Decision::Resign(Level::Backgammon),
];
const WITH_A_MOVE: &[Decision] = &[
    Decision::Resign(Level::Single),
    Decision::Resign(Level::Gammon),
    Decision::Resign(Level::Backgammon),
];

impl Backgammon {
    /// Whether `side` may double at the start of his turn: the cube is in play, this is
    /// not the Crawford game, the cube is centred or his, and below 64.
    pub(super) fn may_double(&self, side: Side) -> bool {
        self.options.cube_in_play() && !self.play.crawford && self.cube.can_double(side)
    }

    /// `side` is on roll: he chooses `roll` or `double` when he may double; otherwise
    /// the server rolls at once.
    pub(super) fn on_roll(&mut self, side: Side) {
        self.to_move = side;
        self.phase = if self.may_double(side) {
            Phase::RollOrDouble
        } else {
            Phase::Roll
        };
    }

    /// The decisions the awaited player may make now, in the order they follow the
    /// checker moves among the legal moves (none in a game without §2b).
    pub(super) fn decisions(&self) -> &'static [Decision] {
        if self.phase == Phase::Finished {
            return NONE;
        }
        match self.offer.map(|o| o.kind) {
            Some(OfferKind::Double) => ANSWER_DOUBLE,
            Some(OfferKind::Resign(_)) => ANSWER_RESIGNATION,
            None => match self.phase {
                Phase::RollOrDouble => BEFORE_ROLLING,
                Phase::Move if self.options.section_2b() => WITH_A_MOVE,
                _ => NONE,
            },
        }
    }

    /// The decisions allowed now, as their JSON, for error messages.
    pub(super) fn decision_names(&self) -> String {
        self.decisions()
            .iter()
            .map(|d| serde_json::to_string(d).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Plays a decision.
    pub(super) fn decide(&mut self, decision: Decision) -> Result<(), EngineError> {
        if !self.decisions().contains(&decision) {
            let what = serde_json::to_string(&decision).unwrap_or_default();
            return Err(EngineError::illegal(if self.decisions().is_empty() {
                format!("{what} is not allowed now: no decision is awaited")
            } else {
                format!(
                    "{what} is not allowed now; the decisions allowed are {}",
                    self.decision_names()
                )
            }));
        }
        let side = self.to_move;
        match decision {
            Decision::Roll => self.phase = Phase::Roll,
            Decision::Double => {
                self.offer = Some(Offer {
                    kind: OfferKind::Double,
                    by: side,
                })
            }
            Decision::Take => {
                self.cube = self.cube.taken_by(side.opponent());
                self.offer = None;
                self.phase = Phase::Roll;
            }
            Decision::Pass => {
                self.ended = Some((4, side, side.opponent()));
                self.end_game(side, Level::Single.ending(), Level::Single)
            }
            Decision::Resign(level) => {
                self.offer = Some(Offer {
                    kind: OfferKind::Resign(level),
                    by: side,
                })
            }
            Decision::Accept => {
                if let Some(Offer {
                    kind: OfferKind::Resign(level),
                    by,
                }) = self.offer
                {
                    self.ended = Some((3, by, by.opponent()));
                    self.end_game(by.opponent(), level.ending(), level);
                }
            }
            Decision::Decline => self.offer = None,
        }
        Ok(())
    }

    /// What a game won at `level` scores: the cube's value × 1, 2 or 3 (× 1 under the
    /// Jacoby rule while the cube was never turned).
    pub(super) fn game_points(&self, level: Level) -> u16 {
        let multiplier = if self.options.jacoby_rule() && !self.cube.turned() {
            1
        } else {
            level.multiplier()
        };
        multiplier * u16::from(self.cube.value)
    }

    /// The game ends, won by `winner` at `level`: the match ends, or the next game
    /// starts at once.
    pub(super) fn end_game(&mut self, winner: Side, ending: crate::Ending, level: Level) {
        let points = self.game_points(level);
        self.offer = None;
        let game = GameScore {
            winner,
            points,
            ending,
            cube: self.cube.value,
            crawford: self.play.crawford,
        };
        if self.play.record(game, self.options.crawford_rule()) {
            let points = u8::try_from(points).unwrap_or(u8::MAX);
            self.finish(GameResult::of(vec![winner.seat()], ending, points));
        } else {
            self.next_game();
        }
    }

    /// The next game of a match: the starting position, a new opening roll-off, the
    /// cube centred at 1.
    fn next_game(&mut self) {
        self.position = Position::START;
        self.to_move = Side::White;
        self.phase = Phase::OpeningRoll;
        self.opening = Default::default();
        self.dice = None;
        self.cube = Cube::CENTRED;
        self.offer = None;
        self.ended = None;
        self.movegen.clear();
    }

    /// Why the game (the match) ended: a passed double, an accepted resignation, a seat
    /// that left, or the last checker borne off.
    pub(super) fn end_reason(&self) -> Option<crate::game::EndReason> {
        use crate::game::EndReason;
        let result = self.result.as_ref()?;
        Some(match (self.ended, result.ending) {
            (_, crate::Ending::OpponentsRetired) => EndReason::OpponentsRetired,
            (Some((4, _, _)), _) => EndReason::DoublePassed,
            (Some((3, _, _)), _) => EndReason::ResignationAccepted,
            _ => EndReason::Goal,
        })
    }

    /// GNU Backgammon's game state (1 playing, 2 over, 3 resigned, 4 dropped), player on
    /// roll (from whose side the Position ID is taken) and player to decide, where the
    /// end of a match sets it.
    pub(super) fn gnubg_turn(&self) -> (u8, Side, Option<Side>) {
        match (self.phase == Phase::Finished, self.ended) {
            (true, Some((state, on_roll, turn))) => (state, on_roll, Some(turn)),
            (true, None) => (2, self.to_move.opponent(), None),
            (false, _) => (1, self.to_move, None),
        }
    }

    /// The GNU Backgammon Match ID of the state.
    ///
    /// Once the match is over it names the end as GNU Backgammon does: a game played out
    /// (state 2) with the loser on roll and to decide, a dropped double (4) with the
    /// doubler on roll and the dropper to decide, a resignation (3) with the resigner on
    /// roll and the winner to decide.
    pub fn match_id(&self) -> String {
        let (game_state, on_roll, turn) = self.gnubg_turn();
        let on_roll = on_roll.seat().0;
        let turn = turn.map(|t| t.seat().0);
        let (doubled, resigned) = match self.offer.map(|o| o.kind) {
            Some(OfferKind::Double) => (true, 0),
            Some(OfferKind::Resign(level)) => (false, level.gnubg()),
            None => (false, 0),
        };
        let dice = match self.phase {
            Phase::Move => self.dice.unwrap_or_default(),
            _ => [0, 0],
        };
        let score = self.play.score;
        match_id(&MatchKey {
            cube: self.cube.value,
            owner: self.cube.owner.map(|s| s.seat().0),
            on_roll,
            turn: turn.unwrap_or_else(|| self.offer.map_or(on_roll, |o| o.by.opponent().seat().0)),
            crawford: self.play.crawford,
            game_state,
            doubled,
            resigned,
            dice,
            match_length: u16::from(self.options.match_length),
            score: [score.white, score.black],
            jacoby: self.options.jacoby_rule(),
        })
    }
}
