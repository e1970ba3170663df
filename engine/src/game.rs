//! The one interface every game implements.

use std::fmt::Debug;

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use utoipa::ToSchema;

use crate::capability::Capabilities;
pub use crate::seat::Seat;
use crate::EngineError;

/// A die: its name and the value of each of its faces. Every face is equally likely; a
/// value may stand on several faces (Ali Baba's die shows 0, 1, 1, 2, 2, 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Die {
    /// A short name, e.g. `d6`.
    #[schema(value_type = String, example = "d6")]
    pub name: &'static str,
    /// The value of each face, one entry per face.
    #[schema(value_type = Vec<u8>, example = json!([1, 2, 3, 4, 5, 6]))]
    pub faces: &'static [u8],
    /// What each face shows where that is a symbol rather than its value (Ludo's globe and
    /// star); empty when every face shows its value.
    #[schema(value_type = Vec<String>)]
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub labels: &'static [&'static str],
}

impl Die {
    /// The ordinary six-sided die.
    pub const D6: Die = Die {
        name: "d6",
        faces: &[1, 2, 3, 4, 5, 6],
        labels: &[],
    };

    /// Whether `value` stands on some face of this die.
    pub fn shows(&self, value: u8) -> bool {
        self.faces.contains(&value)
    }

    /// Checks that `values` are exactly `count` values this die can show.
    pub fn check(&self, count: u8, values: &[u8]) -> Result<(), EngineError> {
        if values.len() != usize::from(count) {
            return Err(EngineError::DiceCount {
                expected: count,
                got: values.len(),
            });
        }
        match values.iter().find(|v| !self.shows(**v)) {
            Some(&value) => Err(EngineError::ImpossibleDieValue {
                die: self.name,
                value,
            }),
            None => Ok(()),
        }
    }
}

/// What a game waits for next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Awaiting {
    /// `count` rolls of `die`, made for `seat`.
    Dice { seat: Seat, die: Die, count: u8 },
    /// A move by `seat`, chosen from the game's legal moves.
    Move { seat: Seat },
    /// Nothing: the game is over.
    Finished { result: GameResult },
}

impl Awaiting {
    /// The seat this input is for, if the game is not finished.
    pub fn seat(&self) -> Option<Seat> {
        match self {
            Awaiting::Dice { seat, .. } | Awaiting::Move { seat } => Some(*seat),
            Awaiting::Finished { .. } => None,
        }
    }
}

/// How a finished game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(from = "StoredResult")]
pub struct GameResult {
    /// The winning seat; absent for a draw. Where several seats win, the first of
    /// `winners`.
    pub winner: Option<Seat>,
    /// Every winning seat, best placed first where the game ranks them: one seat for an
    /// ordinary win, none for a draw.
    pub winners: Vec<Seat>,
    /// The kind of ending.
    pub ending: Ending,
    /// What the win is worth: backgammon 1 (single), 2 (gammon) or 3 (backgammon); other
    /// wins 1; a draw 0.
    pub points: u8,
}

/// A result as stored: results recorded before `winners` existed name only `winner`,
/// which was then the one winning seat.
#[derive(Deserialize)]
struct StoredResult {
    winner: Option<Seat>,
    winners: Option<Vec<Seat>>,
    ending: Ending,
    points: u8,
}

impl From<StoredResult> for GameResult {
    fn from(r: StoredResult) -> Self {
        GameResult {
            winners: r.winners.unwrap_or_else(|| r.winner.into_iter().collect()),
            winner: r.winner,
            ending: r.ending,
            points: r.points,
        }
    }
}

impl GameResult {
    /// A result won by `winners` (best placed first; none for a draw).
    pub fn of(winners: Vec<Seat>, ending: Ending, points: u8) -> Self {
        GameResult {
            winner: winners.first().copied(),
            winners,
            ending,
            points,
        }
    }

    /// An ordinary win worth one point.
    pub fn won(winner: Seat) -> Self {
        GameResult::of(vec![winner], Ending::Won, 1)
    }

    /// A draw.
    pub fn draw() -> Self {
        GameResult::of(Vec::new(), Ending::Draw, 0)
    }

    /// The last seat left after every other seat retired (resigned or timed out).
    pub fn last_seat_standing(winner: Seat) -> Self {
        GameResult::of(vec![winner], Ending::OpponentsRetired, 1)
    }
}

/// The kinds of ending a game can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The winner reached the goal of the game (in backgammon: a single game).
    Won,
    /// Backgammon: the loser bore off no checker.
    Gammon,
    /// Backgammon: a gammon with a loser's checker on the bar or in the winner's home board.
    Backgammon,
    /// Nobody won.
    Draw,
    /// Every other seat retired (resigned or ran out of time).
    OpponentsRetired,
}

/// Why a game ended, in words a player would use: what a front-end shows beside the
/// result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The winner reached the game's goal: every pawn home, every checker borne off,
    /// every figure across.
    Goal,
    /// Hoofden: the loser has no pawns left.
    NoPawnsLeft,
    /// Hoofden: the loser had no legal move.
    CannotMove,
    /// Hoofden: 100 moves in a row without a fight: a draw.
    QuietMoves,
    /// Hoofden: both sides lost their last pawns: a draw.
    AllPawnsRemoved,
    /// Every other seat left the game (resigned or ran out of time).
    OpponentsRetired,
    /// Backgammon with the cube: the loser passed a double (the last game of a match).
    DoublePassed,
    /// Backgammon with the cube: the winner accepted the loser's offer to resign (the
    /// last game of a match).
    ResignationAccepted,
}

/// Checks that game `G` can be played by `seats` seats.
pub fn check_seat_count<G: Game>(seats: u8) -> Result<(), EngineError> {
    if (G::MIN_SEATS..=G::MAX_SEATS).contains(&seats) {
        Ok(())
    } else {
        Err(EngineError::SeatCount {
            min: G::MIN_SEATS,
            max: G::MAX_SEATS,
            got: usize::from(seats),
        })
    }
}

/// A dice board game as a deterministic state machine.
///
/// The value itself is the game's state; its `Serialize` form is what the API shows.
/// Every method that takes input validates it first and leaves the game unchanged when it
/// returns an error.
pub trait Game: Clone + Debug + Send + Sync + Serialize + ToSchema + 'static {
    /// The creation options; `Default` gives the documented defaults.
    type Options: Clone + Debug + Default + Serialize + DeserializeOwned + ToSchema;
    /// One choice of the player to move (a full move: everything the roll is used for).
    type Move: Clone + Debug + PartialEq + Serialize + DeserializeOwned + ToSchema;

    /// The variant's name in the API, e.g. `backgammon`.
    const VARIANT: &'static str;
    /// A human-readable title.
    const TITLE: &'static str;
    /// The fewest seats the game can be played by.
    const MIN_SEATS: u8;
    /// The most seats the game can be played by.
    const MAX_SEATS: u8;
    /// What the game can do beyond being played (match files, analysis); none unless
    /// the game says so.
    const CAPABILITIES: Capabilities = Capabilities::NONE;

    /// A new game with these options for `seats` seats, at its very beginning.
    fn new(options: &Self::Options, seats: u8) -> Result<Self, EngineError>;

    /// The options this game was created with.
    fn options(&self) -> &Self::Options;

    /// What the game waits for next.
    fn awaiting(&self) -> Awaiting;

    /// Every legal move of the seat to move, one per distinct result, in a stable order;
    /// empty unless the game awaits a move.
    fn legal_moves(&self) -> Vec<Self::Move>;

    /// Applies the values shown by the awaited dice. A roll no move can use is handled
    /// here: the turn passes (or the extra roll the rules grant follows).
    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError>;

    /// Applies one of the legal moves.
    fn apply_move(&mut self, mv: &Self::Move) -> Result<(), EngineError>;

    /// How many legal moves there are: `legal_moves().len()`, which a game may know
    /// without building the moves.
    fn legal_move_count(&self) -> usize {
        self.legal_moves().len()
    }

    /// Applies the legal move at `index` of `legal_moves()` (for players that choose by
    /// position in the list: bots, play-outs). A game may do it without building the list.
    fn apply_legal_move(&mut self, index: usize) -> Result<(), EngineError> {
        let mv = self.legal_moves().into_iter().nth(index).ok_or_else(|| {
            EngineError::illegal(format!("there is no legal move number {index}"))
        })?;
        self.apply_move(&mv)
    }

    /// Takes `seat` out of the game (it resigned or ran out of time): its pieces leave
    /// the board and it is skipped from then on. When one seat is left it wins with
    /// [`Ending::OpponentsRetired`]; in a two-seat game that happens at once.
    fn retire(&mut self, seat: Seat) -> Result<(), EngineError>;

    /// How far `seat` has come towards winning, in the game's own units (higher is
    /// better; e.g. pips already travelled). Bots compare it before and after a move to
    /// prefer captures, hits and progress. The default knows nothing (always 0).
    fn progress(&self, seat: Seat) -> i32 {
        let _ = seat;
        0
    }

    /// An offer the awaited seat must answer, named for notices and listings (in
    /// backgammon with the cube: `double` or `resignation`); `None` for an ordinary move.
    fn question(&self) -> Option<&'static str> {
        None
    }

    /// For a decision that progress cannot judge (backgammon's cube and resignations),
    /// the index among the legal moves of the choice the game's own simple heuristic
    /// makes, which the greedy bot plays; `None` when an ordinary move is awaited.
    fn decision_hint(&self) -> Option<usize> {
        None
    }

    /// Rebuilds a game from its state as this type's `Serialize` writes it (the text
    /// [`crate::AnyGame::state_json`] gives), so that a checkpoint of a game can be kept
    /// outside the process: the state written is the whole state, everything else
    /// (legal moves, tables derived from the options) is derived from it again. The
    /// rebuilt game plays on exactly as the one written. The default refuses: a game
    /// without it is always folded from its first event.
    fn from_state(state: &str) -> Result<Self, EngineError> {
        let _ = state;
        Err(EngineError::state(format!(
            "{} cannot be rebuilt from its state",
            Self::VARIANT
        )))
    }

    /// Why the game ended, once it has. The default tells only a win at the goal from a
    /// win by retirement; a game with other ways to end (Hoofden) says which.
    fn end_reason(&self) -> Option<EndReason> {
        match self.awaiting() {
            Awaiting::Finished { result } => Some(match result.ending {
                Ending::OpponentsRetired => EndReason::OpponentsRetired,
                _ => EndReason::Goal,
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_result_names_its_winners_beside_the_first_winner() {
        let won = serde_json::to_value(GameResult::won(Seat(2))).expect("json");
        assert_eq!(
            won,
            json!({"winner": 2, "winners": [2], "ending": "won", "points": 1})
        );
        let draw = serde_json::to_value(GameResult::draw()).expect("json");
        assert_eq!(draw["winner"], json!(null));
        assert_eq!(draw["winners"], json!([]));
        let shared = GameResult::of(vec![Seat(1), Seat(0)], Ending::Won, 1);
        assert_eq!(shared.winner, Some(Seat(1)));
    }

    #[test]
    fn a_result_stored_before_winners_existed_reads_as_its_one_winner() {
        // As in the game_finished events of older logs: the audit compares them with
        // the engine's result, which must still be equal.
        let old: GameResult =
            serde_json::from_value(json!({"winner": 1, "ending": "gammon", "points": 2}))
                .expect("an old result");
        assert_eq!(old, GameResult::of(vec![Seat(1)], Ending::Gammon, 2));
        let old_draw: GameResult =
            serde_json::from_value(json!({"winner": null, "ending": "draw", "points": 0}))
                .expect("an old draw");
        assert_eq!(old_draw, GameResult::draw());
    }

    #[test]
    fn a_stored_result_with_winners_keeps_them_and_round_trips() {
        let shared = GameResult::of(vec![Seat(3), Seat(1)], Ending::Won, 1);
        let text = serde_json::to_string(&shared).expect("json");
        let back: GameResult = serde_json::from_str(&text).expect("read back");
        assert_eq!(back, shared);
    }
}
