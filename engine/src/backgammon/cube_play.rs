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

/// How a game ended by a resignation or a drop, as GNU Backgammon shows it after
/// importing the `.mat` export: what the Match ID says once the match is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ended {
    /// GNU Backgammon's game state: 3 resigned, 4 dropped.
    pub(super) state: u8,
    /// The player GNU Backgammon counts on roll (the Position ID is from his side).
    pub(super) on_roll: Side,
    /// The player whose turn it is.
    pub(super) turn: Side,
    /// The resignation as scored: 0 none, 1 single, 2 gammon, 3 backgammon.
    pub(super) resigned: u8,
    /// The roll the resigner left unplayed, as the `.mat` writes it; `[0, 0]` if none.
    pub(super) dice: [u8; 2],
}

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
            .map(Decision::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Plays a decision.
    pub(super) fn decide(&mut self, decision: Decision) -> Result<(), EngineError> {
        if !self.decisions().contains(&decision) {
            return Err(EngineError::illegal(if self.decisions().is_empty() {
                format!("{decision} is not allowed now: no decision is awaited")
            } else {
                format!(
                    "{decision} is not allowed now; the decisions allowed are {}",
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
                self.ended = Some(Ended {
                    state: 4,
                    on_roll: side,
                    turn: side.opponent(),
                    resigned: 0,
                    dice: [0, 0],
                });
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
                    // As GNU Backgammon reads the `.mat`: the resigner on roll and to
                    // decide, the level as scored, and a roll he left unplayed.
                    self.ended = Some(Ended {
                        state: 3,
                        on_roll: by,
                        turn: by,
                        resigned: self.level_scored(level).gnubg(),
                        dice: self.unplayed_roll().unwrap_or_default(),
                    });
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
        self.level_scored(level).multiplier() * u16::from(self.cube.value)
    }

    /// The level a game won at `level` counts as: a single under the Jacoby rule while
    /// the cube was never turned, `level` otherwise.
    fn level_scored(&self, level: Level) -> Level {
        if self.options.jacoby_rule() && !self.cube.turned() {
            Level::Single
        } else {
            level
        }
    }

    /// The roll the player to move has to play, if a resignation ending the game now
    /// leaves it unplayed and the `.mat` export writes it (without moves, as GNU
    /// Backgammon's own export does): only a roll with more than one way to play it, for
    /// GNU Backgammon plays a roll with one way on import.
    pub(super) fn unplayed_roll(&self) -> Option<[u8; 2]> {
        if self.phase == Phase::Move && self.movegen.leaves().len() > 1 {
            self.dice
        } else {
            None
        }
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
            (Some(Ended { state: 4, .. }), _) => EndReason::DoublePassed,
            (Some(Ended { state: 3, .. }), _) => EndReason::ResignationAccepted,
            _ => EndReason::Goal,
        })
    }

    /// How the match ended, once it has by a resignation or a drop.
    fn ended_match(&self) -> Option<Ended> {
        self.ended.filter(|_| self.phase == Phase::Finished)
    }

    /// GNU Backgammon's game state (1 playing, 2 over, 3 resigned, 4 dropped), player on
    /// roll (from whose side the Position ID is taken) and player to decide, where the
    /// end of a match sets it.
    pub(super) fn gnubg_turn(&self) -> (u8, Side, Option<Side>) {
        match (self.phase == Phase::Finished, self.ended_match()) {
            (true, Some(e)) => (e.state, e.on_roll, Some(e.turn)),
            (true, None) => (2, self.to_move.opponent(), None),
            (false, _) => (1, self.to_move, None),
        }
    }

    /// The GNU Backgammon Match ID of the state.
    ///
    /// Once the match is over it names the end as GNU Backgammon does after importing
    /// the `.mat` export: a game played out (state 2) with the loser on roll and to
    /// decide, a dropped double (4) with the doubler on roll and the dropper to decide,
    /// an accepted resignation (3) with the resigner on roll and to decide, the level as
    /// scored (1 single, 2 gammon, 3 backgammon) and the dice of a roll he left unplayed
    /// that the `.mat` writes; a seat that left (3) with the leaver on roll and the
    /// winner to decide.
    pub fn match_id(&self) -> String {
        let (game_state, on_roll, turn) = self.gnubg_turn();
        let on_roll = on_roll.seat().0;
        let turn = turn.map(|t| t.seat().0);
        let ended = self.ended_match();
        let (doubled, resigned) = match (self.offer.map(|o| o.kind), ended) {
            (Some(OfferKind::Double), _) => (true, 0),
            (Some(OfferKind::Resign(level)), _) => (false, level.gnubg()),
            (None, Some(e)) => (false, e.resigned),
            (None, None) => (false, 0),
        };
        let dice = match (self.phase, ended) {
            (Phase::Move, _) => self.dice.unwrap_or_default(),
            (_, Some(e)) => e.dice,
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
