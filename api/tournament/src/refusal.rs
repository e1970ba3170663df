//! Why an event is refused (`Refusal`) and why a round breaks the pairing rules
//! (`PairingViolation`). A refused event changes nothing.

use thiserror::Error;

use crate::player::PlayerId;

/// Why `Tournament::apply` (or `pair_next_round`) refuses.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Refusal {
    #[error("the tournament has not been created")]
    NotCreated,
    #[error("the tournament has already been created")]
    AlreadyCreated,
    #[error("the tournament is finished")]
    Finished,
    #[error("invalid rules: {0}")]
    InvalidRules(&'static str),
    #[error("the rules cannot change once the first round is paired")]
    RulesAfterStart,
    #[error("{0} is already registered")]
    AlreadyRegistered(PlayerId),
    #[error("registration is closed: the tournament has started")]
    RegistrationClosed,
    #[error("the tournament is full")]
    Full,
    #[error("{0} is not registered")]
    NotRegistered(PlayerId),
    #[error("{0} has already withdrawn")]
    AlreadyWithdrawn(PlayerId),
    #[error("the event is for round {given}, but {current} rounds are paired")]
    WrongRound { given: u32, current: u32 },
    #[error("round {round} still has games without a result")]
    RoundNotComplete { round: u32 },
    #[error("the tournament is complete: there is no next round")]
    Complete,
    #[error("the tournament is not complete")]
    NotComplete,
    #[error("fewer than two players can be paired")]
    NotEnoughPlayers,
    #[error("round {round} has no table {table}")]
    UnknownTable { round: u32, table: u32 },
    #[error("the result of round {round}, table {table} is already recorded")]
    ResultRecordedTwice { round: u32, table: u32 },
    #[error("the result does not name the table's players: {0}")]
    ResultDoesNotFit(&'static str),
    #[error("this game has no draws here")]
    DrawNotAllowed,
    #[error("the round does not follow the rules: {0}")]
    Pairing(#[from] PairingViolation),
}

/// Why a round is not the one the rules give (`check_round`).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PairingViolation {
    #[error(
        "no round was due: not created, finished, complete, results missing or too few players"
    )]
    NoRoundDue,
    #[error("round {given} where round {expected} is next")]
    WrongNumber { given: u32, expected: u32 },
    #[error("{0} is not a player of this round (unknown, withdrawn or not yet joined)")]
    NotAPlayer(PlayerId),
    #[error("{0} appears more than once")]
    Twice(PlayerId),
    #[error("{0} is missing from the round")]
    Missing(PlayerId),
    #[error("table numbers must be distinct and start at 1")]
    TableNumbers,
    #[error("a table of {size} players where tables seat 2 to {max}")]
    TableSize { size: usize, max: u32 },
    #[error("{given} byes where {expected} are needed")]
    Byes { given: usize, expected: usize },
    #[error("{0} gets a second bye while another player has had none")]
    SecondBye(PlayerId),
    #[error("{0} and {1} meet again though a pairing without a rematch exists")]
    AvoidableRematch(PlayerId, PlayerId),
    #[error("table sizes are not as even as possible")]
    UnevenTables,
    #[error("the pairing is not the one the rules give from the standings")]
    NotTheRulesPairing,
}
